// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl pool fail DEV, recover DEV: fault injection, a device failing
 * (its mappings revoked, its segments offlined) and recovering.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/jsonout.h"
#include "pool.h"

/* What fail or recover did, as JSON or text; 0, or 1 if not written. */
static int fault_report(const struct mdkctl_pool_opts *o,
			const struct cmm_mp_fault *f, bool fail)
{
	if (o->json) {
		struct json_object *j = json_object_new_object();

		mdkd_json_add_u64(j, "device", f->device);
		mdkd_json_add_bool(j, "failed", fail);
		mdkd_json_add_u64(j, "segments_offlined", f->segments_offlined);
		mdkd_json_add_u64(j, "segments_revoked", f->segments_revoked);
		mdkd_json_add_u64(j, "segments_busy", f->segments_busy);
		mdkd_json_add_i64(
			j, "first_busy",
			f->first_busy == CMM_MP_NONE ? -1 : (int)f->first_busy);
		return mdkd_json_emit(j) ? 1 : 0;
	}
	if (fail) {
		printf("device %u: failed; %u segments offlined, %u shared segments revoked\n",
		       f->device, f->segments_offlined, f->segments_revoked);
	} else {
		printf("device %u: recovered%s\n", f->device,
		       o->wipe ? ", its shared segments wiped" : "");
	}
	return 0;
}

static int parse_fault(int argc, char **argv, bool fail,
		       struct mdkctl_pool_opts *o)
{
	int i = mdkctl_pool_parse_opts(argc, argv, fail ? "jt" : "jW", o);

	if (i < 0)
		return 2;
	o->args = argv + i;
	o->nargs = argc - i;
	return 0;
}

static int pool_fault_verb(int argc, char **argv, bool fail)
{
	const char *verb = argv[0];
	struct mdkctl_pool_opts o = { .timeout_s = 120 };
	struct cmm_mp_fault f = { 0 };
	struct cmm_mp_info info;
	int fd, ret;

	ret = parse_fault(argc, argv, fail, &o);
	if (ret)
		return ret;
	fd = mdkctl_pool_open_info(verb, &info);
	if (fd < 0)
		return 1;
	if (mdkctl_pool_parse_device(verb, o.nargs, o.args, info.nr_devices,
				     &f.device)) {
		close(fd);
		return 2;
	}
	if (fail)
		mdkctl_pool_arm_timeout(o.timeout_s);
	f.flags = o.wipe ? CMM_MP_RECOVER_WIPE : 0;
	ret = mdkctl_pool_ioctl(
		fd, fail ? CMM_MP_IOC_DEV_FAIL : CMM_MP_IOC_DEV_RECOVER, &f);
	mdkctl_pool_disarm_timeout();
	close(fd);
	if (ret == -EOPNOTSUPP) {
		fprintf(stderr,
			"mdkctl: pool %s: cmm_mp.ko was built without fault injection (CONFIG_CMM_MP_FAULT_INJECTION)\n",
			verb);
		return 1;
	}
	if (ret && ret != -EBUSY) {
		fprintf(stderr, "mdkctl: pool %s: device %u: %s\n", verb,
			f.device, strerror(-ret));
		return 1;
	}
	if (fault_report(&o, &f, fail))
		return 1;
	if (ret == -EBUSY) {
		fprintf(stderr,
			"mdkctl: pool fail: device %u: %u online segments could not be moved (first: segment %u); they stay online\n",
			f.device, f.segments_busy, f.first_busy);
		return 1;
	}
	return 0;
}

int mdkctl_pool_fail(int argc, char **argv)
{
	return pool_fault_verb(argc, argv, true);
}

int mdkctl_pool_recover(int argc, char **argv)
{
	return pool_fault_verb(argc, argv, false);
}
