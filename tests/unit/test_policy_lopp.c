// SPDX-License-Identifier: GPL-2.0
/*
 * Description: L-OPP(theta, A; wait): reclaim after wait idle windows a
 * page whose access the model scores at theta or above, the others after
 * A idle windows (libmdk/policy/lopp.c).  With a model trained on a
 * trace: every point of the single-pass curve over (theta, A), for
 * several waits, equals the exact simulator; the simulator equals a
 * brute-force residency model fed the same keys; decisions nest in theta;
 * and the live evaluator's lopp curve, learnt window by window, equals the
 * offline curve of its final model over the same windows.
 */
#include <mdk/evaluator.h>
#include <mdk/lopp.h>

#include "policy_test.h"

/* Every setting of @spec over @trace: mdk_mpc_run() == mdk_simulate(). */
static void check_file_curve(const char *trace, const char *spec,
			     struct mdk_point **out, size_t *nout)
{
	struct mdk_policy *p;
	struct mdk_point *pts;
	size_t n, i;
	char err[512];

	ck_assert_msg(!mdk_policy_new(spec, &p, err, sizeof(err)), "%s", err);
	ck_assert_msg(!mdk_mpc_run(trace, &p, 1, 0, &pts, &n, err, sizeof(err)),
		      "%s", err);
	ck_assert_uint_eq(n, mdk_policy_settings(p));
	for (i = 0; i < n; i++) {
		struct mdk_point s;
		char what[128];

		mdk_policy_format(p, i, what, sizeof(what));
		ck_assert_msg(!mdk_simulate(trace, p, i, 0, &s, err,
					    sizeof(err)),
			      "%s", err);
		check_same(&pts[i], &s, what);
	}
	mdk_policy_free(p);
	if (out) {
		*out = pts;
		*nout = n;
	} else {
		free(pts);
	}
}

START_TEST(test_lopp_curve_equals_sim)
{
	char trace[512], model[64], spec[256];
	struct mdk_point *pts;
	size_t n, i;

	fixture("mdk/mix/trace.mdkt", trace, sizeof(trace));
	lopp_train_model(trace, model, sizeof(model));
	for (i = 0; i < 3; i++) {
		snprintf(
			spec, sizeof(spec),
			"lopp:model=%s,theta=0/0.05/0.1/0.2/0.3/0.5/0.7/0.9/1,A=0/1/3/none,wait=%zu",
			model, i * 2);
		check_file_curve(trace, spec, NULL, NULL);
	}
	/* theta alone: A = none, wait 0 (L-OPP without a fallback). */
	snprintf(spec, sizeof(spec),
		 "lopp:model=%s,theta=0-1:0.01/0.001-0.009:0.001", model);
	check_file_curve(trace, spec, &pts, &n);
	ck_assert_uint_eq(n, 110);
	/* Nested in theta: fewer reclaims as it rises, none at 1. */
	for (i = 1; i < n; i++) {
		ck_assert_uint_le(pts[i].promotions, pts[i - 1].promotions);
		ck_assert_uint_le(pts[i].saved, pts[i - 1].saved);
	}
	ck_assert_uint_eq(pts[n - 1].saved, 0);
	ck_assert_uint_gt(pts[0].saved, 0);
	/*
	 * A trained model separates: some theta saves at a mean rate within
	 * 3% (the max rate is not the test: window 0's first accesses look
	 * alike to the model and many of them come back in window 1, at a
	 * rate of 0.41 for every theta that reclaims).
	 */
	for (i = 0; i < n && !(pts[i].saved && pts[i].mean_rate <= 0.03); i++)
		;
	ck_assert_uint_lt(i, n);
	free(pts);
	unlink(model);
}
END_TEST

/* The keys of every access of the trace at @path, into @t->keys. */
static uint32_t *trace_keys(const char *path, const struct tt *t,
			    const struct mdk_policy *p)
{
	uint32_t *keys = calloc((size_t)t->P * t->W + 1, sizeof(*keys));
	struct mdk_trace_reader *r;
	struct mdk_trace_chunk c;
	struct mdk_keyer *k;
	char err[256];
	int ret;

	ck_assert_msg(!mdk_keyer_new(p, &k, err, sizeof(err)), "%s", err);
	ck_assert(!mdk_trace_reader_open(path, MDK_TRACE_DENSE, &r, err,
					 sizeof(err)));
	while ((ret = mdk_trace_reader_next(r, &c, err, sizeof(err))) > 0) {
		uint32_t *kk = malloc((c.n + 1) * sizeof(*kk));
		size_t i, q;

		ck_assert_msg(!mdk_keyer_keys(k, c.window, c.ids, c.pages, c.n,
					      kk, err, sizeof(err)),
			      "%s", err);
		for (i = 0; i < c.n; i++) {
			for (q = 0; q < t->P && t->ids[q] != c.ids[i]; q++)
				;
			ck_assert_uint_lt(q, t->P);
			keys[q * t->W + c.window] = kk[i];
		}
		free(kk);
	}
	ck_assert_int_eq(ret, 0);
	mdk_trace_reader_close(r);
	mdk_keyer_free(k);
	return keys;
}

/*
 * The residency model of L-OPP straight from its definition: after an
 * access of key k in window w, a page is reclaimed at the end of window
 * w + wait if k > theta (in ppm) and it stays idle that long.
 */
static void bf_lopp(const struct tt *t, const uint32_t *keys, const uint64_t *v,
		    uint64_t wait, struct mdk_point *pt)
{
	uint64_t prom = 0, saved = 0, foot = 0, sumU = 0;
	uint32_t W = t->W, w;
	double maxr = 0;

	for (w = 0; w < W; w++) {
		uint64_t U = 0, pw = 0;

		for (size_t p = 0; p < t->P; p++) {
			bool acc = tt_get(t, p, w), gone;
			int64_t a = (int64_t)w - 1;

			while (a >= 0 && !tt_get(t, p, (uint32_t)a))
				a--;
			U += acc;
			if (!acc && a < 0)
				continue; /* not accessed yet */
			foot++;
			if (a < 0)
				continue; /* a first access */
			/* A passing score waits wait, the others A. */
			if (keys[p * W + (size_t)a] > v[0])
				gone = (uint64_t)a + wait < w;
			else
				gone = v[1] < MDK_TRACE_MAX_WINDOW &&
				       (uint64_t)a + v[1] < w;
			pw += gone && acc;
			saved += gone && !acc;
		}
		prom += pw;
		sumU += U;
		if (U && (double)pw / (double)U > maxr)
			maxr = (double)pw / (double)U;
	}
	memset(pt, 0, sizeof(*pt));
	pt->promotions = prom;
	pt->saved = saved;
	pt->footprint = foot;
	pt->max_rate = maxr;
	pt->mean_rate = sumU ? (double)prom / (double)sumU : 0;
}

START_TEST(test_lopp_sim_equals_brute_force)
{
	char trace[512], model[64], spec[256], small[64];
	size_t i, j;

	fixture("mdk/mix/trace.mdkt", trace, sizeof(trace));
	lopp_train_model(trace, model, sizeof(model));
	for (j = 0; j < 6; j++) {
		struct tt *t = tt_random(j + 5, 4 + (uint32_t)j * 3, 30);
		uint64_t wait = j % 3;
		struct mdk_policy *p;
		uint32_t *keys;

		snprintf(
			spec, sizeof(spec),
			"lopp:model=%s,theta=0/0.02/0.1/0.3/0.6/1,A=0/1/2/4/none,wait=%llu",
			model, (unsigned long long)wait);
		p = tt_policy(spec, t->W);

		tt_write(t, small, sizeof(small));
		keys = trace_keys(small, t, p);
		check_file_curve(small, spec, NULL, NULL);
		for (i = 0; i < mdk_policy_settings(p); i++) {
			struct mdk_point s, b;
			struct mdk_setting set;
			char err[256], what[128];

			mdk_policy_setting(p, i, &set);
			mdk_policy_format(p, i, what, sizeof(what));
			ck_assert_msg(!mdk_simulate(small, p, i, 0, &s, err,
						    sizeof(err)),
				      "%s", err);
			bf_lopp(t, keys, set.v, wait, &b);
			ck_assert_msg(
				s.promotions == b.promotions &&
					s.saved == b.saved &&
					s.footprint == b.footprint &&
					s.max_rate == b.max_rate,
				"%s: sim %llu/%llu/%llu/%g, brute %llu/%llu/%llu/%g",
				what, (unsigned long long)s.promotions,
				(unsigned long long)s.saved,
				(unsigned long long)s.footprint, s.max_rate,
				(unsigned long long)b.promotions,
				(unsigned long long)b.saved,
				(unsigned long long)b.footprint, b.max_rate);
		}
		free(keys);
		mdk_policy_free(p);
		unlink(small);
		tt_free(t);
	}
	unlink(model);
}
END_TEST

/* Window @w's ids of the trace at @path (sorted), into @ids. */
static size_t window_ids(struct mdk_trace_reader *r, uint64_t *ids)
{
	struct mdk_trace_chunk c;
	size_t n = 0;
	char err[256];

	for (;;) {
		int ret = mdk_trace_reader_next(r, &c, err, sizeof(err));

		ck_assert_msg(ret > 0, "%s", err);
		memcpy(ids + n, c.ids, c.n * sizeof(*ids));
		n += c.n;
		if (c.window_end)
			return n;
	}
}

START_TEST(test_lopp_live_curve_equals_offline)
{
	struct mdk_eval_opts o = { .horizon = 40, .policies = "age,lopp" };
	const struct mdk_policy *lp;
	struct mdk_trace_reader *r;
	struct mdk_point *live, *off;
	struct mdk_eval_lopp info;
	struct mdk_eval *e;
	char trace[512], model[64], spec[256], err[512];
	uint64_t *ids = malloc(2000 * sizeof(*ids));
	long n;
	size_t noff, i;
	uint32_t w;
	int fd;

	fixture("mdk/mix/trace.mdkt", trace, sizeof(trace));
	e = mdk_eval_new(&o, err, sizeof(err));
	ck_assert_msg(e, "%s", err);
	ck_assert(!mdk_trace_reader_open(trace, 0, &r, err, sizeof(err)));
	for (w = 0; w < mdk_trace_reader_info(r)->windows; w++) {
		size_t k = window_ids(r, ids);

		ck_assert_msg(!mdk_eval_window(e, ids, k, 0, false, err,
					       sizeof(err)),
			      "%s", err);
	}
	mdk_trace_reader_close(r);
	ck_assert(mdk_eval_lopp(e, &info));
	ck_assert_uint_ge(info.trainings, 8); /* every 4th of 40 windows */
	ck_assert_uint_gt(info.rows, 1000);
	ck_assert(info.auc > 0.6);
	lp = mdk_eval_policy(e, 1);
	ck_assert_str_eq(mdk_policy_name(lp), "lopp");
	n = mdk_eval_curve(e, 1, &live, err, sizeof(err));
	/* theta's 110 values x A's 1..39 and none */
	ck_assert_msg(n == 110 * 40, "%ld: %s", n, err);
	/* The offline curve of the final model over the same windows. */
	snprintf(model, sizeof(model), "/tmp/mdk-lopp-XXXXXX");
	fd = mkstemp(model);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert(!mdk_lopp_model_write(mdk_lopp_policy_model(lp), model, err,
					sizeof(err)));
	snprintf(spec, sizeof(spec), "lopp:model=%s", model);
	check_file_curve(trace, spec, &off, &noff);
	ck_assert_uint_eq(noff, (size_t)n);
	for (i = 0; i < noff; i++)
		check_same(&live[i], &off[i], "live vs offline");
	/* Auto-tune picks (theta, A); a wait the curve lacks is refused. */
	{
		struct mdk_eval_sel sel;
		struct mdk_point pt;

		ck_assert_msg(!mdk_eval_tune(e, "lopp", 0.05, &sel, &pt, err,
					     sizeof(err)),
			      "%s", err);
		ck_assert_int_eq(sel.policy, 1);
		ck_assert(pt.max_rate <= 0.05);
		ck_assert(!mdk_eval_find(e, "lopp:theta=0.5,A=4", &sel, err,
					 sizeof(err)));
		ck_assert_int_eq(mdk_eval_tune(e, "lopp:wait=1", 0.05, &sel,
					       NULL, err, sizeof(err)),
				 -EINVAL);
		ck_assert_msg(strstr(err, "wait is not tuned"), "%s", err);
		ck_assert_int_eq(mdk_eval_find(e, "lopp:theta=0.5,wait=2", &sel,
					       err, sizeof(err)),
				 -EINVAL);
		ck_assert_msg(strstr(err, "at wait=0"), "%s", err);
	}
	free(live);
	free(off);
	free(ids);
	unlink(model);
	mdk_eval_free(e);
}
END_TEST

START_TEST(test_lopp_bad_params)
{
	static const struct bad_param bad[] = {
		{ "lopp:theta=2", "out of range" },
		{ "lopp:model=/nonexistent/m.mdkm", "/nonexistent/m.mdkm" },
		{ "lopp:Q=1", "unknown parameter" },
	};
	char trace[512], err[256], spec[256], back[512], model[64];
	struct mdk_policy *p;
	struct mdk_point pt;

	policy_check_bad_params("lopp", bad, MDK_ARRAY(bad));
	/* Curves and simulations need a model. */
	fixture("mdk/mix/trace.mdkt", trace, sizeof(trace));
	ck_assert(!mdk_policy_new("lopp:theta=0.5", &p, err, sizeof(err)));
	ck_assert_int_eq(mdk_simulate(trace, p, 0, 0, &pt, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "model is required"), "%s", err);
	mdk_policy_free(p);
	/* The spec names the model and parses back. */
	lopp_train_model(trace, model, sizeof(model));
	snprintf(spec, sizeof(spec), "lopp:theta=0.5,model=%s", model);
	ck_assert(!mdk_policy_new(spec, &p, err, sizeof(err)));
	ck_assert(mdk_policy_keyed(p));
	mdk_policy_spec(p, back, sizeof(back));
	snprintf(spec, sizeof(spec), "lopp:theta=0.5,model=%s", model);
	ck_assert_str_eq(back, spec);
	mdk_policy_free(p);
	unlink(model);
}
END_TEST

static Suite *policy_lopp_suite(void)
{
	Suite *s = suite_create("policy_lopp");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_lopp_curve_equals_sim);
	tcase_add_test(tc, test_lopp_sim_equals_brute_force);
	tcase_add_test(tc, test_lopp_live_curve_equals_offline);
	tcase_add_test(tc, test_lopp_bad_params);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(policy_lopp_suite)
