// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the whole-trace curves on several threads
 * (libmdk/mpc_threads.c) equal one thread's exactly -- every field of
 * every point -- for every policy with a single-pass curve (age, vmin,
 * paw, pace, opp, and lopp with a model trained on the trace), at 2, 3, 4
 * and 8 threads, more threads than windows, and 0 (every CPU); thread
 * counts out of range are refused, and a window holding more ids than
 * the index says is an error, not an overflow of the buffer sized by it.
 */
#include <zlib.h>

#include <mdk/lopp.h>
#include <mdk/synth.h>

#include "mdk_test.h"

/*
 * A synthetic trace of @pages pages over @W windows into @path, from
 * generator specs separated by spaces.
 */
static void synth_trace(uint64_t seed, uint64_t pages, uint32_t W,
			const char *spec, char *path, size_t len)
{
	struct mdk_synth_opts o = { .pages = pages,
				    .windows = W,
				    .seed = seed };
	struct mdk_trace_writer_opts wo = { .window_us = 1000000,
					    .page_size = 4096 };
	struct mdk_synth *s;
	char err[512], specs[256], *sp, *save = NULL;
	int fd;

	snprintf(path, len, "/tmp/mdk-threads-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_msg(!mdk_synth_new(&o, &s, err, sizeof(err)), "%s", err);
	snprintf(specs, sizeof(specs), "%s", spec);
	for (sp = strtok_r(specs, " ", &save); sp;
	     sp = strtok_r(NULL, " ", &save))
		ck_assert_msg(!mdk_synth_add(s, sp, err, sizeof(err)), "%s",
			      err);
	ck_assert_msg(!mdk_synth_write(s, path, &wo, err, sizeof(err)), "%s",
		      err);
	mdk_synth_free(s);
}

/* Every field of @a and @b, exactly. */
static void check_equal(const struct mdk_point *a, const struct mdk_point *b,
			const char *what, size_t k, unsigned int T)
{
	ck_assert_msg(!strcmp(a->policy, b->policy) && a->p1 == b->p1 &&
			      a->p2 == b->p2 && a->has_p2 == b->has_p2,
		      "%s, %u threads, point %zu: setting differs", what, T, k);
	ck_assert_msg(
		a->promotions == b->promotions && a->saved == b->saved &&
			a->footprint == b->footprint,
		"%s, %u threads, point %zu: promotions %llu/%llu saved %llu/%llu footprint %llu/%llu",
		what, T, k, (unsigned long long)a->promotions,
		(unsigned long long)b->promotions, (unsigned long long)a->saved,
		(unsigned long long)b->saved, (unsigned long long)a->footprint,
		(unsigned long long)b->footprint);
	ck_assert_msg(
		a->max_rate == b->max_rate && a->mean_rate == b->mean_rate &&
			a->p99_rate == b->p99_rate && a->savings == b->savings,
		"%s, %u threads, point %zu: rates or savings differ", what, T,
		k);
}

/* @spec's curves over @trace on each thread count: one thread's. */
static void check_threads(const char *trace, const char *spec)
{
	static const unsigned int counts[] = { 2, 3, 4, 8, 64, 0 };
	struct mdk_policy **pols;
	struct mdk_point *one[8], *many[8];
	size_t np, n1[8], nm[8], i, k, c;
	char err[512];

	ck_assert_msg(!mdk_policy_parse_list(spec, &pols, &np, err,
					     sizeof(err)),
		      "%s", err);
	ck_assert_uint_le(np, 8);
	ck_assert_msg(!mdk_mpc_run(trace, pols, np, MDK_SAVINGS_PAPER, one, n1,
				   err, sizeof(err)),
		      "%s", err);
	for (c = 0; c < MDK_ARRAY(counts); c++) {
		ck_assert_msg(!mdk_mpc_run_threads(trace, pols, np,
						   MDK_SAVINGS_PAPER, counts[c],
						   many, nm, err, sizeof(err)),
			      "%s, %u threads: %s", spec, counts[c], err);
		for (i = 0; i < np; i++) {
			ck_assert_uint_gt(n1[i], 0);
			ck_assert_uint_eq(nm[i], n1[i]);
			for (k = 0; k < n1[i]; k++)
				check_equal(&one[i][k], &many[i][k], spec, k,
					    counts[c]);
			free(many[i]);
		}
	}
	for (i = 0; i < np; i++) {
		free(one[i]);
		mdk_policy_free(pols[i]);
	}
	free(pols);
}

/* 20000 pages (about 40 regions of 2 MiB) over 40 windows. */
#define MIX "zipf:share=0.5,s=0.9,frac=0.25"

START_TEST(test_threads_every_policy)
{
	static const char *const lists[] = {
		"age,vmin,paw,pace,opp",
		"pace:P=1/3,A=2/5,paw:P=3,wait=5,age:T=5,opp:rho=0.1",
		"age:T=3/7,vmin:T=2/3/7,paw:wait=0/2,opp",
	};
	char trace[64];
	size_t l;

	synth_trace(7, 20000, 40, MIX, trace, sizeof(trace));
	for (l = 0; l < MDK_ARRAY(lists); l++)
		check_threads(trace, lists[l]);
	unlink(trace);
	/* Few windows, a scan and phases: threads outnumber windows. */
	synth_trace(8, 30000, 6, "scan:share=0.5,rate=9000", trace,
		    sizeof(trace));
	check_threads(trace, lists[0]);
	unlink(trace);
}
END_TEST

START_TEST(test_threads_lopp)
{
	struct mdk_lopp_train_opts o = { .rho = 0.01, .holdout = 0.2 };
	struct mdk_lopp_train_report rep;
	struct mdk_lopp_model *m;
	char trace[64], model[64], spec[256], err[512];

	/* Regions accessed apart: a region cut in two would show. */
	synth_trace(9, 20000, 40,
		    "scan:share=0.4,rate=1500 zipf:share=0.6,s=1.2,frac=0.02",
		    trace, sizeof(trace));
	ck_assert_msg(!mdk_lopp_train(trace, &o, &m, &rep, err, sizeof(err)),
		      "%s", err);
	lopp_model_to_file(m, model, sizeof(model));
	snprintf(spec, sizeof(spec), "lopp:model=%s,age", model);
	check_threads(trace, spec);
	unlink(model);
	unlink(trace);
}
END_TEST

START_TEST(test_threads_errors)
{
	struct mdk_policy **pols;
	struct mdk_point *pts[1];
	size_t np, n[1];
	char trace[64], err[512];

	synth_trace(10, 2000, 5, MIX, trace, sizeof(trace));
	ck_assert(!mdk_policy_parse_list("age", &pols, &np, err, sizeof(err)));
	ck_assert_int_eq(mdk_mpc_run_threads(trace, pols, np, 0,
					     MDK_MPC_THREADS_MAX + 1, pts, n,
					     err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "1025 threads") && strstr(err, "1..1024"),
		      "%s", err);
	ck_assert_int_eq(mdk_mpc_run_threads("/nonexistent.mdkt", pols, np, 0,
					     2, pts, n, err, sizeof(err)),
			 -ENOENT);
	ck_assert_msg(strstr(err, "/nonexistent.mdkt"), "%s", err);
	ck_assert_uint_ge(mdk_mpc_threads_online(), 1);
	mdk_policy_free(pols[0]);
	free(pols);
	unlink(trace);
}
END_TEST

/*
 * @path's last index entry and its footer count one id less, their
 * checksums redone.
 */
static void index_undercount(const char *path)
{
	uint8_t foot[32], *ib;
	uint64_t ioff = 0;
	uint32_t n = 0, c, i;
	size_t len;
	FILE *f = fopen(path, "r+b");

	ck_assert_ptr_nonnull(f);
	ck_assert(!fseek(f, -32, SEEK_END) && fread(foot, 1, 32, f) == 32);
	for (i = 0; i < 8; i++)
		ioff |= (uint64_t)foot[8 + i] << (8 * i);
	ck_assert(!fseek(f, (long)ioff + 4, SEEK_SET) &&
		  fread(&n, 4, 1, f) == 1 && n > 0);
	len = 8 + (size_t)n * 16 + 4;
	ib = malloc(len);
	ck_assert(ib && !fseek(f, (long)ioff, SEEK_SET) &&
		  fread(ib, 1, len, f) == len);
	ib[8 + (size_t)(n - 1) * 16 + 12]--; /* the count's low byte */
	c = (uint32_t)crc32(0, ib, (uInt)(len - 4));
	memcpy(ib + len - 4, &c, 4); /* little-endian, as the host */
	ck_assert(!fseek(f, (long)ioff, SEEK_SET) &&
		  fwrite(ib, 1, len, f) == len);
	/* The footer's records (at 16) agree with the index's. */
	for (i = 16; !foot[i]--; i++)
		;
	c = (uint32_t)crc32(0, foot, 28);
	memcpy(foot + 28, &c, 4);
	ck_assert(!fseek(f, -32, SEEK_END) && fwrite(foot, 1, 32, f) == 32);
	free(ib);
	ck_assert(!fclose(f));
}

START_TEST(test_threads_index_undercount)
{
	struct mdk_policy **pols;
	struct mdk_point *pts[1];
	size_t np, n[1];
	char trace[64], err[512];

	synth_trace(11, 2000, 5, MIX, trace, sizeof(trace));
	index_undercount(trace);
	ck_assert(!mdk_policy_parse_list("age", &pols, &np, err, sizeof(err)));
	ck_assert_int_eq(mdk_mpc_run_threads(trace, pols, np, 0, 2, pts, n, err,
					     sizeof(err)),
			 -EBADMSG);
	ck_assert_msg(strstr(err, "more than the index says"), "%s", err);
	mdk_policy_free(pols[0]);
	free(pols);
	unlink(trace);
}
END_TEST

static Suite *mpc_threads_suite(void)
{
	Suite *s = suite_create("mpc_threads");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_threads_every_policy);
	tcase_add_test(tc, test_threads_lopp);
	tcase_add_test(tc, test_threads_errors);
	tcase_add_test(tc, test_threads_index_undercount);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(mpc_threads_suite)
