// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl swarm bench: YCSB A and B on SWARM-KV, DM-ABD and RAW in one run:
 * round trips per operation, latency percentiles with the injected
 * round-trip time, throughput as clients grow.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/mdkctl.h"
#include "swarm.h"

/*
 * Held shut until every client thread exists, so that a failed
 * pthread_create can send the started ones home instead of leaving
 * them waiting forever on a barrier that will never fill.
 */
struct mdkctl_swarm_gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int state; /* 0: shut, 1: go, -1: abort */
};

static void gate_set(struct mdkctl_swarm_gate *g, int state)
{
	pthread_mutex_lock(&g->lock);
	g->state = state;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

static bool gate_pass(struct mdkctl_swarm_gate *g)
{
	int state;

	pthread_mutex_lock(&g->lock);
	while (!g->state)
		pthread_cond_wait(&g->cond, &g->lock);
	state = g->state;
	pthread_mutex_unlock(&g->lock);
	return state > 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void *bench_client(void *arg)
{
	struct mdkctl_swarm_job *j = arg;
	uint64_t seed = 0xbe4c4 + j->idx * 104729ULL + mono_ns();
	struct mdk_swarm_client *c = j->c;
	char key[32], val[4096];

	memset(val, 'v', sizeof(val));
	if (!gate_pass(j->gate))
		return NULL;
	pthread_barrier_wait(j->start);
	j->t0 = mono_ns();
	for (unsigned int i = 0; i < j->ops; i++) {
		uint64_t k = mdkctl_swarm_zipf_next(j->z, &seed), t0, dt;
		bool get = mdk_splitmix64(&seed) % 100 < j->read_pct;
		struct mdk_swarm_op_stats st;
		size_t klen = mdkctl_swarm_key_of(key, sizeof(key), k),
		       vlen = sizeof(val);
		int ret, t = get ? 0 : 1;

		t0 = mono_ns();
		ret = get ? mdk_swarm_get(c, key, klen, val, &vlen) :
			    mdk_swarm_update(c, key, klen, val,
					     j->o->value_size);
		dt = mono_ns() - t0;
		if (ret) {
			j->st.errors++;
			continue;
		}
		mdk_swarm_last_op(c, &st);
		j->st.n[t]++;
		j->st.rtts[t][st.rtts >= MDKCTL_SWARM_RTT_BUCKETS ?
				      MDKCTL_SWARM_RTT_BUCKETS - 1 :
			      st.rtts ? st.rtts - 1 :
					0]++;
		if (j->st.nlat[t] < j->st.cap[t]) {
			uint64_t off = st.wait_ns + st.exec_ns;
			uint64_t own = dt - (off < dt ? off : dt) + st.rtt_ns;

			j->st.own[t][j->st.nlat[t]] =
				own > UINT32_MAX ? UINT32_MAX : (uint32_t)own;
			j->st.lat[t][j->st.nlat[t]++] =
				dt > UINT32_MAX ? UINT32_MAX : (uint32_t)dt;
		}
	}
	j->t1 = mono_ns();
	if (mdk_swarm_flush(c))
		j->st.errors++;
	return NULL;
}

/* Latency sample buffers for each job, so that a client never allocates. */
static int jobs_alloc(struct mdkctl_swarm_job *j, unsigned int clients,
		      unsigned int ops)
{
	for (unsigned int i = 0; i < clients; i++)
		for (int t = 0; t < 2; t++) {
			j[i].st.cap[t] = ops;
			j[i].st.lat[t] = malloc((size_t)ops * sizeof(uint32_t));
			j[i].st.own[t] = malloc((size_t)ops * sizeof(uint32_t));
			if (!j[i].st.lat[t] || !j[i].st.own[t])
				return -ENOMEM;
		}
	return 0;
}

static void jobs_free(struct mdkctl_swarm_job *j, unsigned int clients)
{
	for (unsigned int i = 0; i < clients; i++)
		for (int t = 0; t < 2; t++) {
			free(j[i].st.lat[t]);
			free(j[i].st.own[t]);
		}
	free(j);
}

/* Start the clients and wait for them; 0 or a negative errno. */
static int jobs_run(struct mdkctl_swarm_job *j, unsigned int clients)
{
	struct mdkctl_swarm_gate g = { PTHREAD_MUTEX_INITIALIZER,
				       PTHREAD_COND_INITIALIZER, 0 };
	pthread_barrier_t start;
	unsigned int started;
	int ret = 0;

	pthread_barrier_init(&start, NULL, clients);
	for (started = 0; started < clients; started++) {
		j[started].start = &start;
		j[started].gate = &g;
		ret = -pthread_create(&j[started].th, NULL, bench_client,
				      &j[started]);
		if (ret)
			break;
	}
	gate_set(&g, ret ? -1 : 1);
	for (unsigned int i = 0; i < started; i++)
		pthread_join(j[i].th, NULL);
	pthread_barrier_destroy(&start);
	return ret;
}

static int run_jobs(struct mdk_swarm *s, struct mdk_swarm_client **cl,
		    const struct mdkctl_swarm_opts *o,
		    const struct mdkctl_swarm_zipf *z, unsigned int read_pct,
		    unsigned int clients, struct mdkctl_swarm_result *r)
{
	struct mdkctl_swarm_job *j = calloc(clients, sizeof(*j));
	int err;

	memset(r, 0, sizeof(*r));
	if (!j) {
		fprintf(stderr, "mdkctl swarm: %u clients: %s\n", clients,
			strerror(ENOMEM));
		return 1;
	}
	for (unsigned int i = 0; i < clients; i++)
		j[i] = (struct mdkctl_swarm_job){ .s = s,
						  .c = cl[i],
						  .o = o,
						  .z = z,
						  .read_pct = read_pct,
						  .idx = i,
						  .ops = o->ops };
	err = jobs_alloc(j, clients, o->ops);
	if (err)
		fprintf(stderr, "mdkctl swarm: latency samples: %s\n",
			strerror(-err));
	else if ((err = jobs_run(j, clients)))
		fprintf(stderr, "mdkctl swarm: starting a client thread: %s\n",
			strerror(-err));
	else if ((err = mdkctl_swarm_results(j, clients, r)) < 0)
		fprintf(stderr, "mdkctl swarm: merging samples: %s\n",
			strerror(-err));
	jobs_free(j, clients);
	return err ? 1 : 0;
}

static int load(struct mdk_swarm *s, const struct mdkctl_swarm_opts *o)
{
	struct mdk_swarm_client *c;
	char err[256], key[32], val[4096];

	c = mdk_swarm_client_new(s, err, sizeof(err));
	if (!c) {
		fprintf(stderr, "mdkctl swarm: load: %s\n", err);
		return 1;
	}
	memset(val, 'v', sizeof(val));
	for (uint64_t k = 0; k < o->keys; k++) {
		int ret = mdk_swarm_insert(
			c, key, mdkctl_swarm_key_of(key, sizeof(key), k), val,
			o->value_size);

		if (ret) {
			fprintf(stderr, "mdkctl swarm: load: key %llu: %s\n",
				(unsigned long long)k, strerror(-ret));
			mdk_swarm_client_destroy(c);
			return 1;
		}
	}
	mdk_swarm_client_destroy(c);
	return 0;
}

static const struct option bench_long[] = {
	{ "keys", required_argument, NULL, 'k' },
	{ "key-size", required_argument, NULL, 'K' },
	{ "value-size", required_argument, NULL, 'V' },
	{ "replicas", required_argument, NULL, 'r' },
	{ "clients", required_argument, NULL, 'c' },
	{ "ops", required_argument, NULL, 'o' },
	{ "zipf", required_argument, NULL, 'z' },
	{ "zipf-items", required_argument, NULL, 'Z' },
	{ "rtt-ns", required_argument, NULL, 't' },
	{ "sweep", required_argument, NULL, 's' },
	{ "workloads", required_argument, NULL, 'w' },
	{ "protocols", required_argument, NULL, 'p' },
	{ "cmm-mp", optional_argument, NULL, 'm' },
	{ "json", no_argument, NULL, 'j' },
	{ "csv", no_argument, NULL, 'C' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static int parse_sweep(const char *s, struct mdkctl_swarm_opts *o)
{
	char buf[128], *tok, *save;

	snprintf(buf, sizeof(buf), "%s", s);
	o->nsweep = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (o->nsweep == MDKCTL_SWARM_MAX_SWEEP)
			return mdkctl_swarm_usage_err(
				"--sweep: more than 8 client counts in '%s'",
				s);
		if (mdkctl_swarm_parse_uint("--sweep", tok, 1, 255,
					    &o->sweep[o->nsweep++]))
			return 2;
	}
	return o->nsweep ?
		       0 :
		       mdkctl_swarm_usage_err("--sweep: '%s': expected N,N,...",
					      s);
}

static int bench_help(void)
{
	printf("usage: mdkctl swarm bench [--keys N] [--key-size B] [--value-size B]\n"
	       "        [--replicas N] [--clients N] [--ops N] [--zipf THETA]\n"
	       "        [--zipf-items N] [--rtt-ns NS] [--sweep N,N,...] [--workloads AB]\n"
	       "        [--protocols raw,swarm,dm-abd] [--cmm-mp[=DEV]] [-j|--csv]\n");
	return MDKCTL_DONE;
}

/* Bench's own options, those not in mdkctl_swarm_parse_common(). */
static int parse_bench_opt(int c, const char *arg, struct mdkctl_swarm_opts *o)
{
	char *end;

	switch (c) {
	case 's':
		return parse_sweep(arg, o) ? 2 : 0;
	case 'Z':
		errno = 0;
		o->zipf_items = strtoull(arg, &end, 0);
		if (errno || end == arg || *end || *arg == '-')
			return mdkctl_swarm_usage_err(
				"--zipf-items: '%s': expected a number of items (0: the keys)",
				arg);
		return 0;
	case 'w':
		if (!*arg || strspn(arg, "AB") != strlen(arg))
			return mdkctl_swarm_usage_err(
				"--workloads: '%s': expected A, B or AB", arg);
		o->workloads = arg;
		return 0;
	case 'p':
		o->protos = arg;
		return 0;
	case 'h':
		return bench_help();
	}
	return 2;
}

/* 0, or the exit status after a message, or MDKCTL_DONE after --help. */
static int parse_bench(int argc, char **argv, struct mdkctl_swarm_opts *o)
{
	int c, ret;

	mdkctl_swarm_defaults(o);
	optind = 1;
	while ((c = getopt_long(argc, argv, "jh", bench_long, NULL)) != -1) {
		ret = mdkctl_swarm_parse_common(c, optarg, o);
		if (ret < 0)
			ret = parse_bench_opt(c, optarg, o);
		if (ret)
			return ret;
	}
	if (optind < argc)
		return mdkctl_swarm_usage_err("bench: unexpected argument '%s'",
					      argv[optind]);
	return mdkctl_swarm_parse_protos(o->protos, o->proto, &o->nproto) ? 2 :
									    0;
}

/* Clients that every run of a protocol reuses; 0, or 1 after a message. */
static int bench_clients(struct mdk_swarm *s, struct mdk_swarm_client **cli,
			 unsigned int n)
{
	char err[256];

	for (unsigned int k = 0; k < n; k++) {
		cli[k] = mdk_swarm_client_new(s, err, sizeof(err));
		if (!cli[k] || mdk_swarm_warm(cli[k])) {
			fprintf(stderr, "mdkctl swarm: client: %s\n", err);
			return 1;
		}
	}
	return 0;
}

/* Every workload, then every client count of --sweep, on one store. */
static int bench_runs(struct mdk_swarm *s, struct mdk_swarm_client **cli,
		      const struct mdkctl_swarm_opts *o,
		      const struct mdkctl_swarm_zipf *z,
		      struct mdkctl_swarm_proto_res *pr)
{
	unsigned int sweep_read =
		mdkctl_swarm_wl_read[strchr(o->workloads, 'A') ? 0 : 1];
	int ret = 0;

	for (int w = 0; w < 2 && !ret; w++)
		if (strchr(o->workloads, mdkctl_swarm_wl_name[w][0]))
			ret = run_jobs(s, cli, o, z, mdkctl_swarm_wl_read[w],
				       o->clients, &pr->wl[w]);
	for (unsigned int k = 0; k < o->nsweep && !ret; k++)
		ret = run_jobs(s, cli, o, z, sweep_read, o->sweep[k],
			       &pr->sweep[k]);
	return ret;
}

/* One protocol's runs into @pr; 0, or 1 after a message. */
static int bench_proto(const struct mdkctl_swarm_opts *o,
		       const struct mdkctl_swarm_zipf *z, unsigned int maxc,
		       struct mdkctl_swarm_proto_res *pr)
{
	/* The loader, then clients that every run reuses. */
	struct mdk_swarm_opts so = { .proto = pr->p,
				     .capacity = o->keys,
				     .key_size = o->key_size,
				     .value_size = o->value_size,
				     .max_clients = 1 + maxc };
	struct mdk_swarm_client *cli[256] = { 0 };
	unsigned int nn = pr->p == MDK_SWARM_PROTO_RAW ? 1 : o->replicas;
	struct mdkctl_swarm_cluster cl;
	struct mdk_swarm *s;
	char err[256];
	int ret;

	if (so.max_clients > MDK_SWARM_MAX_CLIENTS)
		so.max_clients = MDK_SWARM_MAX_CLIENTS;
	if (mdkctl_swarm_cluster_new(&cl, o, nn, mdk_swarm_node_bytes(&so)))
		return 1;
	s = mdk_swarm_format(cl.node, nn, &so, err, sizeof(err));
	if (!s) {
		fprintf(stderr, "mdkctl swarm: %s\n", err);
		mdkctl_swarm_cluster_free(&cl);
		return 1;
	}
	mdkctl_swarm_cluster_set_rtt(&cl, 0, false);
	ret = load(s, o);
	if (!ret)
		ret = bench_clients(s, cli, maxc);
	mdkctl_swarm_cluster_set_rtt(&cl, o->rtt_ns, o->cmm_mp && !o->rtt_set);
	if (!ret)
		ret = bench_runs(s, cli, o, z, pr);
	pr->ran = !ret;
	for (unsigned int k = 0; k < maxc; k++)
		mdk_swarm_client_destroy(cli[k]);
	mdk_swarm_destroy(s);
	mdkctl_swarm_cluster_free(&cl);
	return ret;
}

int mdkctl_swarm_bench(int argc, char **argv)
{
	struct mdkctl_swarm_proto_res pr[3] = { 0 };
	struct mdkctl_swarm_opts o;
	struct mdkctl_swarm_zipf z;
	unsigned int maxc;
	int ret;

	ret = parse_bench(argc, argv, &o);
	if (ret)
		return ret == MDKCTL_DONE ? 0 : ret;
	maxc = o.clients;
	for (unsigned int k = 0; k < o.nsweep; k++)
		if (o.sweep[k] > maxc)
			maxc = o.sweep[k];
	mdkctl_swarm_zipf_init(&z, o.keys, o.zipf_items, o.theta);
	for (unsigned int i = 0; i < o.nproto && !ret; i++) {
		pr[i].p = o.proto[i];
		ret = bench_proto(&o, &z, maxc, &pr[i]);
	}
	if (ret)
		return 1;
	if (o.json)
		return mdkctl_swarm_print_json(&o, pr, o.nproto) ? 1 : 0;
	if (o.csv)
		mdkctl_swarm_print_csv(&o, pr, o.nproto);
	else
		mdkctl_swarm_print_text(&o, pr, o.nproto);
	return 0;
}
