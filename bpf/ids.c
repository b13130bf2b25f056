// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF program's records into page ids: each PTE record's bitmap and
 * each huge record's range become ids (or runs of them, with
 * MDK_SAMPLER_RUNS), appended to the window in walk order, then sorted
 * and made unique when a renumbered process or a re-found VMA broke the
 * order.  Checked first: a malformed record is refused, not expanded.
 */
#include <string.h>

#include "sampler_int.h"

/*
 * Check @nr records and count their pages (*@pages) and the runs they can
 * make at most (*@runs).
 */
static int check_recs(const struct sampler_rec *recs, size_t nr,
		      uint64_t *pages, uint64_t *runs)
{
	size_t i;
	unsigned int j;

	*pages = *runs = 0;
	for (i = 0; i < nr; i++) {
		const struct sampler_rec *r = &recs[i];
		unsigned int bits = 0;

		if (r->addr & 4095 ||
		    r->addr >> (MDK_SAMPLER_PAGE_VPN_BITS + 12))
			return -EINVAL;
		switch (r->kind) {
		case SAMPLER_REC_PTE:
			if (r->addr & ((1ULL << 21) - 1))
				return -EINVAL;
			for (j = 0; j < SAMPLER_PTRS_PER_TABLE / 64; j++)
				bits += __builtin_popcountll(r->bits[j]);
			if (bits != r->nr_pages)
				return -EINVAL;
			*runs += bits < SAMPLER_PTRS_PER_TABLE / 2 ?
					 bits :
					 SAMPLER_PTRS_PER_TABLE / 2;
			break;
		case SAMPLER_REC_HUGE:
			if (!r->nr_pages ||
			    (r->addr >> 12) + r->nr_pages >
				    1ULL << MDK_SAMPLER_PAGE_VPN_BITS)
				return -EINVAL;
			(*runs)++;
			break;
		default:
			return -EINVAL;
		}
		if (r->nr_tier > r->nr_pages)
			return -EINVAL;
		*pages += r->nr_pages;
	}
	return 0;
}

/* Two ids, for fill_ids() (GCC and Clang vector extensions). */
typedef uint64_t id_pair __attribute__((vector_size(16)));

/*
 * ids[0 .. nr) = first, first + 1, ...: 512 of them for every accessed
 * huge page, so eight at a time (at -O2 the compiler does not vectorize
 * a loop of unknown length itself).
 */
static void fill_ids(uint64_t *ids, uint64_t first, uint64_t nr)
{
	id_pair a = { first, first + 1 }, b = a + 2, c = a + 4, d = a + 6;
	const id_pair step = { 8, 8 };
	uint64_t j;

	for (j = 0; j + 8 <= nr; j += 8) {
		memcpy(ids + j, &a, sizeof(a));
		memcpy(ids + j + 2, &b, sizeof(b));
		memcpy(ids + j + 4, &c, sizeof(c));
		memcpy(ids + j + 6, &d, sizeof(d));
		a += step;
		b += step;
		c += step;
		d += step;
	}
	for (; j < nr; j++)
		ids[j] = first + j;
}

/*
 * Append the ids of checked records; *@sorted is cleared when one does
 * not come after everything before it (ids within a record ascend).
 */
static void expand_ids(const struct sampler_rec *recs, size_t nr, uint32_t proc,
		       uint64_t *ids, size_t *n, bool *sorted)
{
	uint64_t base = (uint64_t)proc << MDK_SAMPLER_PAGE_VPN_BITS, vpn;
	size_t i, k = *n, k0;
	unsigned int j;

	for (i = 0; i < nr; i++) {
		const struct sampler_rec *r = &recs[i];

		vpn = r->addr >> 12;
		k0 = k;
		if (r->kind == SAMPLER_REC_HUGE) {
			fill_ids(ids + k, base | vpn, r->nr_pages);
			k += r->nr_pages;
		} else {
			for (j = 0; j < SAMPLER_PTRS_PER_TABLE / 64; j++) {
				uint64_t w = r->bits[j];

				while (w) {
					ids[k++] = base | (vpn + j * 64 +
							   __builtin_ctzll(w));
					w &= w - 1;
				}
			}
		}
		if (k0 && k > k0 && ids[k0] <= ids[k0 - 1])
			*sorted = false;
	}
	*n = k;
}

int mdk_sampler_expand(const struct sampler_rec *recs, size_t nr, uint32_t proc,
		       uint64_t *ids, size_t cap, size_t *n)
{
	uint64_t need, runs;
	bool sorted = true;
	int err;

	err = check_recs(recs, nr, &need, &runs);
	if (err)
		return err;
	if (need > cap - *n)
		return -ENOSPC;
	expand_ids(recs, nr, proc, ids, n, &sorted);
	return 0;
}

/* Append the run [first, first + nr), joined to the last one if it
 * continues it; *@sorted cleared when it does not come after it. */
static void put_run(struct mdk_sampler_page_run *runs, size_t *n,
		    uint64_t first, uint64_t nr, bool *sorted)
{
	struct mdk_sampler_page_run *last = *n ? &runs[*n - 1] : NULL;

	if (last && last->first + last->nr == first) {
		last->nr += nr;
		return;
	}
	if (last && first < last->first + last->nr)
		*sorted = false;
	runs[*n].first = first;
	runs[(*n)++].nr = nr;
}

static void expand_runs(const struct sampler_rec *recs, size_t nr,
			uint32_t proc, struct mdk_sampler_page_run *runs,
			size_t *n, bool *sorted)
{
	uint64_t base = (uint64_t)proc << MDK_SAMPLER_PAGE_VPN_BITS, vpn, w, x;
	unsigned int j, b, len;
	size_t i;

	for (i = 0; i < nr; i++) {
		const struct sampler_rec *r = &recs[i];

		vpn = base | r->addr >> 12;
		if (r->kind == SAMPLER_REC_HUGE) {
			put_run(runs, n, vpn, r->nr_pages, sorted);
			continue;
		}
		for (j = 0; j < SAMPLER_PTRS_PER_TABLE / 64; j++) {
			w = r->bits[j];
			while (w) {
				b = __builtin_ctzll(w);
				x = ~(w >> b);
				len = x ? (unsigned int)__builtin_ctzll(x) :
					  64 - b;
				put_run(runs, n, vpn + j * 64 + b, len, sorted);
				w = b + len < 64 ? w & ~0ULL << (b + len) : 0;
			}
		}
	}
}

int mdk_sampler_expand_runs(const struct sampler_rec *recs, size_t nr,
			    uint32_t proc, struct mdk_sampler_page_run *runs,
			    size_t cap, size_t *n)
{
	uint64_t pages, need;
	bool sorted = true;
	int err;

	err = check_recs(recs, nr, &pages, &need);
	if (err)
		return err;
	if (need > cap - *n)
		return -ENOSPC;
	expand_runs(recs, nr, proc, runs, n, &sorted);
	return 0;
}

/* The window begins with no pages. */
void sampler__ids_reset(struct mdk_sampler *s)
{
	s->nr_ids = 0;
	s->nr_runs = 0;
	s->sorted = true;
}

/*
 * Add the @nr records of the last walk pass (in s->recs) of process number
 * @proc to the window: their page ids or runs, and their pages on the tier
 * node.
 */
int sampler__ids_add(struct mdk_sampler *s, uint32_t proc, uint32_t nr)
{
	uint64_t need, runs;
	uint32_t i;
	int err;

	err = check_recs(s->recs, nr, &need, &runs);
	if (err)
		return err;
	for (i = 0; i < nr; i++)
		s->cur.tier_pages += s->recs[i].nr_tier;
	if (s->flags & MDK_SAMPLER_RUNS) {
		err = mdk_grow((void **)&s->runs, &s->cap_runs,
			       s->nr_runs + runs, sizeof(*s->runs));
		if (!err)
			expand_runs(s->recs, nr, proc, s->runs, &s->nr_runs,
				    &s->sorted);
	} else {
		err = mdk_grow((void **)&s->ids, &s->cap_ids, s->nr_ids + need,
			       sizeof(*s->ids));
		if (!err)
			expand_ids(s->recs, nr, proc, s->ids, &s->nr_ids,
				   &s->sorted);
	}
	return err;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_run(const void *a, const void *b)
{
	const struct mdk_sampler_page_run *x = a, *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

/* Sort the runs and join the ones that overlap or touch. */
static void sort_runs(struct mdk_sampler *s)
{
	uint64_t i, j, end;

	qsort(s->runs, s->nr_runs, sizeof(*s->runs), cmp_run);
	for (i = j = 0; i < s->nr_runs; i++) {
		struct mdk_sampler_page_run *last = j ? &s->runs[j - 1] : NULL;

		if (last && s->runs[i].first <= last->first + last->nr) {
			end = s->runs[i].first + s->runs[i].nr;
			if (end > last->first + last->nr)
				last->nr = end - last->first;
		} else {
			s->runs[j++] = s->runs[i];
		}
	}
	s->nr_runs = j;
}

static void sort_ids(struct mdk_sampler *s)
{
	uint64_t i, j;

	qsort(s->ids, s->nr_ids, sizeof(*s->ids), cmp_u64);
	for (i = j = 0; i < s->nr_ids; i++)
		if (!j || s->ids[j - 1] != s->ids[i])
			s->ids[j++] = s->ids[i];
	s->nr_ids = j;
}

/* The window's pages into s->cur, sorted and unique. */
void sampler__ids_deliver(struct mdk_sampler *s)
{
	uint64_t i;

	/* Sorted unless a process was renumbered; walks never repeat a page
	 * except when the iterator re-finds a VMA after dropping mmap_lock. */
	if (!s->sorted && (s->flags & MDK_SAMPLER_RUNS))
		sort_runs(s);
	else if (!s->sorted)
		sort_ids(s);
	if (s->flags & MDK_SAMPLER_RUNS) {
		s->cur.runs = s->runs;
		s->cur.nr_runs = s->nr_runs;
		for (i = 0; i < s->nr_runs; i++)
			s->cur.nr_pages += s->runs[i].nr;
	} else {
		s->cur.pages = s->ids;
		s->cur.nr_pages = s->nr_ids;
	}
}
