// SPDX-License-Identifier: GPL-2.0
/*
 * cmm_mp: several hosts sharing one pool (hosts > 1).
 *
 * On the real device the pool's control plane (who owns which segment) is
 * the devices' firmware, reached over Ethernet.  The emulation keeps it in
 * the pool memory itself: the pool's last 2 MiB granule is a control area
 * that every host memremap()s write-back, with a magic word, a heartbeat
 * word per host and an owner word per segment (cmm_mp_owner.h).  Guests
 * of one machine sharing the pool's backing file see each other's stores;
 * a 64-bit compare-and-exchange of one guest is atomic against the others'
 * (under TCG, with MTTCG, a guest's lock cmpxchg is a host atomic).
 *
 * Each host bumps its heartbeat every lease_ms / 4 from a delayed work and
 * reads the others' at the same time: a host whose heartbeat this host has
 * seen unchanged for lease_ms (local time) is dead, and the segments it
 * held can be taken.  Every change of an owner word is a compare-and-
 * exchange loop on the word as read, deciding with cmm_mp_owner_next().
 */
#define pr_fmt(fmt) "cmm_mp: " fmt

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/workqueue.h>

#include "cmm_mp.h"

/*
 * The words are little-endian in the layout: the module builds for x86
 * only (asm/e820), whose u64 is, so they are used as u64 directly.
 */
static u64 *cmm_mp_ctl_word(struct cmm_mp_pool *pool, u32 idx)
{
	return &pool->ctl[idx];
}

static u64 *cmm_mp_heartbeat_word(struct cmm_mp_pool *pool, u32 host)
{
	return cmm_mp_ctl_word(pool, CMM_MP_CTL_HEARTBEAT_WORD + host);
}

static u64 cmm_mp_now_ms(void)
{
	return jiffies64_to_msecs(get_jiffies_64());
}

/**
 * cmm_mp_hosts_alive() - read every heartbeat and decide who is alive.
 * @pool: the pool.
 *
 * Return: the hosts alive, a bit per host; this host always.
 */
u32 cmm_mp_hosts_alive(struct cmm_mp_pool *pool)
{
	u32 h, alive = BIT(pool->host);
	u64 now = cmm_mp_now_ms();

	if (!pool->ctl)
		return alive;
	spin_lock(&pool->lease_lock);
	for (h = 0; h < pool->nr_hosts; h++) {
		u64 beat = READ_ONCE(*cmm_mp_heartbeat_word(pool, h));

		if (h == pool->host) {
			pool->liveness[h] = CMM_MP_HOST_ALIVE;
			continue;
		}
		pool->liveness[h] = cmm_mp_lease_observe(&pool->leases[h], beat,
							 now, pool->lease_ms);
		if (pool->liveness[h] == CMM_MP_HOST_ALIVE)
			alive |= BIT(h);
	}
	spin_unlock(&pool->lease_lock);
	return alive;
}

static void cmm_mp_heartbeat_fn(struct work_struct *work)
{
	struct cmm_mp_pool *pool = container_of(to_delayed_work(work),
						struct cmm_mp_pool,
						heartbeat_work);

	/* Only this host writes its heartbeat word: a plain store will do. */
	WRITE_ONCE(*cmm_mp_heartbeat_word(pool, pool->host), ++pool->heartbeat);
	cmm_mp_hosts_alive(pool);
	schedule_delayed_work(&pool->heartbeat_work,
			      msecs_to_jiffies(pool->lease_ms / 4));
}

/**
 * cmm_mp_seg_owner_word() - a segment's owner word as it is now.
 * @seg: the segment; its pool has a control area.
 *
 * Return: the word.
 */
u64 cmm_mp_seg_owner_word(struct cmm_mp_segment *seg)
{
	return READ_ONCE(*cmm_mp_ctl_word(seg->pool,
					  CMM_MP_CTL_OWNER_WORD + seg->id));
}

static void cmm_mp_log_takeover(struct cmm_mp_segment *seg, u32 from, u64 old,
				u64 new)
{
	struct cmm_mp_pool *pool = seg->pool;
	u32 h;

	for (h = 0; h < pool->nr_hosts; h++) {
		if (!(from & BIT(h)))
			continue;
		pr_info("took segment %u from host %u: lease expired\n",
			seg->id, h);
		trace_takeover(seg->id, h, pool->host, old, new);
	}
	atomic64_inc(&pool->takeovers);
}

/**
 * cmm_mp_seg_own() - change this host's hold on a segment's owner word.
 * @seg: the segment.  Called under pool->lock, or at init and exit.
 * @op: claim (before onlining), release (after offlining), share (before
 *	exporting) or unshare (after revoking).
 * @fresh: if not NULL, set to whether the segment's memory is nobody's
 *	data: it was free or onlined by a (dead) host, not shared by others.
 *
 * A compare-and-exchange loop: when another host changed the word between
 * the read and the exchange, the exchange fails and the word it returns is
 * decided again.  With one host there is no control area and every
 * operation succeeds.
 *
 * Return: 0 on success; -EBUSY when a live host (or this one, the other
 * way) holds the segment, nothing changed; -EIO for a corrupt owner word.
 */
int cmm_mp_seg_own(struct cmm_mp_segment *seg, enum cmm_mp_owner_op op,
		   bool *fresh)
{
	struct cmm_mp_pool *pool = seg->pool;
	enum cmm_mp_owner_verdict v;
	u64 *word, cur, next, old;
	u32 other, holders;

	if (fresh)
		*fresh = true;
	if (!pool->ctl)
		return 0;
	word = cmm_mp_ctl_word(pool, CMM_MP_CTL_OWNER_WORD + seg->id);
	cur = READ_ONCE(*word);
	for (;;) {
		v = cmm_mp_owner_next(cur, op, pool->host, pool->nr_hosts,
				      cmm_mp_hosts_alive(pool), &next, &other);
		if (v != CMM_MP_OWN_WRITE && v != CMM_MP_OWN_TAKEOVER)
			break;
		old = cmpxchg64(word, cur, next);
		if (old == cur)
			break;
		cur = old;
	}

	switch (v) {
	case CMM_MP_OWN_TAKEOVER:
		cmm_mp_log_takeover(seg, other, cur, next);
		fallthrough;
	case CMM_MP_OWN_WRITE:
		if (fresh)
			*fresh = cmm_mp_owner_decode(cur, pool->nr_hosts,
						     &holders) !=
				 CMM_MP_OWNER_SHARE;
		return 0;
	case CMM_MP_OWN_HELD:
		if (fresh)
			*fresh = false;
		return 0;
	case CMM_MP_OWN_BUSY:
		atomic64_inc(&seg->failures);
		if (other == BIT(pool->host))
			return -EBUSY;
		pr_info("segment %u: owned by host %u (%s), which is alive: refused\n",
			seg->id, cmm_mp_first_host(other),
			cmm_mp_owner_decode(cur, pool->nr_hosts, &holders) ==
				CMM_MP_OWNER_SHARE ? "shared" : "online");
		return -EBUSY;
	case CMM_MP_OWN_LOST:
		pr_warn("segment %u: host %u took it while this host held it (this host's lease had expired)\n",
			seg->id, other ? cmm_mp_first_host(other) : pool->host);
		return 0;
	case CMM_MP_OWN_CORRUPT:
	default:
		atomic64_inc(&seg->failures);
		pr_err("segment %u: owner word 0x%llx is invalid: left alone\n",
		       seg->id, cur);
		return -EIO;
	}
}

/* Let go of every segment this host holds in the control area. */
static u32 cmm_mp_release_all(struct cmm_mp_pool *pool)
{
	u32 i, holders, n = 0;

	for (i = 0; i < pool->nr_segments; i++) {
		struct cmm_mp_segment *seg = &pool->segments[i];

		switch (cmm_mp_owner_decode(cmm_mp_seg_owner_word(seg),
					    pool->nr_hosts, &holders)) {
		case CMM_MP_OWNER_EXCL:
			if (holders == BIT(pool->host) &&
			    !cmm_mp_seg_own(seg, CMM_MP_OWN_RELEASE, NULL))
				n++;
			break;
		case CMM_MP_OWNER_SHARE:
			if (holders & BIT(pool->host) &&
			    !cmm_mp_seg_own(seg, CMM_MP_OWN_UNSHARE, NULL))
				n++;
			break;
		default:
			break;
		}
	}
	return n;
}

/*
 * This host's heartbeat word is not zero at load: a previous instance
 * died without unloading (its VM was killed), or a live host has the same
 * id.  Watch it for a lease: if it moves, the id is taken.
 */
static int cmm_mp_check_host_id(struct cmm_mp_pool *pool, u64 beat)
{
	unsigned long until = jiffies + msecs_to_jiffies(pool->lease_ms);

	pr_info("host %u: heartbeat %llu left in the control area: watching it for %u ms\n",
		pool->host, beat, pool->lease_ms);
	while (time_before(jiffies, until)) {
		msleep(pool->lease_ms / 8);
		if (READ_ONCE(*cmm_mp_heartbeat_word(pool, pool->host)) != beat) {
			pr_err("host=%u: another live host beats with this id: refusing to load (give each host its own host=)\n",
			       pool->host);
			return -EBUSY;
		}
	}
	return 0;
}

/**
 * cmm_mp_hosts_init() - map the control area and start the heartbeat.
 * @pool: the pool, composed, its range claimed; nothing shared or online.
 *
 * The first host to find the magic word zero sets it (compare-and-
 * exchange); a host that finds another magic refuses to load.  What a
 * previous instance of this host left held is released.
 *
 * Return: 0 on success (at once with one host); -ENOMEM when the area
 * cannot be mapped; -EINVAL for a foreign magic word (unless ctl_reset);
 * -EBUSY when a live host already uses this host id.
 */
int cmm_mp_hosts_init(struct cmm_mp_pool *pool)
{
	u64 want, found, beat;
	char msg[200];
	u32 n;
	int ret;

	spin_lock_init(&pool->lease_lock);
	atomic64_set(&pool->takeovers, 0);
	INIT_DELAYED_WORK(&pool->heartbeat_work, cmm_mp_heartbeat_fn);
	if (pool->nr_hosts == 1)
		return 0;

	pool->ctl = cmm_mp_inject(CMM_MP_STEP_CONTROL_AREA) ? NULL :
		memremap(pool->ctl_phys, CMM_MP_CTL_BYTES, MEMREMAP_WB);
	if (!pool->ctl) {
		pr_err("cannot map the control area at 0x%llx\n",
		       pool->ctl_phys);
		return -ENOMEM;
	}
	want = cmm_mp_ctl_magic(pool->nr_hosts, pool->nr_segments);
	found = cmpxchg64(cmm_mp_ctl_word(pool, CMM_MP_CTL_MAGIC_WORD), 0, want);
	if (found && cmm_mp_ctl_magic_check(found, want, msg, sizeof(msg))) {
		if (!pool->ctl_reset) {
			pr_err("control area at 0x%llx: %s: refusing to load (ctl_reset=1 overwrites it, on the first host only)\n",
			       pool->ctl_phys, msg);
			ret = -EINVAL;
			goto err_unmap;
		}
		pr_warn("control area at 0x%llx: %s: overwritten (ctl_reset)\n",
			pool->ctl_phys, msg);
		memset(pool->ctl + 1, 0, CMM_MP_CTL_BYTES - sizeof(u64));
		if (cmpxchg64(cmm_mp_ctl_word(pool, CMM_MP_CTL_MAGIC_WORD),
			      found, want) != found) {
			pr_err("control area at 0x%llx: changed while being reset: refusing to load\n",
			       pool->ctl_phys);
			ret = -EBUSY;
			goto err_unmap;
		}
		found = 0;
	}
	pr_info("control area at 0x%llx: %s, host %u of %u, lease %u ms\n",
		pool->ctl_phys, found ? "joined" : "initialised", pool->host,
		pool->nr_hosts, pool->lease_ms);

	beat = READ_ONCE(*cmm_mp_heartbeat_word(pool, pool->host));
	if (beat) {
		ret = cmm_mp_check_host_id(pool, beat);
		if (ret)
			goto err_unmap;
	}
	n = cmm_mp_release_all(pool);
	if (n)
		pr_info("host %u: released %u segments a previous instance held\n",
			pool->host, n);
	pool->heartbeat = beat;
	cmm_mp_heartbeat_fn(&pool->heartbeat_work.work);
	return 0;

err_unmap:
	memunmap(pool->ctl);
	pool->ctl = NULL;
	return ret;
}

/**
 * cmm_mp_hosts_exit() - undo cmm_mp_hosts_init().
 * @pool: the pool; nothing is online (each online segment holds a module
 *	reference); segments still shared are let go here.
 *
 * The heartbeat word goes to 0: the other hosts see this host absent at
 * once, instead of after a lease.
 */
void cmm_mp_hosts_exit(struct cmm_mp_pool *pool)
{
	u64 *ctl = pool->ctl;
	u32 n;

	if (!ctl)
		return;
	cancel_delayed_work_sync(&pool->heartbeat_work);
	n = cmm_mp_release_all(pool);
	if (n)
		pr_info("host %u: let go of %u shared segments\n", pool->host,
			n);
	WRITE_ONCE(*cmm_mp_heartbeat_word(pool, pool->host), 0);
	/* Fault injection writes to the area under pool->lock. */
	mutex_lock(&pool->lock);
	pool->ctl = NULL;
	mutex_unlock(&pool->lock);
	memunmap(ctl);
}

/**
 * cmm_mp_fill_hosts() - describe the hosts sharing the pool.
 * @pool: the pool.
 * @h: filled.
 */
void cmm_mp_fill_hosts(struct cmm_mp_pool *pool, struct cmm_mp_hosts *h)
{
	static const u8 state[] = {
		[CMM_MP_HOST_ABSENT] = CMM_MP_HOST_STATE_ABSENT,
		[CMM_MP_HOST_ALIVE] = CMM_MP_HOST_STATE_ALIVE,
		[CMM_MP_HOST_DEAD] = CMM_MP_HOST_STATE_DEAD,
	};
	u32 i;

	memset(h, 0, sizeof(*h));
	h->host = pool->host;
	h->nr_hosts = pool->nr_hosts;
	h->lease_ms = pool->lease_ms;
	h->alive = cmm_mp_hosts_alive(pool);
	h->takeovers = atomic64_read(&pool->takeovers);
	if (!pool->ctl) {
		h->state[pool->host] = CMM_MP_HOST_STATE_ALIVE;
		return;
	}
	spin_lock(&pool->lease_lock);
	for (i = 0; i < pool->nr_hosts; i++) {
		h->state[i] = state[pool->liveness[i]];
		h->heartbeat[i] = i == pool->host ? pool->heartbeat :
			pool->leases[i].heartbeat;
	}
	spin_unlock(&pool->lease_lock);
}
