// SPDX-License-Identifier: GPL-2.0
/*
 * Description: a CO-RE BPF skeleton, compiled against the vmlinux.h of one
 * Debian kernel, loads on the running kernel (which may be the other one)
 * and reads back what /proc says: this process's pid, comm, VMA count,
 * mapped bytes and mm->total_vm, from an iter/task_vma walk.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <linux/types.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kselftest.h"
#include "bpf_core.h"
#include "bpf_core.skel.h"

/* Read here, not malloc'ed: reading must not add a VMA of its own. */
static char maps[1 << 16];

struct proc_view {
	unsigned int vmas;
	unsigned long long bytes;
};

/* VMAs per /proc/self/maps, without the [vsyscall] gate page. */
static int read_maps(struct proc_view *v)
{
	ssize_t n, len = 0;
	char *line, *next;
	int fd;

	fd = open("/proc/self/maps", O_RDONLY);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, maps + len, sizeof(maps) - 1 - len)) > 0)
		len += n;
	close(fd);
	maps[len] = '\0';
	memset(v, 0, sizeof(*v));
	for (line = maps; *line; line = next) {
		unsigned long long lo, hi;

		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		if (strstr(line, "[vsyscall]") &&
		    strstr(line, "[vsyscall]") < next)
			continue;
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2) {
			v->vmas++;
			v->bytes += hi - lo;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bpf_core_bpf *skel;
	struct bpf_link *link;
	struct proc_view view;
	char buf[64], comm[16];
	int iter_fd, err;

	ksft_print_header();
	ksft_set_plan(6);

	skel = bpf_core_bpf__open();
	if (!skel)
		ksft_exit_fail_msg("open skeleton: %s\n", strerror(errno));
	skel->rodata->targ_tgid = getpid();
	err = bpf_core_bpf__load(skel);
	ksft_test_result(!err, "skeleton loads (CO-RE relocations resolve)\n");
	if (err)
		ksft_exit_fail_msg("load: %s\n", strerror(-err));

	link = bpf_program__attach_iter(skel->progs.walk_vmas, NULL);
	if (!link)
		ksft_exit_fail_msg("attach iter: %s\n", strerror(errno));
	if (read_maps(&view))
		ksft_exit_fail_msg("read /proc/self/maps\n");
	iter_fd = bpf_iter_create(bpf_link__fd(link));
	if (iter_fd < 0)
		ksft_exit_fail_msg("bpf_iter_create: %s\n", strerror(errno));
	while (read(iter_fd, buf, sizeof(buf)) > 0)
		;
	close(iter_fd);

	ksft_test_result(skel->bss->seen.pid == (__u32)getpid(),
			 "task->pid reads back (%u)\n", skel->bss->seen.pid);
	prctl(PR_GET_NAME, comm, 0, 0, 0);
	ksft_test_result(!strncmp(skel->bss->seen.comm, comm, sizeof(comm)),
			 "task->comm reads back (%.16s)\n",
			 skel->bss->seen.comm);
	ksft_test_result(skel->bss->seen.vmas == view.vmas,
			 "VMA count matches /proc/self/maps (%u, %u)\n",
			 skel->bss->seen.vmas, view.vmas);
	ksft_test_result(skel->bss->seen.vma_bytes == view.bytes,
			 "mapped bytes match /proc/self/maps (%llu, %llu)\n",
			 (unsigned long long)skel->bss->seen.vma_bytes,
			 view.bytes);
	ksft_test_result(skel->bss->seen.total_vm_pages * getpagesize() ==
				 view.bytes,
			 "mm->total_vm matches (%llu pages)\n",
			 (unsigned long long)skel->bss->seen.total_vm_pages);

	bpf_link__destroy(link);
	bpf_core_bpf__destroy(skel);
	ksft_finished();
}
