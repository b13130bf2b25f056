// SPDX-License-Identifier: GPL-2.0
/* Tiered OPP as a GLPK integer program (tier_ilp.h). */
#include <errno.h>
#include <glpk.h>
#include <stdlib.h>
#include <time.h>

#include "tier_ilp.h"

struct ilp_iv {
	uint32_t a, n, g; /* start, end (W: a tail), idle windows */
};

/* Every interval of @t with g >= 1, tails last per page. */
static size_t intervals(const struct tt *t, struct ilp_iv **out)
{
	struct ilp_iv *iv = calloc(t->P * (t->W + 1) + 1, sizeof(*iv));
	size_t n = 0, p;

	ck_assert_ptr_nonnull(iv);
	for (p = 0; p < t->P; p++) {
		int64_t last = -1;

		for (uint32_t w = 0; w < t->W; w++) {
			if (!tt_get(t, p, w))
				continue;
			if (last >= 0 && w - last - 1 >= 1)
				iv[n++] = (struct ilp_iv){ (uint32_t)last, w,
							   w - (uint32_t)last -
								   1 };
			last = w;
		}
		if (last >= 0 && t->W - 1 - last >= 1)
			iv[n++] = (struct ilp_iv){ (uint32_t)last, t->W,
						   t->W - 1 - (uint32_t)last };
	}
	*out = iv;
	return n;
}

/*
 * A row of @len coefficients @val on columns @col, bounded above by @ub;
 * GLPK's arrays are 1-based: element 0 is unused.
 */
static void add_row(glp_prob *lp, int *col, double *val, int len, double ub)
{
	int r;

	if (!len)
		return;
	r = glp_add_rows(lp, 1);
	glp_set_row_bnds(lp, r, GLP_UP, 0, ub);
	glp_set_mat_row(lp, r, len, col, val);
}

static void add_rows(glp_prob *lp, const struct tt *t, const struct ilp_iv *iv,
		     size_t niv, const struct mdk_tiers *tiers,
		     const uint64_t *budget)
{
	unsigned int K = tiers->n, k;
	size_t cap = niv * K + 2, i;
	int *col = malloc(cap * sizeof(*col)), len;
	double *val = malloc(cap * sizeof(*val));

	ck_assert(col && val);
	for (i = 0; i < niv && K > 1; i++) {
		for (k = 0; k < K; k++) {
			col[k + 1] = (int)(i * K + k + 1);
			val[k + 1] = 1;
		}
		add_row(lp, col, val, (int)K, 1);
	}
	for (uint32_t n = 0; n < t->W; n++) {
		len = 0;
		for (i = 0; i < niv; i++)
			for (k = 0; k < K && iv[i].n == n; k++) {
				col[++len] = (int)(i * K + k + 1);
				val[len] = (double)tiers->t[k].cost_ns;
			}
		add_row(lp, col, val, len, (double)budget[n]);
	}
	for (k = 0; k < K; k++)
		for (uint32_t w = 0; w < t->W && tiers->t[k].capacity; w++) {
			len = 0;
			for (i = 0; i < niv; i++)
				if (iv[i].a + 1 <= w && w + 1 <= iv[i].n) {
					col[++len] = (int)(i * K + k + 1);
					val[len] = 1;
				}
			add_row(lp, col, val, len,
				(double)tiers->t[k].capacity);
		}
	free(col);
	free(val);
}

int tier_ilp_solve(const struct tt *t, const struct mdk_tiers *tiers,
		   const uint64_t *budget, double limit_s, struct tier_ilp *out)
{
	unsigned int K = tiers->n, k;
	struct timespec t0, t1;
	struct ilp_iv *iv;
	size_t niv = intervals(t, &iv), i;
	glp_prob *lp = glp_create_prob();
	glp_iocp parm;
	int ret = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	glp_term_out(GLP_OFF);
	glp_set_obj_dir(lp, GLP_MAX);
	if (niv)
		glp_add_cols(lp, (int)(niv * K));
	for (i = 0; i < niv; i++)
		for (k = 0; k < K; k++) {
			int c = (int)(i * K + k + 1);

			glp_set_col_kind(lp, c, GLP_BV);
			glp_set_obj_coef(
				lp, c, (double)tiers->t[k].save_ppm * iv[i].g);
		}
	add_rows(lp, t, iv, niv, tiers, budget);
	out->vars = niv * K;
	out->rows = (size_t)glp_get_num_rows(lp);
	out->saved_ppm = 0;
	glp_init_iocp(&parm);
	parm.presolve = GLP_ON;
	parm.msg_lev = GLP_MSG_OFF;
	parm.tm_lim = (int)(limit_s * 1000);
	/* Near-ties differ by 1 ppm in 10^8: prune only what is worse. */
	parm.tol_obj = 1e-12;
	parm.mip_gap = 0;
	if (niv) {
		int r = glp_intopt(lp, &parm);

		if (r == GLP_ETMLIM)
			ret = -ETIME;
		else if (r || glp_mip_status(lp) != GLP_OPT)
			ret = -EIO;
	}
	for (i = 0; i < niv && !ret; i++)
		for (k = 0; k < K; k++)
			if (glp_mip_col_val(lp, (int)(i * K + k + 1)) > 0.5)
				out->saved_ppm +=
					(uint64_t)tiers->t[k].save_ppm *
					iv[i].g;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	out->secs = (double)(t1.tv_sec - t0.tv_sec) +
		    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	glp_delete_prob(lp);
	free(iv);
	return ret;
}
