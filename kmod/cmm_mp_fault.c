// SPDX-License-Identifier: GPL-2.0
/*
 * cmm_mp: device failure injection (CONFIG_CMM_MP_FAULT_INJECTION), and
 * a stand-in for another host of a multi-host pool (inject_peer).
 *
 * A failed device's memory is gone as far as this host is concerned: its
 * shared segments' mappings are revoked (accesses get SIGBUS until it
 * recovers) and its online segments are offlined, their pages migrated to
 * other memory.  The emulation cannot make RAM disappear under the kernel:
 * a segment whose pages cannot be migrated stays online and is reported.
 */
#define pr_fmt(fmt) "cmm_mp: " fmt

#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "cmm_mp.h"

/**
 * cmm_mp_device_fail() - fail a device.
 * @pool: the pool.
 * @f: in: device, flags (0); out: what happened to its segments.
 *
 * Return: 0 on success; -ENOENT for no such device; -EINVAL for flags;
 * -EINTR when a signal came while waiting for another operation; -EBUSY
 * when some online segment could not be offlined.
 */
int cmm_mp_device_fail(struct cmm_mp_pool *pool, struct cmm_mp_fault *f)
{
	struct cmm_mp_device *dev;
	u32 i;
	int ret;

	if (f->flags)
		return -EINVAL;
	if (f->device >= pool->nr_devices)
		return -ENOENT;
	dev = &pool->devices[f->device];

	ret = mutex_lock_interruptible(&pool->lock);
	if (ret)
		return ret;
	if (!dev->failed) {
		/* New faults see it failed before the old PTEs go. */
		down_write(&pool->map_lock);
		WRITE_ONCE(dev->failed, true);
		up_write(&pool->map_lock);
		atomic64_inc(&dev->failures);
	}
	f->segments_offlined = 0;
	f->segments_revoked = 0;
	f->segments_busy = 0;
	f->first_busy = CMM_MP_NONE;
	for (i = dev->first_seg; i < dev->first_seg + dev->nr_segs; i++) {
		struct cmm_mp_segment *seg = &pool->segments[i];

		switch (cmm_mp_seg_state(seg)) {
		case CMM_MP_SEG_SHARED:
			cmm_mp_seg_zap(seg);
			f->segments_revoked++;
			break;
		case CMM_MP_SEG_ADDED:
		case CMM_MP_SEG_ONLINE:
			if (!cmm_mp_seg_hotremove(seg)) {
				f->segments_offlined++;
				break;
			}
			if (!f->segments_busy++)
				f->first_busy = seg->id;
			break;
		case CMM_MP_SEG_OFFLINE:
			break;
		}
	}
	mutex_unlock(&pool->lock);

	trace_device_fail(dev->id, dev->chip_id, true, f->segments_offlined,
			  f->segments_revoked, f->segments_busy);
	if (f->segments_busy)
		pr_warn("device %u (chip 0x%llx) failed: %u segments offlined, %u shared revoked, %u still online (first: %u)\n",
			dev->id, dev->chip_id, f->segments_offlined,
			f->segments_revoked, f->segments_busy, f->first_busy);
	else
		pr_info("device %u (chip 0x%llx) failed: %u segments offlined, %u shared revoked\n",
			dev->id, dev->chip_id, f->segments_offlined,
			f->segments_revoked);
	return f->segments_busy ? -EBUSY : 0;
}

/**
 * cmm_mp_device_recover() - bring a failed device back.
 * @pool: the pool.
 * @f: in: device, flags (CMM_MP_RECOVER_WIPE or 0); the counts are zeroed.
 *
 * The device announces itself again (cmm_mp:discovery); its shared
 * segments' mappings work again, wiped with CMM_MP_RECOVER_WIPE.
 *
 * Return: 0 on success; -ENOENT for no such device; -EINVAL for unknown
 * flags; -EINTR when a signal came while waiting for another operation.
 */
int cmm_mp_device_recover(struct cmm_mp_pool *pool, struct cmm_mp_fault *f)
{
	struct cmm_mp_device *dev;
	u32 i;
	int ret;

	if (f->flags & ~CMM_MP_RECOVER_WIPE)
		return -EINVAL;
	if (f->device >= pool->nr_devices)
		return -ENOENT;
	dev = &pool->devices[f->device];
	f->segments_offlined = 0;
	f->segments_revoked = 0;
	f->segments_busy = 0;
	f->first_busy = CMM_MP_NONE;

	ret = mutex_lock_interruptible(&pool->lock);
	if (ret)
		return ret;
	if (!dev->failed) {
		mutex_unlock(&pool->lock);
		return 0;
	}
	for (i = dev->first_seg; i < dev->first_seg + dev->nr_segs; i++) {
		struct cmm_mp_segment *seg = &pool->segments[i];
		u64 off;

		/* Nothing maps it while the device is failed. */
		if (!(f->flags & CMM_MP_RECOVER_WIPE) || !seg->vaddr)
			continue;
		for (off = 0; off < pool->segment_size; off += SZ_2M) {
			memset(seg->vaddr + off, 0, SZ_2M);
			cond_resched();
		}
	}
	down_write(&pool->map_lock);
	WRITE_ONCE(dev->failed, false);
	up_write(&pool->map_lock);
	mutex_unlock(&pool->lock);

	cmm_mp_announce(dev);
	trace_device_fail(dev->id, dev->chip_id, false, 0, 0, 0);
	pr_info("device %u (chip 0x%llx) recovered%s\n", dev->id, dev->chip_id,
		f->flags & CMM_MP_RECOVER_WIPE ? ", shared segments wiped" : "");
	return 0;
}

/* Host @h's compare-and-exchange loop on segment @s's owner word. */
static int cmm_mp_inject_own(struct cmm_mp_pool *pool, u32 h, u32 s,
			     enum cmm_mp_owner_op op)
{
	u64 *word = &pool->ctl[CMM_MP_CTL_OWNER_WORD + s];
	u64 cur = READ_ONCE(*word), next, old;
	enum cmm_mp_owner_verdict v;
	u32 other;

	for (;;) {
		/* Everybody alive: the peer takes nothing from anybody. */
		v = cmm_mp_owner_next(cur, op, h, pool->nr_hosts, U32_MAX,
				      &next, &other);
		if (v == CMM_MP_OWN_HELD)
			return 0;
		if (v != CMM_MP_OWN_WRITE)
			return -EBUSY;
		old = cmpxchg64(word, cur, next);
		if (old == cur)
			return 0;
		cur = old;
	}
}

/**
 * cmm_mp_inject_peer() - act as another host in the control area.
 * @pool: the pool.
 * @cmd: "H beat" (bump host H's heartbeat), "H own S" (make host H the
 *	owner of free segment S) or "H share S" (add host H to segment S's
 *	sharers), H not this host.
 *
 * Lets a VM test with one guest check what another host's presence does:
 * refusal while it beats, takeover once it stops.
 *
 * Return: 0 on success; -ENODEV without a control area (one host, or not
 * loaded yet); -EINVAL for a malformed command; -EBUSY when the segment is
 * not free (own) or onlined by a host (share); -EINTR on a signal.
 */
int cmm_mp_inject_peer(struct cmm_mp_pool *pool, const char *cmd)
{
	char verb[8];
	u32 h, s = 0;
	u64 *beat;
	int n, ret;

	n = sscanf(cmd, "%u %7s %u", &h, verb, &s);
	if (n < 2)
		return -EINVAL;
	ret = mutex_lock_interruptible(&pool->lock);
	if (ret)
		return ret;
	ret = -ENODEV;
	if (!pool->ctl)
		goto out_unlock;
	ret = -EINVAL;
	if (h >= pool->nr_hosts || h == pool->host)
		goto out_unlock;
	if (n == 2 && !strcmp(verb, "beat")) {
		beat = &pool->ctl[CMM_MP_CTL_HEARTBEAT_WORD + h];
		WRITE_ONCE(*beat, READ_ONCE(*beat) + 1);
		ret = 0;
	} else if (n == 3 && s < pool->nr_segments && !strcmp(verb, "own")) {
		ret = cmm_mp_inject_own(pool, h, s, CMM_MP_OWN_CLAIM);
	} else if (n == 3 && s < pool->nr_segments && !strcmp(verb, "share")) {
		ret = cmm_mp_inject_own(pool, h, s, CMM_MP_OWN_SHARE);
	}
	if (!ret && n == 2)
		pr_info("inject_peer: acting as host %u: beat\n", h);
	else if (!ret)
		pr_info("inject_peer: acting as host %u: %s %u\n", h, verb, s);
out_unlock:
	mutex_unlock(&pool->lock);
	return ret;
}
