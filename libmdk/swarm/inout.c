// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * In-n-Out registers: one key's register on each node, and the view a
 * client gets of it in one read.
 *
 * On a node, the register of a key is its way meta: per client c, the
 * word slot[c] (c's latest write: a guess, then its final timestamp), the
 * word prev[c] (a committed write c vouches for: its previous final, or a
 * write it helped), abort[c] and commit[c] (the timestamp lock of c's
 * current guess, see safeguess.c), plus an in-place copy of some recent
 * value.  The register's value is the write of the highest timestamp among
 * all slot and prev words: writing needs no CAS, since each word has one
 * writer (one metadata buffer per writer).
 *
 * Values live out of place in two buffers per (key, client) that the
 * words point at (the LOC bit), and in place, where a racing writer may
 * overwrite a newer value with an older one: a reader takes the in-place
 * copy only when its timestamp and checksum match the write it chose, and
 * otherwise reads the out-of-place buffer, one more round trip.
 *
 * Memory recycling: a client writes its next guess into the buffer that
 * its prev word does not point at, after having written prev.  So a buffer
 * is reused only when the value it held is superseded, on that node, by a
 * committed write of the same client (or one it helped): the value of the
 * register's committed maximum is never destroyed.  A reader that picked a
 * value just being recycled sees a timestamp or checksum mismatch and
 * reads again.
 */
#include <errno.h>
#include <string.h>

#include "swarm_int.h"

/*
 * Read the key's way meta on every node; on a node whose way is not known
 * yet, read the bucket instead (sw_view_build() finds the key in it).
 */
static unsigned int probe_buckets(const struct mdk_swarm *s)
{
	return s->h.nbuckets < SW_PROBES ? (unsigned int)s->h.nbuckets :
					   SW_PROBES;
}

void sw_add_read_meta(struct mdk_swarm_client *c, struct sw_kent *ke)
{
	struct mdk_swarm *s = c->s;
	uint64_t b0 = (ke->tag / 2) % s->h.nbuckets;
	unsigned int nb = probe_buckets(s);
	unsigned int first = s->h.nbuckets - b0 < nb ?
				     (unsigned int)(s->h.nbuckets - b0) :
				     nb;
	size_t bsz = SW_WAYS * s->h.meta_size;

	for (unsigned int i = 0; i < s->n; i++) {
		if (ke->way[i] >= 0) {
			/* From the in-place copy on: claim and key are known. */
			sw_add_rd(c, i,
				  sw_meta(s, ke->way[i]) + s->h.inplace_off,
				  c->scratch[i] + s->h.inplace_off,
				  s->h.meta_size - s->h.inplace_off);
			continue;
		}
		/* The probe sequence's buckets, wrapping around the index. */
		sw_add_rd(c, i, sw_meta(s, (int32_t)(b0 * SW_WAYS)),
			  c->scratch[i], first * bsz);
		if (first < nb)
			sw_add_rd(c, i, sw_meta(s, 0),
				  c->scratch[i] + first * bsz,
				  (nb - first) * bsz);
	}
}

/*
 * Find the key in the buckets read from node @i.  Ways are never freed and
 * a key is claimed in the first bucket of its probe sequence with a free
 * way, so a bucket with a free way and no match proves the key absent.
 * Returns 1 (found, *@m set), 0 (absent) or -1 (undecided).
 */
static int scan_buckets(struct mdk_swarm_client *c, struct sw_kent *ke,
			unsigned int i, const uint8_t **m)
{
	struct mdk_swarm *s = c->s;
	uint64_t b0 = (ke->tag / 2) % s->h.nbuckets;
	unsigned int nb = probe_buckets(s);

	for (unsigned int b = 0; b < nb; b++) {
		bool has_free = false;

		for (unsigned int w = 0; w < SW_WAYS; w++) {
			const uint8_t *wm = c->scratch[i] +
					    (b * SW_WAYS + w) * s->h.meta_size;
			const uint64_t claim = *(const uint64_t *)wm;
			const uint64_t *kl =
				(const uint64_t *)(wm + s->h.key_off);

			if (claim == ke->tag &&
			    (!*kl ||
			     (*kl == c->klen &&
			      !memcmp(kl + 1, c->keyimg + 1, c->klen)))) {
				ke->way[i] =
					(int32_t)((b0 + b) % s->h.nbuckets *
							  SW_WAYS +
						  w);
				*m = wm;
				return 1;
			}
			has_free |= !claim;
		}
		if (has_free)
			return 0;
	}
	return -1;
}

static struct sw_cand *cand_get(struct sw_view *v, uint64_t id)
{
	struct sw_cand *cd;

	for (unsigned int k = 0; k < v->ncand; k++)
		if (v->cand[k].id == id)
			return &v->cand[k];
	if (v->ncand >= v->maxcand)
		return NULL;
	cd = &v->cand[v->ncand++];
	memset(cd, 0, sizeof(*cd));
	memset(cd->owner, -1, sizeof(cd->owner));
	cd->id = id;
	return cd;
}

/*
 * Build the view from the round just run.  A node counts as answering iff
 * it answered and the key's register on it is known: its way, or its
 * absence from a bucket that still has a free way (an empty register).
 */
void sw_view_build(struct mdk_swarm_client *c, struct sw_kent *ke,
		   struct sw_view *v)
{
	struct mdk_swarm *s = c->s;

	v->s = s;
	v->answered = 0;
	v->undecided = 0;
	v->ncand = 0;
	memset(v->amax, 0, 8 * s->h.max_clients);
	for (unsigned int i = 0; i < s->n; i++) {
		const uint8_t *m = c->scratch[i];

		v->meta[i] = NULL;
		if (!c->b[i].answered)
			continue;
		if (ke->way[i] < 0) {
			int r = scan_buckets(c, ke, i, &m);

			if (r < 0) {
				/* Not decidable from this read (wrapped probes). */
				v->undecided |= 1U << i;
				continue;
			}
			if (r == 0) {
				v->answered |= 1U << i; /* empty register */
				continue;
			}
		}
		v->answered |= 1U << i;
		v->meta[i] = m;
		for (unsigned int cid = 0; cid < s->h.max_clients; cid++) {
			uint64_t a = sw_mword(s, m, cid, SW_ABORT);

			if (sw_id(a) > v->amax[cid])
				v->amax[cid] = sw_id(a);
			for (unsigned int w = SW_SLOT; w <= SW_PREV; w++) {
				uint64_t t = sw_mword(s, m, cid, w);
				struct sw_cand *cd;

				/* Only a client of this store writes here. */
				if (!t ||
				    sw_id_cid(sw_id(t)) >= s->h.max_clients)
					continue;
				sw_see_ts(c, sw_id(t));
				cd = cand_get(v, sw_id(t));
				if (!cd)
					continue;
				cd->present |= 1U << i;
				if (w == SW_PREV || (t & SW_VER))
					cd->committed = true;
				if (cd->owner[i] < 0) {
					cd->owner[i] = (int8_t)cid;
					cd->loc[i] = t & SW_LOC;
				}
			}
		}
	}
}

/*
 * A guess whose writer took its slow path (some node shows its abort word
 * equal to it) and that nothing in the view shows committed.  If its
 * write had completed before this reader started, it would have done so
 * with VER set on a majority, or through a reader that left committed
 * evidence on a majority, and the view would show either: so it had not,
 * and the reader may pass over it (safeguess.c).  Only equality counts: an
 * abort word above the guess belongs to a later write of that client, and
 * the guess may be a committed write whose evidence this view missed.
 */
bool sw_cand_excluded(const struct sw_view *v, const struct sw_cand *cd)
{
	if (cd->committed || v->amax[sw_id_cid(cd->id)] < cd->id)
		return false;
	for (unsigned int i = 0; i < MDK_SWARM_MAX_NODES; i++)
		if (v->meta[i] &&
		    sw_id(sw_mword(v->s, v->meta[i], sw_id_cid(cd->id),
				   SW_ABORT)) == cd->id)
			return true;
	return false;
}

struct sw_cand *sw_view_max(struct sw_view *v, const uint64_t *drop,
			    unsigned int ndrop)
{
	struct sw_cand *best = NULL;

	for (unsigned int k = 0; k < v->ncand; k++) {
		struct sw_cand *cd = &v->cand[k];
		bool dropped = false;

		if (sw_cand_excluded(v, cd))
			continue;
		for (unsigned int d = 0; d < ndrop; d++)
			dropped |= drop[d] == cd->id;
		if (dropped)
			continue;
		if (!best || cd->id > best->id)
			best = cd;
	}
	return best;
}

/*
 * The value of candidate @cd: from an in-place copy of the view, else from
 * the out-of-place buffers the words point at (one round).  The entry is
 * left in @img for a write-back.  Returns 0, -EAGAIN when every copy was
 * recycled meanwhile, or a round error.
 */
int sw_value_of(struct mdk_swarm_client *c, struct sw_kent *ke,
		struct sw_view *v, struct sw_cand *cd, void *val, size_t *vlen,
		uint64_t *img)
{
	struct mdk_swarm *s = c->s;
	size_t esz = s->h.cell_size;
	uint8_t *buf[MDK_SWARM_MAX_NODES];
	int ret;

	for (unsigned int i = 0; i < s->n; i++) {
		const struct sw_entry *e;

		if (!v->meta[i])
			continue;
		e = (const struct sw_entry *)(v->meta[i] + s->h.inplace_off);
		if (sw_entry_valid(s, ke->tag, e, cd->id)) {
			memcpy(img, e, esz);
			goto found;
		}
	}
	sw_round_begin(c);
	for (unsigned int i = 0; i < s->n; i++) {
		buf[i] = c->scratch[i] + SW_PROBES * SW_WAYS * s->h.meta_size;
		if (cd->owner[i] >= 0 && ke->way[i] >= 0)
			sw_add_rd(c, i,
				  sw_cell(s, ke->way[i],
					  (unsigned int)cd->owner[i],
					  cd->loc[i]),
				  buf[i], esz);
	}
	ret = sw_round(c);
	if (ret < 0)
		return ret;
	for (unsigned int i = 0; i < s->n; i++) {
		if (!c->b[i].n || !c->b[i].answered)
			continue;
		if (sw_entry_valid(s, ke->tag, (const struct sw_entry *)buf[i],
				   cd->id)) {
			memcpy(img, buf[i], esz);
			goto found;
		}
	}
	return -EAGAIN;
found:
	return val ? sw_entry_value(s, (const struct sw_entry *)img, val,
				    vlen) :
		     0;
}

/*
 * Write the committed candidate @cd (its entry in @img) back as this
 * client's prev word: on the nodes of the view that lack it, or with @all
 * on every node.  Waits for a majority to hold it.
 */
int sw_writeback(struct mdk_swarm_client *c, struct sw_kent *ke,
		 const struct sw_cand *cd, const uint64_t *img, bool all)
{
	struct mdk_swarm *s = c->s;
	unsigned int loc, have = 0;
	uint64_t word;
	int ret;

	if (cd->id == sw_id(ke->slot)) {
		/* Our own write: finish it in our slot. */
		loc = ke->slot & SW_LOC;
		word = ke->slot | SW_VER;
		ke->slot = word;
		ke->slot_committed = true;
	} else if (cd->id == sw_id(ke->prev)) {
		loc = ke->prev & SW_LOC;
		word = ke->prev;
	} else {
		/* Into the buffer our slot does not use: prev is superseded. */
		loc = ke->slot ? !(ke->slot & SW_LOC) : 0;
		word = (cd->id << 2) | SW_VER | loc;
		ke->prev = word;
	}
	sw_round_begin(c);
	sw_add_bg(c);
	for (unsigned int i = 0; i < s->n; i++) {
		if (ke->way[i] < 0)
			continue;
		if (!all && (cd->present & (1U << i))) {
			have++;
			continue;
		}
		sw_add_wr(c, i, sw_cell(s, ke->way[i], c->id, loc), img,
			  s->h.cell_size);
		sw_add_wr(c, i,
			  sw_wordoff(s, ke->way[i], c->id,
				     word == ke->slot ? SW_SLOT : SW_PREV),
			  sw_word(c, word), 8);
		sw_add_wr(c, i, sw_meta(s, ke->way[i]) + s->h.inplace_off, img,
			  s->h.cell_size);
	}
	ret = sw_round(c);
	if (ret < 0)
		return ret;
	sw_bg_done(c);
	for (unsigned int i = 0; i < s->n; i++)
		if (c->b[i].n && c->b[i].answered && ke->way[i] >= 0 &&
		    (all || !(cd->present & (1U << i))))
			have++;
	return have >= s->quorum ? 0 : -EIO;
}

/*
 * Add a write's install to the round: prev first (so the value it points
 * at survives), then the out-of-place buffer, then the slot word, then
 * the in-place copy.  @newprev 0 leaves prev alone.
 */
void sw_add_install(struct mdk_swarm_client *c, struct sw_kent *ke,
		    uint64_t newprev, uint64_t tsp, const uint64_t *img)
{
	struct mdk_swarm *s = c->s;

	sw_add_keybytes(c, ke);
	for (unsigned int i = 0; i < s->n; i++) {
		if (ke->way[i] < 0)
			continue;
		if (newprev)
			sw_add_wr(c, i,
				  sw_wordoff(s, ke->way[i], c->id, SW_PREV),
				  sw_word(c, newprev), 8);
		sw_add_wr(c, i, sw_cell(s, ke->way[i], c->id, tsp & SW_LOC),
			  img, s->h.cell_size);
		sw_add_wr(c, i, sw_wordoff(s, ke->way[i], c->id, SW_SLOT),
			  sw_word(c, tsp), 8);
	}
}

/* The in-place copy goes last in the round, after any read of the meta. */
void sw_add_inplace(struct mdk_swarm_client *c, struct sw_kent *ke,
		    const uint64_t *img)
{
	for (unsigned int i = 0; i < c->s->n; i++)
		if (ke->way[i] >= 0)
			sw_add_wr(c, i,
				  sw_meta(c->s, ke->way[i]) +
					  c->s->h.inplace_off,
				  img, c->s->h.cell_size);
}

/*
 * The key bytes of a way claimed by this client go out with its first
 * write there (a claim and the key bytes cannot share a round: a failed
 * CAS would not stop the write).
 */
void sw_add_keybytes(struct mdk_swarm_client *c, struct sw_kent *ke)
{
	for (unsigned int i = 0; i < c->s->n; i++)
		if (ke->way[i] >= 0 && ke->key_todo[i])
			sw_add_wr(c, i,
				  sw_meta(c->s, ke->way[i]) + c->s->h.key_off,
				  c->keyimg, 8 + c->s->h.key_size);
}

void sw_keybytes_done(struct mdk_swarm_client *c, struct sw_kent *ke)
{
	for (unsigned int i = 0; i < c->s->n; i++)
		if (c->b[i].answered)
			ke->key_todo[i] = 0;
}

/*
 * The background round of a fast-path SWARM write (its VER bit), or
 * nothing: posted as the write returns (sw_post_bg()), and piggybacked on
 * the client's next round until a majority has it.
 */
void sw_add_bg(struct mdk_swarm_client *c)
{
	struct sw_kent *ke = c->bg_kent;

	if (!c->bg_pending)
		return;
	if (sw_id(ke->slot) != sw_id(c->bg_tsp)) {
		/* A later write of ours superseded it (prev holds it). */
		c->bg_pending = false;
		return;
	}
	for (unsigned int i = 0; i < c->s->n; i++)
		if (ke->way[i] >= 0)
			sw_add_wr(c, i,
				  sw_wordoff(c->s, ke->way[i], c->id, SW_SLOT),
				  sw_word(c, c->bg_tsp | SW_VER), 8);
}

void sw_bg_done(struct mdk_swarm_client *c)
{
	unsigned int k = 0;

	if (!c->bg_pending)
		return;
	for (unsigned int i = 0; i < c->s->n; i++)
		if (c->b[i].answered && c->bg_kent->way[i] >= 0)
			k++;
	if (k >= c->s->quorum) {
		if (sw_id(c->bg_kent->slot) == sw_id(c->bg_tsp))
			c->bg_kent->slot |= SW_VER;
		c->bg_pending = false;
	}
}

/*
 * Post the verification of the write just linearized on the fast path,
 * without waiting for it: the write has returned for its caller.  Nodes
 * the post misses (a delayed message) get it again with the client's next
 * round.  A client that crashes in the middle of the post has returned
 * its write all the same, and later calls fail with -ECANCELED.
 */
void sw_post_bg(struct mdk_swarm_client *c)
{
	sw_round_begin(c);
	sw_add_bg(c);
	c->last.bg_rtts = 1;
	if (sw_post(c) >= 0)
		sw_bg_done(c);
}

/*
 * A committed write's timestamp: the clock's next, raised above every
 * candidate of view @v so that the write is above all it saw.  Returns 0,
 * or -EOVERFLOW when the timestamps are used up.
 */
int sw_ts_above(struct mdk_swarm_client *c, const struct sw_view *v,
		uint64_t *ts)
{
	uint64_t top = 0;

	for (unsigned int j = 0; j < v->ncand; j++)
		if (v->cand[j].id > top)
			top = v->cand[j].id;
	*ts = sw_next_ts(c);
	if (*ts <= sw_id_ts(top))
		*ts = sw_id_ts(top) + 1;
	if (*ts > SW_TS_MAX)
		return -EOVERFLOW;
	c->last_ts = *ts;
	return 0;
}
