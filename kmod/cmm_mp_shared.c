// SPDX-License-Identifier: GPL-2.0
/*
 * cmm_mp: shared segments, mapped by processes through /dev/cmm_mp.
 *
 * A shared segment is never hot-added: its memory has no struct pages and
 * is mapped as raw PFNs (VM_PFNMAP), one page at a time from the fault
 * handler, so that the module can take access away at any moment.  While
 * it is shared the module keeps a write-back memremap() of the segment:
 * that mapping reserves the range's memory type as write-back (PAT), which
 * is what user mappings then inherit, and lets the module zero it.
 *
 * Revocation (the segment stops being shared, or its device fails) first
 * changes the state under map_lock, which every fault holds while it checks
 * the state and inserts its PTE, and then zaps the segment's PTEs from
 * every open file's mappings: a fault either completed before and is
 * zapped, or runs after and sees the new state (SIGBUS).  A mapping
 * remembers the export generation it was made for, so that one revoked by
 * unsharing stays dead even if the segment is shared again.
 */
#define pr_fmt(fmt) "cmm_mp: " fmt

#include <linux/fs.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "cmm_mp.h"
#include "cmm_mp_compat.h"

/**
 * struct cmm_mp_file - an open file of /dev/cmm_mp.
 * @node: in pool->files.
 * @pool: the pool.
 * @file: the file, whose mapping revocation zaps.
 */
struct cmm_mp_file {
	struct list_head node;
	struct cmm_mp_pool *pool;
	struct file *file;
};

/* Zero a segment in steps, so that a slow machine stays responsive. */
static void cmm_mp_seg_clear(struct cmm_mp_segment *seg)
{
	u64 off, step = SZ_2M;

	for (off = 0; off < seg->pool->segment_size; off += step) {
		memset(seg->vaddr + off, 0, step);
		cond_resched();
	}
}

/**
 * cmm_mp_seg_export() - share an offline segment.
 * @seg: the segment.  Called under pool->lock.
 *
 * In a multi-host pool this host joins the segment's sharers first; it is
 * zeroed only when no live host shared it, so that the hosts sharing it
 * keep their data.
 *
 * Return: 0 on success; -EBUSY or -EIO from joining (nothing changed);
 * -ENOMEM when it cannot be mapped.
 */
int cmm_mp_seg_export(struct cmm_mp_segment *seg)
{
	struct cmm_mp_pool *pool = seg->pool;
	void *vaddr;
	bool fresh;
	int ret;

	ret = cmm_mp_seg_own(seg, CMM_MP_OWN_SHARE, &fresh);
	if (ret)
		return ret;
	vaddr = memremap(seg->phys, pool->segment_size, MEMREMAP_WB);
	if (!vaddr) {
		atomic64_inc(&seg->failures);
		pr_err("segment %u: cannot map 0x%llx for sharing\n", seg->id,
		       seg->phys);
		ret = -ENOMEM;
		goto err_unshare;
	}
	seg->vaddr = vaddr;
	/* It may hold what the last user left, the kernel's pages included. */
	if (fresh)
		cmm_mp_seg_clear(seg);

	down_write(&pool->map_lock);
	spin_lock(&pool->state_lock);
	seg->shared = true;
	seg->gen++;
	spin_unlock(&pool->state_lock);
	up_write(&pool->map_lock);

	WRITE_ONCE(seg->owner, task_tgid_nr(current));
	trace_segment_state(seg->id, seg->device->id, CMM_MP_SEG_OFFLINE,
			    CMM_MP_SEG_SHARED);
	pr_info("segment %u: shared, mmap offset 0x%llx%s\n", seg->id, seg->nha,
		fresh ? "" : ", joining its other sharers");
	return 0;

err_unshare:
	cmm_mp_seg_own(seg, CMM_MP_OWN_UNSHARE, NULL);
	return ret;
}

/**
 * cmm_mp_seg_zap() - remove every user mapping of a segment's pages.
 * @seg: the segment.
 *
 * Accesses fault again, and the fault handler decides.
 */
void cmm_mp_seg_zap(struct cmm_mp_segment *seg)
{
	struct cmm_mp_pool *pool = seg->pool;
	struct cmm_mp_file *cf;

	mutex_lock(&pool->files_lock);
	list_for_each_entry(cf, &pool->files, node)
		unmap_mapping_range(cf->file->f_mapping, seg->nha,
				    pool->segment_size, 1);
	mutex_unlock(&pool->files_lock);
}

/**
 * cmm_mp_seg_revoke() - stop sharing a segment; its mappings die.
 * @seg: the segment.  Called under pool->lock.
 */
void cmm_mp_seg_revoke(struct cmm_mp_segment *seg)
{
	struct cmm_mp_pool *pool = seg->pool;

	down_write(&pool->map_lock);
	spin_lock(&pool->state_lock);
	seg->shared = false;
	seg->gen++;
	spin_unlock(&pool->state_lock);
	up_write(&pool->map_lock);
	cmm_mp_seg_zap(seg);

	memunmap(seg->vaddr);
	seg->vaddr = NULL;
	WRITE_ONCE(seg->owner, 0);
	cmm_mp_seg_own(seg, CMM_MP_OWN_UNSHARE, NULL);
	trace_segment_state(seg->id, seg->device->id, CMM_MP_SEG_SHARED,
			    CMM_MP_SEG_OFFLINE);
	pr_info("segment %u: no longer shared\n", seg->id);
}

/**
 * cmm_mp_shared_exit() - unmap the segments still shared at unload.
 * @pool: the pool; no file is open, so nothing maps them.
 */
void cmm_mp_shared_exit(struct cmm_mp_pool *pool)
{
	u32 i;

	for (i = 0; i < pool->nr_segments; i++) {
		struct cmm_mp_segment *seg = &pool->segments[i];

		if (seg->vaddr)
			memunmap(seg->vaddr);
		seg->vaddr = NULL;
	}
}

static struct cmm_mp_segment *cmm_mp_vma_segment(struct vm_area_struct *vma)
{
	struct cmm_mp_file *cf = vma->vm_file->private_data;
	struct cmm_mp_pool *pool = cf->pool;

	return &pool->segments[div64_u64((u64)vma->vm_pgoff << PAGE_SHIFT,
					 pool->segment_size)];
}

static void cmm_mp_vm_open(struct vm_area_struct *vma)
{
	atomic_inc(&cmm_mp_vma_segment(vma)->mappings);
}

static void cmm_mp_vm_close(struct vm_area_struct *vma)
{
	atomic_dec(&cmm_mp_vma_segment(vma)->mappings);
}

static vm_fault_t cmm_mp_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct cmm_mp_segment *seg = cmm_mp_vma_segment(vma);
	struct cmm_mp_pool *pool = seg->pool;
	u64 off = ((u64)vmf->pgoff << PAGE_SHIFT) - seg->nha;
	vm_fault_t ret = VM_FAULT_SIGBUS;

	down_read(&pool->map_lock);
	if (seg->shared && !READ_ONCE(seg->device->failed) &&
	    seg->gen == (unsigned long)vma->vm_private_data &&
	    off < pool->segment_size)
		ret = vmf_insert_pfn(vma, vmf->address, PHYS_PFN(seg->phys + off));
	up_read(&pool->map_lock);
	if (ret == VM_FAULT_SIGBUS)
		atomic64_inc(&seg->failures);
	return ret;
}

static const struct vm_operations_struct cmm_mp_vm_ops = {
	.open = cmm_mp_vm_open,
	.close = cmm_mp_vm_close,
	.fault = cmm_mp_vm_fault,
};

/**
 * cmm_mp_mmap() - map (part of) a shared segment.
 * @file: the open /dev/cmm_mp.
 * @vma: MAP_SHARED, offset and length inside one shared segment.
 *
 * Return: 0 on success, -EINVAL for a private or executable mapping or one
 * that is not inside a shared segment, -EIO when the segment's device has
 * failed.
 */
int cmm_mp_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct cmm_mp_file *cf = file->private_data;
	struct cmm_mp_pool *pool = cf->pool;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 len = vma->vm_end - vma->vm_start;
	u64 id = div64_u64(off, pool->segment_size);
	struct cmm_mp_segment *seg;
	int ret = 0;

	if (!(vma->vm_flags & VM_MAYSHARE) || (vma->vm_flags & VM_EXEC))
		return -EINVAL;
	if (vma->vm_pgoff >= PHYS_PFN((u64)pool->nr_segments * pool->segment_size))
		return -EINVAL;
	if (id >= pool->nr_segments || len > pool->segment_size ||
	    off + len > (id + 1) * pool->segment_size)
		return -EINVAL;
	seg = &pool->segments[id];

	down_read(&pool->map_lock);
	if (!seg->shared)
		ret = -EINVAL;
	else if (READ_ONCE(seg->device->failed))
		ret = -EIO;
	else
		vma->vm_private_data = (void *)seg->gen;
	up_read(&pool->map_lock);
	if (ret)
		return ret;

	cmm_mp_vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	cmm_mp_vm_flags_clear(vma, VM_MAYEXEC);
	vma->vm_ops = &cmm_mp_vm_ops;
	atomic_inc(&seg->mappings);
	return 0;
}

/**
 * cmm_mp_open() - open /dev/cmm_mp.
 * @inode: its inode.
 * @file: the file; misc_open() left the miscdevice in private_data.
 *
 * Return: 0 on success, -ENOMEM.
 */
int cmm_mp_open(struct inode *inode, struct file *file)
{
	struct miscdevice *misc = file->private_data;
	struct cmm_mp_pool *pool = container_of(misc, struct cmm_mp_pool, misc);
	struct cmm_mp_file *cf;

	cf = kzalloc(sizeof(*cf), GFP_KERNEL);
	if (!cf)
		return -ENOMEM;
	cf->pool = pool;
	cf->file = file;
	mutex_lock(&pool->files_lock);
	list_add(&cf->node, &pool->files);
	mutex_unlock(&pool->files_lock);
	file->private_data = cf;
	return 0;
}

/**
 * cmm_mp_release() - the last reference to an open /dev/cmm_mp is gone.
 * @inode: its inode.
 * @file: the file; no mapping uses it any more.
 *
 * Return: 0.
 */
int cmm_mp_release(struct inode *inode, struct file *file)
{
	struct cmm_mp_file *cf = file->private_data;
	struct cmm_mp_pool *pool = cf->pool;

	mutex_lock(&pool->files_lock);
	list_del(&cf->node);
	mutex_unlock(&pool->files_lock);
	kfree(cf);
	return 0;
}

/**
 * cmm_mp_file_pool() - the pool of an open /dev/cmm_mp.
 * @file: the file.
 *
 * Return: the pool.
 */
struct cmm_mp_pool *cmm_mp_file_pool(struct file *file)
{
	struct cmm_mp_file *cf = file->private_data;

	return cf->pool;
}
