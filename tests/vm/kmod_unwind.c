// SPDX-License-Identifier: GPL-2.0
/*
 * Description: every unwinding path of cmm_mp.ko's init works: with
 * inject_init_fault=N the load fails at step N (each allocation and
 * registration in turn), logs which, and leaves nothing behind (no module,
 * /dev/cmm_mp, sysfs directory or /proc/iomem claim); a step past the last
 * is a bad parameter; afterwards a normal load still gives the node its
 * slower tier.  The control area (step CONTROL_AREA) exists with hosts > 1
 * only: that step and every later one are also failed with hosts=2, so
 * that the control area's unwinding (heartbeat stopped, area unmapped) is
 * walked too.
 */
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "kselftest.h"
#include "lib/kmod_util.h"
#include "../../kmod/uapi/cmm_mp.h"

/* enum cmm_mp_step in kmod/cmm_mp.h: steps 1 to 14. */
#define NR_STEPS 14
/* CMM_MP_STEP_CONTROL_AREA: taken with hosts > 1 only. */
#define STEP_CONTROL_AREA 8

static char log_buf[1 << 15];

static int nothing_left(void)
{
	return !kmod_loaded() && access("/dev/cmm_mp", F_OK) &&
	       access(CMM_MP_SYS, F_OK) && !file_has("/proc/iomem", "CMM-MP");
}

int main(void)
{
	const char *skip;
	char params[64], path[128], want[64];
	struct cmm_mp_segment_info s = { 0 };
	struct cmm_mp_info info = { 0 };
	int step, ret, kfd, fd, ok;

	ksft_print_header();
	skip = kmod_skip_reason(getenv("MDK_POOL_BASE"));
	if (skip)
		ksft_exit_skip("%s\n", skip);
	if (kmod_loaded())
		ksft_exit_fail_msg("cmm_mp is loaded already\n");
	ret = kmod_load("");
	if (ret)
		ksft_exit_fail_msg("finit_module: %s\n", strerror(-ret));
	ok = !access("/sys/module/cmm_mp/parameters/inject_init_fault", F_OK);
	kmod_unload();
	if (!ok)
		ksft_exit_skip("built without CONFIG_CMM_MP_FAULT_INJECTION\n");
	ksft_set_plan(NR_STEPS + 2 + NR_STEPS - STEP_CONTROL_AREA);

	kfd = kmsg_open();
	for (step = 1; step <= 2 * NR_STEPS - STEP_CONTROL_AREA; step++) {
		int st = step <= NR_STEPS ? step :
					    step - NR_STEPS + STEP_CONTROL_AREA;
		int multi = step > NR_STEPS || st == STEP_CONTROL_AREA;

		snprintf(params, sizeof(params), "%sinject_init_fault=%d",
			 multi ? "hosts=2 ctl_reset=1 " : "", st);
		snprintf(want, sizeof(want),
			 "cmm_mp: inject_init_fault=%d: failing the ", st);
		kmsg_read(kfd, log_buf, sizeof(log_buf));
		ret = kmod_load(params);
		if (!ret)
			kmod_unload();
		kmsg_read(kfd, log_buf, sizeof(log_buf));
		ksft_print_msg("%s: %s: %.*s\n", params, strerror(-ret),
			       (int)strcspn(log_buf, "\n"), log_buf);
		ksft_test_result(
			ret && strstr(log_buf, want) && nothing_left(),
			"%sstep %d fails the load, logged, nothing left\n",
			multi ? "hosts=2: " : "", st);
	}
	snprintf(params, sizeof(params), "inject_init_fault=%d", NR_STEPS + 1);
	ret = kmod_load(params);
	if (!ret)
		kmod_unload();
	ksft_test_result(ret == -EINVAL && nothing_left(),
			 "step %d is a bad parameter\n", NR_STEPS + 1);

	/* The node's memory type went away with each failure: it is set again. */
	ret = kmod_load("");
	fd = ret ? -1 : open(CMM_MP_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ok = fd >= 0 && !ioctl(fd, CMM_MP_IOC_INFO, &info) &&
	     !ioctl(fd, CMM_MP_IOC_SEG_ADD, &s);
	if (ok) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/memory/memory%u/state",
			 s.first_block);
		ok = file_has(path, "online") ||
		     !write_text_file(path, "online_movable");
		snprintf(
			path, sizeof(path),
			"/sys/devices/virtual/memory_tiering/memory_tier%d/nodelist",
			info.adistance >> 7);
		ok = ok && file_has(path, "1");
		ioctl(fd, CMM_MP_IOC_SEG_OFFLINE, &s);
	}
	if (fd >= 0)
		close(fd);
	ret = kmod_unload();
	ksft_test_result(
		ok && !ret && nothing_left(),
		"then a normal load puts an online segment's node in tier %d\n",
		info.adistance >> 7);
	ksft_finished();
}
