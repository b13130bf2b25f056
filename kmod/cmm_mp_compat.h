/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmm_mp_compat.h: the only place that knows kernel differences.  cmm_mp
 * builds against Debian's 6.1 and 6.12; each shim names the upstream
 * change it papers over.  Rather than compare version numbers (which
 * distribution backports make lie), kmod/Kbuild probes the kernel's
 * headers for each feature and passes -DCMM_MP_HAVE_<FEATURE>.
 */
#ifndef CMM_MP_COMPAT_H
#define CMM_MP_COMPAT_H

#include <linux/memory-tiers.h>
#include <linux/mm.h>

/*
 * 6.3, "mm: introduce vma->vm_flags wrapper functions": vm_flags became
 * read-only and is changed through vm_flags_set()/vm_flags_clear().
 */
static inline void cmm_mp_vm_flags_set(struct vm_area_struct *vma,
				       unsigned long flags)
{
#ifdef CMM_MP_HAVE_VM_FLAGS_SET
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

static inline void cmm_mp_vm_flags_clear(struct vm_area_struct *vma,
					 unsigned long flags)
{
#ifdef CMM_MP_HAVE_VM_FLAGS_SET
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/*
 * 6.10, "memory tier: dax/kmem: introduce an abstract layer for finding,
 * allocating, and putting memory types": destroy_memory_type() became
 * put_memory_type() (next to the new mt_find_alloc_memory_type()).
 */
static inline void cmm_mp_put_memory_type(struct memory_dev_type *mtype)
{
#ifdef CMM_MP_HAVE_PUT_MEMORY_TYPE
	put_memory_type(mtype);
#else
	destroy_memory_type(mtype);
#endif
}

/*
 * 6.12 spells MEMTIER_ADISTANCE_DRAM as a long expression, 6.1 as an int;
 * the pool computes with ints either way.
 */
#define CMM_MP_ADISTANCE_DRAM ((int)MEMTIER_ADISTANCE_DRAM)
/* The first abstract distance past the DRAM tier's chunk. */
#define CMM_MP_ADISTANCE_MIN \
	(round_down(CMM_MP_ADISTANCE_DRAM, MEMTIER_CHUNK_SIZE) + MEMTIER_CHUNK_SIZE)

#endif /* CMM_MP_COMPAT_H */
