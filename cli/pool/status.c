// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl pool status: the pool, its hosts, devices and segments, as text
 * or JSON.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/jsonout.h"
#include "pool.h"

static const char *host_state_name(uint8_t state)
{
	switch (state) {
	case CMM_MP_HOST_STATE_ALIVE:
		return "alive";
	case CMM_MP_HOST_STATE_DEAD:
		return "dead";
	default:
		return "absent";
	}
}

static struct json_object *json_pool(const struct cmm_mp_info *info)
{
	struct json_object *o = json_object_new_object();

	mdkd_json_add_u64(o, "abi_version", info->abi_version);
	mdkd_json_add_u64(o, "hdm_base", info->hdm_base);
	mdkd_json_add_u64(o, "pool_bytes", info->pool_bytes);
	mdkd_json_add_u64(o, "segment_bytes", info->segment_bytes);
	mdkd_json_add_u64(o, "granule_bytes", info->granule_bytes);
	mdkd_json_add_u64(o, "block_bytes", info->block_bytes);
	mdkd_json_add_i64(o, "node", info->node);
	mdkd_json_add_u64(o, "self", info->self);
	mdkd_json_add_u64(o, "local_ns", info->local_ns);
	mdkd_json_add_u64(o, "remote_ns", info->remote_ns);
	mdkd_json_add_i64(o, "adistance", info->adistance);
	mdkd_json_add_bool(o, "fault_injection",
			   info->flags & CMM_MP_INFO_FAULT_INJECTION);
	mdkd_json_add_bool(o, "tracepoints",
			   info->flags & CMM_MP_INFO_TRACEPOINTS);
	mdkd_json_add_u64(o, "host", info->host);
	mdkd_json_add_u64(o, "nr_hosts", info->nr_hosts ? info->nr_hosts : 1);
	return o;
}

static struct json_object *json_hosts(const struct cmm_mp_hosts *h)
{
	struct json_object *o = json_object_new_object(), *a;
	uint32_t i;

	mdkd_json_add_u64(o, "host", h->host);
	mdkd_json_add_u64(o, "nr_hosts", h->nr_hosts);
	mdkd_json_add_u64(o, "lease_ms", h->lease_ms);
	mdkd_json_add_u64(o, "takeovers", h->takeovers);
	a = json_object_new_array();
	for (i = 0; i < h->nr_hosts && i < CMM_MP_HOSTS_MAX; i++) {
		struct json_object *e = json_object_new_object();

		mdkd_json_add_u64(e, "id", i);
		mdkd_json_add_str(e, "state", host_state_name(h->state[i]));
		mdkd_json_add_u64(e, "heartbeat", h->heartbeat[i]);
		mdkd_json_push(a, e);
	}
	mdkd_json_add(o, "list", a);
	return o;
}

/* The hosts line of pool status; nothing from a module without them. */
static void print_hosts(const struct cmm_mp_hosts *h)
{
	uint32_t i;

	printf("hosts: this host is %u of %u, lease %u ms, %" PRIu64
	       " segments taken over;",
	       h->host, h->nr_hosts, h->lease_ms, (uint64_t)h->takeovers);
	for (i = 0; i < h->nr_hosts && i < CMM_MP_HOSTS_MAX; i++)
		printf(" %u %s%s", i, host_state_name(h->state[i]),
		       i + 1 < h->nr_hosts ? "," : "");
	printf("\n\n");
}

static struct json_object *json_device(const struct cmm_mp_device_info *d)
{
	struct json_object *o = json_object_new_object();

	mdkd_json_add_u64(o, "id", d->id);
	mdkd_json_add_u64(o, "chip_id", d->chip_id);
	mdkd_json_add_str(o, "state",
			  d->state == CMM_MP_DEV_FAILED ? "failed" : "ok");
	mdkd_json_add_u64(o, "capacity_bytes", d->capacity_bytes);
	mdkd_json_add_u64(o, "nha", d->nha);
	mdkd_json_add_u64(o, "first_segment", d->first_segment);
	mdkd_json_add_u64(o, "nr_segments", d->nr_segments);
	mdkd_json_add_u64(o, "latency_ns", d->latency_ns);
	mdkd_json_add_bool(o, "local", d->flags & CMM_MP_DEVICE_LOCAL);
	mdkd_json_add_u64(o, "lookups", d->lookups);
	mdkd_json_add_u64(o, "failures", d->failures);
	return o;
}

static int parse_status(int argc, char **argv, struct mdkctl_pool_opts *o)
{
	int i = mdkctl_pool_parse_opts(argc, argv, "j", o);

	if (i < 0)
		return 2;
	if (i != argc) {
		fprintf(stderr, "mdkctl: pool status: takes no operands\n");
		return 2;
	}
	return 0;
}

/* The pool's lines of text, and the head of the devices' table. */
static void text_pool(const struct cmm_mp_info *info,
		      const struct cmm_mp_hosts *hosts, bool have_hosts)
{
	printf("pool: 0x%" PRIx64 "-0x%" PRIx64 " (%" PRIu64
	       " MiB), HDM base 0x%" PRIx64 ", node %d, tier adistance %d\n",
	       (uint64_t)info->hdm_base,
	       (uint64_t)(info->hdm_base + info->pool_bytes - 1),
	       (uint64_t)(info->pool_bytes >> 20), (uint64_t)info->hdm_base,
	       info->node, info->adistance);
	printf("      %u devices, %u segments of %" PRIu64
	       " MiB, PAMT granule %" PRIu64
	       " MiB; this host's device: %u (local %u ns, remote %u ns)\n\n",
	       info->nr_devices, info->nr_segments,
	       (uint64_t)(info->segment_bytes >> 20),
	       (uint64_t)(info->granule_bytes >> 20), info->self,
	       info->local_ns, info->remote_ns);
	if (have_hosts && hosts->nr_hosts > 1)
		print_hosts(hosts);
	printf("%-4s %-10s %-7s %9s %-12s %-9s %-15s %8s %8s\n", "DEV", "CHIP",
	       "STATE", "CAPACITY", "NHA", "SEGMENTS", "LATENCY", "LOOKUPS",
	       "FAILURES");
}

static void text_device(const struct cmm_mp_device_info *d)
{
	char segs[32], lat[32];

	snprintf(segs, sizeof(segs), "%u-%u", d->first_segment,
		 d->first_segment + d->nr_segments - 1);
	snprintf(lat, sizeof(lat), "%u ns %s", d->latency_ns,
		 d->flags & CMM_MP_DEVICE_LOCAL ? "local" : "remote");
	printf("%-4u 0x%-8" PRIx64 " %-7s %5" PRIu64 " MiB 0x%-10" PRIx64
	       " %-9s %-15s %8" PRIu64 " %8" PRIu64 "\n",
	       d->id, (uint64_t)d->chip_id,
	       d->state == CMM_MP_DEV_FAILED ? "failed" : "ok",
	       (uint64_t)(d->capacity_bytes >> 20), (uint64_t)d->nha, segs, lat,
	       (uint64_t)d->lookups, (uint64_t)d->failures);
}

static void text_segment(const struct cmm_mp_segment_info *s)
{
	char blocks[32], held[64];

	snprintf(blocks, sizeof(blocks), "%u-%u", s->first_block,
		 s->first_block + s->nr_blocks - 1);
	printf("%-4u %-4u %-8s 0x%-10" PRIx64 " 0x%-10" PRIx64 " 0x%-10" PRIx64
	       " %-9s %u/%-4u %-5u %-7d %s%s\n",
	       s->id, s->device, mdkctl_pool_seg_state_name(s->state),
	       (uint64_t)s->phys, (uint64_t)s->nha, (uint64_t)s->dev_offset,
	       blocks, s->online_blocks, s->nr_blocks, s->mappings, s->owner,
	       mdkctl_pool_holder_name(s, held, sizeof(held)),
	       s->flags & CMM_MP_SEGMENT_DEV_FAILED ? " (device failed)" : "");
}

/* Every device, as rows of text or into @jdevs; 0, or 1 after a message. */
static int status_devices(int fd, const struct cmm_mp_info *info,
			  struct json_object *jdevs)
{
	for (uint32_t id = 0; id < info->nr_devices; id++) {
		struct cmm_mp_device_info d = { .id = id };
		int ret = mdkctl_pool_ioctl(fd, CMM_MP_IOC_DEVICE, &d);

		if (ret) {
			fprintf(stderr, "mdkctl: pool status: device %u: %s\n",
				id, strerror(-ret));
			return 1;
		}
		if (jdevs)
			mdkd_json_push(jdevs, json_device(&d));
		else
			text_device(&d);
	}
	return 0;
}

/* Every segment, as rows of text or into @jsegs; 0, or 1 after a message. */
static int status_segments(int fd, const struct cmm_mp_info *info,
			   struct json_object *jsegs)
{
	if (!jsegs)
		printf("\n%-4s %-4s %-8s %-12s %-12s %-12s %-9s %-6s %-5s %-7s %s\n",
		       "SEG", "DEV", "STATE", "PHYS", "NHA", "DEV_OFFSET",
		       "BLOCKS", "ONLINE", "MAPS", "PID", "HELD BY");
	for (uint32_t id = 0; id < info->nr_segments; id++) {
		struct cmm_mp_segment_info s = { .id = id };
		int ret = mdkctl_pool_ioctl(fd, CMM_MP_IOC_SEGMENT, &s);

		if (ret) {
			fprintf(stderr, "mdkctl: pool status: segment %u: %s\n",
				id, strerror(-ret));
			return 1;
		}
		if (jsegs)
			mdkd_json_push(jsegs, mdkctl_pool_json_segment(&s));
		else
			text_segment(&s);
	}
	return 0;
}

int mdkctl_pool_status(int argc, char **argv)
{
	struct json_object *jdevs = NULL, *jsegs = NULL, *doc;
	struct cmm_mp_hosts hosts = { 0 };
	struct mdkctl_pool_opts o = { 0 };
	struct cmm_mp_info info;
	bool have_hosts;
	int fd, ret;

	ret = parse_status(argc, argv, &o);
	if (ret)
		return ret;
	fd = mdkctl_pool_open_info("status", &info);
	if (fd < 0)
		return 1;
	ret = 1;
	/* A module of ABI 1 has no CMM_MP_IOC_HOSTS (ENOTTY). */
	have_hosts = !mdkctl_pool_ioctl(fd, CMM_MP_IOC_HOSTS, &hosts);
	if (o.json) {
		jdevs = json_object_new_array();
		jsegs = json_object_new_array();
		if (!jdevs || !jsegs) {
			fprintf(stderr, "mdkctl: pool status: out of memory\n");
			goto out;
		}
	} else {
		text_pool(&info, &hosts, have_hosts);
	}
	if (status_devices(fd, &info, jdevs) ||
	    status_segments(fd, &info, jsegs))
		goto out;
	ret = 0;
	if (o.json) {
		doc = json_object_new_object();
		mdkd_json_add(doc, "pool", json_pool(&info));
		mdkd_json_add(doc, "devices", jdevs);
		mdkd_json_add(doc, "segments", jsegs);
		if (have_hosts)
			mdkd_json_add(doc, "hosts", json_hosts(&hosts));
		jdevs = jsegs = NULL;
		if (mdkd_json_emit(doc))
			ret = 1;
	}
out:
	json_object_put(jdevs);
	json_object_put(jsegs);
	close(fd);
	return ret;
}
