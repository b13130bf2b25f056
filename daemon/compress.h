/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The compressibility of a cgroup's memory, what a page of it saves in
 * zswap (1 - 1/ratio, mdk/tier.h):
 *
 *  - where memory.stat has "zswap" and "zswapped" (Linux 6.12), the ratio
 *    of the cgroup's pages now in zswap: zswapped / zswap;
 *  - else (6.1) a sampled compression: a bounded sample of the anonymous
 *    pages of the cgroup's processes, read through /proc/PID/mem (resident
 *    ones only, per /proc/PID/pagemap, so that sampling brings nothing
 *    back from swap), each compressed with LZ4, the ratio of the bytes.
 *
 * Debian's kernels default zswap to lzo (CONFIG_ZSWAP_COMPRESSOR_DEFAULT);
 * LZ4 is of the same family (byte-oriented LZ77, no entropy stage) and
 * comes close to its ratios.  A page that does not shrink counts at its
 * full size, ratio 1, as zswap rejects it to swap.
 */
#ifndef MDKD_COMPRESS_H
#define MDKD_COMPRESS_H

#include <stdbool.h>
#include <stdint.h>

/* Pages sampled per pass, at most. */
#define MDKD_COMPRESS_SAMPLE 64

/* What a sample added up. */
struct mdkd_compress {
	uint64_t pages;
	uint64_t in_bytes, out_bytes; /* out: at most in, per page */
};

/* mdkd_compress_stat_key() - the value of line "@key N" of memory.stat @buf. */
bool mdkd_compress_stat_key(const char *buf, const char *key, uint64_t *v);

/* mdkd_compress_page() - compress one 4 KiB page into @c's sums. */
void mdkd_compress_page(struct mdkd_compress *c, const void *page);

/* mdkd_compress_ratio() - in / out bytes of @c; 0 when nothing sampled. */
double mdkd_compress_ratio(const struct mdkd_compress *c);

/*
 * mdkd_compress_memstat() - zswapped / zswap from the text of memory.stat
 * @buf.  Return: 0 with the ratio in *@ratio; -ENOENT when the kernel has
 * no such keys; -ENODATA when none of the cgroup's pages is in zswap.
 */
int mdkd_compress_memstat(const char *buf, double *ratio);

/*
 * mdkd_compress_sample() - sample up to @max resident anonymous pages of
 * the processes in cgroup directory @cg (cgroup.procs), through
 * @proc_root, spread evenly over their mappings and shifted by *@pass
 * (then incremented) so that passes see other pages.  Adds to @c.
 * Return: 0, or -errno (-ENOENT: no process, no page).
 */
int mdkd_compress_sample(const char *cg, const char *proc_root,
			 unsigned int max, uint64_t *pass,
			 struct mdkd_compress *c);

#endif /* MDKD_COMPRESS_H */
