/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmm_mp_owner.h: the pure logic of multi-host ownership, with no kernel
 * dependencies, so that tests/unit builds it in userspace: the control
 * area's layout, the owner word's encoding, the transition an operation
 * asks of an owner word, and the lease (liveness) decision.  Nothing here
 * touches shared memory: the caller reads a word, asks what to write, and
 * writes it with a 64-bit compare-and-exchange, retrying when it lost.
 */
#ifndef CMM_MP_OWNER_H
#define CMM_MP_OWNER_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/types.h>
#else
#include "kshim.h"
#endif

/* Most hosts sharing one pool: a holder set is one byte. */
#define CMM_MP_MAX_HOSTS 8
/* Bytes of the control area: the pool's last PAMT granule (2 MiB). */
#define CMM_MP_CTL_BYTES BIT_ULL(21)

/*
 * The control area, an array of little-endian u64 words:
 *   word 0                  the magic word (CMM_MP_CTL_MAGIC_*)
 *   words 1-7               zero, reserved
 *   words 8-15              heartbeat of host 0-7
 *   words 16-               owner word of segment 0, 1, ...
 * Heartbeats and owner words each start a 64-byte cache line.
 */
#define CMM_MP_CTL_MAGIC_WORD 0
#define CMM_MP_CTL_HEARTBEAT_WORD 8
#define CMM_MP_CTL_OWNER_WORD 16
#define CMM_MP_CTL_MAX_SEGMENTS \
	((u32)(CMM_MP_CTL_BYTES / 8 - CMM_MP_CTL_OWNER_WORD))

/*
 * Magic word: bits 63-32 "CMMP", 31-24 the layout version, 23-20 the
 * number of hosts - 1, 19-0 the number of segments.  Hosts that disagree
 * on any of them disagree on what the words mean.
 */
#define CMM_MP_CTL_MAGIC 0x434d4d50ULL
#define CMM_MP_CTL_VERSION 1
#define CMM_MP_CTL_MAX_NR_SEGMENTS 0xfffffU

/*
 * Owner word: bits 7-0 the set of holding hosts (bit h for host h),
 * bit 8 set for a shared segment, bits 63-32 a count of the word's changes
 * (so that a compare-and-exchange from a value read long ago fails even if
 * the word went back to that owner meanwhile).  Free: no holder (0 in a
 * fresh area).  Exclusive (pooled, onlined by one host): one holder, bit 8
 * clear.  Shared: one or more holders, bit 8 set.
 */
#define CMM_MP_OWNER_HOLDERS 0xffULL
#define CMM_MP_OWNER_SHARED BIT_ULL(8)
#define CMM_MP_OWNER_SEQ_SHIFT 32

/* What an owner word says, decoded. */
enum cmm_mp_owner_kind {
	CMM_MP_OWNER_FREE,
	CMM_MP_OWNER_EXCL,
	CMM_MP_OWNER_SHARE,
	CMM_MP_OWNER_BAD,	/* bits no host writes: refused, never changed */
};

/* What a host asks of a segment's owner word. */
enum cmm_mp_owner_op {
	CMM_MP_OWN_CLAIM,	/* before onlining: free -> exclusive(me) */
	CMM_MP_OWN_RELEASE,	/* after offlining: exclusive(me) -> free */
	CMM_MP_OWN_SHARE,	/* before sharing: add me to the sharers */
	CMM_MP_OWN_UNSHARE,	/* after unsharing: remove me */
};

/* The answer of cmm_mp_owner_next(). */
enum cmm_mp_owner_verdict {
	CMM_MP_OWN_WRITE,	/* compare-and-exchange the word to *next */
	CMM_MP_OWN_TAKEOVER,	/* the same, taking it from dead hosts (*other) */
	CMM_MP_OWN_HELD,	/* this host holds it already: nothing to write */
	CMM_MP_OWN_BUSY,	/* a live host holds it (*other): refuse */
	CMM_MP_OWN_LOST,	/* release of what this host no longer holds */
	CMM_MP_OWN_CORRUPT,	/* an invalid word: refuse */
};

/* A host's liveness, from its heartbeat word. */
enum cmm_mp_liveness {
	CMM_MP_HOST_ABSENT,	/* heartbeat 0: not loaded, or unloaded cleanly */
	CMM_MP_HOST_ALIVE,
	CMM_MP_HOST_DEAD,	/* heartbeat unchanged for a whole lease */
};

/**
 * struct cmm_mp_lease - what this host saw of another host's heartbeat.
 * @heartbeat: the value last seen.
 * @changed_ms: local time (ms) it was first seen with that value.
 * @seen: @heartbeat and @changed_ms are set.
 */
struct cmm_mp_lease {
	u64 heartbeat;
	u64 changed_ms;
	bool seen;
};

u64 cmm_mp_ctl_magic(u32 nr_hosts, u32 nr_segments);
int cmm_mp_ctl_magic_check(u64 found, u64 want, char *msg, size_t len);
u64 cmm_mp_owner_encode(enum cmm_mp_owner_kind kind, u32 holders, u32 seq);
enum cmm_mp_owner_kind cmm_mp_owner_decode(u64 word, u32 nr_hosts,
					   u32 *holders);
int cmm_mp_owner_name(u64 word, u32 nr_hosts, char *buf, size_t len);
u32 cmm_mp_first_host(u32 holders);
enum cmm_mp_owner_verdict cmm_mp_owner_next(u64 cur, enum cmm_mp_owner_op op,
					    u32 me, u32 nr_hosts, u32 alive,
					    u64 *next, u32 *other);
enum cmm_mp_liveness cmm_mp_lease_observe(struct cmm_mp_lease *l,
					  u64 heartbeat, u64 now_ms,
					  u32 lease_ms);

#endif /* CMM_MP_OWNER_H */
