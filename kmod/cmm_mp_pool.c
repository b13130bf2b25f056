// SPDX-License-Identifier: GPL-2.0
/*
 * cmm_mp: the pool's range, its devices and the PAMT.
 *
 * The pool lives in host RAM that the firmware reported as usable and the
 * kernel command line took away with memmap=SIZE$BASE: the e820 table the
 * firmware passed (e820__mapped_raw_any()) says RAM, the kernel's says
 * reserved, and /proc/iomem has a "Reserved" region there.  Blocks that
 * the firmware itself reserved (its ACPI tables sit at the top of low RAM,
 * which in the VM bench is the end of the pool's node) are never used.
 */
#define pr_fmt(fmt) "cmm_mp: " fmt

#include <linux/ioport.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <asm/e820/api.h>

#include "cmm_mp.h"
#include "cmm_mp_compat.h"

/* The e820 types that are not RAM (all but E820_TYPE_RAM). */
static const enum e820_type cmm_mp_not_ram[] = {
	E820_TYPE_RESERVED, E820_TYPE_ACPI, E820_TYPE_NVS, E820_TYPE_UNUSABLE,
	E820_TYPE_PMEM, E820_TYPE_PRAM, E820_TYPE_SOFT_RESERVED,
};

/*
 * RAM to the firmware, reserved to the running kernel: what memmap= makes.
 * @why, if not NULL, gets the reason a block is not.
 */
static bool cmm_mp_block_is_memmap(u64 addr, u64 size, const char **why)
{
	unsigned int i;

	if (!e820__mapped_raw_any(addr, addr + size, E820_TYPE_RAM)) {
		*why = "is not RAM in the firmware's memory map (e820)";
		return false;
	}
	for (i = 0; i < ARRAY_SIZE(cmm_mp_not_ram); i++) {
		if (e820__mapped_raw_any(addr, addr + size, cmm_mp_not_ram[i])) {
			*why = "holds memory the firmware reserved (e820), such as its ACPI tables";
			return false;
		}
	}
	if (e820__mapped_any(addr, addr + size, E820_TYPE_RAM)) {
		*why = "is System RAM of the running kernel (not reserved with memmap=)";
		return false;
	}
	if (region_intersects(addr, size, IORESOURCE_MEM, IORES_DESC_RESERVED) !=
	    REGION_INTERSECTS) {
		*why = "is not wholly inside one \"Reserved\" region of /proc/iomem";
		return false;
	}
	return true;
}

/**
 * cmm_mp_node_usable() - whether segments can be onlined into a node.
 * @nid: the node.
 *
 * Its memory type (tier) can only be set before it first has memory.
 *
 * Return: true for a possible node that has no memory yet.
 */
bool cmm_mp_node_usable(int nid)
{
	return nid >= 0 && nid < MAX_NUMNODES && node_possible(nid) &&
	       !node_state(nid, N_MEMORY);
}

struct cmm_mp_find {
	int node;
};

static bool cmm_mp_find_usable(u64 addr, u64 size, void *arg)
{
	struct cmm_mp_find *f = arg;
	const char *why;
	int nid;

	if (!cmm_mp_block_is_memmap(addr, size, &why))
		return false;
	nid = phys_to_target_node(addr);
	if (f->node == NUMA_NO_NODE) {
		if (!cmm_mp_node_usable(nid))
			return false;
		f->node = nid;
	}
	return nid == f->node;
}

struct cmm_mp_walk {
	u64 block_size;
	u64 base;
	u64 size;
	int node;
};

static int cmm_mp_walk_reserved(struct resource *res, void *arg)
{
	struct cmm_mp_walk *w = arg;
	struct cmm_mp_find f = { .node = NUMA_NO_NODE };
	u64 base, size;

	if (cmm_mp_find_run(res->start, res->end + 1, w->block_size,
			    cmm_mp_find_usable, &f, &base, &size))
		return 0;
	w->base = base;
	w->size = size;
	w->node = f.node;
	return 1;
}

/**
 * cmm_mp_find_pool_range() - find the pool's range when no pool_base is given.
 * @block_size: the memory block size.
 * @base: the range's first byte.
 * @size: its size, a multiple of @block_size.
 * @node: the node it is on.
 *
 * The first run of whole memory blocks that memmap= reserved (RAM to the
 * firmware, reserved to the kernel) on a possible node without memory,
 * lowest address first.
 *
 * Return: 0 on success, -ENODEV when there is none.
 */
int cmm_mp_find_pool_range(u64 block_size, u64 *base, u64 *size, int *node)
{
	struct cmm_mp_walk w = { .block_size = block_size };

	if (walk_iomem_res_desc(IORES_DESC_RESERVED, IORESOURCE_MEM, 0, -1, &w,
				cmm_mp_walk_reserved) != 1)
		return -ENODEV;
	*base = w.base;
	*size = w.size;
	*node = w.node;
	return 0;
}

/**
 * cmm_mp_check_pool_range() - check a pool range given as parameters.
 * @base: pool_base, aligned to @block_size.
 * @size: pool_size, a multiple of @block_size.
 * @block_size: the memory block size.
 *
 * Every block must be what memmap= reserves; the first that is not is
 * named in the kernel log.
 *
 * Return: 0 on success, -EINVAL otherwise.
 */
int cmm_mp_check_pool_range(u64 base, u64 size, u64 block_size)
{
	const char *why;
	u64 addr;

	for (addr = base; addr < base + size; addr += block_size) {
		if (!cmm_mp_block_is_memmap(addr, block_size, &why)) {
			pr_err("pool_base/pool_size: the memory block at 0x%llx %s\n",
			       addr, why);
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * cmm_mp_announce() - a device announces itself: the discovery tracepoint.
 * @dev: the device.
 */
void cmm_mp_announce(struct cmm_mp_device *dev)
{
	trace_discovery(dev->id, dev->chip_id, dev->capacity, dev->nha,
			dev->announced);
}

/**
 * cmm_mp_pool_compose() - build devices, segments and the PAMT.
 * @pool: the pool, with its parameters set.
 * @p: the validated parameters, composed (@p->layout).
 *
 * Return: 0 on success, -ENOMEM.
 */
int cmm_mp_pool_compose(struct cmm_mp_pool *pool,
			const struct cmm_mp_params *p)
{
	struct cmm_mp_pamt_entry *entries;
	u32 i, s;
	int ret;

	entries = cmm_mp_inject(CMM_MP_STEP_PAMT) ? NULL :
		kvcalloc(cmm_mp_pamt_nr_entries(pool->size), sizeof(*entries),
			 GFP_KERNEL);
	if (!entries)
		return -ENOMEM;
	cmm_mp_pamt_fill(&pool->pamt, pool->size, entries, p->layout,
			 p->nr_devices);

	ret = -ENOMEM;
	pool->nr_devices = p->nr_devices;
	pool->devices = cmm_mp_inject(CMM_MP_STEP_DEVICES) ? NULL :
		kcalloc(pool->nr_devices, sizeof(*pool->devices), GFP_KERNEL);
	if (!pool->devices)
		goto err_free_pamt;

	pool->nr_segments = p->nr_segments;
	pool->segments = cmm_mp_inject(CMM_MP_STEP_SEGMENTS) ? NULL :
		kvcalloc(pool->nr_segments, sizeof(*pool->segments), GFP_KERNEL);
	if (!pool->segments)
		goto err_free_devices;

	for (i = 0, s = 0; i < pool->nr_devices; i++) {
		struct cmm_mp_device *dev = &pool->devices[i];
		const struct cmm_mp_layout *l = &p->layout[i];

		dev->pool = pool;
		dev->id = i;
		dev->chip_id = l->chip_id;
		dev->capacity = l->capacity;
		dev->nha = l->nha;
		dev->announced = l->announced;
		dev->first_seg = s;
		/* The control area may have taken the last device's tail. */
		dev->nr_segs = min_t(u64, div64_u64(l->capacity,
						    pool->segment_size),
				     pool->nr_segments - s);
		dev->latency_ns = i == pool->self ? pool->local_ns :
			pool->remote_ns;
		for (; s < dev->first_seg + dev->nr_segs; s++) {
			struct cmm_mp_segment *seg = &pool->segments[s];

			seg->pool = pool;
			seg->id = s;
			seg->device = dev;
			seg->nha = (u64)s * pool->segment_size;
			seg->phys = pool->base + seg->nha;
			seg->dev_offset = seg->nha - dev->nha;
		}
	}
	return 0;

err_free_devices:
	kfree(pool->devices);
	pool->devices = NULL;
err_free_pamt:
	kvfree(entries);
	pool->pamt.entries = NULL;
	return ret;
}

/**
 * cmm_mp_pool_decompose() - free what cmm_mp_pool_compose() built.
 * @pool: the pool.
 */
void cmm_mp_pool_decompose(struct cmm_mp_pool *pool)
{
	kvfree(pool->segments);
	pool->segments = NULL;
	kfree(pool->devices);
	pool->devices = NULL;
	kvfree(pool->pamt.entries);
	pool->pamt.entries = NULL;
}

/**
 * cmm_mp_translate() - one PAMT lookup for userspace.
 * @pool: the pool.
 * @t: in: addr and flags; out: the rest.
 *
 * Return: 0 on success, -EINVAL for unknown flags, -ERANGE for an address
 * outside the pool.
 */
int cmm_mp_translate(struct cmm_mp_pool *pool, struct cmm_mp_translate *t)
{
	struct cmm_mp_device *dev;
	struct cmm_mp_xlate x;
	u64 nha, ha;
	int ret;

	if (t->flags & ~CMM_MP_XLATE_NHA)
		return -EINVAL;
	if (t->flags & CMM_MP_XLATE_NHA) {
		nha = t->addr;
		ha = pool->base + nha;
	} else {
		if (t->addr < pool->base)
			return -ERANGE;
		ha = t->addr;
		nha = ha - pool->base;
	}
	ret = cmm_mp_pamt_lookup(&pool->pamt, nha, &x);
	if (ret)
		return ret;
	trace_pamt_lookup(ha, nha, x.valid, x.device, x.dev_offset);

	t->nha = nha;
	t->result = 0;
	t->device = CMM_MP_NONE;
	t->segment = CMM_MP_NONE;
	t->chip_id = 0;
	t->dev_offset = 0;
	t->latency_ns = 0;
	if (!x.valid)
		return 0;
	dev = &pool->devices[x.device];
	atomic64_inc(&dev->lookups);
	t->result = CMM_MP_XLATE_VALID;
	if (dev->id == pool->self)
		t->result |= CMM_MP_XLATE_LOCAL;
	if (READ_ONCE(dev->failed))
		t->result |= CMM_MP_XLATE_DEV_FAILED;
	t->device = dev->id;
	t->chip_id = dev->chip_id;
	t->dev_offset = x.dev_offset;
	t->latency_ns = dev->latency_ns;
	t->segment = div64_u64(nha, pool->segment_size);
	if (t->segment < pool->nr_segments)
		atomic64_inc(&pool->segments[t->segment].lookups);
	else
		t->segment = CMM_MP_NONE;
	return 0;
}

/**
 * cmm_mp_fill_info() - describe the pool.
 * @pool: the pool.
 * @info: filled.
 */
void cmm_mp_fill_info(struct cmm_mp_pool *pool, struct cmm_mp_info *info)
{
	memset(info, 0, sizeof(*info));
	info->abi_version = CMM_MP_ABI_VERSION;
	if (IS_ENABLED(CONFIG_CMM_MP_FAULT_INJECTION))
		info->flags |= CMM_MP_INFO_FAULT_INJECTION;
	if (IS_ENABLED(CONFIG_CMM_MP_TRACEPOINTS))
		info->flags |= CMM_MP_INFO_TRACEPOINTS;
	info->hdm_base = pool->base;
	info->pool_bytes = pool->size;
	info->segment_bytes = pool->segment_size;
	info->granule_bytes = CMM_MP_GRANULE_BYTES;
	info->block_bytes = pool->block_size;
	info->nr_devices = pool->nr_devices;
	info->nr_segments = pool->nr_segments;
	info->node = pool->node;
	info->self = pool->self;
	info->local_ns = pool->local_ns;
	info->remote_ns = pool->remote_ns;
	info->adistance = pool->adistance;
	info->host = pool->host;
	info->nr_hosts = pool->nr_hosts;
}

/**
 * cmm_mp_fill_device() - describe a device.
 * @dev: the device.
 * @info: filled (its id kept).
 */
void cmm_mp_fill_device(struct cmm_mp_device *dev,
			struct cmm_mp_device_info *info)
{
	memset(info, 0, sizeof(*info));
	info->id = dev->id;
	info->state = READ_ONCE(dev->failed) ? CMM_MP_DEV_FAILED : CMM_MP_DEV_OK;
	info->chip_id = dev->chip_id;
	info->capacity_bytes = dev->capacity;
	info->nha = dev->nha;
	info->first_segment = dev->first_seg;
	info->nr_segments = dev->nr_segs;
	info->latency_ns = dev->latency_ns;
	info->flags = dev->id == dev->pool->self ? CMM_MP_DEVICE_LOCAL : 0;
	info->lookups = atomic64_read(&dev->lookups);
	info->failures = atomic64_read(&dev->failures);
}
