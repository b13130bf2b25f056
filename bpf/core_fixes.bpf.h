/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels mdk supports (Debian's 6.1 and 6.12)
 * that a BPF program has to handle lives here, as CO-RE checks: a struct
 * flavour per rename (___o/___x) tested with bpf_core_field_exists(), each
 * with the upstream commit that made the change.  Where a difference is a
 * renamed or re-specified kernel function, the programs exist in one
 * variant per kernel and the loader picks one with
 * bpf_program__set_autoload() (the libbpf-tools way); the comment here says
 * which.
 */
#ifndef MDK_BPF_CORE_FIXES_H
#define MDK_BPF_CORE_FIXES_H

#include <vmlinux.h>
#include <bpf/bpf_core_read.h>

/*
 * vma->vm_flags: a plain field in 6.1; since "mm: introduce vma->vm_flags
 * wrapper functions" (bc292ab00f6c, v6.3) a member of an anonymous union
 * with __vm_flags.  The name is unchanged, and CO-RE field matching walks
 * anonymous members, so one read serves both.
 */
static __always_inline unsigned long vma_flags(struct vm_area_struct *vma)
{
	return BPF_CORE_READ(vma, vm_flags);
}

/*
 * folio_nr_pages() of a folio (or of a head page, which is the same
 * address): both kernels keep the page count of a large folio in
 * folio->_folio_nr_pages on 64-bit, while the order moved from
 * folio->_folio_order (6.1) into the low byte of folio->_flags_1 (6.12's
 * folio_order()), so we read the count and stay off the order.  PG_head
 * moves within enum pageflags with the configuration: CO-RE relocates it.
 */
static __always_inline __u32 folio_pages(struct folio *folio)
{
	unsigned long flags = BPF_CORE_READ(folio, flags);
	unsigned long head = 1UL
			     << bpf_core_enum_value(enum pageflags, PG_head);

	if (!(flags & head))
		return 1;
	return BPF_CORE_READ(folio, _folio_nr_pages);
}

/* folio_test_swapbacked(): PG_swapbacked relocated as above. */
static __always_inline bool folio_swapbacked(struct folio *folio)
{
	unsigned long flags = BPF_CORE_READ(folio, flags);

	return flags &
	       (1UL << bpf_core_enum_value(enum pageflags, PG_swapbacked));
}

/*
 * Hook choices made by the loader (bpf/loader.c), one program per
 * kernel variant:
 *
 * - The swap entry of a page swapped back in is released by swap_free() in
 *   6.1.  "mm: swap: introduce swap_free_nr() for batched swap_free()" and
 *   "mm: remove the implementation of swap_free() and always use
 *   swap_free_nr()" (both v6.11) made swap_free() an inline wrapper of
 *   swap_free_nr(entry, nr_pages): fentry/swap_free_nr where it exists,
 *   else fentry/swap_free.
 *
 * - NUMA-hinting promotion: migrate_misplaced_page(page, vma, node)
 *   returns 1 when the page moved in 6.1.  "mm: migrate: convert
 *   migrate_misplaced_page() to migrate_misplaced_folio()" (v6.7) renamed
 *   it, and "mm: migrate: make migrate_misplaced_folio() return 0 on
 *   success" (v6.11) inverted the result: fexit/migrate_misplaced_folio
 *   treats 0 as success, fexit/migrate_misplaced_page treats 1.
 */

#endif /* MDK_BPF_CORE_FIXES_H */
