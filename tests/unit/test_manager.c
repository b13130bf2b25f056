// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the whole daemon on a fake cgroup tree: intervals read
 * every managed cgroup through the ring and write decisions to
 * memory.reclaim; pressure stops it; runtime settings are all-or-nothing;
 * a reload keeps controller state and a bad file (or drop-in) keeps the
 * old configuration; a cgroup that disappears is released; a tick the CPU
 * cap cuts short returns; records and the Prometheus file are written;
 * the high-pulse actuator restores
 * memory.high and its journal is replayed; the control socket survives
 * malformed, oversized and abandoned requests and too many clients; the
 * sd_notify messages reach $NOTIFY_SOCKET.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <json-c/json.h>

#include "daemon/request.h"
#include "fakecg.h"
#include "daemon/journal.h"
#include "daemon/manager.h"
#include "daemon/proto.h"
#include "unit.h"

#define MiB (1ULL << 20)

static uint64_t fake_now = 1000000000;

static uint64_t fake_clock(void *data)
{
	return fake_now;
}

static struct mdkd *start(struct fakecg *f, const char *conf)
{
	struct mdkd_config *cfg;
	struct mdkd *d;
	char err[1024];

	fake_setup(f, conf);
	fake_cgroup(f, "w/a", 60 * MiB, 40 * MiB);
	fake_cgroup(f, "w/b", 150 * MiB, 50 * MiB);
	fake_cgroup(f, "other", 10 * MiB, 0);
	ck_assert_msg(!mdkd_config_load(f->conf, &cfg, err, sizeof(err)), "%s",
		      err);
	d = mdkd_new(cfg, f->conf, NULL, false, mdkd_request_handle, err,
		     sizeof(err));
	ck_assert_msg(d, "%s", err);
	d->clock.now = fake_clock;
	return d;
}

static void tick(struct mdkd *d)
{
	fake_now += 1000000;
	ck_assert_int_eq(mdkd_tick_all(d), 0);
}

static const char *cg_file(struct fakecg *f, const char *cg, const char *name)
{
	static char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s/%s", f->root, cg, name);
	return path;
}

/* The response to one request line, parsed; NULL-safe accessors below. */
static struct json_object *request(struct mdkd *d, const char *line)
{
	struct mdkd_buf out = { 0 };
	struct json_object *o;

	mdkd_request_handle(d, line, strlen(line), &out);
	ck_assert_ptr_nonnull(out.data);
	ck_assert_int_eq(out.data[out.len - 1], '\n');
	o = json_tokener_parse(out.data);
	ck_assert_msg(o, "not JSON: %s", out.data);
	mdkd_buf_free(&out);
	return o;
}

static bool ok(struct json_object *o)
{
	struct json_object *v;

	return json_object_object_get_ex(o, "ok", &v) &&
	       json_object_get_boolean(v);
}

static const char *error_of(struct json_object *o)
{
	struct json_object *v;

	return json_object_object_get_ex(o, "error", &v) ?
		       json_object_get_string(v) :
		       "";
}

static const char *base_conf = "interval = 1s\nreclaim_ratio = 0.01\n"
			       "[cgroup w/*]\n";

/*
 * Above active_below, free memory is checked every 5 s and nothing is
 * read or written; a forced tick returns; below, mdkd wakes and reclaims.
 */
START_TEST(test_manager_inactive)
{
	struct fakecg f;
	struct mdkd *d = start(&f, "active_below = 10%\n"
				   "interval = 1s\nreclaim_ratio = 0.01\n"
				   "[cgroup w/*]\n");
	struct mdkd_cgroup *a = mdkd_find(d, "w/a");
	char path[PATH_MAX * 2];
	uint64_t checked = fake_now;
	int i;

	/* 25% of memory free: inactive. */
	mdkd_pipeline_refresh_host(&d->pipeline, checked, true);
	ck_assert(!d->pipeline.limits.active);
	tick(d);
	ck_assert_uint_eq(a->next_due_us, checked + 5000000);
	ck_assert_uint_eq(a->lim.inactive, 0);
	for (i = 0; i < 4; i++)
		tick(d);
	ck_assert_uint_eq(a->lim.inactive, 1);
	ck_assert_int_eq(a->lim.held, MDKD_R_INACTIVE);
	ck_assert_uint_eq(a->stats.intervals, 0);
	ck_assert_str_eq(fake_read(cg_file(&f, "w/a", "memory.reclaim")), "");

	/* 5% free: active at the next check, baseline, then reclaim. */
	snprintf(path, sizeof(path), "%s/meminfo", f.proc);
	fake_write(path, "MemTotal: 4194304 kB\nMemFree: 209715 kB\n"
			 "SwapTotal: 1048576 kB\nSwapFree: 1048576 kB\n");
	for (i = 0; i < 5; i++)
		tick(d);
	ck_assert(d->pipeline.limits.active);
	tick(d);
	ck_assert_str_eq(fake_read(cg_file(&f, "w/a", "memory.reclaim")),
			 "1048576\n");
	mdkd_free(d);
	fake_teardown(&f);
}
END_TEST

START_TEST(test_manager_reclaims_by_the_law)
{
	struct fakecg f;
	struct mdkd *d = start(&f, base_conf);

	ck_assert_uint_eq(d->cgroups.n, 2);
	tick(d); /* baseline */
	ck_assert_str_eq(fake_read(cg_file(&f, "w/a", "memory.reclaim")), "");
	tick(d);
	/* 1% of 100 MiB and of 200 MiB, whole pages. */
	ck_assert_str_eq(fake_read(cg_file(&f, "w/a", "memory.reclaim")),
			 "1048576\n");
	ck_assert_str_eq(fake_read(cg_file(&f, "w/b", "memory.reclaim")),
			 "2097152\n");
	ck_assert_str_eq(fake_read(cg_file(&f, "other", "memory.reclaim")), "");
	ck_assert_uint_eq(mdkd_find(d, "w/a")->stats.reclaimed_bytes, MiB);
	/* Regression: an action's completion emptied the source. */
	ck_assert_ptr_nonnull(strstr(mdkd_find(d, "w/a")->source,
				     "mdkd.conf:8 [cgroup w/*]"));

	/* 0.1% of the second stalled: at the threshold, no reclaim. */
	fake_psi(cg_file(&f, "w/a", "memory.pressure"), 1000, 0);
	tick(d);
	ck_assert_str_eq(fake_read(cg_file(&f, "w/a", "memory.reclaim")),
			 "1048576\n");
	ck_assert_int_eq(mdkd_find(d, "w/a")->dec.reason, MDKD_R_PRESSURE);
	ck_assert_str_eq(fake_read(cg_file(&f, "w/b", "memory.reclaim")),
			 "2097152\n2097152\n");
	mdkd_free(d);
	fake_teardown(&f);
}
END_TEST

START_TEST(test_manager_status_json)
{
	struct fakecg f;
	struct mdkd *d = start(&f, base_conf);
	struct json_object *o, *cgs, *cg, *v;

	tick(d);
	tick(d);
	o = request(d, "{\"v\":1,\"cmd\":\"status\"}");
	ck_assert(ok(o));
	ck_assert(json_object_object_get_ex(o, "cgroups", &cgs));
	ck_assert_uint_eq(json_object_array_length(cgs), 2);
	cg = json_object_array_get_idx(cgs, 0);
	ck_assert_str_eq(
		json_object_get_string(json_object_object_get(cg, "path")),
		"w/a");
	ck_assert_int_eq(json_object_get_int64(
				 json_object_object_get(cg, "memory_current")),
			 100 * MiB);
	v = json_object_object_get(cg, "totals");
	ck_assert_int_eq(json_object_get_int64(
				 json_object_object_get(v, "reclaimed_bytes")),
			 MiB);
	v = json_object_object_get(cg, "last");
	ck_assert_str_eq(
		json_object_get_string(json_object_object_get(v, "reason")),
		"reclaim");
	ck_assert_str_eq(
		json_object_get_string(json_object_object_get(v, "result")),
		"ok");
	v = json_object_object_get(cg, "settings");
	ck_assert_str_eq(
		json_object_get_string(json_object_object_get(v, "interval")),
		"1s");
	json_object_put(o);

	o = request(d, "{\"v\":1,\"cmd\":\"status\",\"cgroup\":\"nope\"}");
	ck_assert(!ok(o));
	ck_assert_ptr_nonnull(strstr(error_of(o), "not managed"));
	json_object_put(o);
	o = request(d, "not json");
	ck_assert(!ok(o));
	json_object_put(o);
	mdkd_free(d);
	fake_teardown(&f);
}
END_TEST

START_TEST(test_manager_runtime_set)
{
	struct fakecg f;
	struct mdkd *d = start(&f, base_conf);
	struct mdkd_cgroup *cg = mdkd_find(d, "w/a");
	struct json_object *o;

	/* One bad value: nothing changes. */
	o = request(d,
		    "{\"v\":1,\"cmd\":\"set\",\"cgroup\":\"w/a\","
		    "\"settings\":{\"mode\":\"off\",\"interval\":\"never\"}}");
	ck_assert(!ok(o));
	ck_assert_ptr_nonnull(strstr(error_of(o), "interval: expected"));
	ck_assert_ptr_eq(cg->ctl.mode, &mdkd_mode_senpai);
	json_object_put(o);
	o = request(d, "{\"v\":1,\"cmd\":\"set\",\"cgroup\":\"w/a\","
		       "\"settings\":{\"socket\":\"/x\"}}");
	ck_assert(!ok(o));
	ck_assert_ptr_nonnull(strstr(error_of(o), "[global]"));
	json_object_put(o);
	o = request(d, "{\"v\":1,\"cmd\":\"set\",\"cgroup\":\"other\","
		       "\"settings\":{\"mode\":\"off\"}}");
	ck_assert(!ok(o));
	ck_assert_ptr_nonnull(strstr(error_of(o), "not managed"));
	json_object_put(o);

	o = request(d, "{\"v\":1,\"cmd\":\"set\",\"cgroup\":\"w/a\","
		       "\"settings\":{\"mode\":\"off\",\"interval\":\"2s\"}}");
	ck_assert_msg(ok(o), "%s", error_of(o));
	json_object_put(o);
	ck_assert_ptr_eq(cg->ctl.mode, &mdkd_mode_off);
	ck_assert_ptr_null(cg->act);
	ck_assert_uint_eq(cg->set.interval_us, 2000000);
	tick(d);
	tick(d);
	ck_assert_str_eq(fake_read(cg_file(&f, "w/a", "memory.reclaim")), "");
	ck_assert_int_eq(cg->dec.reason, MDKD_R_OBSERVE);

	/* manage: a cgroup outside the configuration, with settings. */
	o = request(d, "{\"v\":1,\"cmd\":\"manage\",\"cgroup\":\"other\","
		       "\"settings\":{\"reclaim_ratio\":0.5}}");
	ck_assert_msg(ok(o), "%s", error_of(o));
	json_object_put(o);
	ck_assert_ptr_nonnull(mdkd_find(d, "other"));
	ck_assert_str_eq(mdkd_find(d, "other")->source, "runtime");
	o = request(d, "{\"v\":1,\"cmd\":\"manage\",\"cgroup\":\"absent\"}");
	ck_assert(!ok(o));
	ck_assert_ptr_nonnull(strstr(error_of(o), "does the cgroup exist"));
	json_object_put(o);
	tick(d);
	tick(d);
	ck_assert_str_eq(fake_read(cg_file(&f, "other", "memory.reclaim")),
			 "5242880\n");
	/* Runtime settings outlive a reload. */
	ck_assert_int_eq(mdkd_reload_config(d, (char[256]){ 0 }, 256), 0);
	ck_assert_ptr_nonnull(mdkd_find(d, "other"));
	ck_assert_ptr_eq(mdkd_find(d, "w/a")->ctl.mode, &mdkd_mode_off);
	/* release: back to the configuration (not managed there). */
	o = request(d, "{\"v\":1,\"cmd\":\"release\",\"cgroup\":\"other\"}");
	ck_assert(ok(o));
	json_object_put(o);
	ck_assert_ptr_null(mdkd_find(d, "other"));
	o = request(d, "{\"v\":1,\"cmd\":\"release\",\"cgroup\":\"w/a\"}");
	ck_assert(ok(o));
	json_object_put(o);
	ck_assert_ptr_eq(mdkd_find(d, "w/a")->ctl.mode, &mdkd_mode_senpai);
	mdkd_free(d);
	fake_teardown(&f);
}
END_TEST

START_TEST(test_manager_reload)
{
	struct fakecg f;
	struct mdkd *d = start(&f, base_conf);
	struct mdkd_cgroup *cg = mdkd_find(d, "w/a");
	char err[1024];

	tick(d);
	tick(d);
	ck_assert_uint_eq(cg->stats.intervals, 1);
	/* A bad file: refused with its line, nothing changes. */
	fake_write(f.conf,
		   "[global]\ncgroup_root = %s\nproc_root = %s\n"
		   "state_dir = %s\nsocket = %s\nreclaim_ratio = 2\n",
		   f.root, f.proc, f.state, f.sock);
	ck_assert_int_eq(mdkd_reload_config(d, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "mdkd.conf:6: reclaim_ratio"), "%s", err);
	ck_assert_uint_eq(d->reload_failures, 1);
	ck_assert_ptr_eq(mdkd_find(d, "w/a"), cg);
	ck_assert_double_eq(cg->set.reclaim_ratio, 0.01);
	tick(d);
	ck_assert_str_eq(fake_read(cg_file(&f, "w/a", "memory.reclaim")),
			 "1048576\n1048576\n");

	/* A good one: new settings, same controller state. */
	fake_write(f.conf,
		   "[global]\ncgroup_root = %s\nproc_root = %s\n"
		   "state_dir = %s\nsocket = /elsewhere.sock\n"
		   "interval = 1s\n[cgroup w/a]\nreclaim_ratio = 0.02\n",
		   f.root, f.proc, f.state);
	ck_assert_msg(!mdkd_reload_config(d, err, sizeof(err)), "%s", err);
	ck_assert_ptr_eq(mdkd_find(d, "w/a"), cg);
	ck_assert_ptr_null(mdkd_find(d, "w/b"));
	ck_assert_uint_eq(cg->stats.intervals, 2);
	ck_assert(cg->ctl.have_prev);
	ck_assert_double_eq(cg->set.reclaim_ratio, 0.02);
	/* The socket needs a restart: the running value stays. */
	ck_assert_str_eq(d->cfg->global.socket, f.sock);
	tick(d);
	ck_assert_str_eq(fake_read(cg_file(&f, "w/a", "memory.reclaim")),
			 "1048576\n1048576\n2097152\n");
	mdkd_free(d);
	fake_teardown(&f);
}
END_TEST

/* Drop-ins reload with the file, all or nothing, named by file:line. */
START_TEST(test_manager_reload_dropins)
{
	struct fakecg f;
	struct mdkd *d = start(&f, base_conf);
	struct mdkd_cgroup *a = mdkd_find(d, "w/a"), *b = mdkd_find(d, "w/b");
	char err[1024], dir[PATH_MAX * 2], good[PATH_MAX * 3],
		bad[PATH_MAX * 3];

	snprintf(dir, sizeof(dir), "%s/mdkd.conf.d", f.top);
	snprintf(good, sizeof(good), "%s/50-w.conf", dir);
	snprintf(bad, sizeof(bad), "%s/60-bad.conf", dir);
	fake_mkdirs(dir);
	fake_write(good, "[cgroup w/a]\nreclaim_ratio = 0.02\n");
	ck_assert_msg(!mdkd_reload_config(d, err, sizeof(err)), "%s", err);
	ck_assert_ptr_eq(mdkd_find(d, "w/a"), a);
	ck_assert_double_eq(a->set.reclaim_ratio, 0.02);
	ck_assert_double_eq(b->set.reclaim_ratio, 0.01);
	ck_assert_msg(strstr(a->source, "mdkd.conf.d/50-w.conf:1 [cgroup w/a]"),
		      "%s", a->source);

	/* A good change beside a bad drop-in: neither applies. */
	fake_write(good, "[cgroup w/a]\nreclaim_ratio = 0.03\n");
	fake_write(bad, "[global]\n\nreclaim_ratio = 2\n");
	ck_assert_int_eq(mdkd_reload_config(d, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "mdkd.conf.d/60-bad.conf:3: reclaim_ratio"),
		      "%s", err);
	ck_assert_str_eq(d->last_reload_error, err);
	ck_assert_uint_eq(d->reload_failures, 1);
	ck_assert_double_eq(a->set.reclaim_ratio, 0.02);
	ck_assert_double_eq(b->set.reclaim_ratio, 0.01);

	unlink(bad);
	ck_assert_msg(!mdkd_reload_config(d, err, sizeof(err)), "%s", err);
	ck_assert_double_eq(a->set.reclaim_ratio, 0.03);
	ck_assert_str_eq(d->last_reload_error, "");
	mdkd_free(d);
	fake_teardown(&f);
}
END_TEST

START_TEST(test_manager_releases_removed_cgroup)
{
	struct fakecg f;
	struct mdkd *d = start(&f, "rescan_interval = 1s\n[cgroup w/*]\n");
	char path[PATH_MAX * 2];

	ck_assert_uint_eq(d->cgroups.n, 2);
	tick(d);
	snprintf(path, sizeof(path), "%s/w/b", f.root);
	fake_rmtree(path);
	mdkd_rescan(d);
	ck_assert_uint_eq(d->cgroups.n, 1);
	ck_assert_ptr_null(mdkd_find(d, "w/b"));
	/* Created again: managed afresh. */
	fake_cgroup(&f, "w/b", MiB, 0);
	mdkd_rescan(d);
	ck_assert_ptr_nonnull(mdkd_find(d, "w/b"));
	ck_assert(!mdkd_find(d, "w/b")->ctl.have_prev);
	mdkd_free(d);
	fake_teardown(&f);
}
END_TEST

static uint64_t fake_cpu_us;

static uint64_t fake_cpu(void *data)
{
	return fake_cpu_us;
}

/* A tick the CPU cap cuts short returns; the cgroups stay due. */
START_TEST(test_manager_tick_under_cpu_cap)
{
	struct fakecg f;
	struct mdkd *d = start(&f, "max_cpu = 1%\n[cgroup w/*]\n");

	d->clock.cpu = fake_cpu;
	tick(d);
	ck_assert_uint_eq(d->pipeline.limits.deferred, 0);
	fake_cpu_us += 1000000; /* far over 1% of a second */
	tick(d);
	ck_assert_uint_eq(d->pipeline.limits.deferred, 2);
	ck_assert(mdkd_find(d, "w/a")->deferring);
	/* 100 s later the debt is paid: both run again. */
	fake_now += 100000000;
	tick(d);
	ck_assert(!mdkd_find(d, "w/a")->deferring);
	ck_assert(!mdkd_find(d, "w/b")->deferring);
	mdkd_free(d);
	fake_teardown(&f);
}
END_TEST

START_TEST(test_manager_records_and_prometheus)
{
	struct fakecg f;
	char conf[PATH_MAX * 3], rec[PATH_MAX + 16], prom[PATH_MAX + 16];
	struct mdkd *d;
	const char *txt;

	snprintf(rec, sizeof(rec), "/tmp/mdk-unit-rec-%d.csv", getpid());
	snprintf(prom, sizeof(prom), "/tmp/mdk-unit-%d.prom", getpid());
	snprintf(conf, sizeof(conf),
		 "record_file = %s\nprometheus_file = %s\n%s", rec, prom,
		 base_conf);
	d = start(&f, conf);
	tick(d);
	tick(d);
	tick(d);
	txt = fake_read(rec);
	ck_assert_msg(!strncmp(txt, "time_s,cgroup,mode,reason,", 26), "%s",
		      txt);
	ck_assert_ptr_nonnull(strstr(txt, ",w/a,senpai,reclaim,104857600,"));
	ck_assert_ptr_nonnull(strstr(txt, ",w/b,senpai,reclaim,209715200,"));
	txt = fake_read(prom);
	ck_assert_ptr_nonnull(strstr(txt, "mdkd_managed_cgroups 2\n"));
	ck_assert_ptr_nonnull(strstr(
		txt, "mdkd_reclaimed_bytes_total{cgroup=\"w/a\"} 2097152\n"));
	ck_assert_ptr_nonnull(strstr(
		txt, "# TYPE mdkd_psi_some_stall_seconds_total counter\n"));
	snprintf(conf, sizeof(conf), "%s.tmp", prom);
	ck_assert_int_ne(access(conf, F_OK), 0); /* renamed, not left */
	mdkd_free(d);
	unlink(rec);
	unlink(prom);
	fake_teardown(&f);
}
END_TEST

START_TEST(test_manager_high_pulse_restores)
{
	struct fakecg f;
	struct mdkd *d = start(&f, "actuator = high-pulse\n"
				   "reclaim_ratio = 0.01\n[cgroup w/a]\n");
	char dir[PATH_MAX + 32];

	ck_assert_str_eq(mdkd_find(d, "w/a")->act->name, "high-pulse");
	tick(d);
	tick(d);
	/*
	 * memory.high: down to current - 1 MiB, then back to max (two writes
	 * at the file position: the first covers the initial "max").
	 */
	ck_assert_str_eq(fake_read(cg_file(&f, "w/a", "memory.high")),
			 "103809024\nmax\n");
	snprintf(dir, sizeof(dir), "%s/high-pulse", f.state);
	ck_assert_int_eq(rmdir(dir), 0); /* exists, and the entry is gone */
	mdkd_free(d);
	fake_teardown(&f);
}
END_TEST

/* A kernel before 5.19: no memory.reclaim anywhere. */
START_TEST(test_manager_falls_back_without_memory_reclaim)
{
	struct mdkd_config *cfg;
	struct fakecg f;
	struct mdkd *d;
	char err[1024];

	fake_setup(&f, "[cgroup w/*]\n[cgroup w/b]\nactuator = reclaim\n");
	fake_cgroup(&f, "w/a", MiB, 0);
	fake_cgroup(&f, "w/b", MiB, 0);
	unlink(cg_file(&f, ".", "memory.reclaim"));
	unlink(cg_file(&f, "w/a", "memory.reclaim"));
	unlink(cg_file(&f, "w/b", "memory.reclaim"));
	ck_assert_int_eq(mdkd_config_load(f.conf, &cfg, err, sizeof(err)), 0);
	d = mdkd_new(cfg, f.conf, NULL, false, mdkd_request_handle, err,
		     sizeof(err));
	ck_assert_msg(d, "%s", err);
	ck_assert(!d->have_reclaim);
	/* auto picks the fallback; an explicit reclaim cannot be honoured. */
	ck_assert_str_eq(mdkd_find(d, "w/a")->act->name, "high-pulse");
	ck_assert_ptr_null(mdkd_find(d, "w/b"));
	mdkd_free(d);
	fake_teardown(&f);
}
END_TEST

START_TEST(test_journal_restore)
{
	struct fakecg f;
	char dir[PATH_MAX + 32], zdir[PATH_MAX + 32], entry[PATH_MAX + 64];

	fake_setup(&f, NULL);
	fake_cgroup(&f, "x", MiB, 0);
	fake_cgroup(&f, "y", MiB, 0);
	snprintf(dir, sizeof(dir), "%s/high-pulse", f.state);
	fake_mkdirs(dir);
	/* x still holds the pulse value: restored; y was changed since. */
	fake_file(&f, "x", "memory.high", "4096\n");
	fake_file(&f, "y", "memory.high", "8192\n");
	snprintf(entry, sizeof(entry), "%s/1", dir);
	fake_write(entry, "x\nmax\n4096\n");
	snprintf(entry, sizeof(entry), "%s/2", dir);
	fake_write(entry, "y\nmax\n4096\n");
	snprintf(entry, sizeof(entry), "%s/3", dir);
	fake_write(entry, "gone\nmax\n4096\n");
	snprintf(entry, sizeof(entry), "%s/4", dir);
	fake_write(entry, "truncated\n");
	/* And x's memory.zswap.max, left at 0 by page-outs past zswap. */
	fake_file(&f, "x", "memory.zswap.max", "0\n");
	snprintf(zdir, sizeof(zdir), "%s/zswap-off", f.state);
	fake_mkdirs(zdir);
	snprintf(entry, sizeof(entry), "%s/1", zdir);
	fake_write(entry, "x\n1048576\n0\n");
	ck_assert_int_eq(mdkd_restore_journal(f.state, f.root), 2);
	ck_assert_str_eq(fake_read(cg_file(&f, "x", "memory.high")), "max\n");
	ck_assert_str_eq(fake_read(cg_file(&f, "y", "memory.high")), "8192\n");
	ck_assert_str_eq(fake_read(cg_file(&f, "x", "memory.zswap.max")),
			 "1048576\n");
	ck_assert_int_eq(rmdir(dir), 0); /* every entry consumed */
	ck_assert_int_eq(rmdir(zdir), 0);
	ck_assert_int_eq(mdkd_restore_journal(f.state, f.root), 0);
	fake_teardown(&f);
}
END_TEST

/* ---- the control socket, for real ---- */

static int client(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/* Run the loop until @fd has a line (or EOF) for us; return it. */
static const char *answer(struct mdkd *d, int fd)
{
	static char buf[65536];
	size_t len = 0;
	int i;

	for (i = 0; i < 200; i++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		mdkd_run_once(d, mdkd_now_us() + 10000);
		if (poll(&p, 1, 0) <= 0)
			continue;
		n = recv(fd, buf + len, sizeof(buf) - 1 - len, MSG_DONTWAIT);
		if (n <= 0)
			break;
		len += (size_t)n;
		if (memchr(buf, '\n', len))
			break;
	}
	buf[len] = '\0';
	return buf;
}

static void say_n(int fd, const char *s, size_t len)
{
	ck_assert_int_eq(send(fd, s, len, MSG_NOSIGNAL), (ssize_t)len);
}

static void say(int fd, const char *s)
{
	say_n(fd, s, strlen(s));
}

START_TEST(test_control_socket_survives_abuse)
{
	static char big[MDKD_REQ_MAX + 100];
	struct fakecg f;
	struct mdkd *d = start(&f, base_conf);
	int fds[MDKD_MAX_CLIENTS + 2], fd, i;
	const char *r;

	/* Garbage, then a good request on the same connection. */
	fd = client(f.sock);
	say(fd, "hello\n");
	r = answer(d, fd);
	ck_assert_msg(strstr(r, "\"ok\":false") && strstr(r, "not JSON"), "%s",
		      r);
	say(fd, "{\"v\":1,\"cmd\":\"ping\"}\n");
	ck_assert_ptr_nonnull(strstr(answer(d, fd), "\"ok\":true"));
	/* Two requests in one write, one split over two writes. */
	say(fd,
	    "{\"v\":1,\"cmd\":\"ping\"}\n{\"v\":1,\"cmd\":\"ping\"}\n{\"v\":");
	r = answer(d, fd);
	ck_assert_ptr_nonnull(strstr(r, "\"ok\":true"));
	say(fd, "1,\"cmd\":\"status\"}\n");
	r = answer(d, fd);
	ck_assert_msg(strstr(r, "\"cgroups\""), "%s", r);
	close(fd);

	/* Too long without a newline: an error, then the end. */
	fd = client(f.sock);
	memset(big, 'x', sizeof(big));
	say_n(fd, big, sizeof(big));
	r = answer(d, fd);
	ck_assert_msg(strstr(r, "longer than"), "%s", r);
	ck_assert_str_eq(answer(d, fd), "");
	close(fd);

	/* A request, then EOF: answered before the daemon closes. */
	fd = client(f.sock);
	say(fd, "{\"v\":1,\"cmd\":\"ping\"}\n");
	shutdown(fd, SHUT_WR);
	ck_assert_ptr_nonnull(strstr(answer(d, fd), "\"ok\":true"));
	ck_assert_str_eq(answer(d, fd), "");
	close(fd);

	/* Abandoned mid-request. */
	fd = client(f.sock);
	say(fd, "{\"v\":1,");
	mdkd_run_once(d, mdkd_now_us() + 10000);
	close(fd);

	/* More clients than allowed: the extra one is told so. */
	for (i = 0; i < MDKD_MAX_CLIENTS + 1; i++) {
		fds[i] = client(f.sock);
		mdkd_run_once(d, mdkd_now_us() + 10000);
	}
	r = answer(d, fds[MDKD_MAX_CLIENTS]);
	ck_assert_msg(strstr(r, "too many clients"), "%s", r);
	for (i = 0; i < MDKD_MAX_CLIENTS + 1; i++)
		close(fds[i]);
	for (i = 0; i < 5; i++)
		mdkd_run_once(d, mdkd_now_us() + 10000);
	ck_assert_uint_eq(d->ctl.nclients, 0);

	/* And it still works. */
	fd = client(f.sock);
	say(fd, "{\"v\":1,\"cmd\":\"ping\"}\n");
	ck_assert_ptr_nonnull(strstr(answer(d, fd), "\"ok\":true"));
	mdkd_free(d);
	close(fd);
	/* The socket is gone with the daemon. */
	ck_assert_int_ne(access(f.sock, F_OK), 0);
	fake_teardown(&f);
}
END_TEST

START_TEST(test_control_socket_refuses_second_daemon)
{
	struct fakecg f;
	struct mdkd *d = start(&f, base_conf);
	struct mdkd_config *cfg;
	char err[1024];

	ck_assert_int_eq(mdkd_config_load(f.conf, &cfg, err, sizeof(err)), 0);
	ck_assert_ptr_null(mdkd_new(cfg, f.conf, NULL, false,
				    mdkd_request_handle, err, sizeof(err)));
	ck_assert_msg(strstr(err, "another mdkd is listening"), "%s", err);
	mdkd_config_free(cfg);
	mdkd_free(d);
	fake_teardown(&f);
}
END_TEST

/* ---- sd_notify, to a socket we listen on ---- */

static const char *notify_recv(int fd, struct mdkd *d, const char *want)
{
	static char all[8192];
	size_t len = 0;
	int i;

	all[0] = '\0';
	for (i = 0; i < 100 && !strstr(all, want); i++) {
		char msg[1024];
		ssize_t n = recv(fd, msg, sizeof(msg) - 1, MSG_DONTWAIT);

		if (n > 0 && len + n + 2 < sizeof(all)) {
			memcpy(all + len, msg, n);
			len += n;
			all[len++] = '|';
			all[len] = '\0';
			continue;
		}
		if (d)
			mdkd_run_once(d, mdkd_now_us() + 10000);
		else
			usleep(10000);
	}
	return all;
}

START_TEST(test_notify_protocol)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct fakecg f;
	struct mdkd *d;
	char err[256];
	int fd;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "/tmp/mdk-unit-notify-%d",
		 getpid());
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	setenv("NOTIFY_SOCKET", sa.sun_path, 1);
	setenv("WATCHDOG_USEC", "100000", 1);
	d = start(&f, base_conf);
	d->clock.now = NULL; /* the watchdog runs on the real clock */
	ck_assert_uint_eq(d->watchdog_us, 50000);
	ck_assert_ptr_nonnull(
		strstr(notify_recv(fd, d, "WATCHDOG=1"), "WATCHDOG=1"));
	mdkd_reload_config(d, err, sizeof(err));
	ck_assert_ptr_nonnull(
		strstr(notify_recv(fd, d, "READY=1"), "RELOADING=1"));
	tick(d);
	ck_assert_ptr_nonnull(strstr(notify_recv(fd, d, "STATUS=managing 2"),
				     "STATUS=managing 2 cgroups"));
	mdkd_free(d);
	close(fd);
	unlink(sa.sun_path);
	fake_teardown(&f);
}
END_TEST

static Suite *manager_suite(void)
{
	Suite *s = suite_create("manager");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_manager_reclaims_by_the_law);
	tcase_add_test(tc, test_manager_inactive);
	tcase_add_test(tc, test_manager_status_json);
	tcase_add_test(tc, test_manager_runtime_set);
	tcase_add_test(tc, test_manager_reload);
	tcase_add_test(tc, test_manager_reload_dropins);
	tcase_add_test(tc, test_manager_releases_removed_cgroup);
	tcase_add_test(tc, test_manager_tick_under_cpu_cap);
	tcase_add_test(tc, test_manager_records_and_prometheus);
	tcase_add_test(tc, test_manager_high_pulse_restores);
	tcase_add_test(tc, test_manager_falls_back_without_memory_reclaim);
	tcase_add_test(tc, test_journal_restore);
	tcase_add_test(tc, test_control_socket_survives_abuse);
	tcase_add_test(tc, test_control_socket_refuses_second_daemon);
	tcase_add_test(tc, test_notify_protocol);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(manager_suite)
