// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl swarm bench: the clients' samples as percentiles, means and
 * rates, and the report of every protocol's runs as text, JSON or CSV.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/jsonout.h"
#include "swarm.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Every job's samples in one array each for reads and updates. */
static int merge_jobs(const struct mdkctl_swarm_job *j, unsigned int clients,
		      struct mdkctl_swarm_result *r, uint32_t *all[2],
		      uint32_t *own[2], size_t nall[2])
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
			for (int b = 0; b < MDKCTL_SWARM_RTT_BUCKETS; b++)
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
static void sum_samples(struct mdkctl_swarm_result *r, int t, uint32_t *all,
			uint32_t *own, size_t nall)
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
	for (int b = 0; b < MDKCTL_SWARM_RTT_BUCKETS; b++)
		sum += r->rtts[t][b] * (b + 1);
	r->mean_rtts[t] = r->n[t] ? (double)sum / (double)r->n[t] : 0;
}

int mdkctl_swarm_results(const struct mdkctl_swarm_job *j, unsigned int clients,
			 struct mdkctl_swarm_result *r)
{
	uint32_t *all[2] = { 0 }, *own[2] = { 0 };
	size_t nall[2] = { 0 };
	int err = merge_jobs(j, clients, r, all, own, nall);

	for (int t = 0; t < 2; t++) {
		if (!err)
			sum_samples(r, t, all[t], own[t], nall[t]);
		free(all[t]);
		free(own[t]);
	}
	if (err)
		return err;
	/* Clients on CPUs of their own: each runs back to back. */
	if (r->n[0] + r->n[1]) {
		double mean = (r->own_mean[0] * (double)r->n[0] +
			       r->own_mean[1] * (double)r->n[1]) /
			      (double)(r->n[0] + r->n[1]);

		r->own_kops = mean > 0 ? (double)clients * 1e6 / mean : 0;
	}
	return 0;
}

static double pct(const struct mdkctl_swarm_result *r, int t, int b)
{
	uint64_t k = 0;

	if (b < 2)
		k = r->rtts[t][b];
	else
		for (int i = 2; i < MDKCTL_SWARM_RTT_BUCKETS; i++)
			k += r->rtts[t][i];
	return r->n[t] ? 100.0 * (double)k / (double)r->n[t] : 0;
}

static const struct mdkctl_swarm_proto_res *
find(const struct mdkctl_swarm_proto_res *pr, unsigned int np,
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

/* Per workload: each protocol's round trips, latencies and throughput. */
static void text_workloads(const struct mdkctl_swarm_opts *o,
			   const struct mdkctl_swarm_proto_res *pr,
			   unsigned int np,
			   const struct mdkctl_swarm_proto_res *raw)
{
	for (int w = 0; w < 2; w++) {
		if (!strchr(o->workloads, mdkctl_swarm_wl_name[w][0]))
			continue;
		printf("\nYCSB %s (%u%% gets, %u%% updates)\n",
		       mdkctl_swarm_wl_name[w], mdkctl_swarm_wl_read[w],
		       100 - mdkctl_swarm_wl_read[w]);
		printf("  %-7s %-6s %7s %7s %7s %6s %8s %8s %8s %8s %8s %8s\n",
		       "proto", "op", "1 RTT", "2 RTT", "3+ RTT", "mean",
		       "own p50", "own p99", "vs raw", "wall p50", "wall p99",
		       "ops");
		for (unsigned int i = 0; i < np; i++) {
			const struct mdkctl_swarm_result *r = &pr[i].wl[w];

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
}

/* Throughput as clients grow, one line per protocol. */
static void text_sweep(const struct mdkctl_swarm_opts *o,
		       const struct mdkctl_swarm_proto_res *pr, unsigned int np)
{
	if (!o->nsweep)
		return;
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

/* SWARM-KV against RAW and DM-ABD, and against its targets. */
static void text_targets(const struct mdkctl_swarm_opts *o,
			 const struct mdkctl_swarm_proto_res *sw,
			 const struct mdkctl_swarm_proto_res *raw,
			 const struct mdkctl_swarm_proto_res *abd)
{
	for (unsigned int k = 0; k < o->nsweep; k++) {
		const struct mdkctl_swarm_result *r = &sw->sweep[k];

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
		const struct mdkctl_swarm_result *r = &sw->wl[w];

		if (!strchr(o->workloads, mdkctl_swarm_wl_name[w][0]))
			continue;
		printf("\nTargets, YCSB %s:\n", mdkctl_swarm_wl_name[w]);
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

void mdkctl_swarm_print_text(const struct mdkctl_swarm_opts *o,
			     const struct mdkctl_swarm_proto_res *pr,
			     unsigned int np)
{
	const struct mdkctl_swarm_proto_res *raw =
		find(pr, np, MDK_SWARM_PROTO_RAW);
	const struct mdkctl_swarm_proto_res *sw =
		find(pr, np, MDK_SWARM_PROTO_SWARM);
	const struct mdkctl_swarm_proto_res *abd =
		find(pr, np, MDK_SWARM_PROTO_ABD);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	printf("SWARM-KV bench: %u keys of %u B, values of %u B, %u replicas, %u clients, Zipf %.2f, injected RTT %.1f us, %u ops per client, %ld CPUs\n",
	       o->keys, o->key_size, o->value_size, o->replicas, o->clients,
	       o->theta, (double)o->rtt_ns / 1000, o->ops, cpus);
	printf("Latency \"own\": the client's own work plus the injected round trips (wall time minus the time spent waiting them out and executing the nodes' accesses, which memory nodes do within a round trip); \"wall\": as measured on this host.\n");
	text_workloads(o, pr, np, raw);
	text_sweep(o, pr, np);
	if (sw)
		text_targets(o, sw, raw, abd);
}

/* The members of one result, added to @o after its name or clients. */
static void json_result(struct json_object *o,
			const struct mdkctl_swarm_result *r)
{
	mdkd_json_add_fixed(o, "kops", r->kops, 2);
	mdkd_json_add_fixed(o, "own_kops", r->own_kops, 2);
	mdkd_json_add_u64(o, "errors", r->errors);
	for (int t = 0; t < 2; t++) {
		struct json_object *op = json_object_new_object(),
				   *rtts = json_object_new_array_ext(
					   MDKCTL_SWARM_RTT_BUCKETS);

		mdkd_json_add_u64(op, "ops", r->n[t]);
		mdkd_json_add_fixed(op, "p50_ns", r->p50[t], 0);
		mdkd_json_add_fixed(op, "p99_ns", r->p99[t], 0);
		mdkd_json_add_fixed(op, "own_p50_ns", r->own50[t], 0);
		mdkd_json_add_fixed(op, "own_p99_ns", r->own99[t], 0);
		mdkd_json_add_fixed(op, "mean_rtts", r->mean_rtts[t], 4);
		for (int b = 0; b < MDKCTL_SWARM_RTT_BUCKETS; b++)
			mdkd_json_push(rtts,
				       json_object_new_uint64(r->rtts[t][b]));
		mdkd_json_add(op, "rtts", rtts);
		mdkd_json_add(o, t ? "update" : "get", op);
	}
}

int mdkctl_swarm_print_json(const struct mdkctl_swarm_opts *o,
			    const struct mdkctl_swarm_proto_res *pr,
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

			if (!strchr(o->workloads, mdkctl_swarm_wl_name[w][0]))
				continue;
			wl = json_object_new_object();
			mdkd_json_add_str(wl, "name", mdkctl_swarm_wl_name[w]);
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

void mdkctl_swarm_print_csv(const struct mdkctl_swarm_opts *o,
			    const struct mdkctl_swarm_proto_res *pr,
			    unsigned int np)
{
	printf("proto,workload,clients,op,ops,rtt1_pct,rtt2_pct,rtt3plus_pct,mean_rtts,own_p50_ns,own_p99_ns,p50_ns,p99_ns,own_kops,kops\n");
	for (unsigned int i = 0; i < np; i++) {
		if (!pr[i].ran)
			continue;
		for (int w = 0; w < 2 + (int)o->nsweep; w++) {
			const struct mdkctl_swarm_result *r =
				w < 2 ? &pr[i].wl[w] : &pr[i].sweep[w - 2];
			const char *wn = w < 2 ? mdkctl_swarm_wl_name[w] :
					 strchr(o->workloads, 'A') ? "A" :
								     "B";
			unsigned int cl = w < 2 ? o->clients : o->sweep[w - 2];

			if (w < 2 &&
			    !strchr(o->workloads, mdkctl_swarm_wl_name[w][0]))
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
