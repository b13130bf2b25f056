// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl pool: the options of the verbs and their SEG and DEV operands.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/util.h>

#include "cli/parse.h"
#include "pool.h"

enum {
	OPT_NHA = 0x100,
	OPT_WIPE,
};

int mdkctl_pool_parse_u64(const char *verb, const char *what, const char *s,
			  uint64_t *v)
{
	if (mdkctl_parse_u64(s, 0, 0, UINT64_MAX, v)) {
		fprintf(stderr, "mdkctl: pool %s: %s '%s': expected a number\n",
			verb, what, s);
		return -EINVAL;
	}
	return 0;
}

int mdkctl_pool_parse_opts(int argc, char **argv, const char *allowed,
			   struct mdkctl_pool_opts *o)
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
			if (mdkctl_pool_parse_u64(argv[0], "--timeout", optarg,
						  &v) ||
			    v > UINT_MAX)
				return -1;
			o->timeout_s = v;
			break;
		case 's':
			if (mdkctl_pool_parse_u64(argv[0], "--size (MiB)",
						  optarg, &v) ||
			    !v || v > (1ULL << 20))
				return -1;
			o->bench_bytes = v << 20;
			break;
		case 'r':
			if (mdkctl_pool_parse_u64(argv[0], "--rounds", optarg,
						  &v) ||
			    !v || v > 1000)
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

int mdkctl_pool_parse_segments(const char *verb, int argc, char **argv,
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
			if (mdkctl_pool_parse_u64(verb, "segment", argv[i],
						  &first) ||
			    mdkctl_pool_parse_u64(verb, "segment", dash + 1,
						  &last))
				goto err;
			*dash = '-';
		} else {
			if (mdkctl_pool_parse_u64(verb, "segment", argv[i],
						  &first))
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
			if (mdk_grow((void **)&ids, &cap, n + 1, sizeof(*ids)))
				goto err;
			ids[n++] = first;
		}
	}
	*out = ids;
	return (int)n;
err:
	free(ids);
	return -1;
}

int mdkctl_pool_parse_device(const char *verb, int argc, char **argv,
			     uint32_t nr_devices, uint32_t *dev)
{
	uint64_t v;

	if (argc != 1) {
		fprintf(stderr, "mdkctl: pool %s: expected one DEV\n", verb);
		return -1;
	}
	if (mdkctl_pool_parse_u64(verb, "device", argv[0], &v))
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
