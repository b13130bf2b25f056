// SPDX-License-Identifier: GPL-2.0
/*
 * Description: cgroup v2 proactive reclaim works in the guest: a process in
 * a fresh cgroup faults in 128 MiB; memory.current, memory.stat and
 * memory.pressure read as expected; writing memory.reclaim swaps memory out
 * (memory.current drops, memory.swap.current rises), and the process then
 * reads back every byte it wrote.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/cgroup_util.h"
#include "kselftest.h"

#define WORKLOAD_BYTES (128UL << 20)
#define RECLAIM_BYTES (64UL << 20)

static char cg[256];

static long long read_u64(const char *file)
{
	char buf[64];

	if (cg_read(cg, file, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 10);
}

/* memory.stat value of KEY, or -1. */
static long long stat_key(const char *key)
{
	static char buf[8192];
	size_t klen = strlen(key);
	char *line;

	if (cg_read(cg, "memory.stat", buf, sizeof(buf)))
		return -1;
	for (line = buf; line && *line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (!strncmp(line, key, klen) && line[klen] == ' ')
			return strtoll(line + klen + 1, NULL, 10);
	}
	return -1;
}

static uint64_t pattern(size_t i)
{
	return (i + 1) * 0x9e3779b97f4a7c15ULL;
}

/* The workload: fill, report ready, wait, verify, exit 0 if intact. */
static int workload(int ready_fd, int go_fd)
{
	size_t i, n = WORKLOAD_BYTES / sizeof(uint64_t);
	uint64_t *mem;
	char c = 'r';

	mem = mmap(NULL, WORKLOAD_BYTES, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 2;
	/* Small pages only: memory.reclaim then has exact 4 KiB units. */
	madvise(mem, WORKLOAD_BYTES, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		mem[i] = pattern(i);
	if (write(ready_fd, &c, 1) != 1 || read(go_fd, &c, 1) != 1)
		return 2;
	for (i = 0; i < n; i++)
		if (mem[i] != pattern(i))
			return 1;
	return 0;
}

int main(void)
{
	long long before, after, swap_before, swap_after, anon;
	int ready[2], go[2], status, ret;
	char buf[512], c = 'g';
	pid_t pid;

	ksft_print_header();
	if (access("/sys/fs/cgroup/cgroup.controllers", F_OK))
		ksft_exit_skip("cgroup v2 not mounted\n");
	ksft_set_plan(7);

	ret = cg_make(cg, sizeof(cg), "mdk-test-reclaim");
	if (ret)
		ksft_exit_fail_msg("mkdir %s: %s\n", cg, strerror(-ret));
	if (pipe(ready) || pipe(go))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));

	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (pid == 0) {
		if (cg_add(cg, getpid()))
			_exit(3);
		_exit(workload(ready[1], go[0]));
	}
	if (read(ready[0], &c, 1) != 1) {
		waitpid(pid, &status, 0);
		rmdir(cg);
		ksft_exit_fail_msg("workload died before it was ready\n");
	}

	before = read_u64("memory.current");
	ksft_print_msg("memory.current %lld\n", before);
	ksft_test_result(before >= (long long)WORKLOAD_BYTES,
			 "memory.current counts the workload's 128 MiB\n");

	anon = stat_key("anon");
	ksft_test_result(anon >= (long long)WORKLOAD_BYTES,
			 "memory.stat anon counts it (%lld)\n", anon);

	ret = cg_read(cg, "memory.pressure", buf, sizeof(buf));
	ksft_test_result(!ret && !strncmp(buf, "some avg10=", 11) &&
				 strstr(buf, "\nfull avg10="),
			 "memory.pressure has some and full PSI lines\n");

	swap_before = read_u64("memory.swap.current");
	snprintf(buf, sizeof(buf), "%lu", RECLAIM_BYTES);
	ret = cg_write(cg, "memory.reclaim", buf);
	/* -EAGAIN means "reclaimed less than asked": still a valid outcome. */
	ksft_test_result(ret == 0 || ret == -EAGAIN,
			 "memory.reclaim accepts 64 MiB (%s)\n",
			 ret ? strerror(-ret) : "ok");

	after = read_u64("memory.current");
	swap_after = read_u64("memory.swap.current");
	ksft_print_msg("memory.current %lld -> %lld, swap %lld -> %lld\n",
		       before, after, swap_before, swap_after);
	ksft_test_result(after >= 0 &&
				 before - after >= (long long)RECLAIM_BYTES / 2,
			 "memory.current dropped by at least 32 MiB\n");
	ksft_test_result(swap_after - swap_before >=
				 (long long)RECLAIM_BYTES / 2,
			 "memory.swap.current rose by at least 32 MiB\n");

	if (write(go[1], &c, 1) != 1)
		kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	ksft_test_result(
		WIFEXITED(status) && WEXITSTATUS(status) == 0,
		"the workload reads back all 128 MiB intact (status 0x%x)\n",
		status);

	if (rmdir(cg))
		ksft_print_msg("rmdir %s: %s\n", cg, strerror(errno));
	ksft_finished();
}
