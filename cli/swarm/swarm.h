/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mdkctl swarm, inside: what its files share.  options.c parses,
 * workload.c draws YCSB keys, cluster.c sets up the memory nodes, bench.c
 * and stats.c run and report "swarm bench", stress.c and log.c run
 * "swarm stress", check.c is "swarm check".
 */
#ifndef MDKCTL_SWARM_H
#define MDKCTL_SWARM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mdk/lincheck.h>
#include <mdk/swarm.h>
#include <mdk/util.h>

#define MDKCTL_SWARM_MAX_SWEEP 8
#define MDKCTL_SWARM_RTT_BUCKETS 8 /* 1, 2, ..., 7, 8 or more */

/* The options of bench and stress (not the store's: struct mdk_swarm_opts). */
struct mdkctl_swarm_opts {
	unsigned int keys, key_size, value_size, replicas, clients;
	unsigned int ops;
	double theta;
	uint64_t zipf_items;
	uint64_t rtt_ns;
	bool rtt_set;
	unsigned int sweep[MDKCTL_SWARM_MAX_SWEEP], nsweep;
	const char *workloads;
	const char *protos;
	enum mdk_swarm_proto proto[3]; /* protos, parsed */
	unsigned int nproto;
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

/* options.c */

/* Bench's defaults; stress changes some. */
void mdkctl_swarm_defaults(struct mdkctl_swarm_opts *o);
/* "mdkctl swarm: " @fmt with @arg and a pointer to the manual; returns 2. */
__attribute__((format(printf, 1, 0))) int
mdkctl_swarm_usage_err(const char *fmt, const char *arg);
/* @s as an integer from @min to @max into @out; 0, or 2 after a message. */
int mdkctl_swarm_parse_uint(const char *opt, const char *s, unsigned int min,
			    unsigned int max, unsigned int *out);
/* "raw,swarm,dm-abd" into @p (3 at most); 0, or 2 after a message. */
int mdkctl_swarm_parse_protos(const char *s, enum mdk_swarm_proto *p,
			      unsigned int *np);
/*
 * The options bench and stress share: 0 when @c was one of them, 2 after
 * a message about its argument, -1 when @c is not one of them.
 */
int mdkctl_swarm_parse_common(int c, const char *arg,
			      struct mdkctl_swarm_opts *o);

/* workload.c: YCSB's keys, request distribution and workloads. */

/*
 * YCSB's "zipfian" request distribution (its ScrambledZipfianGenerator):
 * ranks drawn from a Zipfian over @items items (Gray et al., SIGMOD'94),
 * YCSB's 10^10 by default, then hashed (FNV-1a) onto the @keys keys.  The
 * keys' popularity is then much flatter than a Zipfian over the keys
 * themselves (at 0.99 over 100,000 keys, the hottest key gets 3.8% of the
 * operations instead of 7.8%); @items equal to @keys gives the latter.
 */
#define MDKCTL_SWARM_ZIPF_YCSB_ITEMS 10000000000ULL

struct mdkctl_swarm_zipf {
	uint64_t items, keys;
	double theta, alpha, zetan, eta, half_pow;
};

/* Workloads A and B: their names and shares of gets (percent). */
extern const char *const mdkctl_swarm_wl_name[2];
extern const unsigned int mdkctl_swarm_wl_read[2];

void mdkctl_swarm_zipf_init(struct mdkctl_swarm_zipf *z, uint64_t keys,
			    uint64_t items, double theta);
uint64_t mdkctl_swarm_zipf_next(const struct mdkctl_swarm_zipf *z,
				uint64_t *seed);
/* Key @k in YCSB's format into @buf; its length, or 0 if @size is short. */
size_t mdkctl_swarm_key_of(char *buf, size_t size, uint64_t k);

/* cluster.c: memory nodes, in-process or one shared segment per device. */

struct mdkctl_swarm_cluster {
	struct mdk_swarm_memnode *node[MDK_SWARM_MAX_NODES];
	uint64_t rtt0[MDK_SWARM_MAX_NODES]; /* a back end's own RTT */
	unsigned int n;
};

/* @n nodes of @bytes each; 0, or 1 after a message. */
int mdkctl_swarm_cluster_new(struct mdkctl_swarm_cluster *cl,
			     const struct mdkctl_swarm_opts *o, unsigned int n,
			     uint64_t bytes);
void mdkctl_swarm_cluster_free(struct mdkctl_swarm_cluster *cl);
/* @rtt on every node, or with @own each back end's own (cmm_mp devices). */
void mdkctl_swarm_cluster_set_rtt(struct mdkctl_swarm_cluster *cl, uint64_t rtt,
				  bool own);
/* Crash node @i (fail its device); 0 or a negative errno. */
int mdkctl_swarm_cluster_fail(const struct mdkctl_swarm_opts *o,
			      struct mdkctl_swarm_cluster *cl, unsigned int i);

/* bench.c and stats.c: mdkctl swarm bench. */

/*
 * Per operation type (get, update): the round trips it took, its wall
 * latency, and its latency on a CPU of its own ("own"): wall latency minus
 * the time spent waiting out round trips, plus their injected time.  The
 * host may have fewer CPUs than clients; "own" is what the protocol costs.
 */
struct mdkctl_swarm_stats {
	uint64_t n[2];
	uint64_t rtts[2][MDKCTL_SWARM_RTT_BUCKETS];
	uint32_t *lat[2], *own[2]; /* ns */
	size_t nlat[2], cap[2];
	uint64_t errors;
};

struct mdkctl_swarm_gate;

/* One bench client thread. */
struct mdkctl_swarm_job {
	struct mdk_swarm *s;
	struct mdk_swarm_client *c;
	const struct mdkctl_swarm_opts *o;
	const struct mdkctl_swarm_zipf *z;
	unsigned int read_pct, idx, ops;
	pthread_barrier_t *start;
	struct mdkctl_swarm_gate *gate;
	struct mdkctl_swarm_stats st;
	pthread_t th;
	uint64_t t0, t1;
	int err;
};

/* One run of the clients: what bench reports of it. */
struct mdkctl_swarm_result {
	uint64_t n[2], rtts[2][MDKCTL_SWARM_RTT_BUCKETS], errors;
	double p50[2], p99[2], own50[2], own99[2], own_mean[2], mean_rtts[2];
	double kops, own_kops;
};

/* A protocol's runs: each workload, each client count of --sweep. */
struct mdkctl_swarm_proto_res {
	enum mdk_swarm_proto p;
	struct mdkctl_swarm_result wl[2];
	struct mdkctl_swarm_result sweep[MDKCTL_SWARM_MAX_SWEEP];
	bool ran;
};

int mdkctl_swarm_bench(int argc, char **argv);
/*
 * The @clients jobs' samples as @r; 0, a negative errno, or a job's
 * nonzero error.
 */
int mdkctl_swarm_results(const struct mdkctl_swarm_job *j, unsigned int clients,
			 struct mdkctl_swarm_result *r);
void mdkctl_swarm_print_text(const struct mdkctl_swarm_opts *o,
			     const struct mdkctl_swarm_proto_res *pr,
			     unsigned int np);
/* 0, or nonzero when the JSON could not be written. */
int mdkctl_swarm_print_json(const struct mdkctl_swarm_opts *o,
			    const struct mdkctl_swarm_proto_res *pr,
			    unsigned int np);
void mdkctl_swarm_print_csv(const struct mdkctl_swarm_opts *o,
			    const struct mdkctl_swarm_proto_res *pr,
			    unsigned int np);

/* stress.c and log.c: mdkctl swarm stress. */

int mdkctl_swarm_stress(int argc, char **argv);
/* --log and --shared-clock; 0, or 1 after a message. */
int mdkctl_swarm_log_open(const struct mdkctl_swarm_opts *o);
void mdkctl_swarm_log_close(void);
/* Whether operations go to a --log file. */
bool mdkctl_swarm_log_on(void);
/* Whether a ticket of the shared clock could not be taken. */
bool mdkctl_swarm_log_failed(void);
/* A time for call_ns and ret_ns: the pool's ticket, or CLOCK_MONOTONIC. */
uint64_t mdkctl_swarm_log_now(void);
/* The call, then the return, of operation @seq of @client, to the log. */
void mdkctl_swarm_log_call(const struct mdk_swarm_lin_op *op,
			   unsigned int client, uint64_t seq);
void mdkctl_swarm_log_ret(const struct mdk_swarm_lin_op *op,
			  unsigned int client, uint64_t seq, bool failed);

/* check.c: mdkctl swarm check. */

int mdkctl_swarm_check(int argc, char **argv);

#endif /* MDKCTL_SWARM_H */
