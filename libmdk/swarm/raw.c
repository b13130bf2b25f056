// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * RAW: the unreplicated baseline.  One node, the in-place copy only, no
 * concurrency control: a get reads the copy in one round trip and returns
 * it as it finds it (a read racing with a write may see it torn), an
 * update writes it in one round trip.  It measures what replication and
 * consistency cost; it is not linearizable.
 */
#include <errno.h>

#include "swarm_int.h"

static int raw_get(struct mdk_swarm_client *c, struct sw_kent *ke, void *val,
		   size_t *vlen)
{
	struct mdk_swarm *s = c->s;
	const struct sw_entry *e = (const struct sw_entry *)c->scratch[0];
	int ret;

	if (ke->way[0] < 0) {
		ret = sw_locate(c, ke, false);
		if (ret)
			return ret;
		if (ke->way[0] < 0)
			return -ENOENT;
	}
	sw_round_begin(c);
	sw_add_rd(c, 0, sw_meta(s, ke->way[0]) + s->h.inplace_off,
		  c->scratch[0], s->h.cell_size);
	ret = sw_round(c);
	if (ret < 0)
		return ret;
	if (ret < 1)
		return -EIO;
	if (!e->tsp)
		return -ENOENT;
	return sw_entry_value(s, e, val, vlen);
}

static int raw_put(struct mdk_swarm_client *c, struct sw_kent *ke,
		   const void *val, size_t vlen, bool tomb)
{
	struct mdk_swarm *s = c->s;
	int ret;

	sw_entry_fill(s, ke->tag, c->wimg,
		      sw_make(sw_next_ts(c), c->id, true, 0), val, vlen, tomb);
	sw_round_begin(c);
	sw_add_keybytes(c, ke);
	sw_add_inplace(c, ke, c->wimg);
	ret = sw_round(c);
	if (ret < 0)
		return ret;
	if (ret < 1)
		return -EIO;
	sw_keybytes_done(c, ke);
	return 0;
}

const struct sw_proto_ops sw_proto_raw = {
	.name = "raw",
	.get = raw_get,
	.put = raw_put,
};
