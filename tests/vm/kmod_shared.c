// SPDX-License-Identifier: GPL-2.0
/*
 * Description: a shared segment is memory two processes map together
 * through /dev/cmm_mp: it starts zeroed, stores of one are seen by the
 * other, aligned 64-bit atomics (fetch-add and compare-exchange) from both
 * at once lose nothing; a failed device's mapping gets SIGBUS until the
 * device recovers (contents kept, or wiped with CMM_MP_RECOVER_WIPE); a
 * segment that stops being shared is revoked for good; bad mmaps and
 * conflicting segment operations are refused.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest.h"
#include "lib/kmod_util.h"
#include "../../kmod/uapi/cmm_mp.h"

#define ROUNDS 20000

static sigjmp_buf jump;
static volatile sig_atomic_t sigbus;

static void on_sigbus(int sig)
{
	(void)sig;
	sigbus = 1;
	siglongjmp(jump, 1);
}

/* Reads *p; 1 and *v set, or 0 on SIGBUS. */
static int try_read(volatile uint64_t *p, uint64_t *v)
{
	sigbus = 0;
	if (sigsetjmp(jump, 1))
		return 0;
	*v = *p;
	return 1;
}

static int seg_ioctl(int fd, unsigned long req, uint32_t id,
		     struct cmm_mp_segment_info *s)
{
	memset(s, 0, sizeof(*s));
	s->id = id;
	return ioctl(fd, req, s) ? -errno : 0;
}

static int dev_ioctl(int fd, unsigned long req, uint32_t dev, uint32_t flags)
{
	struct cmm_mp_fault f = { .device = dev, .flags = flags };

	return ioctl(fd, req, &f) ? -errno : 0;
}

/* Both processes: ROUNDS fetch-adds on p[0], ROUNDS CAS increments of p[1]. */
static void hammer(_Atomic uint64_t *p)
{
	uint64_t old;
	int i;

	for (i = 0; i < ROUNDS; i++) {
		atomic_fetch_add(&p[0], 1);
		old = atomic_load(&p[1]);
		while (!atomic_compare_exchange_weak(&p[1], &old, old + 1))
			;
	}
}

static void cleanup(int fd, uint32_t seg)
{
	struct cmm_mp_segment_info s;

	dev_ioctl(fd, CMM_MP_IOC_DEV_RECOVER, 1, 0);
	seg_ioctl(fd, CMM_MP_IOC_SEG_OFFLINE, seg, &s);
	seg_ioctl(fd, CMM_MP_IOC_SEG_OFFLINE, 0, &s);
}

int main(void)
{
	const char *skip;
	struct sigaction sa = { .sa_handler = on_sigbus };
	struct cmm_mp_device_info dev = { .id = 1 };
	struct cmm_mp_info info = { 0 };
	struct cmm_mp_segment_info s;
	volatile uint64_t *q;
	_Atomic uint64_t *p;
	uint64_t v, len;
	uint32_t seg;
	int fd, ret, status, zero, ok;
	pid_t pid;
	size_t i;

	ksft_print_header();
	skip = kmod_skip_reason(getenv("MDK_POOL_BASE"));
	if (skip)
		ksft_exit_skip("%s\n", skip);
	ret = kmod_load("");
	if (ret)
		ksft_exit_fail_msg("finit_module: %s\n", strerror(-ret));
	fd = open(CMM_MP_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, CMM_MP_IOC_DEVICE, &dev) ||
	    ioctl(fd, CMM_MP_IOC_INFO, &info))
		ksft_exit_fail_msg("%s: %s\n", CMM_MP_DEVICE_PATH,
				   strerror(errno));
	/* A device failure revokes the mapping: that half needs injection. */
	if (!(info.flags & CMM_MP_INFO_FAULT_INJECTION)) {
		close(fd);
		kmod_unload();
		ksft_exit_skip(
			"cmm_mp.ko built without CONFIG_CMM_MP_FAULT_INJECTION\n");
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	ksft_set_plan(14);

	/* The first segment of device 1, as SWARM-KV takes one per device. */
	seg = dev.first_segment;
	ret = seg_ioctl(fd, CMM_MP_IOC_SEG_SHARE, seg, &s);
	len = s.bytes;
	ksft_test_result(
		!ret && s.state == CMM_MP_SEG_SHARED &&
			s.mmap_offset == (uint64_t)seg * s.bytes,
		"segment %u of device 1 shared at mmap offset %llu * %llu\n",
		seg, (unsigned long long)seg, (unsigned long long)len);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 s.mmap_offset);
	if (p == MAP_FAILED) {
		cleanup(fd, seg);
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	}
	q = (volatile uint64_t *)p;
	for (zero = 1, i = 0; i < len / 8; i += 4096 / 8)
		zero &= q[i] == 0;
	ksft_test_result(zero, "it starts zeroed\n");

	pid = fork();
	if (pid == 0) {
		/* The other "host": its own open and mapping. */
		int cfd = open(CMM_MP_DEVICE_PATH, O_RDWR | O_CLOEXEC);
		_Atomic uint64_t *c;

		c = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, cfd,
			 (off_t)seg * len);
		if (c == MAP_FAILED)
			_exit(2);
		((volatile uint64_t *)c)[1000] = 0x5eed5eed5eed5eedULL;
		hammer(c);
		_exit(0);
	}
	hammer(p);
	waitpid(pid, &status, 0);
	ksft_test_result(WIFEXITED(status) && !WEXITSTATUS(status) &&
				 q[1000] == 0x5eed5eed5eed5eedULL,
			 "a store by the other process is visible\n");
	ksft_print_msg("fetch_add counter %llu, CAS counter %llu (want %d)\n",
		       (unsigned long long)q[0], (unsigned long long)q[1],
		       2 * ROUNDS);
	ksft_test_result(
		q[0] == 2 * ROUNDS && q[1] == 2 * ROUNDS,
		"concurrent 64-bit fetch-add and compare-exchange from two processes lose nothing\n");
	seg_ioctl(fd, CMM_MP_IOC_SEGMENT, seg, &s);
	ksft_test_result(s.mappings == 1,
			 "one mapping left after the other exited (%u)\n",
			 s.mappings);

	ret = dev_ioctl(fd, CMM_MP_IOC_DEV_FAIL, 1, 0);
	ok = !try_read(q, &v) && sigbus;
	ksft_test_result(!ret && ok,
			 "after pool fail 1, an access gets SIGBUS\n");
	ret = dev_ioctl(fd, CMM_MP_IOC_DEV_RECOVER, 1, 0);
	ok = try_read(q, &v) && v == 2 * ROUNDS;
	ksft_test_result(
		!ret && ok,
		"after recover, the mapping works again, contents kept\n");
	dev_ioctl(fd, CMM_MP_IOC_DEV_FAIL, 1, 0);
	ret = dev_ioctl(fd, CMM_MP_IOC_DEV_RECOVER, 1, CMM_MP_RECOVER_WIPE);
	ok = try_read(q, &v) && v == 0 && try_read(q + 1000, &v) && v == 0;
	ksft_test_result(!ret && ok,
			 "fail and recover with CMM_MP_RECOVER_WIPE: zeroed\n");

	ok = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd,
		  (off_t)seg * len) == MAP_FAILED &&
	     errno == EINVAL;
	ok &= mmap(NULL, 2 * len, PROT_READ, MAP_SHARED, fd,
		   (off_t)seg * len) == MAP_FAILED &&
	      errno == EINVAL;
	ok &= mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd,
		   (off_t)(seg + 1) * len) == MAP_FAILED &&
	      errno == EINVAL;
	ok &= mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd,
		   (off_t)seg * len) == MAP_FAILED &&
	      errno == EINVAL;
	ok &= mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t)1 << 50) ==
		      MAP_FAILED &&
	      errno == EINVAL;
	ok &= mprotect((void *)p, 4096, PROT_READ | PROT_EXEC) &&
	      errno == EACCES;
	ksft_test_result(
		ok,
		"private, too long, not shared, executable, far-off mmaps are refused\n");
	{
		volatile uint64_t *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					    MAP_SHARED, fd,
					    (off_t)seg * len + 8192);

		q[1024] = 42;
		ok = w != MAP_FAILED && w[0] == 42;
		if (w != MAP_FAILED)
			munmap((void *)w, 4096);
	}
	ksft_test_result(
		ok,
		"a page-aligned offset inside the segment maps the same memory\n");

	ok = seg_ioctl(fd, CMM_MP_IOC_SEG_ADD, seg, &s) == -EBUSY &&
	     s.state == CMM_MP_SEG_SHARED;
	ok &= !seg_ioctl(fd, CMM_MP_IOC_SEG_ADD, 0, &s) &&
	      seg_ioctl(fd, CMM_MP_IOC_SEG_SHARE, 0, &s) == -EBUSY;
	ksft_test_result(
		ok,
		"a shared segment cannot be onlined, an online one not shared (EBUSY)\n");

	ret = seg_ioctl(fd, CMM_MP_IOC_SEG_OFFLINE, seg, &s);
	ok = !try_read(q, &v);
	ksft_test_result(!ret && s.state == CMM_MP_SEG_OFFLINE && ok,
			 "unsharing revokes the mapping (SIGBUS)\n");
	ret = seg_ioctl(fd, CMM_MP_IOC_SEG_SHARE, seg, &s);
	ok = !try_read(q, &v);
	ksft_test_result(
		!ret && ok,
		"and it stays revoked when the segment is shared again\n");
	munmap((void *)p, len);
	seg_ioctl(fd, CMM_MP_IOC_SEGMENT, seg, &s);
	ksft_print_msg(
		"segment %u: %llu failures (refused faults and operations)\n",
		seg, (unsigned long long)s.failures);

	cleanup(fd, seg);
	close(fd);
	ret = kmod_unload();
	ksft_test_result(!ret, "unloaded\n");
	ksft_finished();
}
