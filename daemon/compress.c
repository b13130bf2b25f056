// SPDX-License-Identifier: GPL-2.0
/*
 * The compressibility of a cgroup's memory (compress.h): memory.stat's
 * zswap counters, or LZ4 over a sample of its processes' resident
 * anonymous pages.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <lz4.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compress.h"

#define PAGE 4096u
#define PIDS_MAX 64
#define REGIONS_MAX 256

void mdkd_compress_page(struct mdkd_compress *c, const void *page)
{
	char out[LZ4_COMPRESSBOUND(PAGE)];
	int n = LZ4_compress_default(page, out, PAGE, sizeof(out));

	c->pages++;
	c->in_bytes += PAGE;
	/* what does not shrink zswap rejects: it stays a whole page */
	c->out_bytes += n > 0 && (unsigned int)n < PAGE ? (unsigned int)n :
							  PAGE;
}

double mdkd_compress_ratio(const struct mdkd_compress *c)
{
	return c->out_bytes ? (double)c->in_bytes / (double)c->out_bytes : 0;
}

bool mdkd_compress_stat_key(const char *buf, const char *key, uint64_t *v)
{
	size_t len = strlen(key);
	const char *l;

	for (l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, key, len) && l[len] == ' ')
			return sscanf(l + len + 1, "%" SCNu64, v) == 1;
	return false;
}

int mdkd_compress_memstat(const char *buf, double *ratio)
{
	uint64_t z, zd;

	if (!mdkd_compress_stat_key(buf, "zswap", &z) ||
	    !mdkd_compress_stat_key(buf, "zswapped", &zd))
		return -ENOENT;
	if (!z || !zd)
		return -ENODATA;
	*ratio = (double)zd / (double)z;
	return 0;
}

struct region {
	int pid;
	uint64_t start, pages;
};

/* The private anonymous mappings of @pid (no file, or heap and stack). */
static int anon_regions(const char *proc_root, int pid, struct region *r, int n,
			uint64_t *total)
{
	char path[256], line[512], name[256];
	unsigned long long a, b, ino;
	char perm[8];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/maps", proc_root, pid);
	f = fopen(path, "re");
	if (!f)
		return n;
	while (n < REGIONS_MAX && fgets(line, sizeof(line), f)) {
		name[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %*s %*s %llu %255s", &a, &b,
			   perm, &ino, name) < 4)
			continue;
		if (perm[0] != 'r' || perm[3] != 'p' || ino ||
		    (name[0] && strcmp(name, "[heap]") &&
		     strcmp(name, "[stack]")))
			continue;
		r[n] = (struct region){ pid, a, (b - a) / PAGE };
		*total += r[n++].pages;
	}
	fclose(f);
	return n;
}

/* Compress page @addr of @pid if resident. */
static void sample_page(const char *proc_root, int pid, uint64_t addr,
			struct mdkd_compress *c)
{
	char path[256], page[PAGE];
	uint64_t pm = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%d/pagemap", proc_root, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (pread(fd, &pm, 8, (off_t)(addr / PAGE * 8)) != 8 ||
	    !(pm >> 63 & 1)) {
		close(fd);
		return;
	}
	close(fd);
	snprintf(path, sizeof(path), "%s/%d/mem", proc_root, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (pread(fd, page, PAGE, (off_t)addr) == PAGE)
		mdkd_compress_page(c, page);
	close(fd);
}

static int read_pids(const char *cg, int *pids)
{
	char path[512];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (n < PIDS_MAX && fscanf(f, "%d", &pids[n]) == 1)
		n++;
	fclose(f);
	return n;
}

int mdkd_compress_sample(const char *cg, const char *proc_root,
			 unsigned int max, uint64_t *pass,
			 struct mdkd_compress *c)
{
	struct region *r;
	int pids[PIDS_MAX], np, n = 0, i;
	uint64_t total = 0, stride, k, at, before = c->pages;

	np = read_pids(cg, pids);
	if (np <= 0)
		return np < 0 ? np : -ENOENT;
	r = calloc(REGIONS_MAX, sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (i = 0; i < np; i++)
		n = anon_regions(proc_root, pids[i], r, n, &total);
	stride = max && total > max ? total / max : 1;
	/* page k of the concatenated regions, k = pass's shift + j stride */
	k = *pass % stride;
	(*pass)++;
	for (i = 0, at = 0; i < n && c->pages - before < max; i++) {
		for (; k < at + r[i].pages && c->pages - before < max;
		     k += stride)
			sample_page(proc_root, r[i].pid,
				    r[i].start + (k - at) * PAGE, c);
		at += r[i].pages;
	}
	free(r);
	return c->pages > before ? 0 : -ENOENT;
}
