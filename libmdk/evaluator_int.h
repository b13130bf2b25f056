/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The live evaluator's state (evaluator.c says what it keeps and why),
 * shared by its life cycle and windows (evaluator.c), its page table
 * (evaluator_pages.c), its generators (evaluator_gens.c) and the
 * selection of settings and pages (evaluator_select.c).
 */
#ifndef MDK_EVALUATOR_INT_H
#define MDK_EVALUATOR_INT_H

#include <mdk/evaluator.h>
#include <mdk/interval.h>

#include "policy_int.h"
#include "learn/learn_int.h"

#pragma GCC visibility push(hidden)

#define F_USED 0x1 /* the index holds a page */
#define F_RECLAIMED 0x2 /* the daemon reclaimed it since its last access */
/* With F_RECLAIMED: the tier it went to, 1..MDK_TIERS_MAX (bits 2-3). */
#define F_TIER_SHIFT 2
#define F_TIER_MASK (0x3 << F_TIER_SHIFT)

struct erec {
	uint32_t idx; /* dense index of the page */
	uint16_t r; /* prior reuse distance of this access, clamped at H */
	uint16_t dn; /* next access in window v + dn; 0: none yet */
	uint16_t ra; /* prior reuse distance of the previous access */
	uint16_t pad;
};

struct ewin {
	struct erec *recs;
	size_t n, cap;
	uint64_t measured, acted;
	bool have_measured;
};

struct egen {
	struct mdk_policy *pol;
	struct mdk_mpc *mpc;
};

struct hslot {
	uint64_t key; /* page id + 1; 0: empty */
	uint32_t idx;
};

struct mdk_eval {
	uint32_t H;
	unsigned int flags;
	struct mdk_eval_opts opts;
	struct mdk__lopp_live *lopp; /* with a keyed (lopp) policy */
	uint32_t next; /* windows fed */
	bool unacted; /* mdk_eval_count_unacted() */
	int failed;
	struct mdk_stream *stream;

	struct hslot *hash;
	size_t hmask, hused;
	uint64_t *ids;
	uint8_t *pflags;
	uint32_t *lastpos;
	size_t pcap; /* entries of ids, pflags, lastpos */
	uint32_t nidx; /* indices handed out (some may be free) */
	uint32_t *freel;
	size_t nfree, freecap;

	struct ewin *ring; /* H slots, window w in slot w % H */
	struct egen *gens;
	size_t ngens, gencap;

	/* scratch */
	uint32_t *sidx, *sstart, *sreuse;
	size_t sidxcap, sstartcap, sreusecap;
	uint64_t *picks, *ret;
	size_t npicks, pickcap, nret, retcap;
	uint64_t *idle; /* mdk_eval_pick_idle()'s answer */
	size_t idlecap;
	uint64_t *tpick; /* mdk_eval_pick_tier()'s answer */
	size_t tpickcap;
	/* The tier each page of ret came back from, and the counts. */
	uint8_t *rettier;
	size_t rettiercap;
	uint64_t retcount[MDK_TIERS_MAX];
};

static inline uint32_t min_u32(uint64_t a, uint32_t b)
{
	return a < b ? (uint32_t)a : b;
}

/* The windows the curves cover (mdk_eval_horizon()), for every part. */
static inline bool mdk__eval_horizon(const struct mdk_eval *e, uint32_t *lo,
				     uint32_t *hi)
{
	if (!e->next)
		return false;
	*hi = e->next - 1;
	*lo = *hi >= e->H ? *hi - e->H + 1 : 0;
	return true;
}

/* The page table (evaluator_pages.c). */
int mdk__eval_hash_resize(struct mdk_eval *e, size_t slots);
/* The dense index of page @id, a new one for a new page.  0 or -ENOMEM. */
int mdk__eval_page_index(struct mdk_eval *e, uint64_t id, uint32_t *out);

/* The generators (evaluator_gens.c). */
void mdk__eval_gen_free(struct egen *g);
/*
 * A generator for @pol (taken over, also on failure) into @g, filled
 * from the ring.  0 or -errno.
 */
int mdk__eval_gen_make(struct mdk_eval *e, struct mdk_policy *pol,
		       struct egen *g, char *err, size_t errlen);
/* The generator of the policy named @name, or -1. */
int mdk__eval_gen_index(const struct mdk_eval *e, const char *name);
/* A keyed (lopp) generator, built afresh from the live learner's keys. */
int mdk__eval_lopp_build(struct mdk_eval *e, struct egen *g, char *err,
			 size_t errlen);

#pragma GCC visibility pop

#endif /* MDK_EVALUATOR_INT_H */
