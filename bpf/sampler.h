/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types shared by bpf/sampler.bpf.c and its loader (the libbpf-tools
 * triple; the loader is bpf/loader.c, walk.c and ids.c): __u32-style,
 * no kernel headers.  Userspace includes <linux/types.h> first.
 */
#ifndef MDK_BPF_SAMPLER_H
#define MDK_BPF_SAMPLER_H

/* Entries in one x86-64 page table, and the pages a PTE table maps. */
#define SAMPLER_PTRS_PER_TABLE 512
#define SAMPLER_PAGE_SHIFT 12

/*
 * One record of the walk, in the output array map "recs".
 *
 * SAMPLER_REC_PTE: the PTE table mapping [addr, addr + 2 MiB) (addr is
 * 2 MiB aligned); bit i of bits[] is set when the 4 KiB page at
 * addr + i * 4 KiB was accessed.  Only bits inside the walked VMA are set,
 * so a table shared by two VMAs gives two records with the same addr.
 *
 * SAMPLER_REC_HUGE: a huge (PMD or PUD) mapping whose Accessed bit is set:
 * every 4 KiB page of [addr, addr + nr_pages * 4 KiB) was accessed (the
 * range is clipped to the VMA); bits[] is unused.
 *
 * nr_pages counts the accessed 4 KiB pages of the record, nr_tier those of
 * them resident on the tier node (the CMM-MP node; 0 without one).
 * "Accessed" reads "resident" in a pass with walk_resident set: the pass
 * records every present page, Accessed bit or not.
 * Records come in ascending address order within one walk.
 */
enum sampler_rec_kind {
	SAMPLER_REC_PTE = 1,
	SAMPLER_REC_HUGE = 2,
};

struct sampler_rec {
	__u64 addr;
	__u32 kind;
	__u32 nr_pages;
	__u32 nr_tier;
	__u32 pad;
	__u64 bits[SAMPLER_PTRS_PER_TABLE / 64];
};

/*
 * Fault and migration counters, cumulative since load, incremented by the
 * fentry/fexit programs for tasks of the target (the cgroup subtree, or
 * the PID set): userspace takes differences per window.
 *
 * swapin_pages: anonymous and shmem pages swapped back in (swap or zswap)
 *	by a fault or a shmem read of a target task, counted where the swap
 *	entry is released (swap_free() on 6.1, swap_free_nr() on 6.12).
 * file_refault_pages: file pages read back into the page cache by a target
 *	task while the kernel still remembered their eviction (a workingset
 *	shadow entry): the kernel's workingset_refault_file, readahead
 *	included.
 * promote_pages, promote_events: NUMA-hinting-fault migrations of target
 *	pages off the tier node that succeeded, in 4 KiB pages and in folios.
 */
struct sampler_counts {
	__u64 swapin_pages;
	__u64 file_refault_pages;
	__u64 promote_pages;
	__u64 promote_events;
};

#endif /* MDK_BPF_SAMPLER_H */
