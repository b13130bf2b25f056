// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl tier calibrate [--pages N] [--rounds R] [--output FILE]
 * [--node N] [--dry-run]: the cost of bringing one page back from each
 * back end this host has, measured (probe.c), written as a tier file
 * (cli/tier_file.h).  A back end that cannot be measured is left out with
 * the reason and what would make it measurable; never a constant.
 */
#include <errno.h>
#include <getopt.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cli/mdkctl.h"
#include "cli/tier_file.h"
#include "daemon/host.h"
#include "daemon/pages.h"
#include "tier.h"

#define DEFAULT_OUTPUT "/var/lib/mdk/tiers"

struct calibrate_opts {
	unsigned long pages;
	unsigned int rounds;
	const char *output;
	int node; /* -1: the CMM-MP node of cmm_mp.ko */
	bool dry_run;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mdkctl tier calibrate [--pages N] [--rounds R] [--output FILE]\n"
		"                             [--node N] [--dry-run]\n"
		"  --pages N     pages a round (default 2048)\n"
		"  --rounds R    rounds per back end, the median kept (default 5, at most %d)\n"
		"  --output FILE the tier file (default " DEFAULT_OUTPUT ")\n"
		"  --node N      the CMM-MP node (default: /sys/kernel/cmm_mp/node)\n"
		"  --dry-run     print the file instead of writing it\n",
		TIER_ROUNDS_MAX);
}

static int parse_calibrate(int argc, char **argv, struct calibrate_opts *o)
{
	static const struct option lo[] = {
		{ "pages", required_argument, NULL, 'p' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "output", required_argument, NULL, 'o' },
		{ "node", required_argument, NULL, 'n' },
		{ "dry-run", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	char *end;
	long v;
	int c;

	*o = (struct calibrate_opts){
		.pages = 2048, .rounds = 5, .output = DEFAULT_OUTPUT, .node = -1
	};
	optind = 1;
	while ((c = getopt_long(argc, argv, "p:r:o:n:dh", lo, NULL)) != -1) {
		if (c == 'o' || c == 'd' || c == 'h' || c == '?') {
			if (c == 'o')
				o->output = optarg;
			o->dry_run |= c == 'd';
			if (c == 'h' || c == '?') {
				usage(c == 'h' ? stdout : stderr);
				return c == 'h' ? MDKCTL_DONE : 2;
			}
			continue;
		}
		errno = 0;
		v = strtol(optarg, &end, 10);
		if (errno || *end || end == optarg || v < 0 ||
		    (c == 'p' && (v < 16 || v > 1L << 20)) ||
		    (c == 'r' && (v < 1 || v > TIER_ROUNDS_MAX))) {
			fprintf(stderr,
				"mdkctl: tier calibrate: --%s '%s': expected %s\n",
				c == 'p' ? "pages" :
				c == 'r' ? "rounds" :
					   "node",
				optarg,
				c == 'p' ? "16 to 1048576 pages" :
				c == 'r' ? "1 to 64 rounds" :
					   "a NUMA node number");
			return 2;
		}
		if (c == 'p')
			o->pages = (unsigned long)v;
		else if (c == 'r')
			o->rounds = (unsigned int)v;
		else
			o->node = (int)v;
	}
	if (optind < argc) {
		fprintf(stderr, "mdkctl: tier calibrate: unexpected '%s'\n",
			argv[optind]);
		return 2;
	}
	return 0;
}

/* Whether the host has an active swap device (a line past /proc/swaps'). */
static bool have_swap(void)
{
	char buf[4096];
	char *nl;

	if (mdkd_read_small("/proc/swaps", buf, sizeof(buf)) <= 0)
		return false;
	nl = strchr(buf, '\n');
	return nl && nl[1];
}

static void skip(enum tier_backend b, const char *why)
{
	fprintf(stderr, "mdkctl: tier calibrate: %s left out: %s\n",
		tier_backend_name(b), why);
}

/* Whether @b can be tried; if not, says why and how on stderr. */
static bool can_probe(enum tier_backend b, struct tier_probe *p, uint64_t *cap)
{
	char path[128], buf[4096];
	uint64_t total, free;

	if (b != TIER_CXL && !have_swap()) {
		skip(b,
		     b == TIER_SWAP ?
			     "no swap device: make one active (mkswap DEVICE; swapon DEVICE) and calibrate again" :
			     "zswap sits in front of a swap device and there is none: make one active (mkswap DEVICE; swapon DEVICE)");
		return false;
	}
	if (b == TIER_ZSWAP) {
		if (mdkd_read_small("/sys/module/zswap/parameters/enabled", buf,
				    sizeof(buf)) <= 0) {
			skip(b, "no zswap in this kernel (CONFIG_ZSWAP)");
			return false;
		}
		if (buf[0] != 'Y') {
			skip(b,
			     "zswap is off: echo Y > /sys/module/zswap/parameters/enabled (or boot with zswap.enabled=1)");
			return false;
		}
	}
	if (b != TIER_CXL)
		return true;
	if (numa_available() < 0) {
		skip(b, "no NUMA support in this kernel");
		return false;
	}
	if (p->node < 0)
		p->node = mdkd_cmm_mp_node("/sys");
	if (p->node < 0) {
		skip(b,
		     "no CMM-MP node: load cmm_mp.ko and online its pool (mdkctl pool online all), or give --node N");
		return false;
	}
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo",
		 p->node);
	if (mdkd_read_small(path, buf, sizeof(buf)) <= 0 ||
	    mdkd_host_parse_node_meminfo(buf, &total, &free)) {
		snprintf(buf, sizeof(buf),
			 "node %d: no %s: is the node online?", p->node, path);
		skip(b, buf);
		return false;
	}
	*cap = free / 4096;
	if (*cap < p->pages) {
		snprintf(
			buf, sizeof(buf),
			"node %d has %llu pages free, fewer than --pages %lu: online more of the pool or give fewer pages",
			p->node, (unsigned long long)*cap, p->pages);
		skip(b, buf);
		return false;
	}
	p->home = mdkd_home_node("/sys", p->node);
	if (p->home < 0) {
		skip(b, "no DRAM node with CPUs to promote back to");
		return false;
	}
	return true;
}

/* Write @text to @path through a temporary file, the directory made. */
static int write_out(const char *path, const char *text)
{
	char dir[512], tmp[600], *slash;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST) {
			fprintf(stderr, "mdkctl: tier calibrate: %s: %s\n", dir,
				strerror(errno));
			return 1;
		}
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f || fputs(text, f) < 0 || fclose(f) || rename(tmp, path)) {
		fprintf(stderr, "mdkctl: tier calibrate: %s: %s\n", path,
			strerror(errno));
		unlink(tmp);
		return 1;
	}
	return 0;
}

/* @text's tiers: its lines that are not comments, as one tier list. */
static int parse_back(const char *text, struct mdk_tiers *t, char *err,
		      size_t errlen)
{
	char list[4096], *o = list;
	const char *l, *nl;

	for (l = text; *l; l = nl + 1) {
		nl = strchr(l, '\n');
		if (!nl)
			break;
		if (*l != '#' && o + (nl - l) + 2 < list + sizeof(list)) {
			memcpy(o, l, (size_t)(nl - l));
			o += nl - l;
			*o++ = ';';
		}
	}
	*o = '\0';
	return mdk_tiers_parse(list, t, err, errlen);
}

/* Check what is written reads back, then write or print it. */
static int emit(const struct calibrate_opts *o, struct mdkctl_tier_meas *m,
		unsigned int n)
{
	char text[4096], date[64], err[256], host[128] = "?";
	struct mdkctl_tier_host h = { host, "?", date, o->pages, o->rounds };
	struct mdk_tiers t;
	struct utsname u;
	time_t now = time(NULL);

	if (!uname(&u)) {
		snprintf(host, sizeof(host), "%s", u.nodename);
		h.kernel = u.release;
	}
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
	if (mdkctl_tier_file_format(m, n, &h, text, sizeof(text)) >=
	    (int)sizeof(text)) {
		fprintf(stderr, "mdkctl: tier calibrate: file too long\n");
		return 1;
	}
	if (parse_back(text, &t, err, sizeof(err)) < 0) {
		fprintf(stderr, "mdkctl: tier calibrate: %s\n", err);
		return 1;
	}
	if (o->dry_run) {
		fputs(text, stdout);
		return 0;
	}
	if (write_out(o->output, text))
		return 1;
	printf("%s: %u tier%s\n", o->output, n, n == 1 ? "" : "s");
	return 0;
}

int mdkctl_tier_calibrate(int argc, char **argv)
{
	static uint64_t ns[TIER_NR][TIER_ROUNDS_MAX];
	struct mdkctl_tier_meas m[TIER_NR];
	struct calibrate_opts o;
	struct tier_probe p;
	char cg[512], why[512];
	unsigned int n = 0;
	uint64_t cap;
	int b, ret;

	ret = parse_calibrate(argc, argv, &o);
	if (ret)
		return ret == MDKCTL_DONE ? 0 : ret;
	if (tier_cgroup_create(cg, sizeof(cg), why, sizeof(why))) {
		fprintf(stderr, "mdkctl: tier calibrate: %s\n", why);
		return 1;
	}
	for (b = 0; b < TIER_NR; b++) {
		p = (struct tier_probe){ .b = b,
					 .pages = o.pages,
					 .rounds = o.rounds,
					 .node = o.node,
					 .cgroup = cg,
					 .proc_root = "/proc",
					 .sys_root = "/sys" };
		cap = 0;
		if (!can_probe(b, &p, &cap))
			continue;
		if (tier_probe_run(&p, ns[b], why, sizeof(why))) {
			skip(b, why);
			continue;
		}
		m[n] = (struct mdkctl_tier_meas){ .round_ns = ns[b],
						  .rounds = o.rounds,
						  .capacity = cap,
						  .how = tier_backend_how(b) };
		snprintf(m[n].name, sizeof(m[n].name), "%s",
			 tier_backend_name(b));
		n++;
	}
	tier_cgroup_remove();
	if (!n) {
		fprintf(stderr,
			"mdkctl: tier calibrate: no back end could be measured (see above); nothing written\n");
		return 1;
	}
	return emit(&o, m, n);
}
