// SPDX-License-Identifier: GPL-2.0
/*
 * cmm_mp: the kernel-free logic of multi-host ownership.
 *
 * With hosts > 1 the pool's devices keep, in the emulation, their control
 * plane in pool memory: a magic word, one heartbeat word per host and one
 * owner word per segment (cmm_mp_owner.h has the layout).  Every change of
 * an owner word is a compare-and-exchange from the value that was read, so
 * two hosts racing for one segment cannot both win: the loser reads the
 * winner's word and decides again.  The decision is cmm_mp_owner_next(),
 * given the word, the operation and which hosts are alive; liveness is
 * cmm_mp_lease_observe(), given what this host saw of a heartbeat and when.
 *
 * This file is also compiled in userspace by tests/unit (see kshim.h): it
 * uses no kernel service beyond snprintf().
 */
#include "cmm_mp_owner.h"

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/kernel.h>
#endif

/**
 * cmm_mp_ctl_magic() - the magic word for a pool's geometry.
 * @nr_hosts: hosts sharing the pool, 2 to CMM_MP_MAX_HOSTS.
 * @nr_segments: its segments, at most CMM_MP_CTL_MAX_NR_SEGMENTS.
 *
 * Return: the word the first host writes and every other host expects.
 */
u64 cmm_mp_ctl_magic(u32 nr_hosts, u32 nr_segments)
{
	return CMM_MP_CTL_MAGIC << 32 | (u64)CMM_MP_CTL_VERSION << 24 |
	       (u64)((nr_hosts - 1) & 0xf) << 20 |
	       (nr_segments & CMM_MP_CTL_MAX_NR_SEGMENTS);
}

/**
 * cmm_mp_ctl_magic_check() - whether a control area is ours.
 * @found: its magic word, not zero.
 * @want: cmm_mp_ctl_magic() of this host.
 * @msg: why not.
 * @len: size of @msg.
 *
 * Return: 0 when @found is @want, -EINVAL otherwise.
 */
int cmm_mp_ctl_magic_check(u64 found, u64 want, char *msg, size_t len)
{
	if (found == want)
		return 0;
	if (found >> 32 != CMM_MP_CTL_MAGIC)
		snprintf(msg, len,
			 "it holds 0x%llx, not a CMM-MP control area (was the pool's memory used for something else?)",
			 found);
	else if ((found >> 24 & 0xff) != CMM_MP_CTL_VERSION)
		snprintf(msg, len,
			 "its layout version is %llu, this module's is %u",
			 found >> 24 & 0xff, CMM_MP_CTL_VERSION);
	else if ((found >> 20 & 0xf) != (want >> 20 & 0xf))
		snprintf(msg, len,
			 "it was set up for %llu hosts, this host has hosts=%llu",
			 (found >> 20 & 0xf) + 1, (want >> 20 & 0xf) + 1);
	else
		snprintf(msg, len,
			 "it was set up for %llu segments, this host has %llu (pool_size, segment_size and devices must match on every host)",
			 found & CMM_MP_CTL_MAX_NR_SEGMENTS,
			 want & CMM_MP_CTL_MAX_NR_SEGMENTS);
	return -EINVAL;
}

/**
 * cmm_mp_owner_encode() - an owner word.
 * @kind: free, exclusive or shared.
 * @holders: the holding hosts, a bit per host (none when free).
 * @seq: the count of the word's changes.
 *
 * Return: the word.
 */
u64 cmm_mp_owner_encode(enum cmm_mp_owner_kind kind, u32 holders, u32 seq)
{
	u64 word = (u64)seq << CMM_MP_OWNER_SEQ_SHIFT;

	switch (kind) {
	case CMM_MP_OWNER_EXCL:
		return word | (holders & CMM_MP_OWNER_HOLDERS);
	case CMM_MP_OWNER_SHARE:
		return word | CMM_MP_OWNER_SHARED |
		       (holders & CMM_MP_OWNER_HOLDERS);
	default:
		return word;
	}
}

/**
 * cmm_mp_owner_decode() - what an owner word says.
 * @word: the word.
 * @nr_hosts: hosts sharing the pool.
 * @holders: the holding hosts, a bit per host.
 *
 * Return: its kind; CMM_MP_OWNER_BAD for bits no host writes (unknown
 * bits, a host past @nr_hosts, two exclusive holders, no sharer).
 */
enum cmm_mp_owner_kind cmm_mp_owner_decode(u64 word, u32 nr_hosts,
					   u32 *holders)
{
	u32 h = word & CMM_MP_OWNER_HOLDERS;
	u32 low = (u32)word;

	*holders = h;
	if (low & ~(u32)(CMM_MP_OWNER_HOLDERS | CMM_MP_OWNER_SHARED))
		return CMM_MP_OWNER_BAD;
	if (nr_hosts < CMM_MP_MAX_HOSTS && h >> nr_hosts)
		return CMM_MP_OWNER_BAD;
	if (low & CMM_MP_OWNER_SHARED)
		return h ? CMM_MP_OWNER_SHARE : CMM_MP_OWNER_BAD;
	if (!h)
		return CMM_MP_OWNER_FREE;
	return h & (h - 1) ? CMM_MP_OWNER_BAD : CMM_MP_OWNER_EXCL;
}

/**
 * cmm_mp_first_host() - the lowest host of a set.
 * @holders: a bit per host, not empty.
 *
 * Return: its id.
 */
u32 cmm_mp_first_host(u32 holders)
{
	u32 h;

	for (h = 0; h < 31 && !(holders & 1U << h); h++)
		;
	return h;
}

/**
 * cmm_mp_owner_name() - an owner word as sysfs shows it.
 * @word: the word.
 * @nr_hosts: hosts sharing the pool.
 * @buf: "none", "host 1", "shared 0,1" or "invalid 0x...".
 * @len: size of @buf.
 *
 * Return: the length written, as snprintf().
 */
int cmm_mp_owner_name(u64 word, u32 nr_hosts, char *buf, size_t len)
{
	u32 holders, h;
	int n;

	switch (cmm_mp_owner_decode(word, nr_hosts, &holders)) {
	case CMM_MP_OWNER_FREE:
		return snprintf(buf, len, "none");
	case CMM_MP_OWNER_EXCL:
		return snprintf(buf, len, "host %u", cmm_mp_first_host(holders));
	case CMM_MP_OWNER_SHARE:
		n = snprintf(buf, len, "shared");
		for (h = 0; h < CMM_MP_MAX_HOSTS; h++) {
			if (!(holders & 1U << h))
				continue;
			/* Counts on past a full @buf, as snprintf() does. */
			n += snprintf((size_t)n < len ? buf + n : NULL,
				      (size_t)n < len ? len - n : 0, "%s%u",
				      n == 6 ? " " : ",", h);
		}
		return n;
	default:
		return snprintf(buf, len, "invalid 0x%llx", word);
	}
}

static u64 owner_word(u64 cur, enum cmm_mp_owner_kind kind, u32 holders)
{
	u32 seq = (u32)(cur >> CMM_MP_OWNER_SEQ_SHIFT) + 1;

	if (kind == CMM_MP_OWNER_SHARE && !holders)
		kind = CMM_MP_OWNER_FREE;
	return cmm_mp_owner_encode(kind, holders, seq);
}

/**
 * cmm_mp_owner_next() - what an operation writes to an owner word.
 * @cur: the word as read.
 * @op: the operation of host @me.
 * @me: this host.
 * @nr_hosts: hosts sharing the pool.
 * @alive: the hosts this host holds alive, a bit per host (@me counts as
 *	alive whatever the bit says).
 * @next: the word to compare-and-exchange @cur for (WRITE, TAKEOVER).
 * @other: the other hosts concerned: the live holders (BUSY; @me's bit
 *	alone when @me holds it the other way), the dead ones taken from
 *	(TAKEOVER), the holders found (LOST, CORRUPT).
 *
 * Claiming takes a free segment, or one that only dead hosts hold;
 * sharing joins the sharers (dropping the dead ones) or takes a segment
 * that a dead host held exclusively.  Releasing or unsharing what this
 * host does not hold (a host that held it took it over while this host
 * was thought dead) writes nothing.
 *
 * Return: the verdict.
 */
enum cmm_mp_owner_verdict cmm_mp_owner_next(u64 cur, enum cmm_mp_owner_op op,
					    u32 me, u32 nr_hosts, u32 alive,
					    u64 *next, u32 *other)
{
	enum cmm_mp_owner_kind kind;
	u32 holders, mine = 1U << me, live, dead;

	kind = cmm_mp_owner_decode(cur, nr_hosts, &holders);
	alive |= mine;
	live = holders & alive & ~mine;
	dead = holders & ~alive;
	*next = cur;
	*other = holders;
	if (kind == CMM_MP_OWNER_BAD)
		return CMM_MP_OWN_CORRUPT;

	switch (op) {
	case CMM_MP_OWN_CLAIM:
		if (kind == CMM_MP_OWNER_EXCL && holders == mine)
			return CMM_MP_OWN_HELD;
		if (live || holders & mine) {
			*other = live ? live : mine;
			return CMM_MP_OWN_BUSY;
		}
		*next = owner_word(cur, CMM_MP_OWNER_EXCL, mine);
		*other = dead;
		return dead ? CMM_MP_OWN_TAKEOVER : CMM_MP_OWN_WRITE;
	case CMM_MP_OWN_SHARE:
		if (kind == CMM_MP_OWNER_SHARE && holders & mine)
			return CMM_MP_OWN_HELD;
		if (kind == CMM_MP_OWNER_EXCL && (live || holders & mine)) {
			*other = live ? live : mine;
			return CMM_MP_OWN_BUSY;
		}
		*next = owner_word(cur, CMM_MP_OWNER_SHARE, live | mine);
		*other = dead;
		return dead ? CMM_MP_OWN_TAKEOVER : CMM_MP_OWN_WRITE;
	case CMM_MP_OWN_RELEASE:
		if (kind != CMM_MP_OWNER_EXCL || holders != mine)
			return CMM_MP_OWN_LOST;
		*next = owner_word(cur, CMM_MP_OWNER_FREE, 0);
		return CMM_MP_OWN_WRITE;
	case CMM_MP_OWN_UNSHARE:
		if (kind != CMM_MP_OWNER_SHARE || !(holders & mine))
			return CMM_MP_OWN_LOST;
		*next = owner_word(cur, CMM_MP_OWNER_SHARE, holders & ~mine);
		return CMM_MP_OWN_WRITE;
	}
	return CMM_MP_OWN_CORRUPT;
}

/**
 * cmm_mp_lease_observe() - another host's liveness, from its heartbeat.
 * @l: what this host saw of it so far; updated.
 * @heartbeat: its heartbeat word now.
 * @now_ms: local time, ms, monotonic.
 * @lease_ms: the lease.
 *
 * A host is alive from the moment its heartbeat is seen with a new value
 * until it has been seen unchanged for @lease_ms: a heartbeat seen for
 * the first time counts as new, so a host that just loaded waits a whole
 * lease before it takes anything from another.
 *
 * Return: its liveness.
 */
enum cmm_mp_liveness cmm_mp_lease_observe(struct cmm_mp_lease *l,
					  u64 heartbeat, u64 now_ms,
					  u32 lease_ms)
{
	if (!heartbeat) {
		l->seen = false;
		return CMM_MP_HOST_ABSENT;
	}
	if (!l->seen || l->heartbeat != heartbeat) {
		l->heartbeat = heartbeat;
		l->changed_ms = now_ms;
		l->seen = true;
		return CMM_MP_HOST_ALIVE;
	}
	return now_ms - l->changed_ms >= lease_ms ? CMM_MP_HOST_DEAD :
						    CMM_MP_HOST_ALIVE;
}
