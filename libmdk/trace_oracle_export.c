// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * .mdkt traces as libCacheSim's oracleGeneral traces: each window's pages
 * become requests, in window order and, within a window, in page id
 * order.  A request's next_access_vtime (the index of the page's next
 * request, -1 for none) is known only when that request comes, so one
 * forward pass writes each record with -1 and fills the field in when the
 * page comes again: in the output buffer while the record is still there,
 * in the file after, in sorted batches.  Memory: the buffers (6 MiB, and
 * 9.5 MiB more once fields are filled in the file) and one int64 a
 * distinct page (the reader's dense page indices), whatever the trace's
 * length; any trace the reader reads will do, a compressed one or a pipe
 * too.  An output named *.zst is written plain
 * to an unnamed file beside it first, then compressed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_int.h"

#define REC MDK_ORACLE_RECORD_BYTES
#define OUT_RECS (1u << 18) /* 6 MiB of records buffered */
#define PATCHES (1u << 19) /* 8 MiB of fields to fill in the file */
#define SWEEP_RECS (1u << 16) /* records read back at a time to fill */

/* next_access_vtime @vt goes into record @rec, already in the file. */
struct orc_patch {
	uint64_t rec, vt;
};

struct orc_out {
	const char *name;
	int fd;
	uint8_t *buf;
	uint64_t base; /* index of the buffer's first record */
	size_t n; /* records in the buffer */
	int64_t *last; /* last[page index]: 1 + its latest request, 0: none */
	size_t lastcap;
	struct orc_patch *patch; /* fields to fill in, applied in batches */
	size_t npatch;
	uint8_t *sweep; /* SWEEP_RECS records read back */
	uint32_t clock, size; /* clock_time and obj_size of the window */
};

static int orc_pwrite(struct orc_out *o, const void *p, size_t len,
		      uint64_t off, char *err, size_t errlen)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(o->fd, (const uint8_t *)p + done, len - done,
				   (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return mdk_err(err, errlen, -errno,
				       "%s: offset %llu: write: %s", o->name,
				       (unsigned long long)(off + done),
				       strerror(errno));
		done += (size_t)n;
	}
	return 0;
}

static int orc_flush(struct orc_out *o, char *err, size_t errlen)
{
	int ret = orc_pwrite(o, o->buf, o->n * REC, o->base * REC, err, errlen);

	o->base += o->n;
	o->n = 0;
	return ret;
}

static int patch_cmp(const void *a, const void *b)
{
	const struct orc_patch *x = a, *y = b;

	return x->rec < y->rec ? -1 : x->rec > y->rec;
}

static int orc_pread(struct orc_out *o, void *p, size_t len, uint64_t off,
		     char *err, size_t errlen)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(o->fd, (uint8_t *)p + done, len - done,
				  (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return mdk_err(err, errlen, n ? -errno : -EIO,
				       "%s: offset %llu: read back: %s",
				       o->name,
				       (unsigned long long)(off + done),
				       n ? strerror(errno) : "short file");
		done += (size_t)n;
	}
	return 0;
}

/*
 * Fill the batched fields in: sorted by record, then one read and one
 * write of each stretch of SWEEP_RECS records holding some, so that the
 * file sees large I/O rather than an 8-byte write a request.
 */
static int orc_patch_apply(struct orc_out *o, char *err, size_t errlen)
{
	size_t i = 0;
	int ret;

	if (!o->npatch)
		return 0;
	qsort(o->patch, o->npatch, sizeof(*o->patch), patch_cmp);
	while (i < o->npatch) {
		uint64_t lo = o->patch[i].rec,
			 hi = MDK_MIN(lo + SWEEP_RECS, o->base);

		ret = orc_pread(o, o->sweep, (hi - lo) * REC, lo * REC, err,
				errlen);
		if (ret)
			return ret;
		for (; i < o->npatch && o->patch[i].rec < hi; i++)
			mdk__put64(o->sweep + (o->patch[i].rec - lo) * REC + 16,
				   o->patch[i].vt);
		ret = orc_pwrite(o, o->sweep, (hi - lo) * REC, lo * REC, err,
				 errlen);
		if (ret)
			return ret;
	}
	o->npatch = 0;
	return 0;
}

/* Request @vt is the next one of the page whose latest request was @prev. */
static int orc_link(struct orc_out *o, uint64_t prev, uint64_t vt, char *err,
		    size_t errlen)
{
	if (prev >= o->base) {
		mdk__put64(o->buf + (prev - o->base) * REC + 16, vt);
		return 0;
	}
	/* Short traces never get here: allocate on the first need. */
	if (!o->patch) {
		o->patch = malloc(PATCHES * sizeof(*o->patch));
		o->sweep = malloc((size_t)SWEEP_RECS * REC);
		if (!o->patch || !o->sweep)
			return mdk_err(err, errlen, -ENOMEM,
				       "%s: out of memory", o->name);
	}
	o->patch[o->npatch++] = (struct orc_patch){ prev, vt };
	return o->npatch == PATCHES ? orc_patch_apply(o, err, errlen) : 0;
}

/* The requests of one chunk of a window. */
static int orc_chunk(struct orc_out *o, const struct mdk_trace_chunk *c,
		     uint64_t slots, char *err, size_t errlen)
{
	uint64_t vt = o->base + o->n;
	int ret;

	if (slots > o->lastcap &&
	    mdk__grow_zeroed((void **)&o->last, &o->lastcap, slots,
			     sizeof(*o->last)))
		return mdk_err(err, errlen, -ENOMEM, "%s: out of memory",
			       o->name);
	for (size_t i = 0; i < c->n; i++, vt++) {
		int64_t *l = &o->last[c->pages[i]];
		uint8_t *r;

		if (*l) {
			ret = orc_link(o, (uint64_t)(*l - 1), vt, err, errlen);
			if (ret)
				return ret;
		}
		*l = (int64_t)vt + 1;
		if (o->n == OUT_RECS) {
			ret = orc_flush(o, err, errlen);
			if (ret)
				return ret;
		}
		r = o->buf + o->n++ * REC;
		mdk__put32(r, o->clock);
		mdk__put64(r + 4, c->ids[i]);
		mdk__put32(r + 12, o->size);
		mdk__put64(r + 16, UINT64_MAX); /* -1: no next request */
	}
	return 0;
}

static int orc_export(struct mdk_trace_reader *r, struct orc_out *o, char *err,
		      size_t errlen)
{
	const struct mdk_trace_info *info = mdk_trace_reader_info(r);
	struct mdk_trace_chunk c;
	int ret;

	/* libCacheSim skips requests of size 0: give every page a size. */
	o->size = info->page_size ? info->page_size : 4096;
	while ((ret = mdk_trace_reader_next(r, &c, err, errlen)) > 0) {
		/* Seconds since window 0 began; 1 s a window when unknown. */
		uint64_t t = info->window_us ?
				     (uint64_t)c.window * info->window_us /
					     1000000u :
				     c.window;

		o->clock = t > UINT32_MAX ? UINT32_MAX : (uint32_t)t;
		ret = orc_chunk(o, &c, mdk_trace_reader_slots(r), err, errlen);
		if (ret)
			return ret;
	}
	if (!ret)
		ret = orc_flush(o, err, errlen);
	if (!ret)
		ret = orc_patch_apply(o, err, errlen);
	return ret;
}

/*
 * The file the records go to: @o->name itself, or for a .zst name an
 * unnamed file beside it, compressed into the .zst at the end.
 */
static int orc_open_out(struct orc_out *o, bool zst, char *err, size_t errlen)
{
	struct stat st;

	if (zst) {
		size_t n = strlen(o->name) + 8;
		char *tmpl = malloc(n);

		if (!tmpl)
			return mdk_err(err, errlen, -ENOMEM,
				       "%s: out of memory", o->name);
		snprintf(tmpl, n, "%s.XXXXXX", o->name);
		o->fd = mkostemp(tmpl, O_CLOEXEC);
		if (o->fd >= 0)
			unlink(tmpl);
		free(tmpl);
	} else {
		o->fd = open(o->name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
			     0644);
	}
	if (o->fd < 0)
		return mdk_err(err, errlen, -errno, "%s: %s", o->name,
			       strerror(errno));
	/* Records are filled in after they are written: no pipes. */
	if (fstat(o->fd, &st) || !S_ISREG(st.st_mode))
		return mdk_err(
			err, errlen, -ESPIPE,
			"%s: not a regular file (next_access_vtime is filled in after a record is written)",
			o->name);
	return 0;
}

int mdk_trace_export_oracle(const char *trace, const char *out, char *err,
			    size_t errlen)
{
	struct orc_out o = { .name = out, .fd = -1 };
	size_t len = strlen(out);
	bool zst = len > 4 && !strcmp(out + len - 4, ".zst");
	struct mdk_trace_reader *r;
	int ret;

	ret = mdk_trace_reader_open(trace, MDK_TRACE_DENSE, &r, err, errlen);
	if (ret)
		return ret;
	o.buf = malloc((size_t)OUT_RECS * REC);
	if (!o.buf) {
		ret = mdk_err(err, errlen, -ENOMEM, "%s: out of memory", out);
		goto out_close;
	}
	ret = orc_open_out(&o, zst, err, errlen);
	if (ret)
		goto out_close;
	ret = orc_export(r, &o, err, errlen);
	if (!ret && zst)
		ret = mdk__zout_file(o.fd, out, err, errlen);
	if (close(o.fd) && !ret)
		ret = mdk_err(err, errlen, -errno, "%s: close: %s", out,
			      strerror(errno));
	o.fd = -1;
	if (ret && !zst)
		unlink(out);
out_close:
	if (o.fd >= 0)
		close(o.fd);
	free(o.last);
	free(o.patch);
	free(o.sweep);
	free(o.buf);
	mdk_trace_reader_close(r);
	return ret;
}
