/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86-64 page-table entries as the sampler's walk reads them: the entry
 * bits and level shifts of arch/x86, reads of kernel memory through
 * bpf_probe_read_kernel(), and the bit counting BPF lacks.  Included by
 * sampler.bpf.c only.
 */
#ifndef MDK_BPF_PGTABLE_H
#define MDK_BPF_PGTABLE_H

/* arch/x86/include/asm/pgtable_types.h */
#define X86_PRESENT (1ULL << 0)
#define X86_ACCESSED (1ULL << 5)
#define X86_PSE (1ULL << 7)
/* _PAGE_PROTNONE aliases _PAGE_GLOBAL: it means PROT_NONE (and NUMA
 * hinting) only while _PAGE_PRESENT is clear. */
#define X86_PROTNONE (1ULL << 8)
/* _PAGE_SPECIAL (_PAGE_BIT_SOFTW1): no struct page behind the entry. */
#define X86_SPECIAL (1ULL << 9)
/* __PHYSICAL_MASK without memory encryption: bits 12..51. */
#define X86_DEFAULT_PHYS_MASK ((1ULL << 52) - 1)

#define PTE_SHIFT 12
#define PMD_SHIFT 21
#define PUD_SHIFT 30
#define P4D_SHIFT 39
#define PGD5_SHIFT 48

static __always_inline __u64 read_u64(const void *kaddr)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), kaddr);
	return v;
}

static __always_inline __u32 read_u32(const void *kaddr)
{
	__u32 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), kaddr);
	return v;
}

static __always_inline __u64 read_entry(__u64 table, __u64 addr, int shift)
{
	return read_u64((void *)(table + ((addr >> shift) & 511) * 8));
}

static __always_inline __u64 next_boundary(__u64 addr, int shift)
{
	return (addr | ((1ULL << shift) - 1)) + 1;
}

/* pte_pfn()/pmd_pfn(): non-present entries (PROT_NONE, NUMA hinting, a
 * THP being split) hold their PFN inverted (L1TF, pgtable-invert.h). */
static __always_inline __u64 entry_pfn(__u64 e, __u64 mask)
{
	if (!(e & X86_PRESENT))
		e = ~e;
	return (e & mask) >> PTE_SHIFT;
}

/* Set bits of a 64-bit word (BPF has no popcount instruction). */
static __always_inline __u64 popcount64(__u64 x)
{
	x = x - ((x >> 1) & 0x5555555555555555ULL);
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (x * 0x0101010101010101ULL) >> 56;
}

/* How many low bits of x are set before the first clear one. */
static __always_inline __u64 trailing_ones(__u64 x)
{
	return popcount64(x & ~(x + 1));
}

#endif /* MDK_BPF_PGTABLE_H */
