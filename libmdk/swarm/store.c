// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * SWARM-KV's store and clients: the layout of a memory node, formatting
 * and attaching a set of nodes (every node's header checked against the
 * others), and a client's state and knobs.  The operations are in kv.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "swarm_int.h"

static const struct sw_proto_ops *const protos[] = {
	[MDK_SWARM_PROTO_SWARM] = &sw_proto_swarm,
	[MDK_SWARM_PROTO_ABD] = &sw_proto_abd,
	[MDK_SWARM_PROTO_RAW] = &sw_proto_raw,
};

const char *mdk_swarm_proto_name(enum mdk_swarm_proto proto)
{
	if ((unsigned int)proto >= sizeof(protos) / sizeof(protos[0]))
		return NULL;
	return protos[proto]->name;
}

static uint64_t r8(uint64_t x)
{
	return (x + 7) & ~7ULL;
}

static int layout(struct sw_hdr *h, struct mdk_swarm_opts *o, unsigned int n,
		  char *err, size_t errlen)
{
	uint64_t ent, cells;

	if (!o->capacity)
		o->capacity = 1024;
	if (!o->key_size)
		o->key_size = 24;
	if (!o->value_size)
		o->value_size = 64;
	if (!o->max_clients)
		o->max_clients = 8;
	if ((unsigned int)o->proto > MDK_SWARM_PROTO_RAW) {
		sw_err(err, errlen, "swarm: unknown protocol %d", o->proto);
		return -EINVAL;
	}
	if (o->key_size > 4096 || o->value_size > 65536 ||
	    o->max_clients > MDK_SWARM_MAX_CLIENTS ||
	    o->capacity > (1U << 30)) {
		sw_err(err, errlen,
		       "swarm: key_size %u (max 4096), value_size %u (max 65536), max_clients %u (max %d) or capacity %u (max 2^30) out of range",
		       o->key_size, o->value_size, o->max_clients,
		       MDK_SWARM_MAX_CLIENTS, o->capacity);
		return -EINVAL;
	}
	if (o->proto == MDK_SWARM_PROTO_RAW ?
		    n != 1 :
		    n < 1 || n > MDK_SWARM_MAX_NODES) {
		sw_err(err, errlen, "swarm: %s needs %s memory nodes, got %u",
		       protos[o->proto]->name,
		       o->proto == MDK_SWARM_PROTO_RAW ? "exactly 1" : "1 to 9",
		       n);
		return -EINVAL;
	}
	memset(h, 0, sizeof(*h));
	h->magic = SW_MAGIC;
	h->version = SW_VERSION;
	h->proto = o->proto;
	h->nnodes = n;
	h->capacity = o->capacity;
	h->key_size = r8(o->key_size);
	h->value_size = r8(o->value_size);
	h->max_clients = o->max_clients;
	h->ways = SW_WAYS;
	/*
	 * Buckets half full on average when the index holds @capacity keys:
	 * with linear probing over 8 buckets, a full index is then so
	 * unlikely that capacity keys always fit.
	 */
	h->nbuckets = (o->capacity * 2ULL + SW_WAYS - 1) / SW_WAYS;
	if (h->nbuckets < 2)
		h->nbuckets = 2;
	h->nways = h->nbuckets * SW_WAYS;
	ent = sizeof(struct sw_entry) + h->value_size;
	h->key_off = 8;
	h->inplace_off = h->key_off + 8 + h->key_size;
	h->words_off = h->inplace_off + ent;
	h->meta_size = h->words_off + 8ULL * SW_NWORDS * h->max_clients;
	h->cell_size = ent;
	h->hdr_size = (SW_HDR_FIXED + 8 * h->max_clients + 4095) & ~4095ULL;
	h->meta_off = h->hdr_size;
	h->cells_off = h->meta_off + h->nways * h->meta_size;
	cells = o->proto == MDK_SWARM_PROTO_RAW ?
			0 :
			h->nways * h->max_clients * 2 * h->cell_size;
	h->total = h->cells_off + cells;
	return 0;
}

uint64_t mdk_swarm_node_bytes(const struct mdk_swarm_opts *opts)
{
	struct mdk_swarm_opts o = *opts;
	struct sw_hdr h;

	if (layout(&h, &o, o.proto == MDK_SWARM_PROTO_RAW ? 1 : 3, NULL, 0))
		return 0;
	return h.total;
}

static struct mdk_swarm *store_new(struct mdk_swarm_memnode **nodes,
				   unsigned int n)
{
	struct mdk_swarm *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	for (unsigned int i = 0; i < n; i++)
		s->nodes[i] = nodes[i];
	s->n = n;
	s->quorum = n / 2 + 1;
	return s;
}

static void opts_of(struct mdk_swarm *s)
{
	s->o.proto = s->h.proto;
	s->o.capacity = s->h.capacity;
	s->o.max_clients = s->h.max_clients;
	s->ops = protos[s->h.proto];
}

struct mdk_swarm *mdk_swarm_format(struct mdk_swarm_memnode **nodes,
				   unsigned int n,
				   const struct mdk_swarm_opts *opts, char *err,
				   size_t errlen)
{
	static const uint64_t zero[8192];
	static __thread uint64_t chunk[8192];
	struct mdk_swarm_opts o = *opts;
	struct mdk_swarm *s;
	struct timespec ts;
	struct sw_hdr h;
	unsigned int ok = 0;

	if (!nodes || layout(&h, &o, n, err, errlen))
		return NULL;
	for (unsigned int i = 0; i < n; i++) {
		if (!nodes[i] || mdk_swarm_memnode_size(nodes[i]) < h.total) {
			sw_err(err, errlen,
			       "swarm: node %u has %llu bytes, the store needs %llu",
			       i,
			       nodes[i] ? (unsigned long long)
						  mdk_swarm_memnode_size(
							  nodes[i]) :
					  0ULL,
			       (unsigned long long)h.total);
			return NULL;
		}
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	h.epoch_us = (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
	s = store_new(nodes, n);
	if (!s) {
		sw_err(err, errlen, "swarm: out of memory");
		return NULL;
	}
	for (unsigned int i = 0; i < n; i++) {
		int ret = 0;

		/*
		 * Everything but the header starts zeroed.  Chunks already
		 * zero are left alone: fresh memory stays untouched.
		 */
		for (uint64_t off = 8192; off < h.total && !ret;
		     off += sizeof(zero)) {
			uint64_t len = h.total - off < sizeof(zero) ?
					       h.total - off :
					       sizeof(zero);

			ret = mdk_swarm_memnode_read(nodes[i], off, chunk, len);
			if (!ret && memcmp(chunk, zero, len))
				ret = mdk_swarm_memnode_write(nodes[i], off,
							      zero, len);
		}
		h.node_idx = i;
		if (!ret)
			ret = mdk_swarm_memnode_write(nodes[i], sizeof(h), zero,
						      8192 - sizeof(h));
		if (!ret)
			ret = mdk_swarm_memnode_write(nodes[i], 0, &h,
						      sizeof(h));
		if (!ret)
			ok++;
	}
	if (ok < s->quorum) {
		sw_err(err, errlen,
		       "swarm: only %u of %u nodes could be formatted (need %u)",
		       ok, n, s->quorum);
		free(s);
		return NULL;
	}
	h.node_idx = 0;
	s->h = h;
	s->o = o;
	opts_of(s);
	return s;
}

/*
 * A header read from a node must describe the layout its options give, on
 * a node big enough for it: anything else is another program's data or a
 * corrupted node, refused before any access relies on it.
 */
static int check_hdr(const struct sw_hdr *h, uint64_t size, unsigned int i,
		     char *err, size_t errlen)
{
	struct mdk_swarm_opts o = {
		.proto = (enum mdk_swarm_proto)(
			h->proto <= MDK_SWARM_PROTO_RAW ? h->proto : 99),
		.capacity = h->capacity <= (1U << 30) ? (uint32_t)h->capacity :
							0,
		.key_size = h->key_size <= 4096 ? (uint32_t)h->key_size : 0,
		.value_size = h->value_size <= 65536 ? (uint32_t)h->value_size :
						       0,
		.max_clients = h->max_clients <= MDK_SWARM_MAX_CLIENTS ?
				       (uint32_t)h->max_clients :
				       0,
	};
	struct sw_hdr want;

	if (!o.capacity || !o.key_size || !o.value_size || !o.max_clients ||
	    h->nnodes < 1 || h->nnodes > MDK_SWARM_MAX_NODES ||
	    layout(&want, &o, (unsigned int)h->nnodes, NULL, 0) ||
	    want.total != h->total || want.meta_off != h->meta_off ||
	    want.meta_size != h->meta_size || want.cells_off != h->cells_off ||
	    want.cell_size != h->cell_size || want.nways != h->nways ||
	    want.inplace_off != h->inplace_off ||
	    want.words_off != h->words_off || want.key_off != h->key_off) {
		sw_err(err, errlen,
		       "swarm: node %u: offset 0: inconsistent header (capacity %llu, key_size %llu, value_size %llu, max_clients %llu, %llu nodes)",
		       i, (unsigned long long)h->capacity,
		       (unsigned long long)h->key_size,
		       (unsigned long long)h->value_size,
		       (unsigned long long)h->max_clients,
		       (unsigned long long)h->nnodes);
		return -EINVAL;
	}
	if (h->total > size) {
		sw_err(err, errlen,
		       "swarm: node %u has %llu bytes, its store needs %llu", i,
		       (unsigned long long)size, (unsigned long long)h->total);
		return -EINVAL;
	}
	return 0;
}

struct mdk_swarm *mdk_swarm_attach(struct mdk_swarm_memnode **nodes,
				   unsigned int n, char *err, size_t errlen)
{
	struct mdk_swarm *s;
	unsigned int ok = 0;

	if (!nodes || n < 1 || n > MDK_SWARM_MAX_NODES) {
		sw_err(err, errlen, "swarm: %u nodes (need 1 to %d)", n,
		       MDK_SWARM_MAX_NODES);
		return NULL;
	}
	s = store_new(nodes, n);
	if (!s) {
		sw_err(err, errlen, "swarm: out of memory");
		return NULL;
	}
	for (unsigned int i = 0; i < n; i++) {
		struct sw_hdr h;

		if (mdk_swarm_memnode_read(nodes[i], 0, &h, sizeof(h)))
			continue;
		if (h.magic != SW_MAGIC || h.version != SW_VERSION) {
			sw_err(err, errlen,
			       "swarm: node %u: offset 0: no SWARM-KV store (magic %#llx version %llu, expected %#llx version %d)",
			       i, (unsigned long long)h.magic,
			       (unsigned long long)h.version,
			       (unsigned long long)SW_MAGIC, SW_VERSION);
			free(s);
			return NULL;
		}
		if (h.node_idx != i || h.nnodes != n) {
			sw_err(err, errlen,
			       "swarm: node %u holds replica %llu of %llu (expected %u of %u)",
			       i, (unsigned long long)h.node_idx,
			       (unsigned long long)h.nnodes, i, n);
			free(s);
			return NULL;
		}
		if (ok &&
		    (h.total != s->h.total || h.epoch_us != s->h.epoch_us)) {
			sw_err(err, errlen,
			       "swarm: node %u belongs to another store", i);
			free(s);
			return NULL;
		}
		if (check_hdr(&h, mdk_swarm_memnode_size(nodes[i]), i, err,
			      errlen)) {
			free(s);
			return NULL;
		}
		s->h = h;
		ok++;
	}
	if (ok < s->quorum) {
		sw_err(err, errlen,
		       "swarm: only %u of %u nodes answer (need %u)", ok, n,
		       s->quorum);
		free(s);
		return NULL;
	}
	s->h.node_idx = 0;
	s->o.key_size = s->h.key_size;
	s->o.value_size = s->h.value_size;
	opts_of(s);
	return s;
}

void mdk_swarm_destroy(struct mdk_swarm *s)
{
	free(s);
}

void mdk_swarm_opts_get(const struct mdk_swarm *s, struct mdk_swarm_opts *o)
{
	*o = s->o;
}

unsigned int mdk_swarm_client_id(const struct mdk_swarm_client *c)
{
	return c->id;
}

static void client_free(struct mdk_swarm_client *c)
{
	for (unsigned int i = 0; i < MDK_SWARM_MAX_NODES; i++)
		free(c->scratch[i]);
	if (c->view) {
		free(c->view->cand);
		free(c->view->amax);
	}
	free(c->view);
	free(c->cache);
	for (size_t i = 0; i < c->nchunks; i++)
		free(c->chunks[i]);
	free(c->chunks);
	free(c->wimg);
	free(c->words);
	free(c->keyimg);
	free(c);
}

struct mdk_swarm_client *mdk_swarm_client_new(struct mdk_swarm *s, char *err,
					      size_t errlen)
{
	struct mdk_swarm_client *c = calloc(1, sizeof(*c));
	size_t cap;

	if (!c)
		goto nomem;
	c->s = s;
	c->scratch_size =
		SW_PROBES * SW_WAYS * s->h.meta_size + 2 * s->h.cell_size;
	for (unsigned int i = 0; i < s->n; i++) {
		c->scratch[i] =
			aligned_alloc(64, (c->scratch_size + 63) & ~63UL);
		if (!c->scratch[i])
			goto nomem;
	}
	for (cap = 64; cap < 2ULL * s->h.capacity; cap *= 2)
		;
	c->cache = calloc(cap, sizeof(*c->cache));
	c->cache_mask = cap - 1;
	c->wimg = calloc(1, s->h.cell_size);
	c->words = calloc(4 * SW_MAX_OPS, 8);
	c->keyimg = calloc(1, 8 + s->h.key_size);
	c->view = calloc(1, sizeof(*c->view));
	if (!c->cache || !c->wimg || !c->words || !c->keyimg || !c->view)
		goto nomem;
	c->view->maxcand = s->n * s->h.max_clients * 2;
	c->view->cand = calloc(c->view->maxcand, sizeof(*c->view->cand));
	c->view->amax = calloc(s->h.max_clients, 8);
	if (!c->view->cand || !c->view->amax)
		goto nomem;

	/* Claim an id never used before, in the client table of a majority. */
	for (unsigned int id = 0; id < s->h.max_clients; id++) {
		struct sw_op *op[MDK_SWARM_MAX_NODES];
		unsigned int won = 0;
		int ret;

		sw_round_begin(c);
		for (unsigned int i = 0; i < s->n; i++)
			op[i] = sw_add_cas(c, i, SW_HDR_FIXED + 8ULL * id, 0,
					   1);
		ret = sw_round(c);
		if (ret < 0)
			break;
		for (unsigned int i = 0; i < s->n; i++)
			if (c->b[i].answered && op[i]->old == 0)
				won++;
		if (won >= s->quorum) {
			c->id = id;
			c->rng = 0x853c49e6748fea9bULL ^ ((uint64_t)id << 32) ^
				 s->h.epoch_us;
			c->last = (struct mdk_swarm_op_stats){ 0 };
			return c;
		}
		if ((unsigned int)ret < s->quorum) {
			sw_err(err, errlen,
			       "swarm: only %d of %u nodes answer (need %u)",
			       ret, s->n, s->quorum);
			client_free(c);
			return NULL;
		}
	}
	sw_err(err, errlen, "swarm: all %llu client ids are taken",
	       (unsigned long long)s->h.max_clients);
	client_free(c);
	return NULL;
nomem:
	sw_err(err, errlen, "swarm: out of memory");
	if (c)
		client_free(c);
	return NULL;
}

void mdk_swarm_client_destroy(struct mdk_swarm_client *c)
{
	if (!c)
		return;
	mdk_swarm_flush(c);
	client_free(c);
}

void mdk_swarm_last_op(const struct mdk_swarm_client *c,
		       struct mdk_swarm_op_stats *st)
{
	*st = c->last;
}

void mdk_swarm_client_set_clock_skew(struct mdk_swarm_client *c,
				     int64_t skew_us)
{
	c->skew_us = skew_us;
}

void mdk_swarm_client_set_hook(struct mdk_swarm_client *c, mdk_swarm_hook_fn fn,
			       void *arg)
{
	c->hook = fn;
	c->hook_arg = arg;
}

void mdk_swarm_client_crash_after(struct mdk_swarm_client *c,
				  unsigned int rounds)
{
	c->crash_in = rounds;
}

void mdk_swarm_client_set_chaos(struct mdk_swarm_client *c, uint32_t ppm,
				uint64_t seed)
{
	c->chaos_ppm = ppm;
	if (seed)
		c->rng = seed;
}
