// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl swarm check LOG...: the --log files of stress runs on several
 * hosts as one history, checked for linearizability.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/util.h>

#include "swarm.h"

struct hop {
	uint64_t id; /* client << 40 | seq */
	struct mdk_swarm_lin_op op;
	bool returned, failed;
};

static int hop_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct hop *)a)->id,
		 y = ((const struct hop *)b)->id;

	return x < y ? -1 : x > y;
}

/* One log line into @v (calls appended, returns kept apart). */
static int hist_line(const char *file, unsigned long line, const char *s,
		     struct hop **v, size_t *n, size_t *cap, struct hop **r,
		     size_t *nr, size_t *rcap)
{
	unsigned int client;
	unsigned long long seq, key, value, t;
	char kind[8], res[24];
	struct hop h = { 0 };
	int end = 0;

	if (sscanf(s, "c %u.%llu %7s %llu %llu %llu %n", &client, &seq, kind,
		   &key, &value, &t, &end) == 6 &&
	    !s[end] && (!strcmp(kind, "put") || !strcmp(kind, "get")) &&
	    client < (1U << 23) && seq < (1ULL << 40)) {
		h.id = (uint64_t)client << 40 | seq;
		h.op.client = client;
		h.op.key = key;
		h.op.kind = strcmp(kind, "put") ? MDK_SWARM_LIN_GET :
						  MDK_SWARM_LIN_PUT;
		h.op.value = value;
		h.op.call_ns = t;
		if (mdk_grow((void **)v, cap, *n + 1, sizeof(**v)))
			return -ENOMEM;
		(*v)[(*n)++] = h;
		return 0;
	}
	if (sscanf(s, "r %u.%llu %llu %23s %n", &client, &seq, &t, res, &end) ==
		    4 &&
	    !s[end] && client < (1U << 23) && seq < (1ULL << 40)) {
		char *e;

		h.id = (uint64_t)client << 40 | seq;
		h.op.ret_ns = t;
		h.returned = true;
		h.failed = !strcmp(res, "failed");
		if (!strcmp(res, "absent"))
			h.op.value = MDK_SWARM_LIN_ABSENT;
		else if (!h.failed) {
			h.op.value = strtoull(res, &e, 10);
			if (*e)
				goto bad;
		}
		if (mdk_grow((void **)r, rcap, *nr + 1, sizeof(**r)))
			return -ENOMEM;
		(*r)[(*nr)++] = h;
		return 0;
	}
bad:
	fprintf(stderr,
		"mdkctl swarm check: %s:%lu: expected \"c CLIENT.SEQ put|get KEY VALUE TICKET\" or \"r CLIENT.SEQ TICKET VALUE|absent|failed\", got '%s'\n",
		file, line, s);
	return -EINVAL;
}

/*
 * Pair calls and returns.  A put never returned, or failed, is pending: it
 * may have taken effect; a get without a value says nothing and goes.
 */
static size_t hist_pair(struct hop *v, size_t n, struct hop *r, size_t nr,
			struct mdk_swarm_lin_op *ops, size_t *pending)
{
	size_t i, k = 0, m = 0;

	qsort(v, n, sizeof(*v), hop_cmp);
	qsort(r, nr, sizeof(*r), hop_cmp);
	*pending = 0;
	for (i = 0; i < n; i++) {
		struct mdk_swarm_lin_op op = v[i].op;

		while (k < nr && r[k].id < v[i].id)
			k++;
		if (k < nr && r[k].id == v[i].id && !r[k].failed) {
			op.ret_ns = r[k].op.ret_ns;
			if (op.kind == MDK_SWARM_LIN_GET)
				op.value = r[k].op.value;
		} else if (op.kind == MDK_SWARM_LIN_PUT) {
			op.ret_ns = MDK_SWARM_LIN_PENDING;
			++*pending;
		} else {
			continue;
		}
		ops[m++] = op;
	}
	return m;
}

/* The calls and returns of every log. */
struct check_logs {
	struct hop *v, *r;
	size_t n, cap, nr, rcap;
};

/* Every line of @file into @l; 0, or 1 after a message. */
static int read_log(const char *file, struct check_logs *l)
{
	FILE *f = fopen(file, "r");
	unsigned long ln = 0;
	char line[256];
	int ret = 0;

	if (!f) {
		fprintf(stderr, "mdkctl swarm check: %s: %s\n", file,
			strerror(errno));
		return 1;
	}
	while (!ret && fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);

		ln++;
		/* A host killed mid-write leaves a last line cut. */
		if (!len || line[len - 1] != '\n') {
			if (feof(f))
				break;
			fprintf(stderr,
				"mdkctl swarm check: %s:%lu: line longer than %zu bytes\n",
				file, ln, sizeof(line) - 2);
			ret = 1;
			break;
		}
		line[len - 1] = '\0';
		if (hist_line(file, ln, line, &l->v, &l->n, &l->cap, &l->r,
			      &l->nr, &l->rcap))
			ret = 1;
	}
	fclose(f);
	return ret;
}

/* The history of @nlogs logs checked, the verdict printed; 0, or 1. */
static int check_history(struct check_logs *l, int nlogs)
{
	struct mdk_swarm_lin_report rep;
	struct mdk_swarm_lin_op *ops;
	size_t m, pending;
	int ret;

	ops = calloc(l->n ? l->n : 1, sizeof(*ops));
	if (!ops) {
		fprintf(stderr, "mdkctl swarm check: out of memory\n");
		return 1;
	}
	m = hist_pair(l->v, l->n, l->r, l->nr, ops, &pending);
	if (mdk_swarm_lincheck(ops, m, 1000000000ULL, &rep)) {
		fprintf(stderr, "mdkctl swarm check: %s\n", rep.msg);
		ret = 1;
	} else {
		printf("%zu operations from %d logs (%zu pending puts, %zu calls without a return): %s%s\n",
		       m, nlogs, pending, l->n - l->nr,
		       rep.linearizable ? "linearizable" : "NOT linearizable: ",
		       rep.linearizable ? "" : rep.msg);
		ret = !rep.linearizable;
	}
	free(ops);
	return ret;
}

struct check_opts {
	char **logs;
	int nlogs;
};

static int parse_check(int argc, char **argv, struct check_opts *o)
{
	if (argc < 2) {
		fprintf(stderr,
			"usage: mdkctl swarm check LOG... (the --log files of mdkctl swarm stress)\n");
		return 2;
	}
	o->logs = argv + 1;
	o->nlogs = argc - 1;
	return 0;
}

int mdkctl_swarm_check(int argc, char **argv)
{
	struct check_logs l = { 0 };
	struct check_opts o;
	int ret;

	ret = parse_check(argc, argv, &o);
	if (ret)
		return ret;
	for (int a = 0; a < o.nlogs && !ret; a++)
		ret = read_log(o.logs[a], &l);
	if (!ret)
		ret = check_history(&l, o.nlogs);
	free(l.v);
	free(l.r);
	return ret;
}
