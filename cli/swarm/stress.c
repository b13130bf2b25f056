// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl swarm stress: many clients on few keys, memory nodes crashing
 * mid-run, the history checked for linearizability (or, with --log,
 * written for "mdkctl swarm check").
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/jsonout.h"
#include "cli/mdkctl.h"
#include "swarm.h"

/* Client ids a logged store has room for: every run of every host. */
#define LOGGED_MAX_CLIENTS 64

struct sjob {
	struct mdk_swarm *s;
	const struct mdkctl_swarm_opts *o;
	unsigned int idx;
	pthread_t th;
	struct mdk_swarm_lin_op *log;
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
	mdk_swarm_client_set_clock_skew(
		c, (int64_t)(mdk_splitmix64(&seed) % 2001) - 1000);
	if (j->o->chaos_ppm)
		mdk_swarm_client_set_chaos(c, j->o->chaos_ppm, seed);
	memset(val, 0, sizeof(val));
	while (!*j->stop && j->nlog < j->cap) {
		struct mdk_swarm_lin_op *op = &j->log[j->nlog];
		uint64_t k = mdk_splitmix64(&seed) % j->o->keys;
		size_t klen = mdkctl_swarm_key_of(key, sizeof(key), k),
		       vlen = sizeof(val);
		int ret;

		memset(op, 0, sizeof(*op));
		op->key = k;
		op->client = id;
		++seq;
		if (mdk_splitmix64(&seed) % 2) {
			op->kind = MDK_SWARM_LIN_PUT;
			op->value = ((uint64_t)(id + 1) << 32) | seq;
			memcpy(val, &op->value, 8);
			op->call_ns = mdkctl_swarm_log_now();
			mdkctl_swarm_log_call(op, id, seq);
			ret = mdk_swarm_insert(c, key, klen, val, 8);
		} else {
			op->kind = MDK_SWARM_LIN_GET;
			op->call_ns = mdkctl_swarm_log_now();
			mdkctl_swarm_log_call(op, id, seq);
			ret = mdk_swarm_get(c, key, klen, val, &vlen);
			op->value = MDK_SWARM_LIN_ABSENT;
			if (!ret)
				memcpy(&op->value, val, 8);
			else if (ret == -ENOENT)
				ret = 0;
		}
		op->ret_ns = mdkctl_swarm_log_now();
		mdkctl_swarm_log_ret(op, id, seq, ret != 0);
		if (ret) {
			if (op->kind == MDK_SWARM_LIN_PUT) {
				op->ret_ns = MDK_SWARM_LIN_PENDING;
				j->nlog++;
			}
			break;
		}
		j->nlog++;
		if (mdk_swarm_lin_now_ns() > j->end_ns)
			break;
	}
	mdk_swarm_client_destroy(c);
	return NULL;
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
static struct sjob *sjobs_new(struct mdk_swarm *s,
			      const struct mdkctl_swarm_opts *o,
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

static int stress_help(void)
{
	printf("usage: mdkctl swarm stress [--protocol swarm|dm-abd] [--keys N]\n"
	       "        [--replicas N] [--clients N] [--ops N] [--crash N]\n"
	       "        [--seconds S] [--chaos PPM] [--rtt-ns NS] [--cmm-mp[=DEV]] [-j]\n"
	       "        [--attach] [--log FILE] [--shared-clock DEVICE]\n");
	return MDKCTL_DONE;
}

/* Stress's own options, those not in mdkctl_swarm_parse_common(). */
static int parse_stress_opt(int c, const char *arg, struct mdkctl_swarm_opts *o)
{
	unsigned int d;

	switch (c) {
	case 'p':
		o->protos = arg;
		return 0;
	case 'x':
		return mdkctl_swarm_parse_uint("--crash", arg, 0,
					       MDK_SWARM_MAX_NODES,
					       &o->crash_nodes);
	case 'S':
		return mdkctl_swarm_parse_uint("--seconds", arg, 1, 3600,
					       &o->seconds);
	case 'X':
		return mdkctl_swarm_parse_uint("--chaos", arg, 0, 1000000,
					       &o->chaos_ppm);
	case 'A':
		o->attach = true;
		return 0;
	case 'L':
		o->log = arg;
		return 0;
	case 'Q':
		if (mdkctl_swarm_parse_uint("--shared-clock", arg, 0,
					    MDK_SWARM_MAX_NODES * 4, &d))
			return 2;
		o->clock_device = (int)d;
		return 0;
	case 'h':
		return stress_help();
	}
	return 2;
}

/* What the options say together; 0, or 2 after a message. */
static int stress_check_opts(const struct mdkctl_swarm_opts *o)
{
	if (o->nproto != 1 || o->proto[0] == MDK_SWARM_PROTO_RAW)
		return mdkctl_swarm_usage_err(
			"--protocol: '%s': expected swarm or dm-abd",
			o->protos);
	if ((o->attach || o->clock_device >= 0) && !o->cmm_mp)
		return mdkctl_swarm_usage_err(
			"%s: needs --cmm-mp (a pool other hosts share)",
			o->attach ? "--attach" : "--shared-clock");
	if (2 * o->crash_nodes >= o->replicas) {
		fprintf(stderr,
			"mdkctl swarm: --crash: %u of %u nodes is not a minority (see mdkctl(8))\n",
			o->crash_nodes, o->replicas);
		return 2;
	}
	return 0;
}

/* 0, or the exit status after a message, or MDKCTL_DONE after --help. */
static int parse_stress(int argc, char **argv, struct mdkctl_swarm_opts *o)
{
	int c, ret;

	mdkctl_swarm_defaults(o);
	o->keys = 4;
	o->clients = 6;
	o->ops = 2000;
	o->rtt_ns = 0;
	o->seconds = 10;
	o->protos = "swarm";
	o->clock_device = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "jh", stress_long, NULL)) != -1) {
		ret = mdkctl_swarm_parse_common(c, optarg, o);
		if (ret < 0)
			ret = parse_stress_opt(c, optarg, o);
		if (ret)
			return ret;
	}
	if (optind < argc)
		return mdkctl_swarm_usage_err(
			"stress: unexpected argument '%s'", argv[optind]);
	if (mdkctl_swarm_parse_protos(o->protos, o->proto, &o->nproto))
		return 2;
	return stress_check_opts(o);
}

/*
 * Crash nodes (fail devices) one after the other, mid-run: the k-th once
 * k+1 of crash_nodes+2 parts of the operations or of the time have gone.
 * Returns how many were crashed.
 */
static unsigned int crash_midrun(const struct mdkctl_swarm_opts *o,
				 struct mdkctl_swarm_cluster *cl,
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
			 mdk_swarm_lin_now_ns() - t0 <
				 o->seconds * 1000000000ULL * (k + 1) /
					 (o->crash_nodes + 2));
		ret = mdkctl_swarm_cluster_fail(o, cl, 2 * k % o->replicas);
		if (ret)
			fprintf(stderr, "mdkctl swarm: failing node %u: %s\n",
				2 * k % o->replicas, strerror(-ret));
		else
			crashed++;
	}
	return crashed;
}

/* Every client's log in one history, with room for the final reads. */
static struct mdk_swarm_lin_op *merge_logs(const struct mdkctl_swarm_opts *o,
					   const struct sjob *j, size_t *n)
{
	struct mdk_swarm_lin_op *all;

	*n = 0;
	all = calloc((size_t)o->clients * o->ops + o->keys, sizeof(*all));
	for (unsigned int i = 0; all && i < o->clients; i++) {
		memcpy(all + *n, j[i].log, j[i].nlog * sizeof(*all));
		*n += j[i].nlog;
	}
	return all;
}

/* Read every key once more, after the run, into the history. */
static int final_reads(struct mdk_swarm *s, const struct mdkctl_swarm_opts *o,
		       struct mdk_swarm_lin_op *all, size_t *n)
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
		struct mdk_swarm_lin_op *op = &all[(*n)++];
		char key[32], val[4096];
		size_t vlen = sizeof(val);
		int r;

		op->key = k;
		op->kind = MDK_SWARM_LIN_GET;
		op->client = id;
		op->call_ns = mdkctl_swarm_log_now();
		mdkctl_swarm_log_call(op, id, k + 1);
		r = mdk_swarm_get(fin, key,
				  mdkctl_swarm_key_of(key, sizeof(key), k), val,
				  &vlen);
		op->ret_ns = mdkctl_swarm_log_now();
		op->value = MDK_SWARM_LIN_ABSENT;
		if (!r)
			memcpy(&op->value, val, 8);
		mdkctl_swarm_log_ret(op, id, k + 1, r && r != -ENOENT);
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
static int print_stress(const struct mdkctl_swarm_opts *o,
			const struct mdk_swarm *s, enum mdk_swarm_proto proto,
			unsigned int crashed, size_t n,
			const struct mdk_swarm_lin_report *rep)
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
static int stress_run(struct mdk_swarm *s, const struct mdkctl_swarm_opts *o,
		      enum mdk_swarm_proto proto,
		      struct mdkctl_swarm_cluster *cl)
{
	struct mdk_swarm_lin_report rep;
	struct mdk_swarm_lin_op *all;
	volatile int stop = 0;
	unsigned int crashed;
	struct sjob *j;
	size_t n;
	uint64_t t0;
	int ret;

	t0 = mdk_swarm_lin_now_ns();
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
	if (mdkctl_swarm_log_failed()) {
		fprintf(stderr,
			"mdkctl swarm: --shared-clock: its node failed: the log has no order\n");
		ret = 1;
	}
	if (!ret && mdkctl_swarm_log_on()) {
		/* The history is the hosts' logs: mdkctl swarm check. */
		printf("%s: %zu operations logged to %s\n",
		       mdk_swarm_proto_name(proto), n, o->log);
		free(all);
		return crashed < o->crash_nodes;
	}
	if (!ret && mdk_swarm_lincheck(all, n, 1000000000ULL, &rep)) {
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

int mdkctl_swarm_stress(int argc, char **argv)
{
	struct mdk_swarm_opts so = { 0 };
	struct mdkctl_swarm_cluster cl;
	struct mdkctl_swarm_opts o;
	struct mdk_swarm *s;
	char err[256];
	int ret;

	ret = parse_stress(argc, argv, &o);
	if (ret)
		return ret == MDKCTL_DONE ? 0 : ret;
	so.proto = o.proto[0];
	so.capacity = o.keys;
	/* A logged store is one that other runs, on other hosts, attach to. */
	so.max_clients = o.log ? LOGGED_MAX_CLIENTS : o.clients + 1;
	if (mdkctl_swarm_cluster_new(&cl, &o, o.replicas,
				     mdk_swarm_node_bytes(&so)))
		return 1;
	mdkctl_swarm_cluster_set_rtt(&cl, o.rtt_ns, o.cmm_mp && !o.rtt_set);
	s = o.attach ? mdk_swarm_attach(cl.node, o.replicas, err, sizeof(err)) :
		       mdk_swarm_format(cl.node, o.replicas, &so, err,
					sizeof(err));
	if (!s) {
		fprintf(stderr, "mdkctl swarm: %s\n", err);
		ret = 1;
		goto out;
	}
	ret = mdkctl_swarm_log_open(&o);
	if (!ret)
		ret = stress_run(s, &o, so.proto, &cl);
	mdkctl_swarm_log_close();
	mdk_swarm_destroy(s);
out:
	mdkctl_swarm_cluster_free(&cl);
	return ret;
}
