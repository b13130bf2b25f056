// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl pool: the CMM-MP pool of cmm_mp.ko, through /dev/cmm_mp.
 *
 *   status                   the pool, its devices and segments
 *   translate ADDR           one PAMT lookup (HA, or NHA with --nha)
 *   online SEG...|all        hot-add and online as movable memory
 *   offline SEG...|all       offline with migration (or stop sharing)
 *   share SEG...             export for mmap of /dev/cmm_mp
 *   fail DEV / recover DEV   fault injection
 *   bench                    latency and bandwidth per NUMA node
 *
 * The module hot-adds a segment; it cannot online memory blocks itself,
 * so "online" then writes online_movable to each block's state file
 * under /sys/devices/system/memory, which is what makes it one command.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kmod/uapi/cmm_mp.h"
#include "daemon/jsonout.h"
#include "mdkctl.h"
#include "parse.h"
#include "pool_bench.h"

#define MEMORY_SYSFS "/sys/devices/system/memory"
#define MiB (1024.0 * 1024.0)

/* Options of the pool verbs; each verb accepts the ones it documents. */
struct pool_opts {
	bool json;
	bool nha;
	bool wipe;
	unsigned int timeout_s;
	uint64_t bench_bytes;
	unsigned int bench_rounds;
};

enum {
	OPT_NHA = 0x100,
	OPT_WIPE,
};

static const char *const seg_state_names[] = {
	[CMM_MP_SEG_OFFLINE] = "offline",
	[CMM_MP_SEG_ADDED] = "added",
	[CMM_MP_SEG_ONLINE] = "online",
	[CMM_MP_SEG_SHARED] = "shared",
};

static const char *seg_state_name(uint32_t state)
{
	return state < sizeof(seg_state_names) / sizeof(seg_state_names[0]) ?
		       seg_state_names[state] :
		       "?";
}

/* "none", "host 1", "shared 0,1": who holds a segment in the pool. */
static const char *holder_name(const struct cmm_mp_segment_info *s, char *buf,
			       size_t len)
{
	size_t n;
	int h;

	switch (s->holding) {
	case CMM_MP_HOLD_NONE:
		return "none";
	case CMM_MP_HOLD_EXCLUSIVE:
		for (h = 0; h < CMM_MP_HOSTS_MAX && !(s->holders & 1U << h);
		     h++)
			;
		snprintf(buf, len, "host %d", h);
		return buf;
	case CMM_MP_HOLD_SHARED:
		n = (size_t)snprintf(buf, len, "shared");
		for (h = 0; h < CMM_MP_HOSTS_MAX && n < len; h++)
			if (s->holders & 1U << h)
				n += (size_t)snprintf(buf + n, len - n, "%s%d",
						      n == 6 ? " " : ",", h);
		return buf;
	default:
		return "invalid";
	}
}

/* A live host other than @self holding @s: its id, or -1. */
static int other_holder(const struct cmm_mp_segment_info *s, uint32_t self)
{
	int h;

	for (h = 0; h < CMM_MP_HOSTS_MAX; h++)
		if (s->holders & 1U << h && (uint32_t)h != self)
			return h;
	return -1;
}

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

static void on_alarm(int sig)
{
	(void)sig;
}

/* SIGALRM after @timeout_s interrupts a long ioctl (0: never). */
static void arm_timeout(unsigned int timeout_s)
{
	struct sigaction sa = { .sa_handler = on_alarm };

	if (!timeout_s)
		return;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL); /* no SA_RESTART */
	alarm(timeout_s);
}

static void disarm_timeout(void)
{
	alarm(0);
}

static int pool_open(const char *verb)
{
	int fd = open(CMM_MP_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		int err = errno;

		fprintf(stderr, "mdkctl: pool %s: %s: %s%s\n", verb,
			CMM_MP_DEVICE_PATH, strerror(err),
			err == ENOENT ? " (is cmm_mp.ko loaded?)" : "");
		return -err;
	}
	return fd;
}

static int pool_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

static int get_info(int fd, const char *verb, struct cmm_mp_info *info)
{
	int ret;

	memset(info, 0, sizeof(*info));
	ret = pool_ioctl(fd, CMM_MP_IOC_INFO, info);
	if (ret)
		fprintf(stderr, "mdkctl: pool %s: CMM_MP_IOC_INFO: %s\n", verb,
			strerror(-ret));
	return ret;
}

/* 0 on success, -EINVAL (after a message) for a bad number. */
static int parse_u64(const char *verb, const char *what, const char *s,
		     uint64_t *v)
{
	if (mdkctl_parse_u64(s, 0, 0, UINT64_MAX, v)) {
		fprintf(stderr, "mdkctl: pool %s: %s '%s': expected a number\n",
			verb, what, s);
		return -EINVAL;
	}
	return 0;
}

/*
 * Options common to the verbs; @allowed lists the short options a verb
 * takes.  Returns the index of the first operand, or -1 after a message.
 */
static int parse_opts(int argc, char **argv, const char *allowed,
		      struct pool_opts *o)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 't' },
		{ "size", required_argument, NULL, 's' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "nha", no_argument, NULL, OPT_NHA },
		{ "wipe", no_argument, NULL, OPT_WIPE },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+jt:s:r:", longopts, NULL)) !=
	       -1) {
		if (c == '?' || (c < 0x100 && !strchr(allowed, c)) ||
		    (c == OPT_NHA && !strchr(allowed, 'N')) ||
		    (c == OPT_WIPE && !strchr(allowed, 'W'))) {
			fprintf(stderr,
				"mdkctl: pool %s: unknown option '%s' (see mdkctl(8))\n",
				argv[0], argv[optind - 1]);
			return -1;
		}
		switch (c) {
		case 'j':
			o->json = true;
			break;
		case 't':
			if (parse_u64(argv[0], "--timeout", optarg, &v) ||
			    v > UINT_MAX)
				return -1;
			o->timeout_s = v;
			break;
		case 's':
			if (parse_u64(argv[0], "--size (MiB)", optarg, &v) ||
			    !v || v > (1ULL << 20))
				return -1;
			o->bench_bytes = v << 20;
			break;
		case 'r':
			if (parse_u64(argv[0], "--rounds", optarg, &v) || !v ||
			    v > 1000)
				return -1;
			o->bench_rounds = v;
			break;
		case OPT_NHA:
			o->nha = true;
			break;
		case OPT_WIPE:
			o->wipe = true;
			break;
		}
	}
	return optind;
}

/*
 * The segment ids named by the operands: numbers, ranges "A-B", or "all".
 * Returns the count (ids in *out, to free), or -1 after a message.
 */
static int parse_segments(const char *verb, int argc, char **argv,
			  uint32_t nr_segments, uint32_t **out)
{
	uint32_t *ids = NULL;
	size_t n = 0, cap = 0;
	int i;

	if (!argc) {
		fprintf(stderr, "mdkctl: pool %s: expected SEG... or 'all'\n",
			verb);
		return -1;
	}
	for (i = 0; i < argc; i++) {
		uint64_t first, last;
		char *dash = strchr(argv[i], '-');

		if (!strcmp(argv[i], "all")) {
			first = 0;
			last = nr_segments - 1;
		} else if (dash && dash != argv[i]) {
			*dash = '\0';
			if (parse_u64(verb, "segment", argv[i], &first) ||
			    parse_u64(verb, "segment", dash + 1, &last))
				goto err;
			*dash = '-';
		} else {
			if (parse_u64(verb, "segment", argv[i], &first))
				goto err;
			last = first;
		}
		if (first > last || last >= nr_segments) {
			fprintf(stderr,
				"mdkctl: pool %s: segment '%s': the pool has segments 0 to %u\n",
				verb, argv[i], nr_segments - 1);
			goto err;
		}
		for (; first <= last; first++) {
			if (n == cap) {
				uint32_t *p;

				cap = cap ? 2 * cap : 16;
				p = realloc(ids, cap * sizeof(*ids));
				if (!p)
					goto err;
				ids = p;
			}
			ids[n++] = first;
		}
	}
	*out = ids;
	return (int)n;
err:
	free(ids);
	return -1;
}

static int parse_device(const char *verb, int argc, char **argv,
			uint32_t nr_devices, uint32_t *dev)
{
	uint64_t v;

	if (argc != 1) {
		fprintf(stderr, "mdkctl: pool %s: expected one DEV\n", verb);
		return -1;
	}
	if (parse_u64(verb, "device", argv[0], &v))
		return -1;
	if (v >= nr_devices) {
		fprintf(stderr,
			"mdkctl: pool %s: device '%s': the pool has devices 0 to %u\n",
			verb, argv[0], nr_devices - 1);
		return -1;
	}
	*dev = v;
	return 0;
}

static struct json_object *json_segment(const struct cmm_mp_segment_info *s)
{
	struct json_object *o = json_object_new_object();

	mdkd_json_add_u64(o, "id", s->id);
	mdkd_json_add_str(o, "state", seg_state_name(s->state));
	mdkd_json_add_u64(o, "device", s->device);
	mdkd_json_add_bool(o, "local", s->flags & CMM_MP_SEGMENT_LOCAL);
	mdkd_json_add_bool(o, "device_failed",
			   s->flags & CMM_MP_SEGMENT_DEV_FAILED);
	mdkd_json_add_u64(o, "phys", s->phys);
	mdkd_json_add_u64(o, "nha", s->nha);
	mdkd_json_add_u64(o, "dev_offset", s->dev_offset);
	mdkd_json_add_u64(o, "bytes", s->bytes);
	mdkd_json_add_u64(o, "mmap_offset", s->mmap_offset);
	mdkd_json_add_u64(o, "first_block", s->first_block);
	mdkd_json_add_u64(o, "nr_blocks", s->nr_blocks);
	mdkd_json_add_u64(o, "online_blocks", s->online_blocks);
	mdkd_json_add_u64(o, "mappings", s->mappings);
	mdkd_json_add_i64(o, "owner", s->owner);
	{
		char held[64];

		mdkd_json_add_str(o, "held_by",
				  holder_name(s, held, sizeof(held)));
	}
	mdkd_json_add_u64(o, "holders", s->holders);
	mdkd_json_add_u64(o, "lookups", s->lookups);
	mdkd_json_add_u64(o, "failures", s->failures);
	return o;
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

static int pool_status(int argc, char **argv)
{
	struct json_object *jdevs = NULL, *jsegs = NULL, *doc;
	struct cmm_mp_hosts hosts = { 0 };
	struct pool_opts o = { 0 };
	struct cmm_mp_info info;
	int fd, ret = 1, i, have_hosts;
	uint32_t id;

	i = parse_opts(argc, argv, "j", &o);
	if (i < 0)
		return 2;
	if (i != argc) {
		fprintf(stderr, "mdkctl: pool status: takes no operands\n");
		return 2;
	}
	fd = pool_open("status");
	if (fd < 0)
		return 1;
	if (get_info(fd, "status", &info))
		goto out;
	/* A module of ABI 1 has no CMM_MP_IOC_HOSTS (ENOTTY). */
	have_hosts = !pool_ioctl(fd, CMM_MP_IOC_HOSTS, &hosts);

	if (o.json) {
		jdevs = json_object_new_array();
		jsegs = json_object_new_array();
		if (!jdevs || !jsegs) {
			fprintf(stderr, "mdkctl: pool status: out of memory\n");
			goto out;
		}
	} else {
		printf("pool: 0x%" PRIx64 "-0x%" PRIx64 " (%" PRIu64
		       " MiB), HDM base 0x%" PRIx64
		       ", node %d, tier adistance %d\n",
		       (uint64_t)info.hdm_base,
		       (uint64_t)(info.hdm_base + info.pool_bytes - 1),
		       (uint64_t)(info.pool_bytes >> 20),
		       (uint64_t)info.hdm_base, info.node, info.adistance);
		printf("      %u devices, %u segments of %" PRIu64
		       " MiB, PAMT granule %" PRIu64
		       " MiB; this host's device: %u (local %u ns, remote %u ns)\n\n",
		       info.nr_devices, info.nr_segments,
		       (uint64_t)(info.segment_bytes >> 20),
		       (uint64_t)(info.granule_bytes >> 20), info.self,
		       info.local_ns, info.remote_ns);
		if (have_hosts && hosts.nr_hosts > 1)
			print_hosts(&hosts);
		printf("%-4s %-10s %-7s %9s %-12s %-9s %-15s %8s %8s\n", "DEV",
		       "CHIP", "STATE", "CAPACITY", "NHA", "SEGMENTS",
		       "LATENCY", "LOOKUPS", "FAILURES");
	}
	for (id = 0; id < info.nr_devices; id++) {
		struct cmm_mp_device_info d = { .id = id };
		char segs[32], lat[32];

		ret = pool_ioctl(fd, CMM_MP_IOC_DEVICE, &d);
		if (ret) {
			fprintf(stderr, "mdkctl: pool status: device %u: %s\n",
				id, strerror(-ret));
			ret = 1;
			goto out;
		}
		if (o.json) {
			mdkd_json_push(jdevs, json_device(&d));
			continue;
		}
		snprintf(segs, sizeof(segs), "%u-%u", d.first_segment,
			 d.first_segment + d.nr_segments - 1);
		snprintf(lat, sizeof(lat), "%u ns %s", d.latency_ns,
			 d.flags & CMM_MP_DEVICE_LOCAL ? "local" : "remote");
		printf("%-4u 0x%-8" PRIx64 " %-7s %5" PRIu64
		       " MiB 0x%-10" PRIx64 " %-9s %-15s %8" PRIu64 " %8" PRIu64
		       "\n",
		       d.id, (uint64_t)d.chip_id,
		       d.state == CMM_MP_DEV_FAILED ? "failed" : "ok",
		       (uint64_t)(d.capacity_bytes >> 20), (uint64_t)d.nha,
		       segs, lat, (uint64_t)d.lookups, (uint64_t)d.failures);
	}
	if (!o.json)
		printf("\n%-4s %-4s %-8s %-12s %-12s %-12s %-9s %-6s %-5s %-7s %s\n",
		       "SEG", "DEV", "STATE", "PHYS", "NHA", "DEV_OFFSET",
		       "BLOCKS", "ONLINE", "MAPS", "PID", "HELD BY");
	for (id = 0; id < info.nr_segments; id++) {
		struct cmm_mp_segment_info s = { .id = id };
		char blocks[32], held[64];

		ret = pool_ioctl(fd, CMM_MP_IOC_SEGMENT, &s);
		if (ret) {
			fprintf(stderr, "mdkctl: pool status: segment %u: %s\n",
				id, strerror(-ret));
			ret = 1;
			goto out;
		}
		if (o.json) {
			mdkd_json_push(jsegs, json_segment(&s));
			continue;
		}
		snprintf(blocks, sizeof(blocks), "%u-%u", s.first_block,
			 s.first_block + s.nr_blocks - 1);
		printf("%-4u %-4u %-8s 0x%-10" PRIx64 " 0x%-10" PRIx64
		       " 0x%-10" PRIx64 " %-9s %u/%-4u %-5u %-7d %s%s\n",
		       s.id, s.device, seg_state_name(s.state),
		       (uint64_t)s.phys, (uint64_t)s.nha,
		       (uint64_t)s.dev_offset, blocks, s.online_blocks,
		       s.nr_blocks, s.mappings, s.owner,
		       holder_name(&s, held, sizeof(held)),
		       s.flags & CMM_MP_SEGMENT_DEV_FAILED ?
			       " (device failed)" :
			       "");
	}
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

static int pool_translate(int argc, char **argv)
{
	struct pool_opts o = { 0 };
	struct cmm_mp_translate t = { 0 };
	struct cmm_mp_info info;
	uint64_t addr;
	int fd, i, ret;

	i = parse_opts(argc, argv, "jN", &o);
	if (i < 0)
		return 2;
	if (argc - i != 1) {
		fprintf(stderr, "mdkctl: pool translate: expected one ADDR\n");
		return 2;
	}
	if (parse_u64("translate", "address", argv[i], &addr))
		return 2;
	fd = pool_open("translate");
	if (fd < 0)
		return 1;
	if (get_info(fd, "translate", &info)) {
		close(fd);
		return 1;
	}
	t.addr = addr;
	t.flags = o.nha ? CMM_MP_XLATE_NHA : 0;
	ret = pool_ioctl(fd, CMM_MP_IOC_TRANSLATE, &t);
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
	if (o.json) {
		struct json_object *j = json_object_new_object();

		mdkd_json_add_u64(j, "ha", info.hdm_base + t.nha);
		mdkd_json_add_u64(j, "nha", t.nha);
		mdkd_json_add_bool(j, "valid", t.result & CMM_MP_XLATE_VALID);
		if (t.result & CMM_MP_XLATE_VALID) {
			mdkd_json_add_u64(j, "device", t.device);
			mdkd_json_add_u64(j, "chip_id", t.chip_id);
			mdkd_json_add_u64(j, "dev_offset", t.dev_offset);
			mdkd_json_add_i64(
				j, "segment",
				t.segment == CMM_MP_NONE ? -1 : (int)t.segment);
			mdkd_json_add_bool(j, "local",
					   t.result & CMM_MP_XLATE_LOCAL);
			mdkd_json_add_bool(j, "device_failed",
					   t.result & CMM_MP_XLATE_DEV_FAILED);
			mdkd_json_add_u64(j, "latency_ns", t.latency_ns);
		}
		return mdkd_json_emit(j) ? 1 : 0;
	}
	printf("HA 0x%" PRIx64 " -> NHA 0x%" PRIx64 ": ",
	       (uint64_t)(info.hdm_base + t.nha), (uint64_t)t.nha);
	if (!(t.result & CMM_MP_XLATE_VALID)) {
		printf("no device (invalid PAMT entry)\n");
		return 0;
	}
	printf("device %u (chip 0x%" PRIx64 "), offset 0x%" PRIx64
	       ", segment %u, %s (%u ns)%s\n",
	       t.device, (uint64_t)t.chip_id, (uint64_t)t.dev_offset, t.segment,
	       t.result & CMM_MP_XLATE_LOCAL ? "local" : "remote", t.latency_ns,
	       t.result & CMM_MP_XLATE_DEV_FAILED ? ", device failed" : "");
	return 0;
}

/* "online", "offline", ... of memory block @block; "" if unreadable. */
static void block_state(const char *root, uint32_t block, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/memory%u/state", root, block);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* Online memory block @block as movable; 0 or -errno after a message. */
static int online_block(const char *root, uint32_t block, uint32_t seg)
{
	char path[PATH_MAX], state[32];
	int fd, err = 0;

	block_state(root, block, state, sizeof(state));
	if (!strcmp(state, "online"))
		return 0;
	snprintf(path, sizeof(path), "%s/memory%u/state", root, block);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "online_movable", 14) != 14)
		err = errno;
	if (fd >= 0)
		close(fd);
	if (err)
		fprintf(stderr,
			"mdkctl: pool online: segment %u: %s: online_movable: %s\n",
			seg, path, strerror(err));
	return -err;
}

static int seg_op(int fd, unsigned long req, const char *verb,
		  struct cmm_mp_segment_info *s)
{
	int ret = pool_ioctl(fd, req, s);

	if (ret && ret != -EBUSY)
		fprintf(stderr, "mdkctl: pool %s: segment %u: %s\n", verb,
			s->id, strerror(-ret));
	return ret;
}

static void report_segment(const struct pool_opts *o, struct json_object *a,
			   const struct cmm_mp_segment_info *s, const char *msg)
{
	if (o->json)
		mdkd_json_push(a, json_segment(s));
	else
		printf("segment %u: %s%s\n", s->id, seg_state_name(s->state),
		       msg);
}

static int pool_segments_verb(int argc, char **argv, unsigned long req)
{
	const char *verb = argv[0];
	struct pool_opts o = { .timeout_s = 120 };
	struct json_object *reported = NULL;
	struct cmm_mp_info info;
	uint32_t *ids = NULL;
	int fd, i, n, ret, status = 0;
	uint32_t b;

	i = parse_opts(argc, argv, req == CMM_MP_IOC_SEG_OFFLINE ? "jt" : "j",
		       &o);
	if (i < 0)
		return 2;
	fd = pool_open(verb);
	if (fd < 0)
		return 1;
	if (get_info(fd, verb, &info)) {
		close(fd);
		return 1;
	}
	n = parse_segments(verb, argc - i, argv + i, info.nr_segments, &ids);
	if (n < 0) {
		close(fd);
		return 2;
	}
	if (o.json && !(reported = json_object_new_array())) {
		fprintf(stderr, "mdkctl: pool %s: out of memory\n", verb);
		free(ids);
		close(fd);
		return 1;
	}
	for (i = 0; i < n; i++) {
		struct cmm_mp_segment_info s = { .id = ids[i] };
		char msg[160] = "";

		if (req == CMM_MP_IOC_SEG_OFFLINE)
			arm_timeout(o.timeout_s);
		ret = seg_op(fd, req, verb, &s);
		disarm_timeout();
		if (ret == -EBUSY && req == CMM_MP_IOC_SEG_OFFLINE) {
			fprintf(stderr,
				"mdkctl: pool offline: segment %u: its pages could not all be migrated%s; it stays %s\n",
				s.id, o.timeout_s ? " before the timeout" : "",
				seg_state_name(s.state));
			status = 1;
			continue;
		}
		if (ret == -EBUSY && info.nr_hosts > 1 &&
		    other_holder(&s, info.host) >= 0) {
			fprintf(stderr,
				"mdkctl: pool %s: segment %u is owned by host %d\n",
				verb, s.id, other_holder(&s, info.host));
			status = 1;
			continue;
		}
		if (ret == -EBUSY) {
			fprintf(stderr,
				"mdkctl: pool %s: segment %u: it is %s (offline it first)\n",
				verb, s.id, seg_state_name(s.state));
			status = 1;
			continue;
		}
		if (ret) {
			status = 1;
			continue;
		}
		if (req == CMM_MP_IOC_SEG_ADD) {
			for (b = s.first_block; b < s.first_block + s.nr_blocks;
			     b++)
				if (online_block(MEMORY_SYSFS, b, s.id))
					status = 1;
			s = (struct cmm_mp_segment_info){ .id = ids[i] };
			ret = seg_op(fd, CMM_MP_IOC_SEGMENT, verb, &s);
			if (ret || s.state != CMM_MP_SEG_ONLINE) {
				if (!ret)
					fprintf(stderr,
						"mdkctl: pool online: segment %u: %u of %u memory blocks online\n",
						s.id, s.online_blocks,
						s.nr_blocks);
				status = 1;
			}
			snprintf(msg, sizeof(msg),
				 " (node %d, memory blocks %u-%u)", info.node,
				 s.first_block,
				 s.first_block + s.nr_blocks - 1);
		} else if (req == CMM_MP_IOC_SEG_SHARE) {
			snprintf(msg, sizeof(msg),
				 " (mmap %s offset 0x%" PRIx64 ", %" PRIu64
				 " MiB)",
				 CMM_MP_DEVICE_PATH, (uint64_t)s.mmap_offset,
				 (uint64_t)(s.bytes >> 20));
		}
		report_segment(&o, reported, &s, msg);
	}
	/* The segments done, none when none was (as the text says). */
	if (reported && json_object_array_length(reported) &&
	    mdkd_json_print(stdout, reported))
		status = 1;
	json_object_put(reported);
	free(ids);
	close(fd);
	return status;
}

static int pool_online(int argc, char **argv)
{
	return pool_segments_verb(argc, argv, CMM_MP_IOC_SEG_ADD);
}

static int pool_offline(int argc, char **argv)
{
	return pool_segments_verb(argc, argv, CMM_MP_IOC_SEG_OFFLINE);
}

static int pool_share(int argc, char **argv)
{
	return pool_segments_verb(argc, argv, CMM_MP_IOC_SEG_SHARE);
}

static int pool_fault_verb(int argc, char **argv, bool fail)
{
	const char *verb = argv[0];
	struct pool_opts o = { .timeout_s = 120 };
	struct cmm_mp_fault f = { 0 };
	struct cmm_mp_info info;
	int fd, i, ret;

	i = parse_opts(argc, argv, fail ? "jt" : "jW", &o);
	if (i < 0)
		return 2;
	fd = pool_open(verb);
	if (fd < 0)
		return 1;
	if (get_info(fd, verb, &info)) {
		close(fd);
		return 1;
	}
	if (parse_device(verb, argc - i, argv + i, info.nr_devices,
			 &f.device)) {
		close(fd);
		return 2;
	}
	if (fail)
		arm_timeout(o.timeout_s);
	f.flags = o.wipe ? CMM_MP_RECOVER_WIPE : 0;
	ret = pool_ioctl(
		fd, fail ? CMM_MP_IOC_DEV_FAIL : CMM_MP_IOC_DEV_RECOVER, &f);
	disarm_timeout();
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
	if (o.json) {
		struct json_object *j = json_object_new_object();

		mdkd_json_add_u64(j, "device", f.device);
		mdkd_json_add_bool(j, "failed", fail);
		mdkd_json_add_u64(j, "segments_offlined", f.segments_offlined);
		mdkd_json_add_u64(j, "segments_revoked", f.segments_revoked);
		mdkd_json_add_u64(j, "segments_busy", f.segments_busy);
		mdkd_json_add_i64(
			j, "first_busy",
			f.first_busy == CMM_MP_NONE ? -1 : (int)f.first_busy);
		if (mdkd_json_emit(j))
			return 1;
	} else if (fail) {
		printf("device %u: failed; %u segments offlined, %u shared segments revoked\n",
		       f.device, f.segments_offlined, f.segments_revoked);
	} else {
		printf("device %u: recovered%s\n", f.device,
		       o.wipe ? ", its shared segments wiped" : "");
	}
	if (ret == -EBUSY) {
		fprintf(stderr,
			"mdkctl: pool fail: device %u: %u online segments could not be moved (first: segment %u); they stay online\n",
			f.device, f.segments_busy, f.first_busy);
		return 1;
	}
	return 0;
}

static int pool_fail(int argc, char **argv)
{
	return pool_fault_verb(argc, argv, true);
}

static int pool_recover(int argc, char **argv)
{
	return pool_fault_verb(argc, argv, false);
}

/* The CMM-MP node, or -1 when the module is not loaded. */
static int pool_node(void)
{
	struct cmm_mp_info info;
	int fd = open(CMM_MP_DEVICE_PATH, O_RDWR | O_CLOEXEC), node = -1;

	if (fd < 0)
		return -1;
	memset(&info, 0, sizeof(info));
	if (!pool_ioctl(fd, CMM_MP_IOC_INFO, &info))
		node = info.node;
	close(fd);
	return node;
}

static void bench_matrix(const struct mdkctl_pool_bench *b, const char *title,
			 int what)
{
	int c, m;

	printf("%s\n\t\tNuma node\nNuma node", title);
	for (m = 0; m < b->nr_mem; m++)
		printf("\t%6d", b->mem_nodes[m]);
	printf("\n");
	for (c = 0; c < b->nr_cpu; c++) {
		printf("%9d", b->cpu_nodes[c]);
		for (m = 0; m < b->nr_mem; m++) {
			const struct mdkctl_pool_bench_cell *x =
				&b->cells[c * b->nr_mem + m];

			if (!x->measured)
				printf("\t%6s", "-");
			else if (what == 0)
				printf("\t%6.1f", x->latency_ns);
			else
				printf("\t%6.0f", x->read_mbps);
		}
		printf("\n");
	}
	printf("\n");
}

static int bench_json(const struct mdkctl_pool_bench *b)
{
	struct json_object *o = json_object_new_object(),
			   *cells = json_object_new_array();
	int c, m;

	mdkd_json_add_u64(o, "bytes", b->bytes);
	mdkd_json_add_u64(o, "rounds", b->rounds);
	mdkd_json_add_i64(o, "pool_node", b->pool_node);
	for (c = 0; c < b->nr_cpu; c++) {
		for (m = 0; m < b->nr_mem; m++) {
			const struct mdkctl_pool_bench_cell *x =
				&b->cells[c * b->nr_mem + m];
			struct json_object *j = json_object_new_object();

			mdkd_json_add_i64(j, "cpu_node", b->cpu_nodes[c]);
			mdkd_json_add_i64(j, "mem_node", b->mem_nodes[m]);
			mdkd_json_add_bool(j, "measured", x->measured);
			if (x->measured) {
				mdkd_json_add_fixed(j, "latency_ns",
						    x->latency_ns, 2);
				mdkd_json_add_fixed(j, "read_mbps",
						    x->read_mbps, 1);
				mdkd_json_add_fixed(j, "on_node", x->on_node,
						    3);
			}
			mdkd_json_push(cells, j);
		}
	}
	mdkd_json_add(o, "cells", cells);
	return mdkd_json_emit(o);
}

static int pool_bench(int argc, char **argv)
{
	struct pool_opts o = { .bench_bytes = 64ULL << 20, .bench_rounds = 3 };
	struct mdkctl_pool_bench b;
	char err[256];
	int c, m, i, ret;

	i = parse_opts(argc, argv, "jsr", &o);
	if (i < 0)
		return 2;
	if (i != argc) {
		fprintf(stderr, "mdkctl: pool bench: takes no operands\n");
		return 2;
	}
	ret = mdkctl_pool_bench_run(&b, o.bench_bytes, o.bench_rounds,
				    pool_node(), err, sizeof(err));
	if (ret) {
		fprintf(stderr, "mdkctl: pool bench: %s\n", err);
		return 1;
	}
	if (o.json) {
		ret = bench_json(&b);
		mdkctl_pool_bench_free(&b);
		return ret ? 1 : 0;
	}
	printf("Buffer %" PRIu64 " MiB per node, best of %u rounds%s\n\n",
	       b.bytes >> 20, b.rounds,
	       b.pool_node >= 0 ? "" : " (cmm_mp.ko not loaded)");
	bench_matrix(&b, "Measuring idle latencies (in ns)...", 0);
	bench_matrix(&b, "Measuring memory bandwidth, reads (in MB/sec)...", 1);
	for (c = 0; c < b.nr_cpu; c++) {
		const struct mdkctl_pool_bench_cell *base = NULL;

		for (m = 0; m < b.nr_mem; m++) {
			const struct mdkctl_pool_bench_cell *x =
				&b.cells[c * b.nr_mem + m];

			if (!x->measured)
				continue;
			if (!base) {
				base = x;
				continue;
			}
			printf("CPUs of node %d: node %d%s against node %d: latency x%.2f, bandwidth x%.2f\n",
			       b.cpu_nodes[c], b.mem_nodes[m],
			       b.mem_nodes[m] == b.pool_node ? " (CMM-MP)" : "",
			       b.mem_nodes[0], x->latency_ns / base->latency_ns,
			       x->read_mbps / base->read_mbps);
		}
	}
	for (m = 0; m < b.nr_mem; m++) {
		if (b.mem_nodes[m] == b.pool_node && !b.cells[m].measured)
			printf("node %d (CMM-MP) has no memory online: mdkctl pool online SEG first\n",
			       b.pool_node);
		for (c = 0; c < b.nr_cpu; c++) {
			const struct mdkctl_pool_bench_cell *x =
				&b.cells[c * b.nr_mem + m];

			if (x->measured && x->on_node < 0.999)
				printf("warning: only %.1f%% of the buffer for node %d landed there\n",
				       100 * x->on_node, b.mem_nodes[m]);
		}
	}
	mdkctl_pool_bench_free(&b);
	return 0;
}

static int pool_help(int argc, char **argv);

static const struct mdkctl_cmd pool_cmds[] = {
	{ "help", pool_help, "show this help" },
	{ "status", pool_status, "[-j]  the pool, its devices and segments" },
	{ "translate", pool_translate,
	  "[-j] [--nha] ADDR  PAMT lookup: NHA, device, offset, local or remote" },
	{ "online", pool_online,
	  "[-j] SEG...|all  hot-add segments and online them as movable memory" },
	{ "offline", pool_offline,
	  "[-j] [-t SEC] SEG...|all  offline segments (migrating their pages) or stop sharing them" },
	{ "share", pool_share,
	  "[-j] SEG...  export segments for mmap of /dev/cmm_mp" },
	{ "fail", pool_fail,
	  "[-j] [-t SEC] DEV  fail a device: revoke its mappings, offline its segments" },
	{ "recover", pool_recover,
	  "[-j] [--wipe] DEV  recover a failed device" },
	{ "bench", pool_bench,
	  "[-j] [-s MIB] [-r ROUNDS]  latency and bandwidth from each CPU node to each memory node" },
	{ 0 },
};

static int pool_help(int argc, char **argv)
{
	const struct mdkctl_cmd *c;

	printf("usage: mdkctl pool VERB [OPTIONS] [ARGS...]\n\nverbs:\n");
	for (c = pool_cmds; c->name; c++)
		printf("  %-10s %s\n", c->name, c->help);
	printf("\nSee mdkctl(8) and Documentation/cmm_mp.rst.\n");
	return 0;
}

/*
 * "mdkctl pool -j status" works as "mdkctl pool status -j": options before
 * the verb are moved after it.
 */
int mdkctl_cmd_pool(int argc, char **argv)
{
	char **args;
	int i, n = 1, ret;

	while (n < argc && argv[n][0] == '-')
		n++;
	if (n == 1 || n == argc)
		return mdkctl_dispatch(pool_cmds, "pool", argc - 1, argv + 1);
	args = calloc(argc, sizeof(*args));
	if (!args) {
		fprintf(stderr, "mdkctl: pool: out of memory\n");
		return 1;
	}
	args[0] = argv[n];
	for (i = 1; i < n; i++)
		args[i] = argv[i];
	for (i = n + 1; i < argc; i++)
		args[i - 1] = argv[i];
	ret = mdkctl_dispatch(pool_cmds, "pool", argc - 1, args);
	free(args);
	return ret;
}
