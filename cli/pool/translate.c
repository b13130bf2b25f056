// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl pool translate ADDR: one PAMT lookup, of a host address or with
 * --nha of an address in the pool.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/jsonout.h"
#include "pool.h"

static int parse_translate(int argc, char **argv, struct mdkctl_pool_opts *o,
			   uint64_t *addr)
{
	int i = mdkctl_pool_parse_opts(argc, argv, "jN", o);

	if (i < 0)
		return 2;
	if (argc - i != 1) {
		fprintf(stderr, "mdkctl: pool translate: expected one ADDR\n");
		return 2;
	}
	return mdkctl_pool_parse_u64("translate", "address", argv[i], addr) ?
		       2 :
		       0;
}

static int translate_json(const struct cmm_mp_info *info,
			  const struct cmm_mp_translate *t)
{
	struct json_object *j = json_object_new_object();

	mdkd_json_add_u64(j, "ha", info->hdm_base + t->nha);
	mdkd_json_add_u64(j, "nha", t->nha);
	mdkd_json_add_bool(j, "valid", t->result & CMM_MP_XLATE_VALID);
	if (t->result & CMM_MP_XLATE_VALID) {
		mdkd_json_add_u64(j, "device", t->device);
		mdkd_json_add_u64(j, "chip_id", t->chip_id);
		mdkd_json_add_u64(j, "dev_offset", t->dev_offset);
		mdkd_json_add_i64(j, "segment",
				  t->segment == CMM_MP_NONE ? -1 :
							      (int)t->segment);
		mdkd_json_add_bool(j, "local", t->result & CMM_MP_XLATE_LOCAL);
		mdkd_json_add_bool(j, "device_failed",
				   t->result & CMM_MP_XLATE_DEV_FAILED);
		mdkd_json_add_u64(j, "latency_ns", t->latency_ns);
	}
	return mdkd_json_emit(j) ? 1 : 0;
}

static void translate_text(const struct cmm_mp_info *info,
			   const struct cmm_mp_translate *t)
{
	printf("HA 0x%" PRIx64 " -> NHA 0x%" PRIx64 ": ",
	       (uint64_t)(info->hdm_base + t->nha), (uint64_t)t->nha);
	if (!(t->result & CMM_MP_XLATE_VALID)) {
		printf("no device (invalid PAMT entry)\n");
		return;
	}
	printf("device %u (chip 0x%" PRIx64 "), offset 0x%" PRIx64
	       ", segment %u, %s (%u ns)%s\n",
	       t->device, (uint64_t)t->chip_id, (uint64_t)t->dev_offset,
	       t->segment, t->result & CMM_MP_XLATE_LOCAL ? "local" : "remote",
	       t->latency_ns,
	       t->result & CMM_MP_XLATE_DEV_FAILED ? ", device failed" : "");
}

int mdkctl_pool_translate(int argc, char **argv)
{
	struct mdkctl_pool_opts o = { 0 };
	struct cmm_mp_translate t = { 0 };
	struct cmm_mp_info info;
	uint64_t addr;
	int fd, ret;

	ret = parse_translate(argc, argv, &o, &addr);
	if (ret)
		return ret;
	fd = mdkctl_pool_open_info("translate", &info);
	if (fd < 0)
		return 1;
	t.addr = addr;
	t.flags = o.nha ? CMM_MP_XLATE_NHA : 0;
	ret = mdkctl_pool_ioctl(fd, CMM_MP_IOC_TRANSLATE, &t);
	close(fd);
	if (ret == -ERANGE) {
		fprintf(stderr,
			"mdkctl: pool translate: %s 0x%" PRIx64
			" is outside the pool (HA 0x%" PRIx64 "-0x%" PRIx64
			", NHA 0x0-0x%" PRIx64 ")\n",
			o.nha ? "NHA" : "address", addr,
			(uint64_t)info.hdm_base,
			(uint64_t)(info.hdm_base + info.pool_bytes - 1),
			(uint64_t)(info.pool_bytes - 1));
		return 1;
	}
	if (ret) {
		fprintf(stderr, "mdkctl: pool translate: %s\n", strerror(-ret));
		return 1;
	}
	if (o.json)
		return translate_json(&info, &t);
	translate_text(&info, &t);
	return 0;
}
