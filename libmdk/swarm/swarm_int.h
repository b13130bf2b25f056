/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * SWARM-KV internals: the layout of a memory node, timestamps, clients and
 * rounds of accesses.  Documentation/swarm.rst explains the protocol; this
 * header only fixes the encodings.
 *
 * Node layout (every field a multiple of 8 bytes):
 *
 *   [0, hdr_size)         header (struct sw_hdr) and the client table
 *   [meta_off, ...)       nways way metas, one per index entry:
 *                           claim   key tag (0: free), CAS-claimed per node
 *                           key     u64 length + key bytes
 *                           inplace the in-place copy (struct sw_entry)
 *                           words   per client: slot, prev, abort, commit
 *   [cells_off, ...)      out-of-place buffers: 2 per (way, client)
 *
 * Ways are grouped in buckets of SW_WAYS; a key lives in the first way of
 * its probe sequence that each node's CAS gave it, so the same key may sit
 * in different ways on different nodes (each node's index is its own).
 */
#ifndef MDK_SWARM_INT_H
#define MDK_SWARM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mdk/memnode.h>
#include <mdk/swarm.h>
#include <mdk/util.h>

#define SW_MAGIC 0x4d444b5357524d31ULL /* "MDKSWRM1" */
#define SW_VERSION 1
#define SW_WAYS 8
#define SW_PROBES 8
#define SW_HDR_FIXED 512
#define SW_MAX_OPS 40

/*
 * Timestamps ("tsp"): one 64-bit word, compared as an integer.
 *   [63:12] ts   microseconds since the store's epoch (52 bits)
 *   [11:2]  cid  the writing client (10 bits)
 *   [1]     VER  the write is committed: it will never be aborted
 *   [0]     LOC  which of its owner's two buffers holds the value
 * The identity of a write is tsp >> 2 (ts, cid); 0 means "nothing".
 */
#define SW_TS_SHIFT 12
#define SW_CID_SHIFT 2
#define SW_VER 2ULL
#define SW_LOC 1ULL
#define SW_TS_MAX ((1ULL << 52) - 1)

static inline uint64_t sw_id(uint64_t tsp)
{
	return tsp >> 2;
}

static inline unsigned int sw_id_cid(uint64_t id)
{
	return id & (MDK_SWARM_MAX_CLIENTS - 1);
}

static inline uint64_t sw_id_ts(uint64_t id)
{
	return id >> 10;
}

static inline uint64_t sw_make(uint64_t ts, unsigned int cid, bool ver,
			       unsigned int loc)
{
	return ts << SW_TS_SHIFT | (uint64_t)cid << SW_CID_SHIFT |
	       (ver ? SW_VER : 0) | (loc & 1);
}

/* Per-client words of a way meta. */
enum { SW_SLOT, SW_PREV, SW_ABORT, SW_COMMIT, SW_NWORDS };

/* An in-place copy or an out-of-place buffer. */
struct sw_entry {
	uint64_t tsp; /* identity << 2 of the write it holds */
	uint64_t lenflags; /* value length | SW_TOMB */
	uint64_t csum; /* sw_csum() of the rest */
	uint64_t val[];
};
#define SW_TOMB (1ULL << 32)

struct sw_hdr {
	uint64_t magic, version, proto, nnodes, node_idx;
	uint64_t capacity, key_size, value_size, max_clients;
	uint64_t ways, nbuckets, nways, epoch_us;
	uint64_t hdr_size, meta_off, meta_size, cells_off, cell_size, total;
	/* offsets inside a way meta */
	uint64_t key_off, inplace_off, words_off;
};

struct mdk_swarm {
	struct mdk_swarm_memnode *nodes[MDK_SWARM_MAX_NODES];
	unsigned int n, quorum;
	struct sw_hdr h;
	struct mdk_swarm_opts o;
	const struct sw_proto_ops *ops;
};

/* Client cache of one key: where it lives on each node, and our words. */
struct sw_kent {
	uint64_t tag, tag2; /* two independent hashes of the key */
	int32_t way[MDK_SWARM_MAX_NODES]; /* -1: not known / not claimed */
	uint8_t key_todo[MDK_SWARM_MAX_NODES]; /* key bytes still to write */
	uint64_t slot; /* our slot word (last final, or the pending guess) */
	uint64_t prev; /* our prev word (committed) */
	bool slot_committed;
	uint64_t raw_seq;
};

struct sw_view;

struct sw_op {
	uint8_t kind; /* SW_RD, SW_WR, SW_CAS */
	uint32_t len;
	uint64_t off;
	void *buf;
	uint64_t expect, desired, old;
};
enum { SW_RD, SW_WR, SW_CAS };

struct sw_batch {
	struct sw_op ops[SW_MAX_OPS];
	unsigned int n;
	bool answered;
};

struct mdk_swarm_client {
	struct mdk_swarm *s;
	unsigned int id;
	bool dead;
	uint64_t last_ts;
	int64_t skew_us;
	uint32_t chaos_ppm;
	uint64_t rng;
	unsigned int crash_in; /* 0: never */
	mdk_swarm_hook_fn hook;
	void *hook_arg;

	/*
	 * Cache of key locations: open addressing on the tag, over entries
	 * allocated in chunks that never move (rounds keep pointers).
	 */
	struct sw_kent **cache;
	size_t cache_mask, cache_used;
	struct sw_kent **chunks;
	size_t nchunks, chunks_cap, chunk_used;

	struct sw_batch b[MDK_SWARM_MAX_NODES];
	unsigned int answered; /* mask of the last round */

	/* per-node scratch: a bucket of metas, cell reads, write images */
	uint8_t *scratch[MDK_SWARM_MAX_NODES];
	size_t scratch_size;
	uint64_t *wimg; /* entry image to write (cell and in-place) */
	uint64_t *words; /* small words written by the round */
	unsigned int nwords;
	uint64_t *keyimg; /* u64 length + key bytes of the current key */
	size_t klen;

	/* the verification of our last fast-path write, piggybacked */
	bool bg_pending;
	struct sw_kent *bg_kent;
	uint64_t bg_tsp;

	struct sw_view *view;
	struct mdk_swarm_op_stats last;
};

/*
 * struct sw_proto_ops - one protocol over the common layout.  @get fills
 * @val/@vlen or returns -ENOENT; @put writes (@tomb: a tombstone).  Both
 * get @ke with the key's ways known on every answering node.
 */
struct sw_proto_ops {
	const char *name;
	int (*get)(struct mdk_swarm_client *c, struct sw_kent *ke, void *val,
		   size_t *vlen);
	int (*put)(struct mdk_swarm_client *c, struct sw_kent *ke,
		   const void *val, size_t vlen, bool tomb);
};

extern const struct sw_proto_ops sw_proto_swarm, sw_proto_abd, sw_proto_raw;

/* memnode.c */
void sw_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Accesses without the fences of the public calls (round.c orders them). */
int sw_memnode_rd(struct mdk_swarm_memnode *node, uint64_t off, void *buf,
		  size_t len);
int sw_memnode_wr(struct mdk_swarm_memnode *node, uint64_t off, const void *buf,
		  size_t len);
void sw_memnode_steal(struct mdk_swarm_memnode *node,
		      const struct mdk_swarm_memnode_ops **ops, void **priv);
struct mdk_swarm_memnode *
sw_memnode_new_mapped(const struct mdk_swarm_memnode_ops *ops, void *base,
		      uint64_t size, bool guarded, char *err, size_t errlen);

/* round.c: build a round with sw_add_*(), run it with sw_round(). */
void sw_round_begin(struct mdk_swarm_client *c);
void sw_add_rd(struct mdk_swarm_client *c, unsigned int node, uint64_t off,
	       void *buf, size_t len);
void sw_add_wr(struct mdk_swarm_client *c, unsigned int node, uint64_t off,
	       const void *buf, size_t len);
struct sw_op *sw_add_cas(struct mdk_swarm_client *c, unsigned int node,
			 uint64_t off, uint64_t expect, uint64_t desired);
uint64_t *sw_word(struct mdk_swarm_client *c, uint64_t v);
int sw_round(struct mdk_swarm_client *c);
int sw_post(struct mdk_swarm_client *c);
unsigned int sw_participants(struct mdk_swarm_client *c, struct sw_kent *ke);
uint64_t sw_now_us(struct mdk_swarm_client *c);
uint64_t sw_next_ts(struct mdk_swarm_client *c);
void sw_see_ts(struct mdk_swarm_client *c, uint64_t id);
uint64_t sw_rand(struct mdk_swarm_client *c);

/* The layout of a node (store.c lays it out). */
static inline uint64_t sw_meta(const struct mdk_swarm *s, int32_t way)
{
	return s->h.meta_off + (uint64_t)way * s->h.meta_size;
}

static inline uint64_t sw_wordoff(const struct mdk_swarm *s, int32_t way,
				  unsigned int cid, unsigned int w)
{
	return sw_meta(s, way) + s->h.words_off +
	       ((uint64_t)cid * SW_NWORDS + w) * 8;
}

static inline uint64_t sw_cell(const struct mdk_swarm *s, int32_t way,
			       unsigned int cid, unsigned int loc)
{
	return s->h.cells_off +
	       (((uint64_t)way * s->h.max_clients + cid) * 2 + (loc & 1)) *
		       s->h.cell_size;
}

/* A way meta's word in a buffer read from a node. */
static inline uint64_t sw_mword(const struct mdk_swarm *s, const void *meta,
				unsigned int cid, unsigned int w)
{
	const uint64_t *p =
		(const uint64_t *)((const uint8_t *)meta + s->h.words_off);

	return p[cid * SW_NWORDS + w];
}

/* entry.c: value images and the hash; calls no other file of the store. */
uint64_t sw_csum(uint64_t tag, const struct sw_entry *e, size_t vwords);
uint64_t sw_hash(const void *buf, size_t len, uint64_t seed);
void sw_entry_fill(const struct mdk_swarm *s, uint64_t tag, uint64_t *img,
		   uint64_t tsp, const void *val, size_t vlen, bool tomb);
bool sw_entry_valid(const struct mdk_swarm *s, uint64_t tag,
		    const struct sw_entry *e, uint64_t id);
int sw_entry_value(const struct mdk_swarm *s, const struct sw_entry *e,
		   void *val, size_t *vlen);

/* kv.c */
int sw_locate(struct mdk_swarm_client *c, struct sw_kent *ke, bool claim);
int sw_read_quorum(struct mdk_swarm_client *c, struct sw_kent *ke, bool bg);

/* inout.c: views of one way on every node, the In-n-Out register. */
struct sw_cand {
	uint64_t id;
	bool committed;
	uint32_t present; /* mask of nodes with a word of this identity */
	int8_t owner[MDK_SWARM_MAX_NODES]; /* whose buffers hold it, -1 */
	uint8_t loc[MDK_SWARM_MAX_NODES];
};

struct sw_view {
	const struct mdk_swarm *s;
	uint32_t answered;
	uint32_t undecided; /* answered, but the key's buckets did not say */
	const uint8_t *meta[MDK_SWARM_MAX_NODES];
	unsigned int ncand, maxcand;
	struct sw_cand *cand;
	uint64_t *amax; /* max abort identity per client */
};

void sw_add_read_meta(struct mdk_swarm_client *c, struct sw_kent *ke);
void sw_view_build(struct mdk_swarm_client *c, struct sw_kent *ke,
		   struct sw_view *v);
bool sw_cand_excluded(const struct sw_view *v, const struct sw_cand *cd);
struct sw_cand *sw_view_max(struct sw_view *v, const uint64_t *drop,
			    unsigned int ndrop);
int sw_value_of(struct mdk_swarm_client *c, struct sw_kent *ke,
		struct sw_view *v, struct sw_cand *cd, void *val, size_t *vlen,
		uint64_t *img);
int sw_writeback(struct mdk_swarm_client *c, struct sw_kent *ke,
		 const struct sw_cand *cd, const uint64_t *img, bool all);
void sw_add_inplace(struct mdk_swarm_client *c, struct sw_kent *ke,
		    const uint64_t *img);
void sw_add_install(struct mdk_swarm_client *c, struct sw_kent *ke,
		    uint64_t newprev, uint64_t tsp, const uint64_t *img);
unsigned int sw_popcount(uint32_t m);
void sw_add_keybytes(struct mdk_swarm_client *c, struct sw_kent *ke);
void sw_keybytes_done(struct mdk_swarm_client *c, struct sw_kent *ke);
void sw_add_bg(struct mdk_swarm_client *c);
void sw_bg_done(struct mdk_swarm_client *c);
void sw_post_bg(struct mdk_swarm_client *c);
int sw_ts_above(struct mdk_swarm_client *c, const struct sw_view *v,
		uint64_t *ts);

#endif /* MDK_SWARM_INT_H */
