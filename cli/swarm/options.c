// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl swarm: the options bench and stress share, their defaults and
 * their messages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/parse.h"
#include "swarm.h"

int mdkctl_swarm_usage_err(const char *fmt, const char *arg)
{
	fprintf(stderr, "mdkctl swarm: ");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	fprintf(stderr, fmt, arg);
#pragma GCC diagnostic pop
	fprintf(stderr, " (see mdkctl(8))\n");
	return 2;
}

int mdkctl_swarm_parse_uint(const char *opt, const char *s, unsigned int min,
			    unsigned int max, unsigned int *out)
{
	uint64_t v;

	if (mdkctl_parse_u64(s, 0, min, max, &v)) {
		fprintf(stderr,
			"mdkctl swarm: %s: '%s': expected an integer from %u to %u\n",
			opt, s, min, max);
		return 2;
	}
	*out = (unsigned int)v;
	return 0;
}

int mdkctl_swarm_parse_protos(const char *s, enum mdk_swarm_proto *p,
			      unsigned int *np)
{
	char buf[64], *tok, *save;

	snprintf(buf, sizeof(buf), "%s", s);
	*np = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned int k;

		for (k = 0; k < 3; k++)
			if (!strcmp(tok, mdk_swarm_proto_name(k)))
				break;
		if (k == 3 || *np == 3)
			return mdkctl_swarm_usage_err(
				"--protocols: '%s': expected raw, swarm, dm-abd",
				tok);
		p[(*np)++] = k;
	}
	return *np ? 0 :
		     mdkctl_swarm_usage_err("--protocols: '%s' is empty", s);
}

void mdkctl_swarm_defaults(struct mdkctl_swarm_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->keys = 100000;
	o->key_size = 24;
	o->value_size = 64;
	o->replicas = 3;
	o->clients = 4;
	o->ops = 20000;
	o->theta = 0.99;
	o->zipf_items = MDKCTL_SWARM_ZIPF_YCSB_ITEMS;
	o->rtt_ns = 2000;
	o->workloads = "AB";
	o->protos = "raw,swarm,dm-abd";
	o->fail_device = -1;
}

int mdkctl_swarm_parse_common(int c, const char *arg,
			      struct mdkctl_swarm_opts *o)
{
	char *end;
	unsigned int v;

	switch (c) {
	case 'k':
		return mdkctl_swarm_parse_uint("--keys", arg, 1, 1U << 26,
					       &o->keys);
	case 'K':
		if (mdkctl_swarm_parse_uint("--key-size", arg, 24, 4096,
					    &o->key_size))
			return 2;
		return 0;
	case 'V':
		return mdkctl_swarm_parse_uint("--value-size", arg, 8, 4096,
					       &o->value_size);
	case 'r':
		return mdkctl_swarm_parse_uint("--replicas", arg, 1,
					       MDK_SWARM_MAX_NODES,
					       &o->replicas);
	case 'c':
		return mdkctl_swarm_parse_uint("--clients", arg, 1, 255,
					       &o->clients);
	case 'o':
		return mdkctl_swarm_parse_uint("--ops", arg, 1, 100000000,
					       &o->ops);
	case 'z':
		o->theta = strtod(arg, &end);
		if (*end || end == arg || o->theta < 0 || o->theta >= 1)
			return mdkctl_swarm_usage_err(
				"--zipf: '%s': expected 0 <= theta < 1", arg);
		return 0;
	case 't':
		if (mdkctl_swarm_parse_uint("--rtt-ns", arg, 0, 100000000, &v))
			return 2;
		o->rtt_ns = v;
		o->rtt_set = true;
		return 0;
	case 'm':
		o->cmm_mp = arg ? arg : "/dev/cmm_mp";
		return 0;
	case 'j':
		o->json = true;
		return 0;
	case 'C':
		o->csv = true;
		return 0;
	}
	return -1;
}
