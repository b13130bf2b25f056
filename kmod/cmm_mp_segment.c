// SPDX-License-Identifier: GPL-2.0
/*
 * cmm_mp: segments hot-added into the pool's node, in the manner of
 * drivers/dax/kmem.c.
 *
 * At load the node gets its memory type (a slower tier) before it ever has
 * memory, the pool's range is claimed in /proc/iomem, and one static memory
 * group spans the segments.  Onlining a segment hot-adds it
 * (add_memory_driver_managed()); a module cannot online memory blocks
 * itself (device_online() is not exported), so userspace writes
 * online_movable to each block, or the kernel does when auto_online_blocks
 * says so.  A memory notifier keeps count of the online pages of every
 * segment and refuses to let pool memory online anywhere but ZONE_MOVABLE:
 * a kernel zone would fill with unmovable allocations and the segment could
 * never be offlined again.  (That refusal is also what stops Debian's 6.12,
 * whose auto_online_blocks is "online", from putting a new segment into
 * ZONE_NORMAL on its own.)  Offlining migrates the pages away and removes
 * the memory (offline_and_remove_memory()), or rolls back.
 *
 * A segment that is hot-added holds a reference on the module, so that the
 * module cannot go away while the kernel uses its memory.
 */
#define pr_fmt(fmt) "cmm_mp: " fmt

#include <linux/ioport.h>
#include <linux/memory.h>
#include <linux/memory_hotplug.h>
#include <linux/memory-tiers.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "cmm_mp.h"
#include "cmm_mp_compat.h"

/* Should be called under pool->state_lock. */
static enum cmm_mp_seg_state __cmm_mp_seg_state(struct cmm_mp_segment *seg)
{
	struct cmm_mp_pool *pool = seg->pool;
	unsigned long pages_per_block = pool->block_size >> PAGE_SHIFT;

	if (seg->shared)
		return CMM_MP_SEG_SHARED;
	return cmm_mp_seg_state_of(seg->added,
				   seg->online_pages / pages_per_block,
				   pool->segment_size / pool->block_size);
}

/**
 * cmm_mp_seg_state() - a segment's state.
 * @seg: the segment.
 *
 * Return: its enum cmm_mp_seg_state.
 */
enum cmm_mp_seg_state cmm_mp_seg_state(struct cmm_mp_segment *seg)
{
	enum cmm_mp_seg_state state;

	spin_lock(&seg->pool->state_lock);
	state = __cmm_mp_seg_state(seg);
	spin_unlock(&seg->pool->state_lock);
	return state;
}

/**
 * cmm_mp_seg_online_blocks() - how many of a segment's blocks are online.
 * @seg: the segment.
 *
 * Return: the number of its memory blocks that are online.
 */
u32 cmm_mp_seg_online_blocks(struct cmm_mp_segment *seg)
{
	struct cmm_mp_pool *pool = seg->pool;
	unsigned long pages;

	spin_lock(&pool->state_lock);
	pages = seg->online_pages;
	spin_unlock(&pool->state_lock);
	return pages / (pool->block_size >> PAGE_SHIFT);
}

static void cmm_mp_seg_traced(struct cmm_mp_segment *seg,
			      enum cmm_mp_seg_state old,
			      enum cmm_mp_seg_state new)
{
	if (old != new)
		trace_segment_state(seg->id, seg->device->id, old, new);
}

/* Sets seg->added and traces the state change. */
static void cmm_mp_seg_set_added(struct cmm_mp_segment *seg, bool added)
{
	enum cmm_mp_seg_state old, new;

	spin_lock(&seg->pool->state_lock);
	old = __cmm_mp_seg_state(seg);
	seg->added = added;
	new = __cmm_mp_seg_state(seg);
	spin_unlock(&seg->pool->state_lock);
	cmm_mp_seg_traced(seg, old, new);
}

static int cmm_mp_memory_notify(struct notifier_block *nb,
				unsigned long action, void *data)
{
	struct cmm_mp_pool *pool = container_of(nb, struct cmm_mp_pool,
						memory_nb);
	u64 end = pool->base + (u64)pool->nr_segments * pool->segment_size;
	struct memory_notify *arg = data;
	u64 phys = PFN_PHYS(arg->start_pfn);
	enum cmm_mp_seg_state old, new;
	struct cmm_mp_segment *seg;

	if (phys < pool->base || phys >= end)
		return NOTIFY_DONE;
	seg = &pool->segments[div64_u64(phys - pool->base, pool->segment_size)];

	switch (action) {
	case MEM_GOING_ONLINE:
		/* The pages are in their zone already, not yet online. */
		if (zone_idx(page_zone(pfn_to_page(arg->start_pfn))) == ZONE_MOVABLE)
			return NOTIFY_OK;
		/*
		 * During our own hot-add this is the kernel onlining the new
		 * blocks by itself (auto_online_blocks): expected, so quiet.
		 */
		if (!READ_ONCE(seg->hotadding)) {
			pr_warn_ratelimited("segment %u: memory at 0x%llx onlines only as online_movable\n",
					    seg->id, phys);
			atomic64_inc(&seg->failures);
		}
		return notifier_from_errno(-EINVAL);
	case MEM_ONLINE:
	case MEM_OFFLINE:
		spin_lock(&pool->state_lock);
		old = __cmm_mp_seg_state(seg);
		if (action == MEM_ONLINE)
			seg->online_pages += arg->nr_pages;
		else
			seg->online_pages -= arg->nr_pages;
		new = __cmm_mp_seg_state(seg);
		spin_unlock(&pool->state_lock);
		cmm_mp_seg_traced(seg, old, new);
		break;
	}
	return NOTIFY_OK;
}

/**
 * cmm_mp_segments_init() - set up the node, the range and the memory group.
 * @pool: the pool, composed, its node validated as usable.
 *
 * Return: 0 on success, negative error code otherwise.
 */
int cmm_mp_segments_init(struct cmm_mp_pool *pool)
{
	int ret;

	pool->mtype = cmm_mp_inject(CMM_MP_STEP_MEMORY_TYPE) ? ERR_PTR(-ENOMEM) :
		alloc_memory_type(pool->adistance);
	if (IS_ERR(pool->mtype))
		return PTR_ERR(pool->mtype);
	/* Before the node has memory, or it lands in the DRAM tier for good. */
	init_node_memory_type(pool->node, pool->mtype);

	pool->res = cmm_mp_inject(CMM_MP_STEP_REGION) ? NULL :
		request_mem_region(pool->base, pool->size, CMM_MP_POOL_NAME);
	if (!pool->res) {
		pr_err("cannot claim 0x%llx-0x%llx in /proc/iomem: in use\n",
		       pool->base, pool->base + pool->size - 1);
		ret = -EBUSY;
		goto err_clear_node_type;
	}
	/*
	 * Not busy, so that hot-added segments nest below it as System RAM;
	 * and not System RAM itself, so that shared segments can be
	 * memremap()ed.
	 */
	pool->res->flags = IORESOURCE_MEM;

	ret = cmm_mp_inject(CMM_MP_STEP_MEMORY_GROUP) ? -ENOMEM :
		memory_group_register_static(pool->node, PFN_UP(pool->size));
	if (ret < 0)
		goto err_remove_resource;
	pool->mgid = ret;

	pool->memory_nb.notifier_call = cmm_mp_memory_notify;
	ret = cmm_mp_inject(CMM_MP_STEP_NOTIFIER) ? -ENOMEM :
		register_memory_notifier(&pool->memory_nb);
	if (ret)
		goto err_unregister_group;
	return 0;

err_unregister_group:
	memory_group_unregister(pool->mgid);
err_remove_resource:
	remove_resource(pool->res);
	kfree(pool->res);
err_clear_node_type:
	clear_node_memory_type(pool->node, pool->mtype);
	cmm_mp_put_memory_type(pool->mtype);
	return ret;
}

/**
 * cmm_mp_segments_exit() - undo cmm_mp_segments_init().
 * @pool: the pool; no segment is hot-added (each holds a module reference).
 */
void cmm_mp_segments_exit(struct cmm_mp_pool *pool)
{
	unregister_memory_notifier(&pool->memory_nb);
	memory_group_unregister(pool->mgid);
	remove_resource(pool->res);
	kfree(pool->res);
	clear_node_memory_type(pool->node, pool->mtype);
	cmm_mp_put_memory_type(pool->mtype);
}

/**
 * cmm_mp_seg_hotadd() - hot-add an offline segment into the node.
 * @seg: the segment.  Called under pool->lock.
 *
 * In a multi-host pool the segment is claimed first: nothing is added when
 * another live host holds it.
 *
 * Return: 0 on success; -EBUSY or -EIO from the claim (nothing changed);
 * the error of add_memory_driver_managed() otherwise.
 */
int cmm_mp_seg_hotadd(struct cmm_mp_segment *seg)
{
	struct cmm_mp_pool *pool = seg->pool;
	u64 first_block = div64_u64(seg->phys, pool->block_size);
	int ret;

	ret = cmm_mp_seg_own(seg, CMM_MP_OWN_CLAIM, NULL);
	if (ret)
		return ret;

	/* Before the blocks exist: the kernel may online them right away. */
	cmm_mp_seg_set_added(seg, true);
	WRITE_ONCE(seg->hotadding, true);
	__module_get(THIS_MODULE);
	ret = add_memory_driver_managed(pool->mgid, seg->phys, pool->segment_size,
					CMM_MP_RAM_NAME, MHP_NID_IS_MGID);
	WRITE_ONCE(seg->hotadding, false);
	if (ret) {
		module_put(THIS_MODULE);
		cmm_mp_seg_set_added(seg, false);
		atomic64_inc(&seg->failures);
		pr_err("segment %u: hot-add of 0x%llx-0x%llx failed: %d\n",
		       seg->id, seg->phys, seg->phys + pool->segment_size - 1,
		       ret);
		cmm_mp_seg_own(seg, CMM_MP_OWN_RELEASE, NULL);
		return ret;
	}
	WRITE_ONCE(seg->owner, task_tgid_nr(current));
	pr_info("segment %u: added to node %d as memory blocks %llu-%llu\n",
		seg->id, pool->node, first_block,
		first_block + div64_u64(pool->segment_size, pool->block_size) - 1);
	return 0;
}

/**
 * cmm_mp_seg_hotremove() - offline a hot-added segment and remove it.
 * @seg: the segment.  Called under pool->lock.
 *
 * The kernel migrates the segment's pages to other memory, retrying until
 * it succeeds or the calling task gets a signal; on failure it puts the
 * blocks back online as they were, so the data stays where it was.
 *
 * Return: 0 on success, -EBUSY when the segment stays online.
 */
int cmm_mp_seg_hotremove(struct cmm_mp_segment *seg)
{
	struct cmm_mp_pool *pool = seg->pool;
	int ret;

	ret = offline_and_remove_memory(seg->phys, pool->segment_size);
	if (ret) {
		atomic64_inc(&seg->failures);
		pr_warn("segment %u: not offlined (%d): its pages could not all be migrated; it stays online\n",
			seg->id, ret);
		return -EBUSY;
	}
	cmm_mp_seg_set_added(seg, false);
	WRITE_ONCE(seg->owner, 0);
	cmm_mp_seg_own(seg, CMM_MP_OWN_RELEASE, NULL);
	module_put(THIS_MODULE);
	pr_info("segment %u: offline\n", seg->id);
	return 0;
}

/**
 * cmm_mp_seg_holding() - who holds a segment in the pool.
 * @seg: the segment.
 * @holders: the holding hosts, a bit per host.
 *
 * With several hosts, from its owner word; with one, from its state.
 *
 * Return: its enum cmm_mp_holding.
 */
enum cmm_mp_holding cmm_mp_seg_holding(struct cmm_mp_segment *seg,
				       u32 *holders)
{
	struct cmm_mp_pool *pool = seg->pool;

	if (!pool->ctl) {
		*holders = BIT(pool->host);
		switch (cmm_mp_seg_state(seg)) {
		case CMM_MP_SEG_OFFLINE:
			*holders = 0;
			return CMM_MP_HOLD_NONE;
		case CMM_MP_SEG_SHARED:
			return CMM_MP_HOLD_SHARED;
		default:
			return CMM_MP_HOLD_EXCLUSIVE;
		}
	}
	switch (cmm_mp_owner_decode(cmm_mp_seg_owner_word(seg), pool->nr_hosts,
				    holders)) {
	case CMM_MP_OWNER_FREE:
		return CMM_MP_HOLD_NONE;
	case CMM_MP_OWNER_EXCL:
		return CMM_MP_HOLD_EXCLUSIVE;
	case CMM_MP_OWNER_SHARE:
		return CMM_MP_HOLD_SHARED;
	default:
		return CMM_MP_HOLD_INVALID;
	}
}

/**
 * cmm_mp_fill_segment() - describe a segment.
 * @seg: the segment.
 * @info: filled.
 */
void cmm_mp_fill_segment(struct cmm_mp_segment *seg,
			 struct cmm_mp_segment_info *info)
{
	struct cmm_mp_pool *pool = seg->pool;
	u32 holders;

	memset(info, 0, sizeof(*info));
	info->id = seg->id;
	info->state = cmm_mp_seg_state(seg);
	info->device = seg->device->id;
	if (seg->device->id == pool->self)
		info->flags |= CMM_MP_SEGMENT_LOCAL;
	if (READ_ONCE(seg->device->failed))
		info->flags |= CMM_MP_SEGMENT_DEV_FAILED;
	info->phys = seg->phys;
	info->nha = seg->nha;
	info->dev_offset = seg->dev_offset;
	info->bytes = pool->segment_size;
	/* Segments start at pool offset 0, so this is id * segment_size. */
	info->mmap_offset = seg->nha;
	info->first_block = div64_u64(seg->phys, pool->block_size);
	info->nr_blocks = div64_u64(pool->segment_size, pool->block_size);
	info->online_blocks = cmm_mp_seg_online_blocks(seg);
	info->mappings = atomic_read(&seg->mappings);
	info->owner = READ_ONCE(seg->owner);
	info->holding = cmm_mp_seg_holding(seg, &holders);
	info->holders = holders;
	info->lookups = atomic64_read(&seg->lookups);
	info->failures = atomic64_read(&seg->failures);
}

/**
 * cmm_mp_seg_op() - online (hot-add), offline or share a segment.
 * @pool: the pool.
 * @op: the operation.
 * @info: in: the segment id; out: the segment afterwards, also on -EBUSY.
 *
 * Return: 0 on success; -ENOENT for no such segment; -EINTR when a signal
 * came while waiting for another operation; -EBUSY when the segment is in
 * use the other way or could not be offlined; -EIO when its device has
 * failed; the hot-add's or the export's error otherwise.
 */
int cmm_mp_seg_op(struct cmm_mp_pool *pool, enum cmm_mp_seg_op op,
		  struct cmm_mp_segment_info *info)
{
	struct cmm_mp_segment *seg;
	int ret;

	if (info->id >= pool->nr_segments)
		return -ENOENT;
	seg = &pool->segments[info->id];

	ret = mutex_lock_interruptible(&pool->lock);
	if (ret)
		return ret;
	ret = cmm_mp_seg_plan(cmm_mp_seg_state(seg), op,
			      READ_ONCE(seg->device->failed));
	switch (ret) {
	case CMM_MP_DO_NOTHING:
		ret = 0;
		break;
	case CMM_MP_DO_HOTADD:
		ret = cmm_mp_seg_hotadd(seg);
		break;
	case CMM_MP_DO_HOTREMOVE:
		ret = cmm_mp_seg_hotremove(seg);
		break;
	case CMM_MP_DO_EXPORT:
		ret = cmm_mp_seg_export(seg);
		break;
	case CMM_MP_DO_REVOKE:
		cmm_mp_seg_revoke(seg);
		ret = 0;
		break;
	default:
		atomic64_inc(&seg->failures);
		break;
	}
	mutex_unlock(&pool->lock);
	cmm_mp_fill_segment(seg, info);
	return ret;
}
