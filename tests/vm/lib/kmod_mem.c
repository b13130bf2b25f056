// SPDX-License-Identifier: GPL-2.0
/*
 * Description: a helper of the kmod_* VM tests, not a test itself (it is
 * not in tests/vm/TESTS): holds anonymous memory filled with a known
 * pattern and answers commands on standard input, one per line, so that a
 * shell test can move the memory around underneath it (offline the
 * segment it is on, demote it) and then ask whether it survived.
 *
 *   kmod_mem MIB
 *     prints "ready nodes N:PAGES ...", then reads commands:
 *   nodes    print "nodes N:PAGES ..." (where the pages are, move_pages(2))
 *   verify   print "intact" or "corrupt at OFFSET"
 *   pin      take extra references on 16 pages (vmsplice(2) into a pipe
 *            that nobody reads), which makes them impossible to migrate;
 *            print "pinned"
 *   unpin    drain the pipe; print "unpinned"
 *   quit     exit 0
 */
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#define PIN_PAGES 16

static uint64_t word(uint64_t i)
{
	return (i + 1) * 0x9e3779b97f4a7c15ULL ^ 0xc3a5c85c97cb3127ULL;
}

static void print_nodes(const char *prefix, char *buf, size_t bytes)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t pages = bytes / page, i, n;
	int counts[64] = { 0 }, other = 0, k;
	void *addrs[4096];
	int status[4096];

	for (i = 0; i < pages; i += n) {
		n = pages - i < 4096 ? pages - i : 4096;
		for (k = 0; k < (int)n; k++)
			addrs[k] = buf + (i + k) * page;
		if (numa_move_pages(0, n, addrs, NULL, status, 0)) {
			perror("move_pages");
			exit(1);
		}
		for (k = 0; k < (int)n; k++) {
			if (status[k] >= 0 && status[k] < 64)
				counts[status[k]]++;
			else
				other++;
		}
	}
	printf("%s", prefix);
	for (k = 0; k < 64; k++)
		if (counts[k])
			printf(" %d:%d", k, counts[k]);
	if (other)
		printf(" none:%d", other);
	printf("\n");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	int pipefd[2] = { -1, -1 };
	char line[64];
	size_t bytes, i, n;
	uint64_t *w;
	char *buf;

	if (argc != 2 || atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: kmod_mem MIB\n");
		return 2;
	}
	bytes = (size_t)atoi(argv[1]) << 20;
	buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/* Base pages only: the tests count and move 4 KiB pages. */
	madvise(buf, bytes, MADV_NOHUGEPAGE);
	w = (uint64_t *)buf;
	n = bytes / sizeof(*w);
	for (i = 0; i < n; i++)
		w[i] = word(i);
	print_nodes("ready nodes", buf, bytes);

	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, "nodes")) {
			print_nodes("nodes", buf, bytes);
		} else if (!strcmp(line, "verify")) {
			for (i = 0; i < n && w[i] == word(i); i++)
				;
			if (i == n)
				printf("intact\n");
			else
				printf("corrupt at %zu\n", i * sizeof(*w));
		} else if (!strcmp(line, "pin")) {
			struct iovec iov = { buf, PIN_PAGES * page };

			if (pipe(pipefd) || vmsplice(pipefd[1], &iov, 1, 0) !=
						    (ssize_t)iov.iov_len) {
				perror("vmsplice");
				return 1;
			}
			printf("pinned\n");
		} else if (!strcmp(line, "unpin")) {
			char sink[4096];

			close(pipefd[1]);
			while (read(pipefd[0], sink, sizeof(sink)) > 0)
				;
			close(pipefd[0]);
			printf("unpinned\n");
		} else if (!strcmp(line, "quit")) {
			return 0;
		} else {
			printf("unknown command '%s'\n", line);
		}
		fflush(stdout);
	}
	return 0;
}
