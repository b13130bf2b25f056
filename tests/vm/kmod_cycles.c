// SPDX-License-Identifier: GPL-2.0
/*
 * Description: cmm_mp.ko loads and unloads 50 times in a row, each time
 * with /dev/cmm_mp, /sys/kernel/cmm_mp and its /proc/iomem claim, and
 * leaves nothing behind: no device, no sysfs directory, no claim, the
 * pool's node still without memory; dmesg has one "loaded" and one
 * "unloaded" line per cycle.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kselftest.h"
#include "lib/kmod_util.h"

#define CYCLES 50

static char log_buf[1 << 18];

int main(void)
{
	const char *skip;
	const char *node = getenv("MDK_POOL_NODE");
	char has_memory[64];
	int bad = 0, kfd, i, ret;
	struct stat st;

	ksft_print_header();
	skip = kmod_skip_reason(node);
	if (skip)
		ksft_exit_skip("%s\n", skip);
	if (kmod_loaded())
		ksft_exit_fail_msg("cmm_mp is loaded already\n");
	ksft_set_plan(4);

	kfd = kmsg_open();
	for (i = 0; i < CYCLES; i++) {
		ret = kmod_load("");
		if (ret) {
			ksft_print_msg("cycle %d: finit_module: %s\n", i,
				       strerror(-ret));
			bad++;
			continue;
		}
		if (stat("/dev/cmm_mp", &st) || !S_ISCHR(st.st_mode) ||
		    access(CMM_MP_SYS "/segments/seg0/state", R_OK) ||
		    !file_has("/proc/iomem", "CMM-MP pool")) {
			ksft_print_msg(
				"cycle %d: /dev/cmm_mp, sysfs or the iomem claim missing\n",
				i);
			bad++;
		}
		ret = kmod_unload();
		if (ret) {
			ksft_print_msg("cycle %d: delete_module: %s\n", i,
				       strerror(-ret));
			bad++;
		}
	}
	ksft_test_result(
		!bad,
		"%d load/unload cycles, each with its device, sysfs and pool claim\n",
		CYCLES);
	ksft_test_result(
		!kmod_loaded() && access("/dev/cmm_mp", F_OK) &&
			access(CMM_MP_SYS, F_OK) &&
			!file_has("/proc/iomem", "CMM-MP") &&
			!file_has("/proc/iomem", "cmm_mp"),
		"nothing is left: no module, /dev/cmm_mp, /sys/kernel/cmm_mp, iomem claim\n");
	ret = read_text("/sys/devices/system/node/has_memory", has_memory,
			sizeof(has_memory));
	ksft_print_msg("nodes with memory: %s\n", has_memory);
	/* The bench's pool node is 1: the others with memory are "0". */
	ksft_test_result(!ret && !strcmp(has_memory, "0"),
			 "node %s still has no memory\n", node);
	kmsg_read(kfd, log_buf, sizeof(log_buf));
	ksft_test_result(
		count_lines(log_buf, "cmm_mp: loaded, version") == CYCLES &&
			count_lines(log_buf, "cmm_mp: unloaded") == CYCLES,
		"dmesg: %d 'loaded' and %d 'unloaded' lines\n", CYCLES, CYCLES);
	ksft_finished();
}
