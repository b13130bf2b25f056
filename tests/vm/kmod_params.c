// SPDX-License-Identifier: GPL-2.0
/*
 * Description: cmm_mp.ko refuses bad module parameters with EINVAL and
 * one clear "cmm_mp: ..." line in the kernel log naming the parameter,
 * and leaves nothing behind; good explicit parameters (pool range, chip
 * ids with capacities, segment size, self, latencies) compose the pool
 * as documented: ranked by chip id, latencies and abstract distance, an
 * invalid PAMT entry past the devices, two-block segments.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "kselftest.h"
#include "lib/kmod_util.h"
#include "../../kmod/uapi/cmm_mp.h"

#define MiB (1ULL << 20)

struct bad_case {
	char params[256];
	char want[256];
};

static char log_buf[1 << 16];

static int nothing_left(void)
{
	return !kmod_loaded() && access("/dev/cmm_mp", F_OK) &&
	       access(CMM_MP_SYS, F_OK) &&
	       !file_has("/proc/iomem", "CMM-MP pool");
}

/* The module's lines of @log, without the kernel's taint notes. */
static int module_lines(const char *log)
{
	return count_lines(log, "cmm_mp:") - count_lines(log, "taint");
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");
	int ok;

	if (!f)
		return -errno;
	ok = fputs(text, f) >= 0;
	ok = !fclose(f) && ok;
	return ok ? 0 : -errno;
}

static int translate_invalid(int fd, uint64_t addr)
{
	struct cmm_mp_translate t = { .addr = addr };

	if (ioctl(fd, CMM_MP_IOC_TRANSLATE, &t))
		return 0;
	return !(t.result & CMM_MP_XLATE_VALID) && t.device == CMM_MP_NONE;
}

/* Online segment @id as mdkctl does; offline it again.  1 on success. */
static int online_two_blocks(int fd, uint32_t id)
{
	struct cmm_mp_segment_info s = { .id = id };
	char path[128], state[32];
	int ok = 1;
	uint32_t b;

	if (ioctl(fd, CMM_MP_IOC_SEG_ADD, &s))
		return 0;
	for (b = s.first_block; b < s.first_block + s.nr_blocks; b++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/memory/memory%u/state", b);
		if (read_text(path, state, sizeof(state)) ||
		    (strcmp(state, "online") &&
		     write_text(path, "online_movable")))
			ok = 0;
	}
	if (ioctl(fd, CMM_MP_IOC_SEGMENT, &s))
		ok = 0;
	ok = ok && s.nr_blocks == 2 && s.online_blocks == 2 &&
	     s.state == CMM_MP_SEG_ONLINE;
	if (ioctl(fd, CMM_MP_IOC_SEG_OFFLINE, &s) ||
	    s.state != CMM_MP_SEG_OFFLINE)
		ok = 0;
	return ok;
}

int main(void)
{
	const char *skip;
	const char *base_s = getenv("MDK_POOL_BASE"),
		   *size_s = getenv("MDK_POOL_SIZE");
	struct bad_case c[24];
	int n = 0, i, kfd, ret, fd;
	uint64_t base, size, mib;
	char params[256];

	ksft_print_header();
	skip = kmod_skip_reason(base_s && size_s);
	if (skip)
		ksft_exit_skip("%s\n", skip);
	if (kmod_loaded())
		ksft_exit_fail_msg("cmm_mp is loaded already\n");
	base = strtoull(base_s, NULL, 0);
	size = strtoull(size_s, NULL, 0);
	mib = size / MiB;

#define BAD(p, ...)                                                  \
	do {                                                         \
		snprintf(c[n].params, sizeof(c[n].params), "%s", p); \
		snprintf(c[n].want, sizeof(c[n].want), __VA_ARGS__); \
		n++;                                                 \
	} while (0)
#define P(...) (snprintf(params, sizeof(params), __VA_ARGS__), params)
	BAD("segment_size=100M",
	    "segment_size=100M: not a multiple of the memory block size (128 MiB)");
	BAD("segment_size=12X", "segment_size=12X: expected a size in bytes");
	BAD(P("segment_size=%llu", (unsigned long long)(2 * size)),
	    "larger than the pool (%llu MiB)", (unsigned long long)mib);
	BAD(P("pool_base=0x%llx", (unsigned long long)base),
	    "pool_base and pool_size must be given together");
	BAD(P("pool_base=0x%llx pool_size=0x%llx", (unsigned long long)base,
	      (unsigned long long)(size + 128 * MiB)),
	    "the memory block at 0x%llx holds memory the firmware reserved",
	    (unsigned long long)(base + size));
	BAD(P("pool_base=0x%llx pool_size=0x%llx",
	      (unsigned long long)(base + 4096), (unsigned long long)size),
	    "not whole memory blocks (128 MiB)");
	BAD("pool_base=0x8000000 pool_size=128M",
	    "the memory block at 0x8000000 is System RAM of the running kernel");
	BAD("devices=0x3c:256M,0x3c:256M",
	    "devices=0x3c:256M,0x3c:256M: chip id 0x3c is announced twice");
	BAD("devices=0x3c:256M;0xa1:256M",
	    "offset 9: expected ',' or the end after a capacity");
	BAD(P("devices=0x3c:%lluM,0xa1:512M", (unsigned long long)(mib - 256)),
	    "the devices announce more than the pool's %llu MiB",
	    (unsigned long long)mib);
	BAD("devices=0x3c:200M",
	    "capacity 209715200 bytes is not a positive multiple of the segment size (128 MiB)");
	BAD("devices=0", "a device count must be 1 to 32, not 0");
	BAD(P("devices=%llu", (unsigned long long)(mib / 128 + 1)),
	    "%llu devices need %llu segments of 128 MiB",
	    (unsigned long long)(mib / 128 + 1),
	    (unsigned long long)(mib / 128 + 1));
	BAD("self=2", "self=2: the pool has devices 0 to 1");
	BAD("local_ns=0", "expected 1 <= local_ns <= remote_ns <= 1000000");
	BAD("local_ns=3000 remote_ns=2000",
	    "local_ns=3000 remote_ns=2000: expected 1 <= local_ns <= remote_ns");
	BAD("local_ns=90 remote_ns=100", "would put the node in the DRAM tier");
	BAD("node=0", "node=0: not a possible NUMA node without memory");
	BAD("node=7", "node=7: not a possible NUMA node without memory");
	BAD("self=-1", "%s", "");
	ksft_set_plan(n + 6);

	kfd = kmsg_open();
	for (i = 0; i < n; i++) {
		kmsg_read(kfd, log_buf, sizeof(log_buf));
		ret = kmod_load(c[i].params);
		if (!ret)
			kmod_unload();
		kmsg_read(kfd, log_buf, sizeof(log_buf));
		ksft_print_msg("%s: %s: %.*s\n", c[i].params, strerror(-ret),
			       (int)strcspn(log_buf, "\n"), log_buf);
		/* A malformed number the kernel's parser itself refuses. */
		if (!c[i].want[0]) {
			ksft_test_result(
				ret == -EINVAL && nothing_left(),
				"%s is refused by the kernel's parser, nothing left\n",
				c[i].params);
			continue;
		}
		ksft_test_result(
			ret == -EINVAL && strstr(log_buf, c[i].want) &&
				module_lines(log_buf) == 1 && nothing_left(),
			"%s is refused with one clear dmesg line, nothing left\n",
			c[i].params);
	}

	ret = kmod_load(P(
		"pool_base=0x%llx pool_size=0x%llx devices=0xa1:512M,0x3c:256M segment_size=256M self=1 local_ns=400 remote_ns=2000",
		(unsigned long long)base, (unsigned long long)size));
	ksft_test_result(
		!ret,
		"loads with explicit pool, devices, segment_size, self, latencies\n");
	if (ret)
		ksft_exit_fail_msg("finit_module: %s\n", strerror(-ret));
	ksft_print_msg("dev0 %s %s %s, dev1 %s %s %s %s\n",
		       cmm_attr("devices/dev0/chip_id"),
		       cmm_attr("devices/dev0/bytes"),
		       cmm_attr("devices/dev0/segments"),
		       cmm_attr("devices/dev1/chip_id"),
		       cmm_attr("devices/dev1/bytes"),
		       cmm_attr("devices/dev1/segments"),
		       cmm_attr("devices/dev1/nha"));
	ksft_test_result(
		!strcmp(cmm_attr("devices/dev0/chip_id"), "0x3c") &&
			!strcmp(cmm_attr("devices/dev0/bytes"), "268435456") &&
			!strcmp(cmm_attr("devices/dev0/segments"), "0-0") &&
			!strcmp(cmm_attr("devices/dev1/chip_id"), "0xa1") &&
			!strcmp(cmm_attr("devices/dev1/segments"), "1-2") &&
			!strcmp(cmm_attr("devices/dev1/nha"), "0x10000000"),
		"ranked by chip id: dev0 = 0x3c (256 MiB, segment 0), dev1 = 0xa1 (512 MiB, segments 1-2)\n");
	ksft_print_msg("adistance %s, nr_segments %s\n", cmm_attr("adistance"),
		       cmm_attr("nr_segments"));
	ksft_test_result(
		!strcmp(cmm_attr("devices/dev1/local"), "1") &&
			!strcmp(cmm_attr("devices/dev1/latency_ns"), "400") &&
			!strcmp(cmm_attr("devices/dev0/local"), "0") &&
			!strcmp(cmm_attr("devices/dev0/latency_ns"), "2000") &&
			!strcmp(cmm_attr("adistance"), "5374") &&
			!strcmp(cmm_attr("nr_segments"), "3"),
		"self=1 local at 400 ns, dev0 remote at 2000 ns; adistance 5374 (mean 933 ns)\n");

	fd = open(CMM_MP_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		ksft_exit_fail_msg("%s: %s\n", CMM_MP_DEVICE_PATH,
				   strerror(errno));
	ksft_test_result(translate_invalid(fd, base + 768 * MiB),
			 "past the devices, the PAMT entry is invalid\n");
	ksft_test_result(
		online_two_blocks(fd, 1),
		"a 256 MiB segment onlines as its two memory blocks\n");
	close(fd);
	ret = kmod_unload();
	ksft_test_result(!ret && nothing_left(),
			 "offlined and unloaded: nothing left\n");
	ksft_finished();
}
