// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * L-OPP's keys of a batch of feature rows (mdk__lopp_keys()): bit for bit
 * mdk_lopp_key(mdk_lopp_score()) of each row, without its twelve
 * divisions and its exp() call where that is safe.
 *
 * A logistic model's sum z = bias + sum w_i (x_i - mean_i) / scale_i is
 * also bias' + sum a_i x_i with a_i = w_i / scale_i: no division, but
 * rounded differently.  For a row whose features are all within R
 * standard deviations of the mean (no clamp, no NaN), both sums are
 * within 64 u B of the exact one (u = 2^-53, B = |bias| + sum 2 |a_i
 * mean_i| + R |w_i|, a bound on the terms), the scores within a quarter
 * of that plus a few u, and 10^6 x the score -- here from a polynomial
 * e^x within 1e-9 (scores()) -- within the margin below of the exact
 * one's.  When it is farther than that margin from the next integer, its
 * key is the key; otherwise, and for any other row, the row is scored as
 * mdk_lopp_score() does.  tests/unit/test_lopp_keys checks rows on a key
 * boundary.
 */
#include <math.h>
#include <string.h>

#include "lopp_int.h"

#define R 64.0 /* standard deviations a fast row may be out */
#define NF MDK_LOPP_FEATURES
#define CHUNK 64 /* rows summed before they are scored (even) */
#define FAST_Z 36.0 /* |z| of a fast row: 2^n stays normal in scores() */

/* SSE2's width: lanes of rows' features and their products. */
typedef float vf __attribute__((vector_size(16)));
typedef int32_t vi __attribute__((vector_size(16)));
typedef double vd __attribute__((vector_size(16)));
typedef int64_t vl __attribute__((vector_size(16)));

/* Per lane: @a where @mask is set, else @b (a macro: no vector ABI). */
#define PICK(mask, a, b) ((vd)(((mask) & (vl)(a)) | (~(mask) & (vl)(b))))

struct fold {
	vd a[NF / 2]; /* w_i / scale_i, pairwise */
	vf lo[NF / 4], hi[NF / 4]; /* a fast row's ranges, rounded in */
	double bias, margin;
};

/* @v as a float, rounded up (@up) or down to one no further out. */
static float inward(double v, bool up)
{
	float f = (float)v;

	if (up && (double)f < v)
		return nextafterf(f, INFINITY);
	if (!up && (double)f > v)
		return nextafterf(f, -INFINITY);
	return f;
}

/* @m folded into @f; false when some part is not finite (no fast rows). */
static bool fold(const struct mdk_lopp_model *m, struct fold *f)
{
	double b = fabs(m->bias), a;
	bool ok = true;
	unsigned int i;

	f->bias = m->bias;
	for (i = 0; i < NF; i++) {
		a = m->w[i] / m->scale[i];
		f->a[i / 2][i % 2] = a;
		f->bias -= a * m->mean[i];
		f->lo[i / 4][i % 4] =
			inward(m->mean[i] - R * m->scale[i], true);
		f->hi[i / 4][i % 4] =
			inward(m->mean[i] + R * m->scale[i], false);
		ok &= isfinite(f->lo[i / 4][i % 4]) &&
		      isfinite(f->hi[i / 4][i % 4]);
		b += 2 * fabs(a * m->mean[i]) + R * fabs(m->w[i]);
	}
	/* 1e6 x (16 u B + 10 u) and scores()' 1e-9, with room to spare */
	f->margin = 1e6 * 0x1p-48 * (b + 1) + 1e-8;
	return ok && isfinite(f->bias) && isfinite(b) && f->margin < 0.25;
}

/* The folded sum of row @x in *@z; false when it is not a fast row. */
static bool fast_z(const struct fold *f, const float *x, double *z)
{
	vd acc = { 0 };
	vi in = { -1, -1, -1, -1 };
	unsigned int i;

	for (i = 0; i < NF / 4; i++) {
		vf v;

		memcpy(&v, x + 4 * i, sizeof(v));
		in &= (v >= f->lo[i]) & (v <= f->hi[i]);
	}
	for (i = 0; i < NF / 2; i++)
		acc += f->a[i] * (vd){ x[2 * i], x[2 * i + 1] };
	*z = f->bias + (acc[0] + acc[1]);
	return in[0] & in[1] & in[2] & in[3];
}

/*
 * 10^6 x the logistic of each lane of @z (|z| <= FAST_Z) within 1e-9:
 * e = e^-|z| as 2^n p(r) with -|z| = n ln 2 + r, |r| <= ln 2 / 2 and p
 * the degree 12 Taylor polynomial (remainder below 2.5e-16) in Estrin's
 * form, then 1 / (1 + e) or e / (1 + e) as mdk__lopp_logistic() -- two
 * rows at once where exp() takes one.
 */
static vd scores(vd z)
{
	/* ln 2 in two parts, the first exact times any n here (fdlibm's) */
	const double ln2_hi = 6.93147180369123816490e-01,
		     ln2_lo = 1.90821492927058770002e-10;
	const double c[13] = { 1,
			       1,
			       1.0 / 2,
			       1.0 / 6,
			       1.0 / 24,
			       1.0 / 120,
			       1.0 / 720,
			       1.0 / 5040,
			       1.0 / 40320,
			       1.0 / 362880,
			       1.0 / 3628800,
			       1.0 / 39916800,
			       1.0 / 479001600 };
	const vd shift = { 0x1.8p52, 0x1.8p52 }; /* rounds to an integer */
	const vl mag = { INT64_MAX, INT64_MAX };
	vd t = -(vd)((vl)z & mag), k = t * M_LOG2E + shift, n = k - shift;
	vd r = t - n * ln2_hi - n * ln2_lo, r2 = r * r, r4 = r2 * r2;
	vd p = (c[0] + c[1] * r) + r2 * (c[2] + c[3] * r) +
	       r4 * ((c[4] + c[5] * r) + r2 * (c[6] + c[7] * r)) +
	       r4 * r4 *
		       ((c[8] + c[9] * r) + r2 * (c[10] + c[11] * r) +
			r4 * c[12]);
	vd e = p * (vd)(((vl)k - (vl)shift + 1023) << 52);

	return PICK(z >= 0, 1 / (1 + e), e / (1 + e)) * 1e6;
}

/* The key of 10^6 x score @y, or 0 when it may not be exact. */
static uint32_t fast_key(const struct fold *f, double y)
{
	int64_t k;

	/* y >= 0 and margin < 1: truncation is floor, 0 for a score of 0 */
	k = (int64_t)(y + f->margin);
	if (k != (int64_t)(y - f->margin))
		return 0;
	return k + 1 >= MDK_LOPP_KEY_MAX ? MDK_LOPP_KEY_MAX : (uint32_t)k + 1;
}

void mdk__lopp_keys(const struct mdk_lopp_model *m, const float *x, size_t n,
		    uint32_t *keys)
{
	struct fold f;
	bool fast = m->kind == MDK_LOPP_LOGISTIC && fold(m, &f);
	size_t i, j, c;

	for (i = 0; i < n; i += c) {
		double z[CHUNK] = { 0 };
		bool ok[CHUNK] = { false };
		vd y = { 0 };

		/* the sums first, then the scores two by two */
		c = MDK_MIN(n - i, CHUNK);
		for (j = 0; j < c; j++) {
			ok[j] = fast && fast_z(&f, x + (i + j) * NF, &z[j]) &&
				fabs(z[j]) <= FAST_Z;
			if (!ok[j])
				z[j] = 0;
		}
		for (j = 0; j < c; j++) {
			if (!(j & 1))
				y = scores((vd){ z[j], z[j + 1] });
			keys[i + j] = ok[j] ? fast_key(&f, y[j & 1]) : 0;
			if (!keys[i + j])
				keys[i + j] = mdk_lopp_key(
					mdk_lopp_score(m, x + (i + j) * NF));
		}
	}
}
