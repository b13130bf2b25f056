// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * DM-ABD: the ABD register (Attiya, Bar-Noy, Dolev) over the same
 * In-n-Out registers, the paper's two-round-trip baseline.  A write reads
 * the highest timestamp on a majority, then installs the value with a
 * higher one (committed: ABD never guesses).  A read takes the highest
 * write of a majority and writes it back to a majority before returning.
 */
#include <errno.h>

#include "swarm_int.h"

static int abd_get(struct mdk_swarm_client *c, struct sw_kent *ke, void *val,
		   size_t *vlen)
{
	for (;;) {
		struct sw_cand *cd;
		int ret = sw_read_quorum(c, ke, false), vret;

		if (ret)
			return ret;
		cd = sw_view_max(c->view, NULL, 0);
		if (!cd)
			return -ENOENT;
		vret = sw_value_of(c, ke, c->view, cd, val, vlen, c->wimg);
		if (vret == -EAGAIN)
			continue;
		if (vret && vret != -ENOENT && vret != -EMSGSIZE)
			return vret;
		ret = sw_writeback(c, ke, cd, c->wimg, true);
		return ret ? ret : vret;
	}
}

static int abd_put(struct mdk_swarm_client *c, struct sw_kent *ke,
		   const void *val, size_t vlen, bool tomb)
{
	struct mdk_swarm *s = c->s;
	uint64_t newprev = 0, cur_prev = ke->prev, ts, g;
	unsigned int loc;
	int ret = sw_read_quorum(c, ke, false);

	if (ret)
		return ret;
	ret = sw_ts_above(c, c->view, &ts);
	if (ret)
		return ret;
	if (ke->slot && sw_id(ke->slot) > sw_id(ke->prev)) {
		newprev = ke->slot | SW_VER;
		cur_prev = newprev;
	}
	loc = cur_prev ? !(cur_prev & SW_LOC) : 0;
	g = sw_make(ts, c->id, true, loc);
	sw_entry_fill(s, ke->tag, c->wimg, g, val, vlen, tomb);
	sw_round_begin(c);
	sw_add_install(c, ke, newprev, g, c->wimg);
	sw_add_inplace(c, ke, c->wimg);
	ret = sw_round(c);
	if (ret < 0)
		return ret;
	sw_keybytes_done(c, ke);
	if (newprev)
		ke->prev = newprev;
	ke->slot = g;
	ke->slot_committed = true;
	if (sw_participants(c, ke) < s->quorum) {
		c->dead = true;
		return -EIO;
	}
	return 0;
}

const struct sw_proto_ops sw_proto_abd = {
	.name = "dm-abd",
	.get = abd_get,
	.put = abd_put,
};
