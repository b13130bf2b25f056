/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmm_mp_pamt.h: the pure logic of the pool, with no kernel dependencies,
 * so that tests/unit builds it in userspace: parameter parsing, discovery
 * and ranking, the Pool Address Map Table, the segment map and the segment
 * state machine.  Nothing here allocates, sleeps or prints: callers pass
 * the memory and a message buffer.
 */
#ifndef CMM_MP_PAMT_H
#define CMM_MP_PAMT_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/string.h>
#include <linux/types.h>
#else
#include "kshim.h"
#endif

#include "uapi/cmm_mp.h"

/* Most devices a pool may have. */
#define CMM_MP_MAX_DEVICES 32
/* One PAMT entry maps 2 MiB of the pool. */
#define CMM_MP_GRANULE_SHIFT 21
#define CMM_MP_GRANULE_BYTES BIT_ULL(CMM_MP_GRANULE_SHIFT)
/* Largest chip id a device may announce. */
#define CMM_MP_CHIP_ID_MAX 0xffffffffULL
/* Emulated latencies are between 1 ns and 1 ms. */
#define CMM_MP_LATENCY_MAX_NS 1000000U
/*
 * Load latency of the host's own DRAM that the tier's abstract distance is
 * scaled against: MEMTIER_ADISTANCE_DRAM stands for this many ns.
 */
#define CMM_MP_DRAM_NS 100U

/**
 * struct cmm_mp_announce - what a device announces at discovery.
 * @chip_id: its chip id, unique in the pool.
 * @capacity: bytes it contributes to the pool.
 */
struct cmm_mp_announce {
	u64 chip_id;
	u64 capacity;
};

/**
 * struct cmm_mp_layout - a device's place in the pool, indexed by device id.
 * @chip_id: its chip id.
 * @capacity: its capacity in bytes.
 * @nha: pool offset of its first byte.
 * @announced: its position in the announcement order.
 */
struct cmm_mp_layout {
	u64 chip_id;
	u64 capacity;
	u64 nha;
	u32 announced;
};

/**
 * struct cmm_mp_pamt_entry - one PAMT entry, for one granule of the pool.
 * @dev_offset: device pool offset of the granule's first byte.
 * @device: device id.
 * @valid: the granule is backed by a device.
 */
struct cmm_mp_pamt_entry {
	u64 dev_offset;
	u16 device;
	u8 valid;
};

/**
 * struct cmm_mp_pamt - the Pool Address Map Table.
 * @size: bytes of pool it covers (NHA 0 to size - 1).
 * @nr_entries: entries, size >> CMM_MP_GRANULE_SHIFT.
 * @entries: the table, provided by the caller.
 */
struct cmm_mp_pamt {
	u64 size;
	u64 nr_entries;
	struct cmm_mp_pamt_entry *entries;
};

/**
 * struct cmm_mp_xlate - the result of a PAMT lookup.
 * @nha: the pool offset looked up.
 * @dev_offset: offset inside the device (valid entries only).
 * @device: device id (valid entries only).
 * @valid: the entry is backed by a device.
 */
struct cmm_mp_xlate {
	u64 nha;
	u64 dev_offset;
	u32 device;
	bool valid;
};

/* What is asked of a segment. */
enum cmm_mp_seg_op {
	CMM_MP_OP_ADD,
	CMM_MP_OP_OFFLINE,
	CMM_MP_OP_SHARE,
};

/* What the caller must do for an operation, from cmm_mp_seg_plan(). */
enum cmm_mp_seg_action {
	CMM_MP_DO_NOTHING,	/* the segment is already there */
	CMM_MP_DO_HOTADD,	/* offline -> added */
	CMM_MP_DO_HOTREMOVE,	/* added or online -> offline */
	CMM_MP_DO_EXPORT,	/* offline -> shared */
	CMM_MP_DO_REVOKE,	/* shared -> offline */
};

int cmm_mp_parse_size(const char *s, u64 *val, const char **end);
int cmm_mp_parse_devices(const char *spec, struct cmm_mp_announce *ann,
			 u32 max, u32 *nr, char *msg, size_t len);
int cmm_mp_announce_count(u32 count, u64 pool_size, u64 segment_size,
			  struct cmm_mp_announce *ann, char *msg, size_t len);
int cmm_mp_compose(const struct cmm_mp_announce *ann, u32 nr, u64 pool_size,
		   u64 segment_size, struct cmm_mp_layout *layout, char *msg,
		   size_t len);
u64 cmm_mp_pamt_nr_entries(u64 pool_size);
void cmm_mp_pamt_fill(struct cmm_mp_pamt *pamt, u64 pool_size,
		      struct cmm_mp_pamt_entry *entries,
		      const struct cmm_mp_layout *layout, u32 nr);
int cmm_mp_pamt_lookup(const struct cmm_mp_pamt *pamt, u64 nha,
		       struct cmm_mp_xlate *x);
int cmm_mp_adistance(u32 local_ns, u32 remote_ns, u64 local_bytes,
		     u64 total_bytes, int dram_adistance);
int cmm_mp_seg_plan(enum cmm_mp_seg_state state, enum cmm_mp_seg_op op,
		    bool device_failed);
enum cmm_mp_seg_state cmm_mp_seg_state_of(bool added, u32 online_blocks,
					  u32 nr_blocks);
const char *cmm_mp_seg_state_name(enum cmm_mp_seg_state state);
int cmm_mp_find_run(u64 start, u64 end, u64 block,
		    bool (*usable)(u64 addr, u64 size, void *arg), void *arg,
		    u64 *run_start, u64 *run_size);

#endif /* CMM_MP_PAMT_H */
