// SPDX-License-Identifier: GPL-2.0
/*
 * The helpers of mrc_test.h: reference strings, brute-force LRU and
 * OPT, and the checks both cache policies get.
 */
#include "mrc_test.h"

uint64_t *refs_random(uint64_t seed, size_t n, size_t pages)
{
	uint64_t *r = malloc((n + 1) * sizeof(*r)), s = seed + 1;
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t x = tt_rand(&s);
		size_t hot = 1 + pages / 8, base = (i / 97) % pages;

		r[i] = 1000 + (x % 3 ? (base + x % hot) % pages : x % pages);
	}
	return r;
}

uint64_t brute_lru(const uint64_t *r, size_t n, size_t k)
{
	uint64_t *c = malloc((k + 1) * sizeof(*c)), misses = 0;
	size_t len = 0, i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < len && c[j] != r[i]; j++)
			;
		if (j == len) {
			misses++;
			if (len < k)
				len++;
			j = len - 1;
		}
		memmove(c + 1, c, j * sizeof(*c));
		c[0] = r[i];
	}
	free(c);
	return misses;
}

uint64_t brute_opt(const uint64_t *r, size_t n, size_t k)
{
	uint64_t *c = malloc((k + 1) * sizeof(*c)), misses = 0;
	size_t len = 0, i, j;

	for (i = 0; i < n; i++) {
		size_t victim = 0, far = 0;

		for (j = 0; j < len && c[j] != r[i]; j++)
			;
		if (j < len)
			continue;
		misses++;
		if (len < k) {
			c[len++] = r[i];
			continue;
		}
		for (j = 0; j < len; j++) {
			size_t nx;

			for (nx = i + 1; nx < n && r[nx] != c[j]; nx++)
				;
			if (nx > far) {
				far = nx;
				victim = j;
			}
		}
		c[victim] = r[i];
	}
	free(c);
	return misses;
}

size_t mrc_of(const char *spec, const uint64_t *r, size_t n,
	      struct mdk_mrc_point **pts)
{
	struct mdk_policy *p;
	struct mdk_mrc *m;
	size_t np;
	char err[256];

	ck_assert(!mdk_policy_new(spec, &p, err, sizeof(err)));
	ck_assert(!mdk_mrc_new(&p, 1, &m, err, sizeof(err)));
	/* In uneven pieces: the curve must not care. */
	for (size_t i = 0; i < n;) {
		size_t k = 1 + (i * 7) % 50;

		if (k > n - i)
			k = n - i;
		ck_assert(!mdk_mrc_add(m, r + i, k, err, sizeof(err)));
		i += k;
	}
	ck_assert_msg(!mdk_mrc_result(m, pts, &np, err, sizeof(err)), "%s",
		      err);
	ck_assert_uint_eq(mdk_mrc_references(m), n);
	mdk_mrc_free(m);
	mdk_policy_free(p);
	return np;
}

void mrc_check_brute_force(const char *name, brute_fn brute)
{
	static const size_t Ns[] = { 1, 2, 50, 400, 3000 };
	static const size_t Ps[] = { 1, 3, 20, 120 };
	size_t a, b, i;

	for (a = 0; a < MDK_ARRAY(Ns); a++)
		for (b = 0; b < MDK_ARRAY(Ps); b++) {
			uint64_t *r = refs_random(a * 10 + b, Ns[a], Ps[b]);
			struct mdk_mrc_point *pts;
			char spec[64];
			size_t n;

			snprintf(spec, sizeof(spec), "%s:k=1-%zu", name,
				 Ps[b] + 2);
			n = mrc_of(spec, r, Ns[a], &pts);
			ck_assert_uint_eq(n, Ps[b] + 2);
			for (i = 0; i < n; i++) {
				uint64_t want = brute(r, Ns[a], pts[i].size);

				ck_assert_msg(
					pts[i].misses == want,
					"N=%zu pages=%zu k=%llu: %llu misses, brute force %llu",
					Ns[a], Ps[b],
					(unsigned long long)pts[i].size,
					(unsigned long long)pts[i].misses,
					(unsigned long long)want);
				ck_assert(pts[i].miss_ratio ==
					  (double)want / (double)Ns[a]);
				ck_assert_str_eq(pts[i].policy, name);
			}
			free(pts);
			free(r);
		}
}

void mrc_check_long_string(const char *name, brute_fn brute)
{
	size_t n = 60000, pages = 5000;
	uint64_t *r = refs_random(99, n, pages);
	struct mdk_mrc_point *pts;
	char spec[64];
	size_t np, i;

	snprintf(spec, sizeof(spec), "%s:k=1/7/64/500/4999/5000/6000", name);
	np = mrc_of(spec, r, n, &pts);
	ck_assert_uint_eq(np, 7);
	for (i = 0; i < np; i++) {
		uint64_t want = pts[i].size >= 500 && !strcmp(name, "opt") ?
					0 :
					brute(r, n, pts[i].size);

		if (!want)
			continue; /* brute-force OPT is too slow for large k */
		ck_assert_msg(pts[i].misses == want, "k=%llu: %llu != %llu",
			      (unsigned long long)pts[i].size,
			      (unsigned long long)pts[i].misses,
			      (unsigned long long)want);
	}
	/* Curves never rise with the size; OPT never misses more than LRU. */
	for (i = 1; i < np; i++)
		ck_assert_uint_le(pts[i].misses, pts[i - 1].misses);
	free(pts);
	{
		struct mdk_mrc_point *l, *o;

		mrc_of("lru:k=1/7/64/500", r, n, &l);
		mrc_of("opt:k=1/7/64/500", r, n, &o);
		for (i = 0; i < 4; i++)
			ck_assert_uint_le(o[i].misses, l[i].misses);
		free(l);
		free(o);
	}
	free(r);
}

void mrc_check_files(const char *name, brute_fn brute)
{
	static const char csv[] =
		"window,page\n0,1\n0,2\n0,3\n1,1\n1,4\n2,2\n2,1\n";
	static const uint64_t ref[] = { 1, 2, 3, 1, 4, 2, 1 };
	char path[] = "/tmp/mdk-mrc-XXXXXX", tpath[64], spec[64], err[256];
	struct mdk_mrc_point *pts;
	struct mdk_policy *p;
	uint64_t refs, pages;
	size_t n, i;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, csv, sizeof(csv) - 1),
			 (ssize_t)sizeof(csv) - 1);
	close(fd);
	snprintf(spec, sizeof(spec), "%s:k=1-4", name);
	ck_assert(!mdk_policy_new(spec, &p, err, sizeof(err)));
	ck_assert_msg(!mdk_mrc_run(path, &p, 1, &pts, &n, &refs, &pages, err,
				   sizeof(err)),
		      "%s", err);
	ck_assert(refs == 7 && pages == 4 && n == 4);
	for (i = 0; i < n; i++)
		ck_assert_uint_eq(pts[i].misses, brute(ref, 7, i + 1));
	free(pts);
	/* The same rows as a trace: windows sort their ids (1 2 3 | 1 4 | 1 2). */
	snprintf(tpath, sizeof(tpath), "%s.mdkt", path);
	ck_assert(!mdk_trace_import_csv(path, tpath, NULL, err, sizeof(err)));
	ck_assert(!mdk_mrc_run(tpath, &p, 1, &pts, &n, &refs, &pages, err,
			       sizeof(err)));
	{
		static const uint64_t sorted[] = { 1, 2, 3, 1, 4, 1, 2 };

		for (i = 0; i < n; i++)
			ck_assert_uint_eq(pts[i].misses,
					  brute(sorted, 7, i + 1));
	}
	free(pts);
	/* A bad CSV line is reported with its line. */
	fd = open(path, O_WRONLY | O_APPEND);
	ck_assert_int_eq(write(fd, "3,x\n", 4), 4);
	close(fd);
	ck_assert_int_eq(mdk_mrc_run(path, &p, 1, &pts, &n, NULL, NULL, err,
				     sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, ":9: expected 'window,page'"), "%s", err);
	mdk_policy_free(p);
	unlink(path);
	unlink(tpath);
}

void mrc_check_example(const char *name, const uint64_t want[6])
{
	struct mdk_mrc_point *pts;
	struct mdk_policy *p;
	uint64_t refs, pages;
	char csv[512], spec[64], err[256];
	size_t n, i;

	fixture("mdk/example/trace.csv", csv, sizeof(csv));
	snprintf(spec, sizeof(spec), "%s:k=1-6", name);
	ck_assert(!mdk_policy_new(spec, &p, err, sizeof(err)));
	ck_assert_msg(!mdk_mrc_run(csv, &p, 1, &pts, &n, &refs, &pages, err,
				   sizeof(err)),
		      "%s", err);
	ck_assert(n == 6 && refs == 22 && pages == 6);
	for (i = 0; i < n; i++)
		ck_assert_uint_eq(pts[i].misses, want[i]);
	free(pts);
	mdk_policy_free(p);
}
