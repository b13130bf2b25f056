// SPDX-License-Identifier: GPL-2.0
/*
 * The page Accessed-bit sampler and the promotion counters of mdk.
 *
 * sample_vma (iter/task_vma) walks the page tables of one process's VMAs,
 * read-only, with bpf_probe_read_kernel(): from mm->pgd down through the
 * P4D (5-level paging only), PUD and PMD levels to each PTE table, which
 * it reads whole, in one 4 KiB copy, into a per-CPU buffer.  Each PTE
 * table with an accessed page becomes one struct sampler_rec (a 512-bit
 * bitmap) in the mmapable array map "recs"; each huge mapping with its
 * Accessed bit set becomes one range record.  Userspace turns the records
 * into page ids and then writes /proc/PID/clear_refs to reset the bits for
 * the next window (bpf/ids.c, bpf/procs.c;
 * Documentation/sampler.rst).
 *
 * When recs fills up, the walk stops, leaves the address to go on from in
 * stop_addr and userspace runs the iterator again from there after
 * draining the records: the output of one process is unbounded, the map is
 * not.
 *
 * The fentry/fexit programs count, for the tasks of the target, pages
 * swapped back in, file pages refaulted and pages promoted off the tier
 * node by NUMA hinting faults (struct sampler_counts).
 *
 * x86-64 only: the entry layout (pgtable.bpf.h) is arch/x86's.
 */
#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "core_fixes.bpf.h"
#include "pgtable.bpf.h"
#include "sampler.h"

/* include/linux/mm.h: VMAs whose pages the walk leaves alone (see
 * Documentation/sampler.rst: clear_refs skips the first two, and cannot
 * reset the bits of hugetlb mappings). */
#define VM_IO 0x00004000UL
#define VM_PFNMAP 0x00000400UL
#define VM_HUGETLB 0x00400000UL

/* bpf_loop() steps per VMA (its maximum): each step is one PMD range or
 * one hole skipped at some level, so this covers 16 TiB of populated
 * address space; the rest is resumed like a full map. */
#define WALK_STEPS (1U << 23)

/* Knobs, set by the loader between open and load. */
const volatile __u32 targ_max_recs = 1; /* entries of recs */
const volatile bool targ_tier = false; /* tier_blocks is valid */
const volatile __u32 targ_block_shift = 15; /* log2(block size / 4 KiB) */
const volatile __u32 targ_tier_words = 1; /* entries of tier_blocks */
const volatile __u64 targ_cgroup_id = 0; /* 0: the PID set */
const volatile __u32 targ_cgroup_level = 0;

/*
 * Walk state: userspace resets it before each pass and reads it after.
 * One pass runs at a time per loaded skeleton.
 */
__u64 resume_addr; /* walk addresses from here on */
__u32 nr_recs; /* records written to recs */
__u32 full; /* stopped early: go on from stop_addr */
__u64 stop_addr;
__u32 walk_tid; /* the task whose VMAs were walked */
__u64 walk_mm; /* its mm_struct, to notice an exec */
__u64 walk_start_ns; /* its start_boottime */
__u64 walk_vmas; /* VMAs walked */
__u64 walk_tables; /* PTE tables read */
/*
 * 1: this pass records every resident page, Accessed bit or not (the
 * pages of a process the sampler meets with older bits); 0: the accessed
 * ones.  A __u64 for the same reason as k_ready below.
 */
__u64 walk_resident;
/*
 * Bumped by userspace before each pass: the PTE table cache below is good
 * for one pass only, since page tables change between passes.
 */
__u64 pass_gen;

struct sampler_counts counts;

/* Bumped by each run of sample_vma: see struct pmd_table. */
__u64 vma_gen;

/*
 * Read once: page_offset_base, the entry address mask, 5-level paging.
 * Not static: clang shrinks a static flag to a byte, which its BTF then
 * contradicts and the kernel refuses.
 */
__u64 k_pob, k_mask;
__u32 k_l5, k_ready;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sampler_rec);
} recs SEC(".maps");

/* Bit b of word b / 64 set: memory block b is on the tier node. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} tier_blocks SEC(".maps");

/* The PID set (keys: tgids) when targ_cgroup_id is 0. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} target_pids SEC(".maps");

/*
 * The last PTE table read on this CPU: for (gen, pa), the words of it read
 * so far and their Accessed bits.  It is read 64 entries (512 bytes) at a
 * time, only where the VMA lies: a library's small segments cost a word
 * each, and VMAs that share a table read and scan each word once.
 */
struct pte_table {
	__u64 e[SAMPLER_PTRS_PER_TABLE];
	__u64 gen;
	__u64 pa;
	__u64 loaded; /* bit k: e[64k..64k+63] read, bits[k] valid */
	__u64 bits[SAMPLER_PTRS_PER_TABLE / 64];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pte_table);
} ptebuf SEC(".maps");

/*
 * The PMD table mapping the 1 GiB at base (physical address pa), read 64
 * entries (512 bytes) at a time where the walk needs them and kept for one
 * run of sample_vma only (gen == vma_gen): the PTE tables it points to
 * cannot be freed while that run holds the RCU read lock, which a copy
 * kept across runs could not promise (since 6.6 file THP collapse retracts
 * page tables without mmap_lock).  For each word k read (bit k of loaded),
 * bit i of acc[k] says that entry 64k + i is a huge mapping with its
 * Accessed bit set, bit i of skip[k] that there is nothing to look at
 * (not present, or huge and not accessed): a run of either is one step.
 */
struct pmd_table {
	__u64 e[SAMPLER_PTRS_PER_TABLE];
	__u64 gen;
	__u64 base;
	__u64 pa;
	__u64 loaded;
	__u64 acc[SAMPLER_PTRS_PER_TABLE / 64];
	__u64 skip[SAMPLER_PTRS_PER_TABLE / 64];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pmd_table);
} pmdbuf SEC(".maps");

/* A NUMA migration in flight, from its fentry to its fexit. */
struct migration {
	__u64 nr_pages;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct migration);
} migrating SEC(".maps");

extern const void page_offset_base __ksym;
extern const void vmemmap_base __ksym;
extern const void __pgtable_l5_enabled __ksym;
extern const void physical_mask __ksym __weak;

struct walk {
	__u64 addr; /* next address to look at */
	__u64 end; /* end of the VMA */
	__u64 top; /* kernel address of the top-level table */
	__u64 pob; /* page_offset_base: physical to direct-map address */
	__u64 mask; /* physical address bits of an entry (PTE_PFN_MASK) */
	__u32 l5; /* 5-level paging */
	__u32 pad;
	struct pmd_table *pt; /* this CPU's pmdbuf */
	struct pte_table *ptes; /* this CPU's ptebuf */
};

static __always_inline bool pfn_on_tier(__u64 pfn)
{
	__u64 block = pfn >> targ_block_shift;
	__u32 key = block >> 6;
	__u64 *word;

	if (!targ_tier || block >> 6 >= targ_tier_words)
		return false;
	word = bpf_map_lookup_elem(&tier_blocks, &key);
	return word && ((*word >> (block & 63)) & 1);
}

static __always_inline void stop_walk(__u64 addr)
{
	full = 1;
	stop_addr = addr;
}

static __always_inline struct sampler_rec *next_rec(__u64 addr)
{
	__u32 idx = nr_recs;
	struct sampler_rec *r;

	if (idx >= targ_max_recs) {
		stop_walk(addr);
		return NULL;
	}
	r = bpf_map_lookup_elem(&recs, &idx);
	if (!r)
		stop_walk(addr);
	return r;
}

/*
 * A huge mapping of [base, base + 1 << shift) with entry e, Accessed bit
 * set (or walk_resident): its part inside [start, end), appended to the
 * last record when that one is a huge range ending at start (a THP region
 * is one record).
 */
static __always_inline int emit_huge(struct walk *w, __u64 e, int shift,
				     __u64 start, __u64 end)
{
	__u64 base = start & ~((1ULL << shift) - 1);
	__u64 pa, pend, pb, nr_tier = 0;
	struct sampler_rec *r = NULL;
	__u32 prev = nr_recs - 1;
	int i;

	if (nr_recs)
		r = bpf_map_lookup_elem(&recs, &prev);
	if (r && r->kind == SAMPLER_REC_HUGE &&
	    r->addr + ((__u64)r->nr_pages << PTE_SHIFT) == start) {
		r->nr_pages += (end - start) >> PTE_SHIFT;
	} else {
		r = next_rec(start);
		if (!r)
			return -1;
		r->addr = start;
		r->kind = SAMPLER_REC_HUGE;
		r->nr_pages = (end - start) >> PTE_SHIFT;
		r->nr_tier = 0;
		nr_recs++;
	}
	/* A 1 GiB page spans several memory blocks: count block by block. */
	if (targ_tier) {
		pa = (entry_pfn(e, w->mask & ~((1ULL << shift) - 1))
		      << PTE_SHIFT) +
		     (start - base);
		pend = pa + (end - start);
		for (i = 0; i < 16 && pa < pend; i++) {
			pb = next_boundary(pa, targ_block_shift + PTE_SHIFT);
			if (pb > pend)
				pb = pend;
			if (pfn_on_tier(pa >> PTE_SHIFT))
				nr_tier += (pb - pa) >> PTE_SHIFT;
			pa = pb;
		}
		r->nr_tier += nr_tier;
	}
	return 0;
}

struct tier_scan {
	struct sampler_rec *r;
	__u64 mask;
	__u64 last_block;
	__u32 last_on;
	__u32 nr;
	__u32 first; /* first entry to look at */
};

/* Count the accessed pages of a record that lie on the tier node. */
static long tier_cb(__u32 i, void *data)
{
	struct tier_scan *ts = data;
	__u32 zero = 0;
	struct pte_table *t;
	__u64 pfn, block;

	i += ts->first;
	if (i >= SAMPLER_PTRS_PER_TABLE)
		return 1;
	/* Keep clang from indexing with the unchecked copy of i. */
	barrier_var(i);
	i &= SAMPLER_PTRS_PER_TABLE - 1;
	if (!((ts->r->bits[i >> 6] >> (i & 63)) & 1))
		return 0;
	t = bpf_map_lookup_elem(&ptebuf, &zero);
	if (!t)
		return 1;
	pfn = entry_pfn(t->e[i], ts->mask);
	block = pfn >> targ_block_shift;
	if (block != ts->last_block) {
		ts->last_block = block;
		ts->last_on = pfn_on_tier(pfn);
	}
	ts->nr += ts->last_on;
	return 0;
}

struct word_ctx {
	struct pte_table *t;
	__u64 src; /* direct-map address of the PTE table */
	__u32 first; /* first word */
	__u32 err;
};

/*
 * Word first + i of the table, read unless it was already: its Accessed
 * bits.  An entry counts when present (_PAGE_PRESENT or _PAGE_PROTNONE),
 * accessed (or walk_resident) and not _PAGE_SPECIAL.  Special entries (the
 * shared zero page, pfnmap entries) have no struct page, so clear_refs
 * never resets their Accessed bit (vm_normal_page() returns NULL) and they
 * hold no memory of the process.  Branch-free, so that the verifier walks
 * the 64 steps once.
 */
static long scan_word_cb(__u32 i, void *data)
{
	struct word_ctx *c = data;
	struct pte_table *t = c->t;
	__u32 k = i + c->first, j;
	__u64 word = 0, e, any = walk_resident & 1;

	if (k >= SAMPLER_PTRS_PER_TABLE / 64)
		return 1;
	barrier_var(k);
	k &= SAMPLER_PTRS_PER_TABLE / 64 - 1;
	if ((t->loaded >> k) & 1)
		return 0;
	if (bpf_probe_read_kernel(&t->e[k * 64], 64 * sizeof(__u64),
				  (void *)(c->src + k * 64 * sizeof(__u64)))) {
		c->err = 1;
		return 1;
	}
	for (j = 0; j < 64; j++) {
		e = t->e[k * 64 + j];
		word |= (((e >> 5) | any) & (e | (e >> 8)) & ~(e >> 9) & 1)
			<< j;
	}
	t->bits[k] = word;
	t->loaded |= 1ULL << k;
	return 0;
}

struct range_ctx {
	struct pte_table *t;
	struct sampler_rec *r;
	__u32 lo, hi; /* PTE index range inside the VMA */
	__u64 n; /* accessed pages in it */
	__u32 first; /* first word */
};

/* Word first + i of the record: the table's bits inside [lo, hi). */
static long range_word_cb(__u32 i, void *data)
{
	struct range_ctx *c = data;
	__u32 k = i + c->first, b, a, z;
	__u64 mask = 0, word;

	if (k >= SAMPLER_PTRS_PER_TABLE / 64)
		return 1;
	barrier_var(k);
	k &= SAMPLER_PTRS_PER_TABLE / 64 - 1;
	b = k * 64;
	if (c->hi > b && c->lo < b + 64) {
		a = c->lo > b ? c->lo - b : 0;
		z = c->hi < b + 64 ? c->hi - b : 64;
		mask = z >= 64 ? ~0ULL : (1ULL << (z & 63)) - 1;
		mask &= ~((1ULL << (a & 63)) - 1);
	}
	word = c->t->bits[k] & mask;
	c->r->bits[k] = word;
	c->n += popcount64(word);
	return 0;
}

/*
 * The PTE table at physical address pa maps the 2 MiB around w->addr:
 * record the accessed pages of its part inside the VMA.
 */
static __always_inline int scan_ptes(struct walk *w, __u64 pa)
{
	__u64 base = w->addr & ~((1ULL << PMD_SHIFT) - 1);
	__u64 end = base + (1ULL << PMD_SHIFT);
	struct word_ctx wc = {};
	struct range_ctx c = {};
	struct tier_scan ts = {};
	struct pte_table *t = w->ptes;
	struct sampler_rec *r;
	__u32 kl, kh, k;

	if (t->gen != pass_gen || t->pa != pa) {
		t->gen = pass_gen;
		t->pa = pa;
		t->loaded = 0;
		walk_tables++;
	}
	if (end > w->end)
		end = w->end;
	c.lo = (w->addr - base) >> PTE_SHIFT;
	c.hi = (end - base) >> PTE_SHIFT;
	kl = c.lo / 64;
	kh = (c.hi + 63) / 64;
	wc.t = t;
	wc.src = w->pob + pa;
	wc.first = kl;
	bpf_loop(kh - kl, scan_word_cb, &wc, 0);
	if (wc.err) {
		t->gen = 0;
		return 0;
	}
	r = next_rec(w->addr);
	if (!r)
		return -1;
	for (k = 0; k < SAMPLER_PTRS_PER_TABLE / 64; k++)
		r->bits[k] = 0;
	c.t = t;
	c.r = r;
	c.first = kl;
	bpf_loop(kh - kl, range_word_cb, &c, 0);
	if (!c.n)
		return 0;
	r->addr = base;
	r->kind = SAMPLER_REC_PTE;
	r->nr_pages = c.n;
	r->nr_tier = 0;
	if (targ_tier) {
		ts.r = r;
		ts.mask = w->mask;
		ts.last_block = ~0ULL;
		ts.first = c.lo;
		bpf_loop(c.hi - c.lo, tier_cb, &ts, 0);
		r->nr_tier = ts.nr;
	}
	nr_recs++;
	return 0;
}

/*
 * Find the PMD table mapping addr's 1 GiB (pt->pa, no entry read yet), or
 * skip the hole above it (returns 1) or the 1 GiB page it is (returns 1
 * after emitting it; -1 when the records are full).
 */
static __always_inline int load_pmds(struct walk *w, struct pmd_table *pt)
{
	__u64 addr = w->addr, table = w->top, e, end;

	pt->gen = 0;
	if (w->l5) {
		e = read_entry(table, addr, PGD5_SHIFT);
		if (!(e & X86_PRESENT)) {
			w->addr = next_boundary(addr, PGD5_SHIFT);
			return 1;
		}
		table = w->pob + (e & w->mask);
	}
	/* The P4D, or with 4-level paging the PGD (P4D folded). */
	e = read_entry(table, addr, P4D_SHIFT);
	if (!(e & X86_PRESENT)) {
		w->addr = next_boundary(addr, P4D_SHIFT);
		return 1;
	}
	table = w->pob + (e & w->mask);
	e = read_entry(table, addr, PUD_SHIFT);
	if (!(e & X86_PRESENT)) {
		w->addr = next_boundary(addr, PUD_SHIFT);
		return 1;
	}
	if (e & X86_PSE) {
		end = next_boundary(addr, PUD_SHIFT);
		if (end > w->end)
			end = w->end;
		if (((e & X86_ACCESSED) || walk_resident) &&
		    emit_huge(w, e, PUD_SHIFT, addr, end))
			return -1;
		w->addr = end;
		return 1;
	}
	pt->gen = vma_gen;
	pt->base = addr & ~((1ULL << PUD_SHIFT) - 1);
	pt->pa = e & w->mask;
	pt->loaded = 0;
	return 0;
}

/*
 * Read PMD entries 64k..64k+63 into pt and classify them, branch-free:
 * pmd_present() is _PAGE_PRESENT, _PAGE_PROTNONE or _PAGE_PSE (a THP
 * under split); a present entry with _PAGE_PSE is a huge mapping, any
 * other present one points to a PTE table.
 */
static __always_inline int load_pmd_word(struct walk *w, struct pmd_table *pt,
					 __u32 k)
{
	__u64 acc = 0, skip = 0, e, p, h, a, any = walk_resident & 1;
	__u32 j;

	k &= SAMPLER_PTRS_PER_TABLE / 64 - 1;
	if (bpf_probe_read_kernel(
		    &pt->e[k * 64], 64 * sizeof(__u64),
		    (void *)(w->pob + pt->pa + k * 64 * sizeof(__u64))))
		return -1;
	for (j = 0; j < 64; j++) {
		e = pt->e[k * 64 + j];
		p = (e | (e >> 7) | (e >> 8)) & 1;
		h = (e >> 7) & 1;
		a = ((e >> 5) | any) & 1;
		acc |= (h & a) << j;
		skip |= ((p ^ 1) | (h & (a ^ 1))) << j;
	}
	pt->acc[k] = acc;
	pt->skip[k] = skip;
	pt->loaded |= 1ULL << k;
	return 0;
}

/*
 * One step of the walk: one PMD range with a PTE table, a run of accessed
 * huge PMDs (one record), a run of PMDs with nothing to look at, or one
 * hole at a higher level.
 */
static long walk_step(__u32 index, void *data)
{
	struct walk *w = data;
	__u64 addr = w->addr, e, end, bits, pmd;
	struct pmd_table *pt = w->pt;
	__u32 i, k;
	int ret;

	if (addr >= w->end || full)
		return 1;
	if (pt->gen != vma_gen ||
	    pt->base != (addr & ~((1ULL << PUD_SHIFT) - 1))) {
		ret = load_pmds(w, pt);
		if (ret)
			return ret < 0;
	}
	pmd = addr & ~((1ULL << PMD_SHIFT) - 1);
	i = (addr >> PMD_SHIFT) & (SAMPLER_PTRS_PER_TABLE - 1);
	k = i / 64;
	if (!((pt->loaded >> k) & 1) && load_pmd_word(w, pt, k)) {
		/* Unreadable: skip these 64 entries. */
		end = next_boundary(addr, PMD_SHIFT + 6);
		w->addr = end < w->end ? end : w->end;
		return 0;
	}
	k &= SAMPLER_PTRS_PER_TABLE / 64 - 1;
	bits = pt->acc[k] >> (i & 63);
	if (bits & 1) {
		/* With a tier node each PMD's PFN counts: one at a time. */
		end = pmd +
		      ((targ_tier ? 1 : trailing_ones(bits)) << PMD_SHIFT);
		if (end > w->end)
			end = w->end;
		if (emit_huge(w, pt->e[i & (SAMPLER_PTRS_PER_TABLE - 1)],
			      PMD_SHIFT, addr, end))
			return 1;
		w->addr = end;
		return 0;
	}
	bits = pt->skip[k] >> (i & 63);
	if (bits & 1) {
		end = pmd + (trailing_ones(bits) << PMD_SHIFT);
		w->addr = end < w->end ? end : w->end;
		return 0;
	}
	e = pt->e[i & (SAMPLER_PTRS_PER_TABLE - 1)];
	if (scan_ptes(w, e & w->mask))
		return 1;
	end = next_boundary(addr, PMD_SHIFT);
	w->addr = end < w->end ? end : w->end;
	return 0;
}

SEC("iter/task_vma")
int sample_vma(struct bpf_iter__task_vma *ctx)
{
	struct task_struct *task = ctx->task;
	struct vm_area_struct *vma = ctx->vma;
	struct walk w = {};
	__u64 start, end;
	__u32 tid, zero = 0;

	if (!task || !vma || full)
		return 0;
	/* Threads share the mm: walk the first task that has one. */
	tid = BPF_CORE_READ(task, pid);
	if (!walk_tid) {
		walk_tid = tid;
		walk_mm = (__u64)BPF_CORE_READ(task, mm);
		walk_start_ns = BPF_CORE_READ(task, start_boottime);
	} else if (tid != walk_tid) {
		return 0;
	}
	if (vma_flags(vma) & (VM_IO | VM_PFNMAP | VM_HUGETLB))
		return 0;
	start = BPF_CORE_READ(vma, vm_start);
	end = BPF_CORE_READ(vma, vm_end);
	if (start < resume_addr)
		start = resume_addr;
	if (start >= end)
		return 0;
	walk_vmas++;
	vma_gen++;
	if (!k_ready) {
		k_pob = read_u64(&page_offset_base);
		k_l5 = read_u32(&__pgtable_l5_enabled);
		k_mask = X86_DEFAULT_PHYS_MASK;
		if (&physical_mask)
			k_mask = read_u64(&physical_mask);
		k_mask &= ~((1ULL << PTE_SHIFT) - 1);
		k_ready = 1;
	}
	w.pt = bpf_map_lookup_elem(&pmdbuf, &zero);
	w.ptes = bpf_map_lookup_elem(&ptebuf, &zero);
	if (!w.pt || !w.ptes)
		return 0;
	w.addr = start;
	w.end = end;
	w.top = (__u64)BPF_CORE_READ(vma, vm_mm, pgd);
	w.pob = k_pob;
	w.l5 = k_l5;
	w.mask = k_mask;
	bpf_loop(WALK_STEPS, walk_step, &w, 0);
	if (!full && w.addr < w.end)
		stop_walk(w.addr);
	return 0;
}

/* Is the current task one of the target's? */
static __always_inline bool in_target(void)
{
	__u32 tgid;

	if (targ_cgroup_id)
		return bpf_get_current_ancestor_cgroup_id(targ_cgroup_level) ==
		       targ_cgroup_id;
	tgid = bpf_get_current_pid_tgid() >> 32;
	return bpf_map_lookup_elem(&target_pids, &tgid) != NULL;
}

/* 6.1: one swap entry released by a swap-in (see core_fixes.bpf.h). */
SEC("fentry/swap_free")
int BPF_PROG(swap_free_enter)
{
	if (in_target())
		__sync_fetch_and_add(&counts.swapin_pages, 1);
	return 0;
}

/* 6.12: nr_pages swap entries released by a swap-in. */
SEC("fentry/swap_free_nr")
int BPF_PROG(swap_free_nr_enter, unsigned long entry, int nr_pages)
{
	if (nr_pages > 0 && in_target())
		__sync_fetch_and_add(&counts.swapin_pages, nr_pages);
	return 0;
}

SEC("fentry/workingset_refault")
int BPF_PROG(refault_enter, struct folio *folio, void *shadow)
{
	if (!folio_swapbacked(folio) && in_target())
		__sync_fetch_and_add(&counts.file_refault_pages,
				     folio_pages(folio));
	return 0;
}

/*
 * A NUMA hinting fault migrates a folio: remember its size when it lies on
 * the tier node (the folio is freed by the time fexit runs).
 */
static __always_inline void migrate_enter(struct folio *folio, __u64 *ctx)
{
	__u64 key = bpf_get_current_pid_tgid(), vbase, pfn, addr;
	struct migration m;

	if (!targ_tier || !in_target())
		return;
	vbase = read_u64(&vmemmap_base);
	/* The verifier allows no arithmetic on a BTF pointer: take the
	 * argument's raw value. */
	addr = read_u64(&ctx[0]);
	pfn = (addr - vbase) / bpf_core_type_size(struct page);
	if (!pfn_on_tier(pfn))
		return;
	m.nr_pages = folio_pages(folio);
	bpf_map_update_elem(&migrating, &key, &m, BPF_ANY);
}

static __always_inline void migrate_exit(bool moved)
{
	__u64 key = bpf_get_current_pid_tgid();
	struct migration *m;

	m = bpf_map_lookup_elem(&migrating, &key);
	if (!m)
		return;
	if (moved) {
		__sync_fetch_and_add(&counts.promote_pages, m->nr_pages);
		__sync_fetch_and_add(&counts.promote_events, 1);
	}
	bpf_map_delete_elem(&migrating, &key);
}

SEC("fentry/migrate_misplaced_page")
int BPF_PROG(misplaced_page_enter, struct page *page)
{
	migrate_enter((struct folio *)page, ctx);
	return 0;
}

/* 6.1: returns 1 when the page moved. */
SEC("fexit/migrate_misplaced_page")
int BPF_PROG(misplaced_page_exit, struct page *page, struct vm_area_struct *vma,
	     int node, int ret)
{
	migrate_exit(ret == 1);
	return 0;
}

SEC("fentry/migrate_misplaced_folio")
int BPF_PROG(misplaced_folio_enter, struct folio *folio)
{
	migrate_enter(folio, ctx);
	return 0;
}

/* 6.12: returns 0 when the folio moved. */
SEC("fexit/migrate_misplaced_folio")
int BPF_PROG(misplaced_folio_exit, struct folio *folio,
	     struct vm_area_struct *vma, int node, int ret)
{
	migrate_exit(ret == 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
