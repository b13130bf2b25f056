// SPDX-License-Identifier: GPL-2.0
/*
 * The helpers of mdk_test.h: in-memory traces, curves through libmdk,
 * the brute force, and the checks that hold them to each other.
 */
#include <sys/stat.h>

#include "mdk_test.h"

struct tt *tt_new(uint32_t W, size_t P)
{
	struct tt *t = calloc(1, sizeof(*t));
	size_t p;

	ck_assert_ptr_nonnull(t);
	t->W = W;
	t->P = P;
	t->acc = calloc((size_t)W * P + 1, 1);
	t->ids = calloc(P ? P : 1, sizeof(*t->ids));
	ck_assert_ptr_nonnull(t->acc);
	/* Clustered ids with holes, as a page table would give. */
	for (p = 0; p < P; p++)
		t->ids[p] = 0x7f0000000ull + p + (p / 50) * 37;
	return t;
}

void tt_free(struct tt *t)
{
	if (!t)
		return;
	free(t->acc);
	free(t->ids);
	free(t);
}

uint64_t tt_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

struct tt *tt_random(uint64_t seed, uint32_t W, size_t P)
{
	struct tt *t = tt_new(W, P);
	uint64_t s = seed * 2654435761u + 1;
	size_t p;
	uint32_t w;

	for (p = 0; p < P; p++) {
		double prob = (double)(tt_rand(&s) % 1000) / 1000.0;
		uint32_t born = (uint32_t)(tt_rand(&s) % W);

		prob = prob * prob;
		for (w = born; w < W; w++)
			t->acc[p * W + w] =
				(double)(tt_rand(&s) % 10000) / 10000.0 < prob;
		if (tt_rand(&s) % 5 == 0)
			t->acc[p * W + born] = 1; /* at least once */
	}
	return t;
}

static int tt_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct tt *tt_synth(uint64_t seed, uint32_t W, size_t P, const char *spec)
{
	struct mdk_synth_opts o = { .pages = P, .windows = W, .seed = seed };
	struct mdk_synth *s;
	const uint64_t *ids;
	struct tt *t;
	char err[256];
	uint32_t win;
	size_t n, i, p;

	ck_assert_int_eq(mdk_synth_new(&o, &s, err, sizeof(err)), 0);
	if (spec)
		ck_assert_int_eq(mdk_synth_add(s, spec, err, sizeof(err)), 0);
	/* Page ids of the synthetic trace are not contiguous: map them. */
	t = tt_new(W, 0);
	free(t->ids);
	t->ids = NULL;
	{
		uint64_t *all = NULL;
		size_t nall = 0, cap = 0;
		uint8_t *rows = NULL;
		size_t rcap = 0;

		/* First pass: collect windows as (window, id) pairs. */
		uint64_t *pw = NULL;
		size_t npw = 0, pwcap = 0;

		while (mdk_synth_next(s, &win, &ids, &n, err, sizeof(err)) >
		       0) {
			for (i = 0; i < n; i++) {
				if (npw + 2 > pwcap) {
					pwcap = pwcap ? pwcap * 2 : 4096;
					pw = realloc(pw, pwcap * sizeof(*pw));
				}
				pw[npw++] = win;
				pw[npw++] = ids[i];
				if (nall + 1 > cap) {
					cap = cap ? cap * 2 : 4096;
					all = realloc(all, cap * sizeof(*all));
				}
				all[nall++] = ids[i];
			}
		}
		/* Distinct ids, sorted. */
		qsort(all, nall, sizeof(*all), tt_cmp_u64);
		for (i = p = 0; i < nall; i++)
			if (!p || all[i] != all[p - 1])
				all[p++] = all[i];
		t->P = p;
		t->ids = all;
		rcap = p * W;
		rows = calloc(rcap ? rcap : 1, 1);
		for (i = 0; i < npw; i += 2) {
			uint64_t id = pw[i + 1];
			size_t lo = 0, hi = p;

			while (lo < hi) {
				size_t mid = (lo + hi) / 2;

				if (all[mid] < id)
					lo = mid + 1;
				else
					hi = mid;
			}
			rows[lo * W + pw[i]] = 1;
		}
		free(t->acc);
		t->acc = rows;
		free(pw);
	}
	mdk_synth_free(s);
	return t;
}

size_t tt_window(const struct tt *t, uint32_t w, uint32_t *out)
{
	size_t p, n = 0;

	for (p = 0; p < t->P; p++)
		if (tt_get(t, p, w))
			out[n++] = (uint32_t)p;
	return n;
}

uint64_t tt_records(const struct tt *t)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < t->P * t->W; i++)
		n += t->acc[i];
	return n;
}

void tt_write(const struct tt *t, char *path, size_t len)
{
	struct mdk_trace_writer *w;
	char err[256];
	uint64_t *ids = malloc((t->P + 1) * sizeof(*ids));
	uint32_t *pg = malloc((t->P + 1) * sizeof(*pg));
	int fd;

	snprintf(path, len, "/tmp/mdk-test-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_msg(!mdk_trace_writer_open(path, NULL, &w, err, sizeof(err)),
		      "%s", err);
	for (uint32_t win = 0; win < t->W; win++) {
		size_t n = tt_window(t, win, pg), i;

		for (i = 0; i < n; i++)
			ids[i] = t->ids[pg[i]];
		ck_assert_msg(!mdk_trace_writer_put(w, win, ids, n, 0, err,
						    sizeof(err)),
			      "%s", err);
	}
	ck_assert_msg(!mdk_trace_writer_close(w, err, sizeof(err)), "%s", err);
	free(ids);
	free(pg);
}

struct mdk_policy *tt_policy(const char *spec, uint32_t W)
{
	struct mdk_policy *p;
	char err[256];

	ck_assert_msg(!mdk_policy_new(spec, &p, err, sizeof(err)), "%s: %s",
		      spec, err);
	ck_assert_msg(!mdk_policy_resolve(p, W, err, sizeof(err)), "%s: %s",
		      spec, err);
	return p;
}

size_t tt_mpc(const struct tt *t, struct mdk_policy *p, unsigned int flags,
	      struct mdk_point **pts)
{
	uint32_t *pg = malloc((t->P + 1) * sizeof(*pg));
	uint32_t *st = malloc((t->P + 1) * sizeof(*st));
	uint32_t *ru = malloc((t->P + 1) * sizeof(*ru));
	struct mdk_stream *s;
	struct mdk_mpc *m;
	uint64_t first = 0;
	char err[256];
	long n;

	ck_assert_int_eq(mdk_stream_new(0, &s), 0);
	ck_assert_msg(!mdk_mpc_new(p, t->W, &m, err, sizeof(err)), "%s", err);
	for (uint32_t w = 0; w < t->W; w++) {
		size_t k = tt_window(t, w, pg);

		ck_assert_msg(!mdk_stream_feed(s, w, pg, k, st, ru, &first, err,
					       sizeof(err)),
			      "%s", err);
		ck_assert_msg(!mdk_mpc_add_accesses(m, w, st, ru, k, err,
						    sizeof(err)),
			      "%s", err);
	}
	n = mdk_mpc_eval(m, 0, t->W - 1, flags, pts, err, sizeof(err));
	ck_assert_msg(n >= 0, "%s", err);
	mdk_mpc_free(m);
	mdk_stream_free(s);
	free(pg);
	free(st);
	free(ru);
	return (size_t)n;
}

void tt_sim(const struct tt *t, const struct mdk_policy *p, size_t i,
	    unsigned int flags, struct mdk_point *pt)
{
	uint32_t *pg = malloc((t->P + 1) * sizeof(*pg));
	struct mdk_sim *s;
	char err[256];

	ck_assert_msg(!mdk_sim_new(p, i, flags, &s, err, sizeof(err)), "%s",
		      err);
	for (uint32_t w = 0; w < t->W; w++) {
		size_t k = tt_window(t, w, pg);

		ck_assert_msg(!mdk_sim_add(s, w, pg, k, err, sizeof(err)), "%s",
			      err);
	}
	ck_assert_msg(!mdk_sim_finish(s, t->W, pt, err, sizeof(err)), "%s",
		      err);
	mdk_sim_free(s);
	free(pg);
}

static int bf_cmp_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

static int bf_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* OPP: each window's largest gaps within floor(rho U), then the tails. */
static void bf_opp(const struct tt *t, uint64_t rho, const uint64_t *U,
		   uint8_t *absent, uint64_t *prom)
{
	uint32_t W = t->W, w;
	size_t P = t->P, p;
	uint32_t *gaps = malloc((P + 1) * 2 * sizeof(*gaps));

	for (w = 0; w < W; w++) {
		size_t ng = 0, k;
		uint64_t b = rho * U[w] / 1000000;

		for (p = 0; p < P; p++) {
			int32_t a;

			if (!tt_get(t, p, w))
				continue;
			for (a = (int32_t)w - 1; a >= 0; a--)
				if (tt_get(t, p, (uint32_t)a))
					break;
			if (a < 0 || w - (uint32_t)a - 1 < 1)
				continue;
			gaps[2 * ng] = w - (uint32_t)a - 1;
			gaps[2 * ng + 1] = (uint32_t)p;
			ng++;
		}
		qsort(gaps, ng, 2 * sizeof(*gaps), bf_cmp_desc);
		for (k = 0; k < ng && k < b; k++) {
			uint32_t g = gaps[2 * k], x;

			for (x = w - g; x < w; x++)
				absent[gaps[2 * k + 1] * W + x] = 1;
			prom[w]++;
		}
	}
	free(gaps);
	for (p = 0; p < P; p++) {
		int32_t a;

		for (a = (int32_t)W - 1; a >= 0; a--)
			if (tt_get(t, p, (uint32_t)a))
				break;
		for (w = (uint32_t)(a + 1); a >= 0 && w < W; w++)
			absent[p * W + w] = 1;
	}
}

/* The wait policies: each interval's wait d decided at its access. */
static void bf_wait(const struct tt *t, const char *name, const uint64_t *v,
		    uint8_t *absent, uint64_t *prom)
{
	uint32_t W = t->W, w;
	size_t P = t->P, p;

	for (p = 0; p < P; p++) {
		int64_t last = -1, prev = -1, reclaim_at = -1;
		bool res = false;

		for (w = 0; w < W; w++) {
			if (tt_get(t, p, w)) {
				if (last >= 0 && !res)
					prom[w]++;
				res = true;
				prev = last;
				last = w;
				/* Decide this interval's wait d. */
				{
					uint64_t r = prev >= 0 ?
							     (uint64_t)(last -
									prev) :
							     0;
					int64_t d = -1, n;

					for (n = w + 1; n < W; n++)
						if (tt_get(t, p, (uint32_t)n))
							break;
					if (!strcmp(name, "age"))
						d = (int64_t)v[0];
					else if (!strcmp(name, "vmin"))
						d = (n == W ||
						     (uint64_t)(n - w - 1) >=
							     v[0]) ?
							    0 :
							    -1;
					else if (!strcmp(name, "paw"))
						d = (prev >= 0 && r > v[0]) ?
							    (int64_t)v[1] :
							    -1;
					else if (!strcmp(name, "pace"))
						d = (prev >= 0 && r > v[0]) ?
							    0 :
							    (int64_t)v[1];
					reclaim_at = d < 0 ? -1 :
							     (int64_t)w + d;
				}
			}
			if (res && last >= 0)
				; /* resident through window w */
			else if (last >= 0)
				absent[p * W + w] = 1;
			/* End of window w: reclaim if idle since last. */
			if (res && reclaim_at == (int64_t)w)
				res = false;
		}
	}
}

void bf_point(const struct tt *t, const char *name, const uint64_t *v,
	      bool paper, struct mdk_point *pt)
{
	bf_point_from(t, name, v, paper, 0, pt);
}

void bf_point_from(const struct tt *t, const char *name, const uint64_t *v,
		   bool paper, uint32_t from, struct mdk_point *pt)
{
	uint32_t W = t->W, w;
	size_t P = t->P, p;
	uint8_t *absent = calloc(P * W + 1, 1); /* absent[p * W + w] */
	uint64_t *prom = calloc(W + 1, sizeof(*prom));
	uint64_t *U = calloc(W + 1, sizeof(*U));
	double *rates = calloc(W + 1, sizeof(*rates));
	uint64_t saved = 0, foot = 0, total = 0, sumU = 0;
	size_t nr = 0;

	memset(pt, 0, sizeof(*pt));
	for (w = 0; w < W; w++)
		for (p = 0; p < P; p++)
			U[w] += tt_get(t, p, w);

	if (!strcmp(name, "opp"))
		bf_opp(t, v[0], U, absent, prom);
	else
		bf_wait(t, name, v, absent, prom);
	for (w = 0; w < W; w++) {
		uint64_t F = 0, ab = 0;

		for (p = 0; p < P; p++) {
			/* exists: first accessed at or before w */
			bool exists = tt_get(t, p, w) ||
				      (w && absent[p * W + w]);

			for (uint32_t x = 0; x <= w && !exists; x++)
				exists = tt_get(t, p, x);
			F += exists;
			ab += exists && absent[p * W + w];
		}
		if (w < from)
			continue; /* not scored */
		foot += F;
		saved += ab;
		total += prom[w];
		sumU += U[w];
		if (U[w]) {
			rates[nr] = (double)prom[w] / (double)U[w];
			if (rates[nr] > pt->max_rate)
				pt->max_rate = rates[nr];
			nr++;
		}
	}
	qsort(rates, nr, sizeof(*rates), bf_cmp_double);
	pt->promotions = total;
	pt->saved = saved + (paper ? total : 0);
	pt->footprint = foot;
	pt->mean_rate = sumU ? (double)total / (double)sumU : 0;
	pt->p99_rate = nr ? rates[(size_t)ceil(0.99 * (double)nr) - 1] : 0;
	pt->savings = foot ? (double)pt->saved / (double)foot : 0;
	free(absent);
	free(prom);
	free(U);
	free(rates);
}

void check_same(const struct mdk_point *a, const struct mdk_point *b,
		const char *what)
{
	ck_assert_msg(a->promotions == b->promotions,
		      "%s: promotions %llu != %llu", what,
		      (unsigned long long)a->promotions,
		      (unsigned long long)b->promotions);
	ck_assert_msg(a->saved == b->saved, "%s: saved %llu != %llu", what,
		      (unsigned long long)a->saved,
		      (unsigned long long)b->saved);
	ck_assert_msg(a->footprint == b->footprint,
		      "%s: footprint %llu != %llu", what,
		      (unsigned long long)a->footprint,
		      (unsigned long long)b->footprint);
	ck_assert_msg(fabs(a->savings - b->savings) <= 1e-12,
		      "%s: savings %.17g != %.17g", what, a->savings,
		      b->savings);
	ck_assert_msg(a->max_rate == b->max_rate, "%s: max_rate %.17g != %.17g",
		      what, a->max_rate, b->max_rate);
	ck_assert_msg(a->mean_rate == b->mean_rate,
		      "%s: mean_rate %.17g != %.17g", what, a->mean_rate,
		      b->mean_rate);
	ck_assert_msg(a->p99_rate == b->p99_rate, "%s: p99_rate %.17g != %.17g",
		      what, a->p99_rate, b->p99_rate);
}

void check_curve(const struct tt *t, const char *spec, unsigned int flags,
		 bool brute)
{
	struct mdk_policy *p = tt_policy(spec, t->W);
	struct mdk_point *pts;
	size_t n = tt_mpc(t, p, flags, &pts), i;

	ck_assert_uint_eq(n, mdk_policy_settings(p));
	for (i = 0; i < n; i++) {
		struct mdk_point s, b;
		struct mdk_setting set;
		char what[128];

		mdk_policy_setting(p, i, &set);
		mdk_policy_format(p, i, what, sizeof(what));
		tt_sim(t, p, i, flags, &s);
		check_same(&pts[i], &s, what);
		ck_assert(pts[i].p1 == set.p1 && s.p1 == set.p1);
		if (brute) {
			bf_point(t, mdk_policy_name(p), set.v,
				 flags & MDK_SAVINGS_PAPER, &b);
			check_same(&s, &b, what);
		}
	}
	free(pts);
	mdk_policy_free(p);
}

const char *fixture(const char *rel, char *buf, size_t len)
{
	const char *top = getenv("MDK_FIXTURES");

	snprintf(buf, len, "%s/%s", top ? top : "tests/fixtures", rel);
	return buf;
}

uint8_t *read_whole_file(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *b;
	FILE *f = fopen(path, "rb");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fstat(fileno(f), &st), 0);
	b = malloc((size_t)st.st_size + 1);
	*len = fread(b, 1, (size_t)st.st_size, f);
	fclose(f);
	return b;
}

void lopp_model_to_file(struct mdk_lopp_model *m, char *path, size_t len)
{
	char err[512];
	int fd;

	snprintf(path, len, "/tmp/mdk-lopp-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_msg(!mdk_lopp_model_write(m, path, err, sizeof(err)), "%s",
		      err);
	mdk_lopp_model_free(m);
}
