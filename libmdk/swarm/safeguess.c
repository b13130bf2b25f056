// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Safe-Guess: SWARM's replication protocol over the In-n-Out registers of
 * inout.c, with one-round-trip reads and writes in the common case.
 *
 * Write.  Guess a timestamp g from the (loosely synchronized) clock and,
 * in one round, install g on every node and read the register right
 * after.  If g is above every other candidate on a majority of nodes, the
 * guess was fresh: every write that completed before ours started sits on
 * a majority, so it would have shown up above g.  The write is then
 * linearized at g and returns; its VER bit (committed) is posted as it
 * returns, not waited for (nodes that the post misses get it with the
 * client's next round).
 *
 * A stale-looking guess cannot simply be retried with a higher timestamp:
 * a reader may already have returned it, and writing the value again
 * later would let readers see it twice around another write.  The
 * timestamp lock decides: the writer writes abort[me] = g and then reads
 * commit[me]; a reader that wants to return an unverified g CASes
 * commit[w] = g and then reads abort[w].  On the node where their
 * majorities meet, one of them sees the other (store then load on both
 * sides): if the writer sees a commit it keeps g (and sets VER on a
 * majority before returning); otherwise no reader will return g, and the
 * writer installs its value again with a timestamp above all it saw,
 * committed at once.
 *
 * Read.  Read the register on a majority and take the highest candidate
 * M, passing over aborted-looking guesses (sw_cand_excluded()).  If M is
 * committed and on a majority, return it: one round trip (its value comes
 * from a matching in-place copy, else one more round).  A committed M on
 * fewer nodes is written back first.  An unverified M is a write that may
 * still be deciding, or that completed on the fast path with its VER bit
 * not yet out: read again, so that the view is taken entirely after M was
 * installed; if M is still the highest, no write that completed before
 * M's write started is above it (M is fresh: keeping it is legal), and
 * the reader locks it (commit) and checks abort.  With no abort seen, M
 * is committed for good: the reader writes it back as committed evidence
 * (its prev word) on a majority and returns it.  With an abort seen, M's
 * writer is deciding and M's write has not completed: the reader passes
 * over M.  Reads retry only when writes to the key complete meanwhile
 * (lock-free, see Documentation/swarm.rst for how this differs from the
 * paper's wait-freedom).
 */
#include <errno.h>
#include <string.h>

#include "swarm_int.h"

#define SG_MAX_ITER 100000

#define SG_SLOW_WRITEBACK MDK_SWARM_SLOW_WRITEBACK
#define SG_SLOW_REREAD MDK_SWARM_SLOW_REREAD
#define SG_SLOW_ABORTED MDK_SWARM_SLOW_ABORTED
#define SG_SLOW_LOCKED MDK_SWARM_SLOW_LOCKED
#define SG_SLOW_GUESS MDK_SWARM_SLOW_GUESS
#define SG_SLOW_KEPT MDK_SWARM_SLOW_KEPT
#define SG_SLOW_RETRY MDK_SWARM_SLOW_RETRY

/* What a reader's lock of a guess found on the nodes that answered. */
struct sg_lock {
	unsigned int set; /* nodes where commit holds the guess */
	bool aborted; /* its writer aborted it somewhere */
	bool moved_on; /* its writer aborted a later guess */
};

/*
 * The reader's side of the timestamp lock on guess @cd: CAS commit[w] to
 * it, then read abort[w], on every node that knows the key, in one round.
 */
static int lock_guess(struct mdk_swarm_client *c, struct sw_kent *ke,
		      const struct sw_cand *cd, struct sg_lock *lk)
{
	struct mdk_swarm *s = c->s;
	const struct sw_view *v = c->view;
	struct sw_op *cas[MDK_SWARM_MAX_NODES] = { 0 };
	uint64_t *abt[MDK_SWARM_MAX_NODES] = { 0 };
	unsigned int w = sw_id_cid(cd->id);
	int ret;

	sw_round_begin(c);
	sw_add_bg(c);
	for (unsigned int i = 0; i < s->n; i++) {
		if (!v->meta[i])
			continue;
		cas[i] = sw_add_cas(c, i,
				    sw_wordoff(s, ke->way[i], w, SW_COMMIT),
				    sw_mword(s, v->meta[i], w, SW_COMMIT),
				    cd->id << 2);
		abt[i] = sw_word(c, 0);
		sw_add_rd(c, i, sw_wordoff(s, ke->way[i], w, SW_ABORT), abt[i],
			  8);
	}
	ret = sw_round(c);
	if (ret < 0)
		return ret;
	sw_bg_done(c);
	*lk = (struct sg_lock){ 0 };
	for (unsigned int i = 0; i < s->n; i++) {
		if (!cas[i] || !c->b[i].answered)
			continue;
		if (cas[i]->old == cas[i]->expect ||
		    sw_id(cas[i]->old) == cd->id)
			lk->set++;
		if (sw_id(*abt[i]) == cd->id)
			lk->aborted = true;
		else if (sw_id(*abt[i]) > cd->id)
			lk->moved_on = true;
	}
	return 0;
}

static int sg_get(struct mdk_swarm_client *c, struct sw_kent *ke, void *val,
		  size_t *vlen)
{
	struct mdk_swarm *s = c->s;
	struct sw_view *v = c->view;
	uint64_t drop[MDK_SWARM_MAX_NODES * 4];
	unsigned int ndrop = 0, view_round, seen_round = 0;
	uint64_t seen_id = 0;
	int ret;

	ret = sw_read_quorum(c, ke, true);
	if (ret)
		return ret;
	view_round = c->last.rtts;

	for (unsigned int iter = 0; iter < SG_MAX_ITER; iter++) {
		struct sw_cand *cd = sw_view_max(v, drop, ndrop);
		struct sg_lock lk;
		int vret;

		if (!cd)
			return -ENOENT;
		if (cd->committed ||
		    (cd->id == sw_id(ke->slot) && ke->slot_committed)) {
			vret = sw_value_of(c, ke, v, cd, val, vlen, c->wimg);
			if (vret == -EAGAIN)
				goto reread;
			if (vret && vret != -ENOENT && vret != -EMSGSIZE)
				return vret;
			if (sw_popcount(cd->present & v->answered) <
			    s->quorum) {
				c->last.slow |= SG_SLOW_WRITEBACK;
				ret = sw_writeback(c, ke, cd, c->wimg, false);
				if (ret)
					return ret;
			}
			return vret;
		}

		/* An unverified guess: is this view taken entirely after it? */
		if (cd->id != seen_id) {
			seen_id = cd->id;
			seen_round = view_round;
		}
		if (view_round <= seen_round) {
			c->last.slow |= SG_SLOW_REREAD;
			goto reread;
		}

		/* It is fresh: lock it, then look for its writer's abort. */
		ret = lock_guess(c, ke, cd, &lk);
		if (ret < 0)
			return ret;
		if (lk.aborted) {
			/* Its writer is deciding: its write has not completed. */
			c->last.slow |= SG_SLOW_ABORTED;
			if (ndrop < sizeof(drop) / sizeof(drop[0]))
				drop[ndrop++] = cd->id;
			else
				goto reread;
			continue;
		}
		/*
		 * Its writer is on a later slow write: the fate of this one
		 * (committed, or aborted for a higher one) shows in a new view.
		 */
		if (lk.moved_on || lk.set < s->quorum)
			goto reread;
		/* Locked on a majority without abort: committed for good. */
		vret = sw_value_of(c, ke, v, cd, val, vlen, c->wimg);
		if (vret == -EAGAIN)
			goto reread;
		if (vret && vret != -ENOENT && vret != -EMSGSIZE)
			return vret;
		c->last.slow |= SG_SLOW_LOCKED;
		cd->committed = true;
		ret = sw_writeback(c, ke, cd, c->wimg, true);
		if (ret)
			return ret;
		return vret;
reread:
		ndrop = 0;
		ret = sw_read_quorum(c, ke, true);
		if (ret)
			return ret;
		view_round = c->last.rtts;
	}
	return -EAGAIN;
}

/* Nodes on which @id is above every other candidate of the view. */
static unsigned int fresh_on(struct mdk_swarm *s, const struct sw_view *v,
			     uint64_t id)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < s->n; i++) {
		bool top = true;

		if (!v->meta[i])
			continue;
		for (unsigned int j = 0; j < v->ncand && top; j++) {
			const struct sw_cand *cd = &v->cand[j];

			if (cd->id != id && (cd->present & (1U << i)) &&
			    cd->id > id && !sw_cand_excluded(v, cd))
				top = false;
		}
		k += top;
	}
	return k;
}

static unsigned int installed(struct mdk_swarm_client *c, struct sw_kent *ke)
{
	return sw_participants(c, ke);
}

/*
 * The writer's side of the timestamp lock on its guess @g: write abort,
 * then read commit; keep g, committed, where a reader locked it, else
 * install the value again above every candidate seen, committed at once.
 */
static int settle_guess(struct mdk_swarm_client *c, struct sw_kent *ke,
			uint64_t g, unsigned int loc, const void *val,
			size_t vlen, bool tomb)
{
	struct mdk_swarm *s = c->s;
	struct sw_view *v = c->view;
	uint64_t *commit[MDK_SWARM_MAX_NODES] = { 0 };
	uint64_t g2, ts;
	bool kept = false;
	int ret;

	sw_round_begin(c);
	sw_add_bg(c);
	for (unsigned int i = 0; i < s->n; i++) {
		if (ke->way[i] < 0)
			continue;
		sw_add_wr(c, i, sw_wordoff(s, ke->way[i], c->id, SW_ABORT),
			  sw_word(c, sw_id(g) << 2), 8);
		commit[i] = sw_word(c, 0);
		sw_add_rd(c, i, sw_wordoff(s, ke->way[i], c->id, SW_COMMIT),
			  commit[i], 8);
	}
	sw_add_read_meta(c, ke);
	ret = sw_round(c);
	if (ret < 0)
		return ret;
	sw_bg_done(c);
	if (installed(c, ke) < s->quorum) {
		c->dead = true;
		return -EIO;
	}
	for (unsigned int i = 0; i < s->n; i++)
		if (commit[i] && c->b[i].answered &&
		    sw_id(*commit[i]) == sw_id(g))
			kept = true;

	sw_round_begin(c);
	sw_add_bg(c);
	if (kept) {
		/* A reader may have returned g: keep it, committed. */
		c->last.slow |= SG_SLOW_KEPT;
		for (unsigned int i = 0; i < s->n; i++)
			if (ke->way[i] >= 0)
				sw_add_wr(c, i,
					  sw_wordoff(s, ke->way[i], c->id,
						     SW_SLOT),
					  sw_word(c, g | SW_VER), 8);
		g2 = g | SW_VER;
	} else {
		/* No reader will return g: write again above all we saw. */
		c->last.slow |= SG_SLOW_RETRY;
		sw_view_build(c, ke, v);
		ret = sw_ts_above(c, v, &ts);
		if (ret)
			return ret;
		g2 = sw_make(ts, c->id, true, loc);
		sw_entry_fill(s, ke->tag, c->wimg, g2, val, vlen, tomb);
		sw_add_install(c, ke, 0, g2, c->wimg);
		sw_add_inplace(c, ke, c->wimg);
	}
	ret = sw_round(c);
	if (ret < 0)
		return ret;
	sw_bg_done(c);
	ke->slot = g2;
	ke->slot_committed = true;
	if (installed(c, ke) < s->quorum) {
		c->dead = true;
		return -EIO;
	}
	return 0;
}

static int sg_put(struct mdk_swarm_client *c, struct sw_kent *ke,
		  const void *val, size_t vlen, bool tomb)
{
	struct mdk_swarm *s = c->s;
	struct sw_view *v = c->view;
	uint64_t newprev = 0, cur_prev = ke->prev, g, ts;
	unsigned int loc;
	int ret;

	if (c->bg_pending && c->bg_kent == ke)
		c->bg_pending = false; /* the prev word below carries it */
	if (ke->slot && sw_id(ke->slot) > sw_id(ke->prev)) {
		newprev = ke->slot | SW_VER;
		cur_prev = newprev;
	}
	loc = cur_prev ? !(cur_prev & SW_LOC) : 0;
	ts = sw_next_ts(c);
	if (ts > SW_TS_MAX)
		return -EOVERFLOW;
	g = sw_make(ts, c->id, false, loc);
	sw_entry_fill(s, ke->tag, c->wimg, g, val, vlen, tomb);

	sw_round_begin(c);
	sw_add_bg(c);
	sw_add_install(c, ke, newprev, g, c->wimg);
	sw_add_read_meta(c, ke);
	sw_add_inplace(c, ke, c->wimg);
	ret = sw_round(c);
	if (ret < 0)
		return ret;
	sw_bg_done(c);
	sw_keybytes_done(c, ke);
	if (newprev)
		ke->prev = newprev;
	ke->slot = g;
	ke->slot_committed = false;
	sw_view_build(c, ke, v);
	if (installed(c, ke) < s->quorum) {
		c->dead = true;
		return -EIO;
	}
	if (fresh_on(s, v, sw_id(g)) >= s->quorum) {
		/* Fresh: linearized at g; VER goes out now, not waited for. */
		ke->slot_committed = true;
		c->bg_pending = true;
		c->bg_kent = ke;
		c->bg_tsp = g;
		sw_post_bg(c);
		return 0;
	}

	/* Not provably fresh: settle g's timestamp lock. */
	c->last.slow |= SG_SLOW_GUESS;
	return settle_guess(c, ke, g, loc, val, vlen, tomb);
}

const struct sw_proto_ops sw_proto_swarm = {
	.name = "swarm",
	.get = sg_get,
	.put = sg_put,
};
