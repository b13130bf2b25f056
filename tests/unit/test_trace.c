// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the .mdkt trace writer and reader (libmdk/trace_*.c):
 * round trips through files, memory and pipes, seeking, partial traces, and
 * every kind of bad input -- truncation at every byte, flipped bytes,
 * windows out of order, ids not increasing, foreign files -- failing with
 * a message that names the file, the offset and what was expected.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <zlib.h>

#include "mdk_test.h"

static char *tmp_path(char *buf, size_t len)
{
	int fd;

	snprintf(buf, len, "/tmp/mdk-trace-XXXXXX");
	fd = mkstemp(buf);
	ck_assert_int_ge(fd, 0);
	close(fd);
	return buf;
}

/*
 * A reference trace: windows 0..W-1 where window w holds ids[w], some
 * windows skipped (empty), one window larger than a block.
 */
struct ref {
	uint32_t W;
	size_t n[64];
	uint64_t *ids[64];
	bool skip[64];
};

static void ref_make(struct ref *r, uint64_t seed)
{
	uint64_t s = seed;
	uint32_t w;

	memset(r, 0, sizeof(*r));
	r->W = 40;
	for (w = 0; w < r->W; w++) {
		size_t n = w == 7     ? MDK_TRACE_BLOCK_IDS * 2 + 17 :
			   w % 9 == 4 ? 0 :
					tt_rand(&s) % 300;
		uint64_t id = tt_rand(&s) % 1000;
		size_t i;

		r->skip[w] = w % 11 == 3;
		if (r->skip[w])
			n = 0;
		r->n[w] = n;
		r->ids[w] = malloc((n + 1) * sizeof(uint64_t));
		for (i = 0; i < n; i++) {
			/* Mostly dense, some large jumps (multi-byte varints). */
			id += 1 + (tt_rand(&s) % 16 == 0 ?
					   tt_rand(&s) % (1ull << 40) :
					   tt_rand(&s) % 4);
			r->ids[w][i] = id;
		}
	}
	/* The largest id a trace can hold, in the last window. */
	r->n[r->W - 1] = 2;
	r->ids[r->W - 1][0] = 0;
	r->ids[r->W - 1][1] = UINT64_MAX;
}

static void ref_free(struct ref *r)
{
	uint32_t w;

	for (w = 0; w < r->W; w++)
		free(r->ids[w]);
}

static void ref_write(const struct ref *r, const char *path, bool close_it)
{
	struct mdk_trace_writer_opts o = {
		.window_us = 30000000,
		.page_size = 4096,
		.flags = MDK_TRACE_F_PHYS,
		.start_us = 1700000000000000ull,
		.desc = "unit test \"trace\"",
	};
	struct mdk_trace_writer *w;
	char err[256];
	uint32_t win;

	ck_assert_msg(!mdk_trace_writer_open(path, &o, &w, err, sizeof(err)),
		      "%s", err);
	for (win = 0; win < r->W; win++) {
		size_t half = r->n[win] / 2;

		if (r->skip[win])
			continue;
		/* Add a window in two calls: the writer streams. */
		ck_assert_msg(!mdk_trace_writer_begin(w, win, err, sizeof(err)),
			      "%s", err);
		ck_assert_msg(!mdk_trace_writer_add(w, r->ids[win], half, err,
						    sizeof(err)),
			      "%s", err);
		ck_assert_msg(!mdk_trace_writer_add(w, r->ids[win] + half,
						    r->n[win] - half, err,
						    sizeof(err)),
			      "%s", err);
	}
	if (close_it)
		ck_assert_msg(!mdk_trace_writer_close(w, err, sizeof(err)),
			      "%s", err);
	else
		mdk_trace_writer_abort(w);
}

/* Read @rd to the end and compare with @r from window @from on. */
static void ref_check(const struct ref *r, struct mdk_trace_reader *rd,
		      uint32_t from)
{
	struct mdk_trace_chunk c;
	uint32_t w = from;
	size_t got = 0;
	char err[256];
	int ret;

	while ((ret = mdk_trace_reader_next(rd, &c, err, sizeof(err))) > 0) {
		ck_assert_uint_eq(c.window, w);
		ck_assert_uint_le(got + c.n, r->n[w]);
		if (c.n)
			ck_assert(!memcmp(c.ids, r->ids[w] + got,
					  c.n * sizeof(uint64_t)));
		got += c.n;
		if (c.window_end) {
			ck_assert_uint_eq(got, r->n[w]);
			got = 0;
			w++;
		}
	}
	ck_assert_msg(ret == 0, "%s", err);
	ck_assert_uint_eq(w, r->W);
	ck_assert_uint_eq(mdk_trace_reader_windows(rd), r->W);
}

START_TEST(test_trace_roundtrip_file)
{
	const struct mdk_trace_info *info;
	struct mdk_trace_reader *rd;
	char path[64], err[256];
	uint64_t total = 0;
	struct ref r;
	uint32_t w;

	ref_make(&r, 1);
	ref_write(&r, tmp_path(path, sizeof(path)), true);
	for (w = 0; w < r.W; w++)
		total += r.n[w];
	ck_assert_msg(!mdk_trace_reader_open(path, MDK_TRACE_DENSE, &rd, err,
					     sizeof(err)),
		      "%s", err);
	info = mdk_trace_reader_info(rd);
	ck_assert_uint_eq(info->version_major, MDK_TRACE_VERSION_MAJOR);
	ck_assert_uint_eq(info->window_us, 30000000);
	ck_assert_uint_eq(info->page_size, 4096);
	ck_assert_uint_eq(info->flags, MDK_TRACE_F_PHYS);
	ck_assert_uint_eq(info->start_us, 1700000000000000ull);
	ck_assert_str_eq(info->desc, "unit test \"trace\"");
	ck_assert(info->indexed);
	ck_assert_uint_eq(info->windows, r.W);
	ck_assert_uint_eq(info->records, total);
	ref_check(&r, rd, 0);
	ck_assert_uint_eq(mdk_trace_reader_records(rd), total);
	ck_assert_uint_le(mdk_trace_reader_pages(rd), total);
	ck_assert_uint_ge(mdk_trace_reader_slots(rd),
			  mdk_trace_reader_pages(rd));
	mdk_trace_reader_close(rd);
	unlink(path);
	ref_free(&r);
}
END_TEST

START_TEST(test_trace_roundtrip_mem_and_pipe)
{
	struct mdk_trace_reader *rd;
	char path[64], err[256], fdpath[64];
	uint8_t *buf;
	size_t len;
	struct ref r;
	FILE *p;
	char cmd[128];

	ref_make(&r, 2);
	ref_write(&r, tmp_path(path, sizeof(path)), true);
	buf = read_whole_file(path, &len);
	ck_assert_msg(!mdk_trace_reader_open_mem(buf, len, "mem", 0, &rd, err,
						 sizeof(err)),
		      "%s", err);
	ref_check(&r, rd, 0);
	mdk_trace_reader_close(rd);

	/* A pipe is read as a stream: the index comes at the end. */
	snprintf(cmd, sizeof(cmd), "cat %s", path);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fileno(p));
	ck_assert_msg(!mdk_trace_reader_open(fdpath, MDK_TRACE_DENSE, &rd, err,
					     sizeof(err)),
		      "%s", err);
	ck_assert(!mdk_trace_reader_info(rd)->indexed);
	ref_check(&r, rd, 0);
	ck_assert(mdk_trace_reader_info(rd)->indexed);
	ck_assert_int_eq(mdk_trace_reader_seek(rd, 0, err, sizeof(err)),
			 -ENOTSUP);
	mdk_trace_reader_close(rd);
	pclose(p);
	free(buf);
	unlink(path);
	ref_free(&r);
}
END_TEST

START_TEST(test_trace_seek)
{
	static const uint32_t to[] = { 0, 3, 4, 7, 8, 14, 39, 12, 0 };
	struct mdk_trace_reader *rd;
	char path[64], err[256];
	struct ref r;
	size_t i;

	ref_make(&r, 3);
	ref_write(&r, tmp_path(path, sizeof(path)), true);
	ck_assert(!mdk_trace_reader_open(path, MDK_TRACE_DENSE, &rd, err,
					 sizeof(err)));
	for (i = 0; i < MDK_ARRAY(to); i++) {
		ck_assert_msg(!mdk_trace_reader_seek(rd, to[i], err,
						     sizeof(err)),
			      "%s", err);
		ref_check(&r, rd, to[i]);
	}
	ck_assert_int_eq(mdk_trace_reader_seek(rd, r.W, err, sizeof(err)),
			 -ERANGE);
	ck_assert(strstr(err, "past the end"));
	mdk_trace_reader_close(rd);
	unlink(path);
	ref_free(&r);
}
END_TEST

/* A writer that did not close leaves a trace only MDK_TRACE_PARTIAL reads. */
START_TEST(test_trace_partial)
{
	struct mdk_trace_reader *rd;
	char path[64], err[256];
	struct ref r;

	ref_make(&r, 4);
	ref_write(&r, tmp_path(path, sizeof(path)), false);
	ck_assert_int_eq(mdk_trace_reader_open(path, 0, &rd, err, sizeof(err)),
			 -EBADMSG);
	ck_assert_msg(strstr(err, path) && strstr(err, "not closed"), "%s",
		      err);
	ck_assert_msg(!mdk_trace_reader_open(path, MDK_TRACE_PARTIAL, &rd, err,
					     sizeof(err)),
		      "%s", err);
	ck_assert(!mdk_trace_reader_info(rd)->indexed);
	ref_check(&r, rd, 0);
	mdk_trace_reader_close(rd);
	unlink(path);
	ref_free(&r);
}
END_TEST

/* Read @buf in full; returns the first error (0 if none) with @err set. */
static int read_all(const uint8_t *buf, size_t len, unsigned int flags,
		    char *err, size_t errlen)
{
	struct mdk_trace_reader *rd;
	struct mdk_trace_chunk c;
	int ret;

	err[0] = 0;
	ret = mdk_trace_reader_open_mem(buf, len, "t.mdkt", flags, &rd, err,
					errlen);
	if (ret)
		return ret;
	while ((ret = mdk_trace_reader_next(rd, &c, err, errlen)) > 0)
		;
	mdk_trace_reader_close(rd);
	return ret;
}

START_TEST(test_trace_truncated_everywhere)
{
	char path[64], err[256];
	struct mdk_trace_writer *w;
	uint64_t ids[50];
	uint8_t *buf;
	size_t len, cut, i;

	for (i = 0; i < MDK_ARRAY(ids); i++)
		ids[i] = 1000 + i * i;
	ck_assert(!mdk_trace_writer_open(tmp_path(path, sizeof(path)), NULL, &w,
					 err, sizeof(err)));
	for (i = 0; i < 5; i++)
		ck_assert(!mdk_trace_writer_put(w, (uint32_t)i * 2, ids, 10 * i,
						0, err, sizeof(err)));
	ck_assert(!mdk_trace_writer_close(w, err, sizeof(err)));
	buf = read_whole_file(path, &len);
	ck_assert_int_eq(read_all(buf, len, 0, err, sizeof(err)), 0);
	for (cut = 0; cut < len; cut++) {
		int ret = read_all(buf, cut, 0, err, sizeof(err));

		ck_assert_msg(ret < 0, "cut at %zu of %zu accepted", cut, len);
		ck_assert_msg(strstr(err, "t.mdkt: ") && strstr(err, "offset"),
			      "cut %zu: '%s'", cut, err);
		/* A partial read must fail or stop cleanly, never crash. */
		ret = read_all(buf, cut, MDK_TRACE_PARTIAL, err, sizeof(err));
		ck_assert(ret <= 0);
	}
	/* Mid-block: the message says what the block needed. */
	ck_assert_int_eq(read_all(buf, 48 + 24 + 30, MDK_TRACE_PARTIAL, err,
				  sizeof(err)),
			 -EBADMSG);
	ck_assert_msg(strstr(err, "truncated block") && strstr(err, "needs"),
		      "%s", err);
	free(buf);
	unlink(path);
}
END_TEST

START_TEST(test_trace_bad_checksums)
{
	char path[64], err[256];
	struct ref r;
	uint8_t *buf;
	size_t len, i;
	uint64_t s = 9;

	ref_make(&r, 5);
	ref_write(&r, tmp_path(path, sizeof(path)), true);
	buf = read_whole_file(path, &len);

	/* A payload byte of the first block (header is 48 + 24 bytes). */
	buf[48 + 24 + 40 + 24] ^= 0x40;
	ck_assert_int_eq(read_all(buf, len, 0, err, sizeof(err)), -EBADMSG);
	ck_assert_msg(strstr(err, "bad checksum in block of window") &&
			      strstr(err, "offset"),
		      "%s", err);
	buf[48 + 24 + 40 + 24] ^= 0x40;

	buf[20] ^= 1; /* window length, in the header */
	ck_assert_int_eq(read_all(buf, len, 0, err, sizeof(err)), -EBADMSG);
	ck_assert_msg(strstr(err, "offset 44: bad header checksum"), "%s", err);
	buf[20] ^= 1;

	buf[len - 40] ^= 1; /* inside the index */
	ck_assert_int_eq(read_all(buf, len, 0, err, sizeof(err)), -EBADMSG);
	ck_assert_msg(strstr(err, "index"), "%s", err);
	buf[len - 40] ^= 1;

	buf[len - 10] ^= 1; /* the footer */
	ck_assert_int_eq(read_all(buf, len, 0, err, sizeof(err)), -EBADMSG);
	ck_assert_msg(strstr(err, "bad footer checksum"), "%s", err);
	buf[len - 10] ^= 1;
	ck_assert_int_eq(read_all(buf, len, 0, err, sizeof(err)), 0);

	/* Random single-byte damage: an error naming the file, or benign. */
	for (i = 0; i < 3000; i++) {
		size_t at = tt_rand(&s) % len;
		uint8_t old = buf[at];
		int ret;

		buf[at] ^= (uint8_t)(1 + tt_rand(&s) % 255);
		ret = read_all(buf, len, i & 1 ? MDK_TRACE_PARTIAL : 0, err,
			       sizeof(err));
		ck_assert_msg(ret <= 0, "byte %zu", at);
		if (ret)
			ck_assert_msg(strstr(err, "t.mdkt: "), "%s", err);
		buf[at] = old;
	}
	free(buf);
	unlink(path);
	ref_free(&r);
}
END_TEST

/* Hand-built traces for what the writer never produces. */
struct raw {
	uint8_t b[4096];
	size_t n;
};

static void raw_put(struct raw *r, const void *p, size_t n)
{
	memcpy(r->b + r->n, p, n);
	r->n += n;
}

static void raw_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void raw_header(struct raw *r, uint16_t major)
{
	static const uint8_t magic[8] = { 0x89, 'M',  'D',  'K',
					  'T',	'\r', '\n', 0x1a };
	uint8_t h[48] = { 0 };

	memcpy(h, magic, 8);
	h[8] = (uint8_t)major;
	raw_u32(h + 12, 48);
	raw_u32(h + 44, (uint32_t)crc32(0, h, 44));
	raw_put(r, h, 48);
}

/* A block of @n ids given as raw varint values @v (first absolute). */
static void raw_block(struct raw *r, uint32_t window, uint32_t flags,
		      const uint8_t *v, uint32_t n, uint32_t bytes)
{
	uint8_t h[24];
	uLong c;

	raw_u32(h, 0x424b444d);
	raw_u32(h + 4, window);
	raw_u32(h + 8, n);
	raw_u32(h + 12, bytes);
	raw_u32(h + 16, flags);
	c = crc32(0, h, 20);
	c = crc32(c, v, bytes);
	raw_u32(h + 20, (uint32_t)c);
	raw_put(r, h, 24);
	raw_put(r, v, bytes);
}

START_TEST(test_trace_malformed_blocks)
{
	static const uint8_t one[] = { 5 }, two[] = { 5, 0 };
	static const uint8_t lower[] = { 3 };
	static const uint8_t longv[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
					 0x80, 0x80, 0x80, 0x80, 0x01 };
	static const uint8_t over[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					0xff, 0xff, 0xff, 0x01, 0x05 };
	char err[256];
	struct raw r;

	/* Windows out of order. */
	memset(&r, 0, sizeof(r));
	raw_header(&r, 1);
	raw_block(&r, 0, 0, one, 1, 1);
	raw_block(&r, 2, 0, one, 1, 1);
	raw_block(&r, 1, 0, one, 1, 1);
	ck_assert_int_eq(read_all(r.b, r.n, MDK_TRACE_PARTIAL, err,
				  sizeof(err)),
			 -EBADMSG);
	ck_assert_msg(
		strstr(err,
		       "t.mdkt: offset 98: window 1 after window 2: windows out of order"),
		"%s", err);

	/* The same window twice without the continuation flag. */
	memset(&r, 0, sizeof(r));
	raw_header(&r, 1);
	raw_block(&r, 3, 0, one, 1, 1);
	raw_block(&r, 3, 0, one, 1, 1);
	ck_assert_int_eq(read_all(r.b, r.n, MDK_TRACE_PARTIAL, err,
				  sizeof(err)),
			 -EBADMSG);
	ck_assert_msg(strstr(err, "window 3 after window 3"), "%s", err);

	/* A continuation whose first id does not follow the last one. */
	memset(&r, 0, sizeof(r));
	raw_header(&r, 1);
	raw_block(&r, 0, 0, two, 2, 2);
	raw_block(&r, 0, 1, lower, 1, 1);
	ck_assert_int_eq(read_all(r.b, r.n, MDK_TRACE_PARTIAL, err,
				  sizeof(err)),
			 -EBADMSG);
	ck_assert_msg(strstr(err,
			     "page id 3 after 6: ids must strictly increase"),
		      "%s", err);

	/* A jump of more than MDK_TRACE_MAX_GAP empty windows. */
	memset(&r, 0, sizeof(r));
	raw_header(&r, 1);
	raw_block(&r, 1, 0, one, 1, 1);
	raw_block(&r, MDK_TRACE_MAX_GAP + 2, 0, one, 1, 1);
	ck_assert_int_eq(read_all(r.b, r.n, MDK_TRACE_PARTIAL, err,
				  sizeof(err)),
			 -EBADMSG);
	ck_assert_msg(strstr(err, "a gap of more than 1048576 empty windows"),
		      "%s", err);

	/* A continuation of nothing. */
	memset(&r, 0, sizeof(r));
	raw_header(&r, 1);
	raw_block(&r, 0, 1, one, 1, 1);
	ck_assert_int_eq(read_all(r.b, r.n, MDK_TRACE_PARTIAL, err,
				  sizeof(err)),
			 -EBADMSG);
	ck_assert_msg(strstr(err, "continues window 0"), "%s", err);

	/* A varint over ten bytes, one over 64 bits. */
	memset(&r, 0, sizeof(r));
	raw_header(&r, 1);
	raw_block(&r, 0, 0, longv, 2, sizeof(longv));
	ck_assert_int_eq(read_all(r.b, r.n, MDK_TRACE_PARTIAL, err,
				  sizeof(err)),
			 -EBADMSG);
	ck_assert_msg(strstr(err, "varint"), "%s", err);
	memset(&r, 0, sizeof(r));
	raw_header(&r, 1);
	raw_block(&r, 0, 0, over, 2, sizeof(over));
	ck_assert_int_eq(read_all(r.b, r.n, MDK_TRACE_PARTIAL, err,
				  sizeof(err)),
			 -EBADMSG);
	ck_assert_msg(strstr(err, "overflows 64 bits"), "%s", err);

	/* Count and payload that disagree. */
	memset(&r, 0, sizeof(r));
	raw_header(&r, 1);
	raw_block(&r, 0, 0, two, 1, 2);
	ck_assert_int_eq(read_all(r.b, r.n, MDK_TRACE_PARTIAL, err,
				  sizeof(err)),
			 -EBADMSG);
	ck_assert_msg(strstr(err, "1 page ids use 1 of the 2 payload bytes"),
		      "%s", err);
	memset(&r, 0, sizeof(r));
	raw_header(&r, 1);
	raw_block(&r, 0, 0, two, 100, 2);
	ck_assert_int_eq(read_all(r.b, r.n, MDK_TRACE_PARTIAL, err,
				  sizeof(err)),
			 -EBADMSG);
	ck_assert_msg(strstr(err, "impossible"), "%s", err);

	/* Unknown block flags; garbage where a block should be. */
	memset(&r, 0, sizeof(r));
	raw_header(&r, 1);
	raw_block(&r, 0, 4, one, 1, 1);
	ck_assert_int_eq(read_all(r.b, r.n, MDK_TRACE_PARTIAL, err,
				  sizeof(err)),
			 -EBADMSG);
	ck_assert_msg(strstr(err, "unknown block flags"), "%s", err);
	memset(&r, 0, sizeof(r));
	raw_header(&r, 1);
	raw_put(&r, "garbage!garbage!garbage!", 24);
	ck_assert_int_eq(read_all(r.b, r.n, MDK_TRACE_PARTIAL, err,
				  sizeof(err)),
			 -EBADMSG);
	ck_assert_msg(strstr(err, "offset 48: expected a block (\"MDKB\")"),
		      "%s", err);

	/* A newer major version; not a trace at all. */
	memset(&r, 0, sizeof(r));
	raw_header(&r, 2);
	ck_assert_int_eq(read_all(r.b, r.n, MDK_TRACE_PARTIAL, err,
				  sizeof(err)),
			 -EPROTONOSUPPORT);
	ck_assert_msg(strstr(err, "format version 2.0"), "%s", err);
	ck_assert_int_eq(read_all((const uint8_t *)"window,page\n0,1\n", 16, 0,
				  err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "offset 0: not an mdk trace"), "%s", err);
}
END_TEST

START_TEST(test_trace_writer_errors)
{
	struct mdk_trace_writer *w;
	char path[64], err[256];
	uint64_t ids[] = { 5, 9, 9 };

	ck_assert(!mdk_trace_writer_open(tmp_path(path, sizeof(path)), NULL, &w,
					 err, sizeof(err)));
	ck_assert_int_eq(mdk_trace_writer_add(w, ids, 1, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "before any window"), "%s", err);
	ck_assert(!mdk_trace_writer_begin(w, 4, err, sizeof(err)));
	ck_assert_int_eq(mdk_trace_writer_add(w, ids, 3, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "page id 9 after 9"), "%s", err);
	ck_assert_int_eq(mdk_trace_writer_begin(w, 4, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err,
			     "window 4 after window 4: windows must increase"),
		      "%s", err);
	ck_assert(!mdk_trace_writer_put(w, 6, ids, 3, MDK_TRACE_UNSORTED, err,
					sizeof(err)));
	ck_assert_int_eq(mdk_trace_writer_begin(w, 6 + MDK_TRACE_MAX_GAP + 1,
						err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "more than 1048576 empty windows"), "%s",
		      err);
	ck_assert(!mdk_trace_writer_close(w, err, sizeof(err)));
	ck_assert_int_eq(mdk_trace_writer_open("/nonexistent/dir/t.mdkt", NULL,
					       &w, err, sizeof(err)),
			 -ENOENT);
	ck_assert_msg(strstr(err, "/nonexistent/dir/t.mdkt"), "%s", err);
	{
		struct mdk_trace_reader *rd;
		struct mdk_trace_chunk c;
		uint32_t wn = 0;

		ck_assert(
			!mdk_trace_reader_open(path, 0, &rd, err, sizeof(err)));
		ck_assert_uint_eq(mdk_trace_reader_info(rd)->windows, 7);
		while (mdk_trace_reader_next(rd, &c, err, sizeof(err)) > 0) {
			ck_assert_uint_eq(c.window, wn);
			if (wn == 6) {
				/* sorted, duplicates collapsed */
				ck_assert_uint_eq(c.n, 2);
				ck_assert_uint_eq(c.ids[0], 5);
				ck_assert_uint_eq(c.ids[1], 9);
			}
			wn++;
		}
		mdk_trace_reader_close(rd);
	}
	unlink(path);
}
END_TEST

/* The page map: stable compact indices, in id order for clustered ids. */
START_TEST(test_trace_dense_indices)
{
	struct mdk_trace_reader *rd;
	struct mdk_trace_writer *w;
	struct mdk_trace_chunk c;
	char path[64], err[256];
	uint64_t ids[300];
	uint32_t idx[300];
	size_t i;

	for (i = 0; i < 300; i++)
		ids[i] = 0x7f00000000ull + i * 3;
	ck_assert(!mdk_trace_writer_open(tmp_path(path, sizeof(path)), NULL, &w,
					 err, sizeof(err)));
	ck_assert(!mdk_trace_writer_put(w, 0, ids, 300, 0, err, sizeof(err)));
	ck_assert(!mdk_trace_writer_put(w, 1, ids + 100, 100, 0, err,
					sizeof(err)));
	ck_assert(!mdk_trace_writer_close(w, err, sizeof(err)));
	ck_assert(!mdk_trace_reader_open(path, MDK_TRACE_DENSE, &rd, err,
					 sizeof(err)));
	ck_assert_int_eq(mdk_trace_reader_next(rd, &c, err, sizeof(err)), 1);
	ck_assert_uint_eq(c.n, 300);
	for (i = 0; i < 300; i++) {
		idx[i] = c.pages[i];
		ck_assert_uint_eq(c.ids[i], ids[i]);
		if (i)
			ck_assert_uint_gt(idx[i], idx[i - 1]);
	}
	ck_assert_int_eq(mdk_trace_reader_next(rd, &c, err, sizeof(err)), 1);
	for (i = 0; i < c.n; i++)
		ck_assert_uint_eq(c.pages[i], idx[i + 100]);
	ck_assert_uint_eq(mdk_trace_reader_pages(rd), 300);
	ck_assert_uint_le(mdk_trace_reader_slots(rd), 300 * 3 + 64);
	mdk_trace_reader_close(rd);
	unlink(path);
}
END_TEST

static Suite *trace_suite(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_trace_roundtrip_file);
	tcase_add_test(tc, test_trace_roundtrip_mem_and_pipe);
	tcase_add_test(tc, test_trace_seek);
	tcase_add_test(tc, test_trace_partial);
	tcase_add_test(tc, test_trace_truncated_everywhere);
	tcase_add_test(tc, test_trace_bad_checksums);
	tcase_add_test(tc, test_trace_malformed_blocks);
	tcase_add_test(tc, test_trace_writer_errors);
	tcase_add_test(tc, test_trace_dense_indices);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(trace_suite)
