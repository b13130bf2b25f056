// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl swarm: SWARM-KV from the command line.
 *
 *   mdkctl swarm bench   YCSB A and B on SWARM-KV, DM-ABD and RAW in one run:
 *                        round trips per operation, latency percentiles with
 *                        the injected round-trip time, throughput as clients
 *                        grow
 *   mdkctl swarm stress  many clients on few keys, memory nodes crashing
 *                        mid-run, the history checked for linearizability
 *
 * Memory nodes are in-process memory, or with --cmm-mp one shared segment
 * per device of the emulated CMM-MP pool (/dev/cmm_mp).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <mdk/lincheck.h>
#include <mdk/swarm.h>

#include "daemon/jsonout.h"
#include "mdkctl.h"
#include "parse.h"

#include "kmod/uapi/cmm_mp.h"

#define MAX_SWEEP 8

struct opts {
	unsigned int keys, key_size, value_size, replicas, clients;
	unsigned int ops;
	double theta;
	uint64_t zipf_items;
	uint64_t rtt_ns;
	bool rtt_set;
	unsigned int sweep[MAX_SWEEP], nsweep;
	const char *workloads;
	const char *protos;
	const char *cmm_mp;
	bool json, csv;
	/* stress */
	unsigned int crash_nodes, seconds, chaos_ppm;
	int fail_device;
	/* stress across hosts: attach, log, a clock in the pool */
	bool attach;
	const char *log;
	int clock_device;
};

__attribute__((format(printf, 1, 0))) static int usage_err(const char *fmt,
							   const char *arg)
{
	fprintf(stderr, "mdkctl swarm: ");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	fprintf(stderr, fmt, arg);
#pragma GCC diagnostic pop
	fprintf(stderr, " (see mdkctl(8))\n");
	return 2;
}

static int parse_uint(const char *opt, const char *s, unsigned int min,
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

static int parse_sweep(const char *s, struct opts *o)
{
	char buf[128], *tok, *save;

	snprintf(buf, sizeof(buf), "%s", s);
	o->nsweep = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (o->nsweep == MAX_SWEEP)
			return usage_err(
				"--sweep: more than 8 client counts in '%s'",
				s);
		if (parse_uint("--sweep", tok, 1, 255, &o->sweep[o->nsweep++]))
			return 2;
	}
	return o->nsweep ? 0 : usage_err("--sweep: '%s': expected N,N,...", s);
}

/*
 * YCSB's "zipfian" request distribution (its ScrambledZipfianGenerator):
 * ranks drawn from a Zipfian over @items items (Gray et al., SIGMOD'94),
 * YCSB's 10^10 by default, then hashed (FNV-1a) onto the @keys keys.  The
 * keys' popularity is then much flatter than a Zipfian over the keys
 * themselves (at 0.99 over 100,000 keys, the hottest key gets 3.8% of the
 * operations instead of 7.8%); @items equal to @keys gives the latter.
 */
#define ZIPF_YCSB_ITEMS 10000000000ULL

struct zipf {
	uint64_t items, keys;
	double theta, alpha, zetan, eta, half_pow;
};

/*
 * zeta(n, theta), the sum of i^-theta for i = 1..n: exactly up to 10^6,
 * then the Euler-Maclaurin formula for the tail (YCSB itself sums 10^10
 * terms, or uses its constant for 0.99, which this reproduces).
 */
static double zeta(uint64_t n, double theta)
{
	const uint64_t m = n < 1000000 ? n : 1000000;
	double sum = 0, a, b;

	for (uint64_t i = 1; i <= m; i++)
		sum += 1 / pow((double)i, theta);
	if (n == m)
		return sum;
	a = (double)m;
	b = (double)n;
	return sum - pow(a, -theta) +
	       (pow(b, 1 - theta) - pow(a, 1 - theta)) / (1 - theta) +
	       (pow(a, -theta) + pow(b, -theta)) / 2 +
	       theta * (pow(a, -theta - 1) - pow(b, -theta - 1)) / 12;
}

static void zipf_init(struct zipf *z, uint64_t keys, uint64_t items,
		      double theta)
{
	double zeta2 = 1 + pow(0.5, theta);

	z->keys = keys;
	z->items = items ? items : keys;
	z->theta = theta;
	if (theta <= 0)
		return;
	z->zetan = z->items == ZIPF_YCSB_ITEMS && theta == 0.99 ?
			   26.46902820178302 : /* YCSB's ZETAN */
			   zeta(z->items, theta);
	z->alpha = 1 / (1 - theta);
	z->eta = (1 - pow(2.0 / (double)z->items, 1 - theta)) /
		 (1 - zeta2 / z->zetan);
	z->half_pow = 1 + pow(0.5, theta);
}

static uint64_t rnd(uint64_t *x)
{
	uint64_t r = (*x += 0x9e3779b97f4a7c15ULL);

	r = (r ^ (r >> 30)) * 0xbf58476d1ce4e5b9ULL;
	r = (r ^ (r >> 27)) * 0x94d049bb133111ebULL;
	return r ^ (r >> 31);
}

static uint64_t zipf_next(const struct zipf *z, uint64_t *seed)
{
	double u, uz;
	uint64_t item, h = 0xcbf29ce484222325ULL;

	if (z->theta <= 0)
		return rnd(seed) % z->keys;
	u = (double)(rnd(seed) >> 11) / (double)(1ULL << 53);
	uz = u * z->zetan;
	if (uz < 1)
		item = 0;
	else if (uz < z->half_pow)
		item = 1;
	else
		item = (uint64_t)((double)z->items *
				  pow(z->eta * u - z->eta + 1, z->alpha));
	if (item >= z->items)
		item = z->items - 1;
	/* Scramble: hot items spread over the key space (FNV-1a). */
	for (int i = 0; i < 8; i++) {
		h ^= (item >> (8 * i)) & 0xff;
		h *= 0x100000001b3ULL;
	}
	return h % z->keys;
}

static size_t key_of(char *buf, size_t size, uint64_t k)
{
	/* "user" and 20 digits: 24 bytes, YCSB's key format. */
	return (size_t)snprintf(buf, size, "user%020llu",
				(unsigned long long)k) < size ?
		       24 :
		       0;
}

/* Memory nodes: in-process, or one shared segment per CMM-MP device. */
struct cluster {
	struct mdk_memnode *node[MDK_SWARM_MAX_NODES];
	uint64_t rtt0[MDK_SWARM_MAX_NODES]; /* a back end's own RTT */
	unsigned int n;
};

static void cluster_free(struct cluster *cl)
{
	for (unsigned int i = 0; i < cl->n; i++)
		mdk_memnode_destroy(cl->node[i]);
	cl->n = 0;
}

static int cluster_new(struct cluster *cl, const struct opts *o, unsigned int n,
		       uint64_t bytes)
{
	char err[256];

	cl->n = 0;
	for (unsigned int i = 0; i < n; i++) {
		struct mdk_memnode *m;

		m = o->cmm_mp ?
			    mdk_memnode_new_cmm_mp(o->cmm_mp, i,
						   MDK_MEMNODE_CMM_MP_LAST,
						   (bytes + 4095) & ~4095ULL,
						   err, sizeof(err)) :
			    mdk_memnode_new_mem(bytes, err, sizeof(err));
		if (!m) {
			fprintf(stderr, "mdkctl swarm: memory node %u: %s\n", i,
				err);
			cluster_free(cl);
			return 1;
		}
		cl->rtt0[cl->n] = mdk_memnode_rtt(m);
		cl->node[cl->n++] = m;
	}
	return 0;
}

/* @rtt on every node, or with @own each back end's own (cmm_mp devices). */
static void cluster_set_rtt(struct cluster *cl, uint64_t rtt, bool own)
{
	for (unsigned int i = 0; i < cl->n; i++)
		mdk_memnode_set_rtt(cl->node[i], own ? cl->rtt0[i] : rtt);
}

/* Benchmark */

#define RTT_BUCKETS 8 /* 1, 2, ..., 7, 8 or more */

/*
 * Per operation type (get, update): the round trips it took, its wall
 * latency, and its latency on a CPU of its own ("own"): wall latency minus
 * the time spent waiting out round trips, plus their injected time.  The
 * host may have fewer CPUs than clients; "own" is what the protocol costs.
 */
struct stats {
	uint64_t n[2];
	uint64_t rtts[2][RTT_BUCKETS];
	uint32_t *lat[2], *own[2]; /* ns */
	size_t nlat[2], cap[2];
	uint64_t errors;
};

/*
 * Held shut until every client thread exists, so that a failed
 * pthread_create can send the started ones home instead of leaving
 * them waiting forever on a barrier that will never fill.
 */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int state; /* 0: shut, 1: go, -1: abort */
};

static void gate_set(struct gate *g, int state)
{
	pthread_mutex_lock(&g->lock);
	g->state = state;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

static bool gate_pass(struct gate *g)
{
	int state;

	pthread_mutex_lock(&g->lock);
	while (!g->state)
		pthread_cond_wait(&g->cond, &g->lock);
	state = g->state;
	pthread_mutex_unlock(&g->lock);
	return state > 0;
}

struct job {
	struct mdk_swarm *s;
	struct mdk_swarm_client *c;
	const struct opts *o;
	const struct zipf *z;
	unsigned int read_pct, idx, ops;
	pthread_barrier_t *start;
	struct gate *gate;
	struct stats st;
	pthread_t th;
	uint64_t t0, t1;
	int err;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void *bench_client(void *arg)
{
	struct job *j = arg;
	uint64_t seed = 0xbe4c4 + j->idx * 104729ULL + mono_ns();
	struct mdk_swarm_client *c = j->c;
	char key[32], val[4096];

	memset(val, 'v', sizeof(val));
	if (!gate_pass(j->gate))
		return NULL;
	pthread_barrier_wait(j->start);
	j->t0 = mono_ns();
	for (unsigned int i = 0; i < j->ops; i++) {
		uint64_t k = zipf_next(j->z, &seed), t0, dt;
		bool get = rnd(&seed) % 100 < j->read_pct;
		struct mdk_swarm_op_stats st;
		size_t klen = key_of(key, sizeof(key), k), vlen = sizeof(val);
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
		j->st.rtts[t][st.rtts >= RTT_BUCKETS ? RTT_BUCKETS - 1 :
			      st.rtts		     ? st.rtts - 1 :
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

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

struct result {
	uint64_t n[2], rtts[2][RTT_BUCKETS], errors;
	double p50[2], p99[2], own50[2], own99[2], own_mean[2], mean_rtts[2];
	double kops, own_kops;
};

/* Latency sample buffers for each job, so that a client never allocates. */
static int jobs_alloc(struct job *j, unsigned int clients, unsigned int ops)
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

static void jobs_free(struct job *j, unsigned int clients)
{
	for (unsigned int i = 0; i < clients; i++)
		for (int t = 0; t < 2; t++) {
			free(j[i].st.lat[t]);
			free(j[i].st.own[t]);
		}
	free(j);
}

/* Start the clients and wait for them; 0 or a negative errno. */
static int jobs_run(struct job *j, unsigned int clients)
{
	struct gate g = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
			  0 };
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

/* Every job's samples in one array each for reads and updates. */
static int merge_jobs(const struct job *j, unsigned int clients,
		      struct result *r, uint32_t *all[2], uint32_t *own[2],
		      size_t nall[2])
{
	uint64_t t0 = UINT64_MAX, t1 = 0;
	int err = 0;

	for (int t = 0; t < 2; t++) {
		size_t n = 0;

		for (unsigned int i = 0; i < clients; i++)
			n += j[i].st.nlat[t];
		all[t] = malloc(n * sizeof(uint32_t) + 4);
		own[t] = malloc(n * sizeof(uint32_t) + 4);
		nall[t] = 0;
	}
	if (!all[0] || !all[1] || !own[0] || !own[1])
		return -ENOMEM;
	for (unsigned int i = 0; i < clients; i++) {
		err |= j[i].err;
		if (j[i].t0 && j[i].t0 < t0)
			t0 = j[i].t0;
		if (j[i].t1 > t1)
			t1 = j[i].t1;
		r->errors += j[i].st.errors;
		for (int t = 0; t < 2; t++) {
			r->n[t] += j[i].st.n[t];
			for (int b = 0; b < RTT_BUCKETS; b++)
				r->rtts[t][b] += j[i].st.rtts[t][b];
			memcpy(all[t] + nall[t], j[i].st.lat[t],
			       j[i].st.nlat[t] * sizeof(uint32_t));
			memcpy(own[t] + nall[t], j[i].st.own[t],
			       j[i].st.nlat[t] * sizeof(uint32_t));
			nall[t] += j[i].st.nlat[t];
		}
	}
	r->kops = t1 > t0 ? (double)(r->n[0] + r->n[1]) * 1e6 /
				    (double)(t1 - t0) :
			    0;
	return err;
}

/* Percentiles and means of the merged samples of kind @t. */
static void sum_samples(struct result *r, int t, uint32_t *all, uint32_t *own,
			size_t nall)
{
	uint64_t sum = 0;
	double osum = 0;

	for (size_t k = 0; k < nall; k++)
		osum += own[k];
	qsort(all, nall, sizeof(uint32_t), cmp_u32);
	qsort(own, nall, sizeof(uint32_t), cmp_u32);
	if (nall) {
		size_t p50 = (nall + 1) / 2 - 1;
		size_t p99 = (size_t)ceil(0.99 * (double)nall) - 1;

		r->p50[t] = all[p50];
		r->p99[t] = all[p99];
		r->own50[t] = own[p50];
		r->own99[t] = own[p99];
		r->own_mean[t] = osum / (double)nall;
	}
	for (int b = 0; b < RTT_BUCKETS; b++)
		sum += r->rtts[t][b] * (b + 1);
	r->mean_rtts[t] = r->n[t] ? (double)sum / (double)r->n[t] : 0;
}

static int run_jobs(struct mdk_swarm *s, struct mdk_swarm_client **cl,
		    const struct opts *o, const struct zipf *z,
		    unsigned int read_pct, unsigned int clients,
		    struct result *r)
{
	struct job *j = calloc(clients, sizeof(*j));
	uint32_t *all[2] = { 0 }, *own[2] = { 0 };
	size_t nall[2] = { 0 };
	int err;

	memset(r, 0, sizeof(*r));
	if (!j) {
		fprintf(stderr, "mdkctl swarm: %u clients: %s\n", clients,
			strerror(ENOMEM));
		return 1;
	}
	for (unsigned int i = 0; i < clients; i++)
		j[i] = (struct job){ .s = s,
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
	else if ((err = merge_jobs(j, clients, r, all, own, nall)) < 0)
		fprintf(stderr, "mdkctl swarm: merging samples: %s\n",
			strerror(-err));
	jobs_free(j, clients);
	if (err) {
		for (int t = 0; t < 2; t++) {
			free(all[t]);
			free(own[t]);
		}
		return 1;
	}
	for (int t = 0; t < 2; t++) {
		sum_samples(r, t, all[t], own[t], nall[t]);
		free(all[t]);
		free(own[t]);
	}
	/* Clients on CPUs of their own: each runs back to back. */
	if (r->n[0] + r->n[1]) {
		double mean = (r->own_mean[0] * (double)r->n[0] +
			       r->own_mean[1] * (double)r->n[1]) /
			      (double)(r->n[0] + r->n[1]);

		r->own_kops = mean > 0 ? (double)clients * 1e6 / mean : 0;
	}
	return 0;
}

static int load(struct mdk_swarm *s, const struct opts *o)
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
		int ret = mdk_swarm_insert(c, key, key_of(key, sizeof(key), k),
					   val, o->value_size);

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

static const char *const wl_name[2] = { "A", "B" };
static const unsigned int wl_read[2] = { 50, 95 };

struct proto_res {
	enum mdk_swarm_proto p;
	struct result wl[2];
	struct result sweep[MAX_SWEEP];
	bool ran;
};

static double pct(const struct result *r, int t, int b)
{
	uint64_t k = 0;

	if (b < 2)
		k = r->rtts[t][b];
	else
		for (int i = 2; i < RTT_BUCKETS; i++)
			k += r->rtts[t][i];
	return r->n[t] ? 100.0 * (double)k / (double)r->n[t] : 0;
}

static const struct proto_res *find(const struct proto_res *pr, unsigned int np,
				    enum mdk_swarm_proto p)
{
	for (unsigned int i = 0; i < np; i++)
		if (pr[i].p == p && pr[i].ran)
			return &pr[i];
	return NULL;
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

static void print_text(const struct opts *o, const struct proto_res *pr,
		       unsigned int np)
{
	const struct proto_res *raw = find(pr, np, MDK_SWARM_PROTO_RAW);
	const struct proto_res *sw = find(pr, np, MDK_SWARM_PROTO_SWARM);
	const struct proto_res *abd = find(pr, np, MDK_SWARM_PROTO_ABD);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	printf("SWARM-KV bench: %u keys of %u B, values of %u B, %u replicas, %u clients, Zipf %.2f, injected RTT %.1f us, %u ops per client, %ld CPUs\n",
	       o->keys, o->key_size, o->value_size, o->replicas, o->clients,
	       o->theta, (double)o->rtt_ns / 1000, o->ops, cpus);
	printf("Latency \"own\": the client's own work plus the injected round trips (wall time minus the time spent waiting them out and executing the nodes' accesses, which memory nodes do within a round trip); \"wall\": as measured on this host.\n");
	for (int w = 0; w < 2; w++) {
		if (!strchr(o->workloads, wl_name[w][0]))
			continue;
		printf("\nYCSB %s (%u%% gets, %u%% updates)\n", wl_name[w],
		       wl_read[w], 100 - wl_read[w]);
		printf("  %-7s %-6s %7s %7s %7s %6s %8s %8s %8s %8s %8s %8s\n",
		       "proto", "op", "1 RTT", "2 RTT", "3+ RTT", "mean",
		       "own p50", "own p99", "vs raw", "wall p50", "wall p99",
		       "ops");
		for (unsigned int i = 0; i < np; i++) {
			const struct result *r = &pr[i].wl[w];

			if (!pr[i].ran)
				continue;
			for (int t = 0; t < 2; t++)
				printf("  %-7s %-6s %6.2f%% %6.2f%% %6.2f%% %6.3f %7.2fu %7.2fu %7.2fx %7.2fu %7.2fu %8llu\n",
				       mdk_swarm_proto_name(pr[i].p),
				       t ? "update" : "get", pct(r, t, 0),
				       pct(r, t, 1), pct(r, t, 2),
				       r->mean_rtts[t], r->own50[t] / 1000,
				       r->own99[t] / 1000,
				       raw ? ratio(r->own50[t],
						   raw->wl[w].own50[t]) :
					     0,
				       r->p50[t] / 1000, r->p99[t] / 1000,
				       (unsigned long long)r->n[t]);
			printf("  %-7s throughput %.1f kops/s own, %.1f kops/s wall\n",
			       mdk_swarm_proto_name(pr[i].p), r->own_kops,
			       r->kops);
		}
	}
	if (o->nsweep) {
		printf("\nThroughput (kops/s, own / wall), YCSB %s, as clients grow\n",
		       strchr(o->workloads, 'A') ? "A" : "B");
		printf("  %-7s", "clients");
		for (unsigned int k = 0; k < o->nsweep; k++)
			printf(" %15u", o->sweep[k]);
		printf("\n");
		for (unsigned int i = 0; i < np; i++) {
			if (!pr[i].ran)
				continue;
			printf("  %-7s", mdk_swarm_proto_name(pr[i].p));
			for (unsigned int k = 0; k < o->nsweep; k++)
				printf(" %7.1f/%-7.1f", pr[i].sweep[k].own_kops,
				       pr[i].sweep[k].kops);
			printf("\n");
		}
	}
	if (!sw)
		return;
	for (unsigned int k = 0; k < o->nsweep; k++) {
		const struct result *r = &sw->sweep[k];

		if (o->sweep[k] != 1)
			continue;
		printf("\nOne client, YCSB %s: get p50 %.2f us own, %.2f us wall",
		       strchr(o->workloads, 'A') ? "A" : "B",
		       r->own50[0] / 1000, r->p50[0] / 1000);
		if (raw)
			printf("; SWARM-KV / RAW %.2fx own, %.2fx wall",
			       ratio(r->own50[0], raw->sweep[k].own50[0]),
			       ratio(r->p50[0], raw->sweep[k].p50[0]));
		if (abd)
			printf("; DM-ABD / SWARM-KV %.2fx own, %.2fx wall",
			       ratio(abd->sweep[k].own50[0], r->own50[0]),
			       ratio(abd->sweep[k].p50[0], r->p50[0]));
		printf("\n");
	}
	for (int w = 0; w < 2; w++) {
		const struct result *r = &sw->wl[w];

		if (!strchr(o->workloads, wl_name[w][0]))
			continue;
		printf("\nTargets, YCSB %s:\n", wl_name[w]);
		printf("  SWARM-KV gets in 1 RTT         %6.2f%%  (target >= 99%%)\n",
		       pct(r, 0, 0));
		printf("  SWARM-KV updates in 1 RTT      %6.2f%%  (target >= 99%%)\n",
		       pct(r, 1, 0));
		if (raw)
			printf("  get p50, SWARM-KV / RAW        %6.2fx  own, %.2fx wall  (target <= 1.3x)\n",
			       ratio(r->own50[0], raw->wl[w].own50[0]),
			       ratio(r->p50[0], raw->wl[w].p50[0]));
		if (abd)
			printf("  get p50, DM-ABD / SWARM-KV     %6.2fx  own, %.2fx wall  (target about 2x)\n",
			       ratio(abd->wl[w].own50[0], r->own50[0]),
			       ratio(abd->wl[w].p50[0], r->p50[0]));
	}
}

/* The members of one result, added to @o after its name or clients. */
static void json_result(struct json_object *o, const struct result *r)
{
	mdkd_json_add_fixed(o, "kops", r->kops, 2);
	mdkd_json_add_fixed(o, "own_kops", r->own_kops, 2);
	mdkd_json_add_u64(o, "errors", r->errors);
	for (int t = 0; t < 2; t++) {
		struct json_object *op = json_object_new_object(),
				   *rtts = json_object_new_array_ext(
					   RTT_BUCKETS);

		mdkd_json_add_u64(op, "ops", r->n[t]);
		mdkd_json_add_fixed(op, "p50_ns", r->p50[t], 0);
		mdkd_json_add_fixed(op, "p99_ns", r->p99[t], 0);
		mdkd_json_add_fixed(op, "own_p50_ns", r->own50[t], 0);
		mdkd_json_add_fixed(op, "own_p99_ns", r->own99[t], 0);
		mdkd_json_add_fixed(op, "mean_rtts", r->mean_rtts[t], 4);
		for (int b = 0; b < RTT_BUCKETS; b++)
			mdkd_json_push(rtts,
				       json_object_new_uint64(r->rtts[t][b]));
		mdkd_json_add(op, "rtts", rtts);
		mdkd_json_add(o, t ? "update" : "get", op);
	}
}

static int print_json(const struct opts *o, const struct proto_res *pr,
		      unsigned int np)
{
	struct json_object *doc = json_object_new_object(),
			   *protos = json_object_new_array();

	mdkd_json_add_u64(doc, "keys", o->keys);
	mdkd_json_add_u64(doc, "key_size", o->key_size);
	mdkd_json_add_u64(doc, "value_size", o->value_size);
	mdkd_json_add_u64(doc, "replicas", o->replicas);
	mdkd_json_add_u64(doc, "clients", o->clients);
	mdkd_json_add_fixed(doc, "theta", o->theta, 3);
	mdkd_json_add_u64(doc, "rtt_ns", o->rtt_ns);
	mdkd_json_add_u64(doc, "ops", o->ops);
	for (unsigned int i = 0; i < np; i++) {
		struct json_object *p, *wls, *sweep;

		if (!pr[i].ran)
			continue;
		p = json_object_new_object();
		wls = json_object_new_array();
		sweep = json_object_new_array();
		mdkd_json_add_str(p, "name", mdk_swarm_proto_name(pr[i].p));
		for (int w = 0; w < 2; w++) {
			struct json_object *wl;

			if (!strchr(o->workloads, wl_name[w][0]))
				continue;
			wl = json_object_new_object();
			mdkd_json_add_str(wl, "name", wl_name[w]);
			json_result(wl, &pr[i].wl[w]);
			mdkd_json_push(wls, wl);
		}
		for (unsigned int k = 0; k < o->nsweep; k++) {
			struct json_object *sw = json_object_new_object();

			mdkd_json_add_u64(sw, "clients", o->sweep[k]);
			json_result(sw, &pr[i].sweep[k]);
			mdkd_json_push(sweep, sw);
		}
		mdkd_json_add(p, "workloads", wls);
		mdkd_json_add(p, "sweep", sweep);
		mdkd_json_push(protos, p);
	}
	mdkd_json_add(doc, "protocols", protos);
	return mdkd_json_emit(doc);
}

static void print_csv(const struct opts *o, const struct proto_res *pr,
		      unsigned int np)
{
	printf("proto,workload,clients,op,ops,rtt1_pct,rtt2_pct,rtt3plus_pct,mean_rtts,own_p50_ns,own_p99_ns,p50_ns,p99_ns,own_kops,kops\n");
	for (unsigned int i = 0; i < np; i++) {
		if (!pr[i].ran)
			continue;
		for (int w = 0; w < 2 + (int)o->nsweep; w++) {
			const struct result *r = w < 2 ? &pr[i].wl[w] :
							 &pr[i].sweep[w - 2];
			const char *wn = w < 2 ? wl_name[w] :
					 strchr(o->workloads, 'A') ? "A" :
								     "B";
			unsigned int cl = w < 2 ? o->clients : o->sweep[w - 2];

			if (w < 2 && !strchr(o->workloads, wl_name[w][0]))
				continue;
			for (int t = 0; t < 2; t++)
				printf("%s,%s,%u,%s,%llu,%.3f,%.3f,%.3f,%.4f,%.0f,%.0f,%.0f,%.0f,%.2f,%.2f\n",
				       mdk_swarm_proto_name(pr[i].p), wn, cl,
				       t ? "update" : "get",
				       (unsigned long long)r->n[t],
				       pct(r, t, 0), pct(r, t, 1), pct(r, t, 2),
				       r->mean_rtts[t], r->own50[t],
				       r->own99[t], r->p50[t], r->p99[t],
				       r->own_kops, r->kops);
		}
	}
}

static int parse_protos(const char *s, enum mdk_swarm_proto *p,
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
			return usage_err(
				"--protocols: '%s': expected raw, swarm, dm-abd",
				tok);
		p[(*np)++] = k;
	}
	return *np ? 0 : usage_err("--protocols: '%s' is empty", s);
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

static void defaults(struct opts *o)
{
	memset(o, 0, sizeof(*o));
	o->keys = 100000;
	o->key_size = 24;
	o->value_size = 64;
	o->replicas = 3;
	o->clients = 4;
	o->ops = 20000;
	o->theta = 0.99;
	o->zipf_items = ZIPF_YCSB_ITEMS;
	o->rtt_ns = 2000;
	o->workloads = "AB";
	o->protos = "raw,swarm,dm-abd";
	o->fail_device = -1;
}

static int parse_common(int c, const char *arg, struct opts *o)
{
	char *end;
	unsigned int v;

	switch (c) {
	case 'k':
		return parse_uint("--keys", arg, 1, 1U << 26, &o->keys);
	case 'K':
		if (parse_uint("--key-size", arg, 24, 4096, &o->key_size))
			return 2;
		return 0;
	case 'V':
		return parse_uint("--value-size", arg, 8, 4096, &o->value_size);
	case 'r':
		return parse_uint("--replicas", arg, 1, MDK_SWARM_MAX_NODES,
				  &o->replicas);
	case 'c':
		return parse_uint("--clients", arg, 1, 255, &o->clients);
	case 'o':
		return parse_uint("--ops", arg, 1, 100000000, &o->ops);
	case 'z':
		o->theta = strtod(arg, &end);
		if (*end || end == arg || o->theta < 0 || o->theta >= 1)
			return usage_err(
				"--zipf: '%s': expected 0 <= theta < 1", arg);
		return 0;
	case 't':
		if (parse_uint("--rtt-ns", arg, 0, 100000000, &v))
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

static int cmd_bench(int argc, char **argv)
{
	struct opts o;
	enum mdk_swarm_proto plist[3];
	struct proto_res pr[3] = { 0 };
	unsigned int np, maxc;
	struct zipf z;
	int c, ret = 0;

	defaults(&o);
	optind = 1;
	while ((c = getopt_long(argc, argv, "jh", bench_long, NULL)) != -1) {
		int r = parse_common(c, optarg, &o);

		if (r > 0)
			return r;
		if (!r)
			continue;
		switch (c) {
		case 's':
			if (parse_sweep(optarg, &o))
				return 2;
			break;
		case 'Z': {
			char *end;

			errno = 0;
			o.zipf_items = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end || *optarg == '-')
				return usage_err(
					"--zipf-items: '%s': expected a number of items (0: the keys)",
					optarg);
			break;
		}
		case 'w':
			if (!*optarg || strspn(optarg, "AB") != strlen(optarg))
				return usage_err(
					"--workloads: '%s': expected A, B or AB",
					optarg);
			o.workloads = optarg;
			break;
		case 'p':
			o.protos = optarg;
			break;
		case 'h':
			printf("usage: mdkctl swarm bench [--keys N] [--key-size B] [--value-size B]\n"
			       "        [--replicas N] [--clients N] [--ops N] [--zipf THETA]\n"
			       "        [--zipf-items N] [--rtt-ns NS] [--sweep N,N,...] [--workloads AB]\n"
			       "        [--protocols raw,swarm,dm-abd] [--cmm-mp[=DEV]] [-j|--csv]\n");
			return 0;
		default:
			return 2;
		}
	}
	if (optind < argc)
		return usage_err("bench: unexpected argument '%s'",
				 argv[optind]);
	if (parse_protos(o.protos, plist, &np))
		return 2;
	maxc = o.clients;
	for (unsigned int k = 0; k < o.nsweep; k++)
		if (o.sweep[k] > maxc)
			maxc = o.sweep[k];
	zipf_init(&z, o.keys, o.zipf_items, o.theta);

	for (unsigned int i = 0; i < np && !ret; i++) {
		/* The loader, then clients that every run reuses. */
		struct mdk_swarm_opts so = { .proto = plist[i],
					     .capacity = o.keys,
					     .key_size = o.key_size,
					     .value_size = o.value_size,
					     .max_clients = 1 + maxc };
		struct mdk_swarm_client *cli[256] = { 0 };
		unsigned int nn = plist[i] == MDK_SWARM_PROTO_RAW ? 1 :
								    o.replicas;
		struct cluster cl;
		struct mdk_swarm *s;
		char err[256];

		if (so.max_clients > MDK_SWARM_MAX_CLIENTS)
			so.max_clients = MDK_SWARM_MAX_CLIENTS;
		pr[i].p = plist[i];
		if (cluster_new(&cl, &o, nn, mdk_swarm_node_bytes(&so)))
			return 1;
		s = mdk_swarm_format(cl.node, nn, &so, err, sizeof(err));
		if (!s) {
			fprintf(stderr, "mdkctl swarm: %s\n", err);
			cluster_free(&cl);
			return 1;
		}
		cluster_set_rtt(&cl, 0, false);
		ret = load(s, &o);
		for (unsigned int k = 0; k < maxc && !ret; k++) {
			cli[k] = mdk_swarm_client_new(s, err, sizeof(err));
			if (!cli[k] || mdk_swarm_warm(cli[k])) {
				fprintf(stderr, "mdkctl swarm: client: %s\n",
					err);
				ret = 1;
			}
		}
		cluster_set_rtt(&cl, o.rtt_ns, o.cmm_mp && !o.rtt_set);
		for (int w = 0; w < 2 && !ret; w++)
			if (strchr(o.workloads, wl_name[w][0]))
				ret = run_jobs(s, cli, &o, &z, wl_read[w],
					       o.clients, &pr[i].wl[w]);
		for (unsigned int k = 0; k < o.nsweep && !ret; k++)
			ret = run_jobs(
				s, cli, &o, &z,
				wl_read[strchr(o.workloads, 'A') ? 0 : 1],
				o.sweep[k], &pr[i].sweep[k]);
		pr[i].ran = !ret;
		for (unsigned int k = 0; k < maxc; k++)
			mdk_swarm_client_destroy(cli[k]);
		mdk_swarm_destroy(s);
		cluster_free(&cl);
	}
	if (ret)
		return 1;
	if (o.json)
		return print_json(&o, pr, np) ? 1 : 0;
	if (o.csv)
		print_csv(&o, pr, np);
	else
		print_text(&o, pr, np);
	return 0;
}

/* Stress */

/*
 * Stress across hosts (--log, --shared-clock): each host's clients write
 * every operation to a log before it starts ("c") and once it returned
 * ("r"), so that a host killed mid-run leaves its operations in flight
 * as pending, and "mdkctl swarm check" checks the hosts' logs as one
 * history.  Real-time order across hosts needs one clock: a counter in
 * the pool (the first word of a segment both hosts share) of which every
 * call and return takes a ticket, a linearizable clock.
 *
 *   c CLIENT.SEQ put|get KEY VALUE TICKET
 *   r CLIENT.SEQ TICKET VALUE|absent|failed
 */
static struct {
	FILE *f;
	pthread_mutex_t lock;
	struct mdk_memnode *clock;
	volatile int clock_failed; /* a ticket could not be taken */
} hist = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Client ids a logged store has room for: every run of every host. */
#define LOGGED_MAX_CLIENTS 64

/* A time for call_ns and ret_ns: the pool's ticket, or CLOCK_MONOTONIC. */
static uint64_t stress_now(void)
{
	uint64_t v = 0, old;

	if (!hist.clock)
		return mdk_lin_now_ns();
	for (;;) {
		if (mdk_memnode_cas(hist.clock, 0, v, v + 1, &old)) {
			/* No ticket: the log's order is lost; the run fails. */
			hist.clock_failed = 1;
			return 0;
		}
		if (old == v)
			return v + 1;
		v = old;
	}
}

/* One log line, on the log's host file before the operation goes on. */
__attribute__((format(printf, 1, 2))) static void hist_put(const char *fmt, ...)
{
	va_list ap;

	if (!hist.f)
		return;
	pthread_mutex_lock(&hist.lock);
	va_start(ap, fmt);
	vfprintf(hist.f, fmt, ap);
	va_end(ap);
	fflush(hist.f);
	pthread_mutex_unlock(&hist.lock);
}

static void hist_call(const struct mdk_lin_op *op, unsigned int client,
		      uint64_t seq)
{
	hist_put("c %u.%llu %s %llu %llu %llu\n", client,
		 (unsigned long long)seq,
		 op->kind == MDK_LIN_PUT ? "put" : "get",
		 (unsigned long long)op->key,
		 (unsigned long long)(op->kind == MDK_LIN_PUT ? op->value : 0),
		 (unsigned long long)op->call_ns);
}

static void hist_ret(const struct mdk_lin_op *op, unsigned int client,
		     uint64_t seq, bool failed)
{
	char v[24];

	if (failed)
		snprintf(v, sizeof(v), "failed");
	else if (op->kind == MDK_LIN_GET && op->value == MDK_LIN_ABSENT)
		snprintf(v, sizeof(v), "absent");
	else
		snprintf(v, sizeof(v), "%llu", (unsigned long long)op->value);
	hist_put("r %u.%llu %llu %s\n", client, (unsigned long long)seq,
		 (unsigned long long)op->ret_ns, v);
}

struct sjob {
	struct mdk_swarm *s;
	const struct opts *o;
	unsigned int idx;
	pthread_t th;
	struct mdk_lin_op *log;
	size_t nlog, cap;
	uint64_t end_ns;
	volatile int *stop;
};

static void *stress_client(void *arg)
{
	struct sjob *j = arg;
	uint64_t seed = 0x57e55 + j->idx * 7919ULL, seq = 0;
	struct mdk_swarm_client *c;
	char err[256], key[32], val[4096];
	unsigned int id;

	c = mdk_swarm_client_new(j->s, err, sizeof(err));
	if (!c) {
		fprintf(stderr, "mdkctl swarm: client: %s\n", err);
		return NULL;
	}
	/* The store's client id: unique across processes and hosts. */
	id = mdk_swarm_client_id(c);
	seed ^= (uint64_t)id << 40;
	mdk_swarm_client_set_clock_skew(c, (int64_t)(rnd(&seed) % 2001) - 1000);
	if (j->o->chaos_ppm)
		mdk_swarm_client_set_chaos(c, j->o->chaos_ppm, seed);
	memset(val, 0, sizeof(val));
	while (!*j->stop && j->nlog < j->cap) {
		struct mdk_lin_op *op = &j->log[j->nlog];
		uint64_t k = rnd(&seed) % j->o->keys;
		size_t klen = key_of(key, sizeof(key), k), vlen = sizeof(val);
		int ret;

		memset(op, 0, sizeof(*op));
		op->key = k;
		op->client = id;
		++seq;
		if (rnd(&seed) % 2) {
			op->kind = MDK_LIN_PUT;
			op->value = ((uint64_t)(id + 1) << 32) | seq;
			memcpy(val, &op->value, 8);
			op->call_ns = stress_now();
			hist_call(op, id, seq);
			ret = mdk_swarm_insert(c, key, klen, val, 8);
		} else {
			op->kind = MDK_LIN_GET;
			op->call_ns = stress_now();
			hist_call(op, id, seq);
			ret = mdk_swarm_get(c, key, klen, val, &vlen);
			op->value = MDK_LIN_ABSENT;
			if (!ret)
				memcpy(&op->value, val, 8);
			else if (ret == -ENOENT)
				ret = 0;
		}
		op->ret_ns = stress_now();
		hist_ret(op, id, seq, ret != 0);
		if (ret) {
			if (op->kind == MDK_LIN_PUT) {
				op->ret_ns = MDK_LIN_PENDING;
				j->nlog++;
			}
			break;
		}
		j->nlog++;
		if (mdk_lin_now_ns() > j->end_ns)
			break;
	}
	mdk_swarm_client_destroy(c);
	return NULL;
}

static int fail_node(const struct opts *o, struct cluster *cl, unsigned int i)
{
	if (o->cmm_mp) {
		struct cmm_mp_fault f = { .device = i };
		int fd = open(o->cmm_mp, O_RDWR | O_CLOEXEC), ret;

		if (fd < 0)
			return -errno;
		ret = ioctl(fd, CMM_MP_IOC_DEV_FAIL, &f) ? -errno : 0;
		close(fd);
		return ret;
	}
	mdk_memnode_crash(cl->node[i]);
	return 0;
}

/* What the store was formatted with, defaults applied, as it reports it. */
static void json_add_store_opts(struct json_object *out,
				const struct mdk_swarm *s)
{
	struct json_object *o = json_object_new_object();
	struct mdk_swarm_opts so;

	mdk_swarm_opts_get(s, &so);
	mdkd_json_add_str(o, "protocol", mdk_swarm_proto_name(so.proto));
	mdkd_json_add_u64(o, "capacity", so.capacity);
	mdkd_json_add_u64(o, "key_size", so.key_size);
	mdkd_json_add_u64(o, "value_size", so.value_size);
	mdkd_json_add_u64(o, "max_clients", so.max_clients);
	json_object_object_add(out, "store", o);
}

static void sjobs_free(struct sjob *j, unsigned int clients)
{
	for (unsigned int i = 0; i < clients; i++)
		free(j[i].log);
	free(j);
}

/* The clients' jobs with their operation logs, or NULL out of memory. */
static struct sjob *sjobs_new(struct mdk_swarm *s, const struct opts *o,
			      volatile int *stop, uint64_t end_ns)
{
	struct sjob *j = calloc(o->clients, sizeof(*j));

	if (!j)
		return NULL;
	for (unsigned int i = 0; i < o->clients; i++) {
		j[i] = (struct sjob){ .s = s,
				      .o = o,
				      .idx = i,
				      .cap = o->ops,
				      .stop = stop,
				      .end_ns = end_ns };
		j[i].log = calloc(o->ops, sizeof(*j[i].log));
		if (!j[i].log) {
			sjobs_free(j, o->clients);
			return NULL;
		}
	}
	return j;
}

/*
 * One thread per client; 0 or a negative errno, in which case the
 * threads already running are stopped and joined.
 */
static int sjobs_start(struct sjob *j, unsigned int clients, volatile int *stop)
{
	for (unsigned int i = 0; i < clients; i++) {
		int ret = pthread_create(&j[i].th, NULL, stress_client, &j[i]);

		if (ret) {
			*stop = 1;
			while (i--)
				pthread_join(j[i].th, NULL);
			return -ret;
		}
	}
	return 0;
}

static const struct option stress_long[] = {
	{ "keys", required_argument, NULL, 'k' },
	{ "replicas", required_argument, NULL, 'r' },
	{ "clients", required_argument, NULL, 'c' },
	{ "ops", required_argument, NULL, 'o' },
	{ "rtt-ns", required_argument, NULL, 't' },
	{ "protocol", required_argument, NULL, 'p' },
	{ "crash", required_argument, NULL, 'x' },
	{ "seconds", required_argument, NULL, 'S' },
	{ "chaos", required_argument, NULL, 'X' },
	{ "cmm-mp", optional_argument, NULL, 'm' },
	{ "attach", no_argument, NULL, 'A' },
	{ "log", required_argument, NULL, 'L' },
	{ "shared-clock", required_argument, NULL, 'Q' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* Stress's options; 0, or the exit code after --help (0) or a message. */
static int parse_stress(int argc, char **argv, struct opts *o,
			enum mdk_swarm_proto *proto, bool *done)
{
	enum mdk_swarm_proto plist[3];
	unsigned int np = 0;
	int c;

	*done = false;
	defaults(o);
	o->keys = 4;
	o->clients = 6;
	o->ops = 2000;
	o->rtt_ns = 0;
	o->seconds = 10;
	o->protos = "swarm";
	o->clock_device = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "jh", stress_long, NULL)) != -1) {
		int r = parse_common(c, optarg, o);

		if (r > 0)
			return r;
		if (!r)
			continue;
		switch (c) {
		case 'p':
			o->protos = optarg;
			break;
		case 'x':
			if (parse_uint("--crash", optarg, 0,
				       MDK_SWARM_MAX_NODES, &o->crash_nodes))
				return 2;
			break;
		case 'S':
			if (parse_uint("--seconds", optarg, 1, 3600,
				       &o->seconds))
				return 2;
			break;
		case 'X':
			if (parse_uint("--chaos", optarg, 0, 1000000,
				       &o->chaos_ppm))
				return 2;
			break;
		case 'A':
			o->attach = true;
			break;
		case 'L':
			o->log = optarg;
			break;
		case 'Q': {
			unsigned int d;

			if (parse_uint("--shared-clock", optarg, 0,
				       MDK_SWARM_MAX_NODES * 4, &d))
				return 2;
			o->clock_device = (int)d;
			break;
		}
		case 'h':
			printf("usage: mdkctl swarm stress [--protocol swarm|dm-abd] [--keys N]\n"
			       "        [--replicas N] [--clients N] [--ops N] [--crash N]\n"
			       "        [--seconds S] [--chaos PPM] [--rtt-ns NS] [--cmm-mp[=DEV]] [-j]\n"
			       "        [--attach] [--log FILE] [--shared-clock DEVICE]\n");
			*done = true;
			return 0;
		default:
			return 2;
		}
	}
	if (optind < argc)
		return usage_err("stress: unexpected argument '%s'",
				 argv[optind]);
	if (parse_protos(o->protos, plist, &np))
		return 2;
	if (np != 1 || plist[0] == MDK_SWARM_PROTO_RAW)
		return usage_err("--protocol: '%s': expected swarm or dm-abd",
				 o->protos);
	if ((o->attach || o->clock_device >= 0) && !o->cmm_mp)
		return usage_err(
			"%s: needs --cmm-mp (a pool other hosts share)",
			o->attach ? "--attach" : "--shared-clock");
	if (2 * o->crash_nodes >= o->replicas) {
		fprintf(stderr,
			"mdkctl swarm: --crash: %u of %u nodes is not a minority (see mdkctl(8))\n",
			o->crash_nodes, o->replicas);
		return 2;
	}
	*proto = plist[0];
	return 0;
}

/*
 * Crash nodes (fail devices) one after the other, mid-run: the k-th once
 * k+1 of crash_nodes+2 parts of the operations or of the time have gone.
 * Returns how many were crashed.
 */
static unsigned int crash_midrun(const struct opts *o, struct cluster *cl,
				 const struct sjob *j, uint64_t t0)
{
	unsigned int crashed = 0;

	for (unsigned int k = 0; k < o->crash_nodes; k++) {
		size_t done;
		int ret;

		do {
			usleep(2000);
			done = 0;
			for (unsigned int i = 0; i < o->clients; i++)
				done += __atomic_load_n(&j[i].nlog,
							__ATOMIC_RELAXED);
		} while (done < (size_t)o->clients * o->ops * (k + 1) /
					 (o->crash_nodes + 2) &&
			 mdk_lin_now_ns() - t0 < o->seconds * 1000000000ULL *
							 (k + 1) /
							 (o->crash_nodes + 2));
		ret = fail_node(o, cl, 2 * k % o->replicas);
		if (ret)
			fprintf(stderr, "mdkctl swarm: failing node %u: %s\n",
				2 * k % o->replicas, strerror(-ret));
		else
			crashed++;
	}
	return crashed;
}

/* Every client's log in one history, with room for the final reads. */
static struct mdk_lin_op *merge_logs(const struct opts *o, const struct sjob *j,
				     size_t *n)
{
	struct mdk_lin_op *all;

	*n = 0;
	all = calloc((size_t)o->clients * o->ops + o->keys, sizeof(*all));
	for (unsigned int i = 0; all && i < o->clients; i++) {
		memcpy(all + *n, j[i].log, j[i].nlog * sizeof(*all));
		*n += j[i].nlog;
	}
	return all;
}

/* Read every key once more, after the run, into the history. */
static int final_reads(struct mdk_swarm *s, const struct opts *o,
		       struct mdk_lin_op *all, size_t *n)
{
	struct mdk_swarm_client *fin;
	char err[256];
	unsigned int id;
	int ret = 0;

	fin = mdk_swarm_client_new(s, err, sizeof(err));
	if (!fin) {
		fprintf(stderr, "mdkctl swarm: final reads: %s\n", err);
		return 1;
	}
	id = mdk_swarm_client_id(fin);
	for (uint64_t k = 0; k < o->keys; k++) {
		struct mdk_lin_op *op = &all[(*n)++];
		char key[32], val[4096];
		size_t vlen = sizeof(val);
		int r;

		op->key = k;
		op->kind = MDK_LIN_GET;
		op->client = id;
		op->call_ns = stress_now();
		hist_call(op, id, k + 1);
		r = mdk_swarm_get(fin, key, key_of(key, sizeof(key), k), val,
				  &vlen);
		op->ret_ns = stress_now();
		op->value = MDK_LIN_ABSENT;
		if (!r)
			memcpy(&op->value, val, 8);
		hist_ret(op, id, k + 1, r && r != -ENOENT);
		if (r && r != -ENOENT) {
			fprintf(stderr,
				"mdkctl swarm: final get of key %llu: %s\n",
				(unsigned long long)k, strerror(-r));
			ret = 1;
		}
	}
	mdk_swarm_client_destroy(fin);
	return ret;
}

/* The verdict, as text or JSON; 1 when not linearizable. */
static int print_stress(const struct opts *o, const struct mdk_swarm *s,
			enum mdk_swarm_proto proto, unsigned int crashed,
			size_t n, const struct mdk_lin_report *rep)
{
	if (o->json) {
		struct json_object *out = json_object_new_object();

		mdkd_json_add_str(out, "protocol", mdk_swarm_proto_name(proto));
		mdkd_json_add_u64(out, "nodes", o->replicas);
		mdkd_json_add_u64(out, "crashed", crashed);
		mdkd_json_add_u64(out, "clients", o->clients);
		mdkd_json_add_u64(out, "keys", o->keys);
		mdkd_json_add_u64(out, "ops", n);
		mdkd_json_add_u64(out, "configurations", rep->explored);
		mdkd_json_add_bool(out, "linearizable", rep->linearizable);
		json_add_store_opts(out, s);
		if (mdkd_json_emit(out))
			return 1;
	} else {
		printf("%s: %u nodes (%u crashed), %u clients, %u keys: %zu operations, %s%s%s\n",
		       mdk_swarm_proto_name(proto), o->replicas, crashed,
		       o->clients, o->keys, n,
		       rep->linearizable ? "linearizable" :
					   "NOT linearizable: ",
		       rep->linearizable ? "" : rep->msg, "");
	}
	return rep->linearizable ? 0 : 1;
}

/*
 * Run the clients with nodes crashing mid-run, then the final reads, and
 * check the history.  Returns the exit code.
 */
static int stress_run(struct mdk_swarm *s, const struct opts *o,
		      enum mdk_swarm_proto proto, struct cluster *cl)
{
	struct mdk_lin_report rep;
	struct mdk_lin_op *all;
	volatile int stop = 0;
	unsigned int crashed;
	struct sjob *j;
	size_t n;
	uint64_t t0;
	int ret;

	t0 = mdk_lin_now_ns();
	j = sjobs_new(s, o, &stop, t0 + o->seconds * 1000000000ULL);
	if (!j) {
		fprintf(stderr, "mdkctl swarm: %u clients' logs: %s\n",
			o->clients, strerror(ENOMEM));
		return 1;
	}
	ret = sjobs_start(j, o->clients, &stop);
	if (ret) {
		fprintf(stderr, "mdkctl swarm: starting a client thread: %s\n",
			strerror(-ret));
		sjobs_free(j, o->clients);
		return 1;
	}
	crashed = crash_midrun(o, cl, j, t0);
	for (unsigned int i = 0; i < o->clients; i++)
		pthread_join(j[i].th, NULL);
	all = merge_logs(o, j, &n);
	sjobs_free(j, o->clients);
	if (!all) {
		fprintf(stderr, "mdkctl swarm: history: %s\n",
			strerror(ENOMEM));
		return 1;
	}
	ret = final_reads(s, o, all, &n);
	if (hist.clock_failed) {
		fprintf(stderr,
			"mdkctl swarm: --shared-clock: its node failed: the log has no order\n");
		ret = 1;
	}
	if (!ret && hist.f) {
		/* The history is the hosts' logs: mdkctl swarm check. */
		printf("%s: %zu operations logged to %s\n",
		       mdk_swarm_proto_name(proto), n, o->log);
		free(all);
		return crashed < o->crash_nodes;
	}
	if (!ret && mdk_lincheck(all, n, 1000000000ULL, &rep)) {
		fprintf(stderr, "mdkctl swarm: checker: %s\n", rep.msg);
		ret = 1;
	}
	if (!ret)
		ret = print_stress(o, s, proto, crashed, n, &rep);
	if (crashed < o->crash_nodes)
		ret = 1;
	free(all);
	return ret;
}

/* --log and --shared-clock (the first segment of device DEVICE). */
static int hist_open(const struct opts *o)
{
	char err[256];

	if (o->log) {
		hist.f = fopen(o->log, "w");
		if (!hist.f) {
			fprintf(stderr, "mdkctl swarm: --log %s: %s\n", o->log,
				strerror(errno));
			return 1;
		}
	}
	if (o->clock_device >= 0) {
		hist.clock = mdk_memnode_new_cmm_mp(
			o->cmm_mp, (unsigned int)o->clock_device,
			MDK_MEMNODE_CMM_MP_FIRST, 4096, err, sizeof(err));
		if (!hist.clock) {
			fprintf(stderr, "mdkctl swarm: --shared-clock: %s\n",
				err);
			return 1;
		}
	}
	return 0;
}

static void hist_close(void)
{
	if (hist.f)
		fclose(hist.f);
	if (hist.clock)
		mdk_memnode_destroy(hist.clock);
	hist.f = NULL;
	hist.clock = NULL;
}

static int cmd_stress(int argc, char **argv)
{
	struct mdk_swarm_opts so = { 0 };
	struct mdk_swarm *s;
	struct cluster cl;
	struct opts o;
	char err[256];
	bool done;
	int ret;

	ret = parse_stress(argc, argv, &o, &so.proto, &done);
	if (ret || done)
		return ret;
	so.capacity = o.keys;
	/* A logged store is one that other runs, on other hosts, attach to. */
	so.max_clients = o.log ? LOGGED_MAX_CLIENTS : o.clients + 1;
	if (cluster_new(&cl, &o, o.replicas, mdk_swarm_node_bytes(&so)))
		return 1;
	cluster_set_rtt(&cl, o.rtt_ns, o.cmm_mp && !o.rtt_set);
	s = o.attach ? mdk_swarm_attach(cl.node, o.replicas, err, sizeof(err)) :
		       mdk_swarm_format(cl.node, o.replicas, &so, err,
					sizeof(err));
	if (!s) {
		fprintf(stderr, "mdkctl swarm: %s\n", err);
		cluster_free(&cl);
		return 1;
	}
	ret = hist_open(&o);
	if (!ret)
		ret = stress_run(s, &o, so.proto, &cl);
	hist_close();
	mdk_swarm_destroy(s);
	cluster_free(&cl);
	return ret;
}

/* ---- mdkctl swarm check LOG...: the hosts' logs as one history ---- */

/* Double *@p's capacity *@cap (elements of @size); 0 or -ENOMEM. */
static int grow_array(void **p, size_t *cap, size_t size)
{
	size_t nc = *cap ? 2 * *cap : 256;
	void *np = realloc(*p, nc * size);

	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = nc;
	return 0;
}

struct hop {
	uint64_t id; /* client << 40 | seq */
	struct mdk_lin_op op;
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
		h.op.kind = strcmp(kind, "put") ? MDK_LIN_GET : MDK_LIN_PUT;
		h.op.value = value;
		h.op.call_ns = t;
		if (*n == *cap && grow_array((void **)v, cap, sizeof(**v)))
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
			h.op.value = MDK_LIN_ABSENT;
		else if (!h.failed) {
			h.op.value = strtoull(res, &e, 10);
			if (*e)
				goto bad;
		}
		if (*nr == *rcap && grow_array((void **)r, rcap, sizeof(**r)))
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
			struct mdk_lin_op *ops, size_t *pending)
{
	size_t i, k = 0, m = 0;

	qsort(v, n, sizeof(*v), hop_cmp);
	qsort(r, nr, sizeof(*r), hop_cmp);
	*pending = 0;
	for (i = 0; i < n; i++) {
		struct mdk_lin_op op = v[i].op;

		while (k < nr && r[k].id < v[i].id)
			k++;
		if (k < nr && r[k].id == v[i].id && !r[k].failed) {
			op.ret_ns = r[k].op.ret_ns;
			if (op.kind == MDK_LIN_GET)
				op.value = r[k].op.value;
		} else if (op.kind == MDK_LIN_PUT) {
			op.ret_ns = MDK_LIN_PENDING;
			++*pending;
		} else {
			continue;
		}
		ops[m++] = op;
	}
	return m;
}

static int cmd_check(int argc, char **argv)
{
	struct hop *v = NULL, *r = NULL;
	size_t n = 0, cap = 0, nr = 0, rcap = 0, m, pending;
	struct mdk_lin_op *ops;
	struct mdk_lin_report rep;
	char line[256];
	int ret = 0;

	if (argc < 2) {
		fprintf(stderr,
			"usage: mdkctl swarm check LOG... (the --log files of mdkctl swarm stress)\n");
		return 2;
	}
	for (int a = 1; a < argc && !ret; a++) {
		FILE *f = fopen(argv[a], "r");
		unsigned long ln = 0;

		if (!f) {
			fprintf(stderr, "mdkctl swarm check: %s: %s\n", argv[a],
				strerror(errno));
			ret = 1;
			break;
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
					argv[a], ln, sizeof(line) - 2);
				ret = 1;
				break;
			}
			line[len - 1] = '\0';
			if (hist_line(argv[a], ln, line, &v, &n, &cap, &r, &nr,
				      &rcap))
				ret = 1;
		}
		fclose(f);
	}
	ops = ret ? NULL : calloc(n ? n : 1, sizeof(*ops));
	if (!ret && !ops) {
		fprintf(stderr, "mdkctl swarm check: out of memory\n");
		ret = 1;
	}
	if (!ret) {
		m = hist_pair(v, n, r, nr, ops, &pending);
		if (mdk_lincheck(ops, m, 1000000000ULL, &rep)) {
			fprintf(stderr, "mdkctl swarm check: %s\n", rep.msg);
			ret = 1;
		} else {
			printf("%zu operations from %d logs (%zu pending puts, %zu calls without a return): %s%s\n",
			       m, argc - 1, pending, n - nr,
			       rep.linearizable ? "linearizable" :
						  "NOT linearizable: ",
			       rep.linearizable ? "" : rep.msg);
			ret = !rep.linearizable;
		}
	}
	free(v);
	free(r);
	free(ops);
	return ret;
}

static int cmd_help(int argc, char **argv)
{
	printf("usage: mdkctl swarm bench [OPTIONS]   YCSB on SWARM-KV, DM-ABD and RAW\n"
	       "       mdkctl swarm stress [OPTIONS]  crash nodes, check linearizability\n"
	       "       mdkctl swarm check LOG...      the stress logs of several hosts as one history\n"
	       "See mdkctl(8).\n");
	return 0;
}

static const struct mdkctl_cmd swarm_cmds[] = {
	{ "bench", cmd_bench,
	  "YCSB A and B: round trips, latency, throughput" },
	{ "stress", cmd_stress, "a checked history under node crashes" },
	{ "check", cmd_check,
	  "check the --log files of stress runs on several hosts as one history" },
	{ "help", cmd_help, "show this help" },
	{ 0 },
};

int mdkctl_cmd_swarm(int argc, char **argv)
{
	return mdkctl_dispatch(swarm_cmds, "swarm", argc - 1, argv + 1);
}
