// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the live evaluator's L-OPP refit off the window's path
 * (lopp_async, libmdk/learn/live_fit.c).  With the worker held, windows
 * go on while a fit is in flight, the curve stays the old model's (none
 * yet), and retrain windows start no second fit; once the fit is done
 * the next window takes its model, which is the one the synchronous
 * learner fitted at the window the fit started; freeing the evaluator
 * with a fit in flight joins the worker (ASan and LSan watch).
 */
#include <mdk/evaluator.h>
#include <mdk/lopp.h>
#include <mdk/trace.h>

#include "mdk_test.h"
#include "libmdk/evaluator_int.h"

#define H 40

struct windows {
	uint64_t *ids;
	size_t *start, nw; /* window w: ids[start[w] .. start[w + 1]) */
};

static void load(struct windows *ws)
{
	struct mdk_trace_reader *r;
	struct mdk_trace_chunk c;
	char trace[512], err[256];
	size_t n = 0, cap = 1 << 16;
	int ret;

	fixture("mdk/mix/trace.mdkt", trace, sizeof(trace));
	ck_assert(!mdk_trace_reader_open(trace, 0, &r, err, sizeof(err)));
	ws->nw = mdk_trace_reader_info(r)->windows;
	ws->start = calloc(ws->nw + 1, sizeof(*ws->start));
	ws->ids = malloc(cap * sizeof(*ws->ids));
	for (size_t w = 0; w < ws->nw; w++) {
		ws->start[w] = n;
		do {
			ret = mdk_trace_reader_next(r, &c, err, sizeof(err));
			ck_assert_msg(ret > 0, "%s", err);
			while (n + c.n > cap)
				cap *= 2;
			ws->ids = realloc(ws->ids, cap * sizeof(*ws->ids));
			ck_assert_ptr_nonnull(ws->ids);
			memcpy(ws->ids + n, c.ids, c.n * sizeof(*ws->ids));
			n += c.n;
		} while (!c.window_end);
	}
	ws->start[ws->nw] = n;
	mdk_trace_reader_close(r);
}

static void feed(struct mdk_eval *e, const struct windows *ws, size_t w)
{
	char err[512];

	ck_assert_msg(!mdk_eval_window(e, ws->ids + ws->start[w],
				       ws->start[w + 1] - ws->start[w], 0,
				       false, err, sizeof(err)),
		      "window %zu: %s", w, err);
}

static struct mdk_eval *eval(bool async)
{
	struct mdk_eval_opts o = { .horizon = H,
				   .policies = "age,lopp",
				   .lopp_async = async };
	char err[512];
	struct mdk_eval *e = mdk_eval_new(&o, err, sizeof(err));

	ck_assert_msg(e, "%s", err);
	ck_assert_ptr_nonnull(e->lopp);
	return e;
}

static struct mdk_eval_lopp info(const struct mdk_eval *e)
{
	struct mdk_eval_lopp l;

	ck_assert(mdk_eval_lopp(e, &l));
	return l;
}

/* The model of @e's lopp curve in its file format. */
static char *model_text(const struct mdk_eval *e)
{
	const struct mdk_lopp_model *m =
		mdk_lopp_policy_model(mdk_eval_policy(e, 1));
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(mdk_lopp_model_print(m, f), 0);
	fclose(f);
	return text;
}

START_TEST(test_lopp_async_fit_off_the_window_path)
{
	struct mdk_eval *e = eval(true), *s = eval(false);
	struct mdk_point *pts;
	struct windows ws;
	char err[512], *a, *b;
	size_t w, w0;
	long n;

	load(&ws);
	ck_assert_uint_gt(ws.nw, 24);
	mdk__lopp_live_hold(e->lopp, true);
	/* Up to the first fit: the held worker has not begun. */
	for (w = 0; w < ws.nw && !info(e).fitting; w++) {
		feed(e, &ws, w);
		feed(s, &ws, w);
	}
	ck_assert_msg(info(e).fitting, "no fit started");
	w0 = w - 1;
	ck_assert_uint_eq(info(s).trainings, 1); /* synchronous: there */
	ck_assert_uint_eq(info(e).trainings, 0);
	/* The loop goes on: windows, two retrain ones among them. */
	for (; w <= w0 + 8; w++) {
		feed(e, &ws, w);
		ck_assert(info(e).fitting);
		ck_assert_uint_eq(info(e).trainings, 0);
		ck_assert_int_eq(mdk_eval_curve(e, 1, &pts, err, sizeof(err)),
				 -ENOENT);
	}
	/* Done, it waits for a window to take it. */
	mdk__lopp_live_hold(e->lopp, false);
	mdk_eval_lopp_wait(e);
	ck_assert_uint_eq(info(e).trainings, 0);
	feed(e, &ws, w++);
	ck_assert_uint_eq(info(e).trainings, 1);
	ck_assert_uint_eq(info(e).failures, 0);
	n = mdk_eval_curve(e, 1, &pts, err, sizeof(err));
	ck_assert_msg(n == 110 * H, "%ld: %s", n, err);
	free(pts);
	a = model_text(e);
	b = model_text(s);
	ck_assert_msg(!strcmp(a, b), "the model fitted at window %zu differs",
		      w0);
	free(a);
	free(b);
	/* A fit in flight when the evaluator goes: joined, nothing leaks. */
	mdk__lopp_live_hold(e->lopp, true);
	for (; w < ws.nw && !info(e).fitting; w++)
		feed(e, &ws, w);
	ck_assert(info(e).fitting);
	mdk_eval_free(e);
	mdk_eval_free(s);
	free(ws.ids);
	free(ws.start);
}
END_TEST

static Suite *lopp_live_async_suite(void)
{
	Suite *s = suite_create("lopp_live_async");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_lopp_async_fit_off_the_window_path);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(lopp_live_async_suite)
