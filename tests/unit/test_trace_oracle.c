// SPDX-License-Identifier: GPL-2.0
/*
 * Description: trace interchange (libmdk/trace_oracle_*.c,
 * libmdk/trace_zstd.c): .mdkt to libCacheSim's oracleGeneral and back
 * gives the same windows and pages; next_access_vtime agrees with a
 * brute-force search and a backward pass, also past the exporter's
 * buffer; an export named .zst is the plain one compressed; a
 * zstd-compressed trace reads as the plain one from a file (seeking
 * too), a pipe and memory; and bad input -- records cut short, time going back
 * past a window, corrupt or truncated zstd -- fails naming the file and
 * the offset, leaving no output behind.
 */
#include <fcntl.h>
#include <sys/stat.h>

#include <mdk/util.h>

#include "mdk_test.h"

#define REC MDK_ORACLE_RECORD_BYTES

static char *tmp_path(char *buf, size_t len, const char *suffix)
{
	int fd;

	snprintf(buf, len, "/tmp/mdk-oracle-XXXXXX%s", suffix);
	fd = mkstemps(buf, (int)strlen(suffix));
	ck_assert_int_ge(fd, 0);
	close(fd);
	return buf;
}

static void spill(const char *path, const void *b, size_t len)
{
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(b, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

static uint32_t get32(const uint8_t *p)
{
	return p[0] | (p[1] << 8) | (p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint64_t get64(const uint8_t *p)
{
	return get32(p) | ((uint64_t)get32(p + 4) << 32);
}

static void put_rec(uint8_t *r, uint32_t t, uint64_t id, uint32_t size)
{
	for (int i = 0; i < 4; i++)
		r[i] = (uint8_t)(t >> (8 * i));
	for (int i = 0; i < 8; i++)
		r[4 + i] = (uint8_t)(id >> (8 * i));
	for (int i = 0; i < 4; i++)
		r[12 + i] = (uint8_t)(size >> (8 * i));
	memset(r + 16, 0xff, 8);
}

/* @t as a trace of 30-second windows of 4 KiB pages. */
static void write_tt(const struct tt *t, char *path, size_t len)
{
	struct mdk_trace_writer_opts o = { .window_us = 30000000,
					   .page_size = 4096,
					   .desc = "oracle test" };
	uint64_t *ids = malloc((t->P + 1) * sizeof(*ids));
	uint32_t *pg = malloc((t->P + 1) * sizeof(*pg));
	struct mdk_trace_writer *w;
	char err[256];

	tmp_path(path, len, ".mdkt");
	ck_assert_msg(!mdk_trace_writer_open(path, &o, &w, err, sizeof(err)),
		      "%s", err);
	for (uint32_t win = 0; win < t->W; win++) {
		size_t n = tt_window(t, win, pg);

		for (size_t i = 0; i < n; i++)
			ids[i] = t->ids[pg[i]];
		ck_assert(!mdk_trace_writer_put(w, win, ids, n, 0, err,
						sizeof(err)));
	}
	ck_assert_msg(!mdk_trace_writer_close(w, err, sizeof(err)), "%s", err);
	free(ids);
	free(pg);
}

/* A random trace whose first and last windows have accesses. */
static struct tt *tt_framed(uint64_t seed, uint32_t W, size_t P)
{
	struct tt *t = tt_random(seed, W, P);

	t->acc[0 * W + 0] = 1;
	t->acc[(P - 1) * W + W - 1] = 1;
	return t;
}

/*
 * The export holds, in order, every (window, page) of @t with the
 * window's start in seconds and the page size; returns the records.
 */
static size_t check_records(const struct tt *t, const uint8_t *b, size_t len)
{
	uint32_t *pg = malloc((t->P + 1) * sizeof(*pg));
	size_t k = 0, bad = 0;

	/* Each assert is a mark in Check: count, then assert once. */
	ck_assert_uint_eq(len % REC, 0);
	for (uint32_t w = 0; w < t->W; w++) {
		size_t n = tt_window(t, w, pg);

		for (size_t i = 0; i < n; i++, k++) {
			const uint8_t *r = b + k * REC;

			if ((k + 1) * REC > len)
				break;
			bad += get32(r) != w * 30 ||
			       get64(r + 4) != t->ids[pg[i]] ||
			       get32(r + 12) != 4096;
		}
	}
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(k * REC, len);
	free(pg);
	return k;
}

/* next_access_vtime by a backward pass over the records. */
static void check_next_backward(const uint8_t *b, size_t n)
{
	uint64_t *ids = malloc(n * sizeof(*ids));
	int64_t *next = malloc(n * sizeof(*next));

	/* Ids to their first index: a sort-free map by linear probing. */
	size_t cap = 2 * n + 1;
	uint64_t *key = calloc(cap, sizeof(*key));
	int64_t *val = malloc(cap * sizeof(*val));
	bool *used = calloc(cap, sizeof(*used));

	for (size_t i = 0; i < n; i++)
		ids[i] = get64(b + i * REC + 4);
	for (size_t i = n; i-- > 0;) {
		size_t h = (size_t)(mdk_hash64(ids[i]) % cap);

		while (used[h] && key[h] != ids[i])
			h = (h + 1) % cap;
		next[i] = used[h] ? val[h] : -1;
		used[h] = true;
		key[h] = ids[i];
		val[h] = (int64_t)i;
	}
	for (size_t i = 0; i < n; i++)
		if ((int64_t)get64(b + i * REC + 16) != next[i])
			ck_abort_msg(
				"record %zu: next_access_vtime %lld, expected %lld",
				i, (long long)get64(b + i * REC + 16),
				(long long)next[i]);
	free(ids);
	free(next);
	free(key);
	free(val);
	free(used);
}

/* Both traces hold the same windows (from window 0) and pages. */
static void same_trace(const char *a, const char *b)
{
	struct mdk_trace_reader *ra, *rb;
	struct mdk_trace_chunk ca, cb;
	uint64_t *ia = NULL, *ib = NULL;
	size_t na, nb, capa = 0, capb = 0;
	char err[512];
	int x, y;

	ck_assert_msg(!mdk_trace_reader_open(a, 0, &ra, err, sizeof(err)), "%s",
		      err);
	ck_assert_msg(!mdk_trace_reader_open(b, 0, &rb, err, sizeof(err)), "%s",
		      err);
	for (;;) {
		uint32_t wa = 0, wb = 0;

		/* Windows may be cut into chunks differently: join them. */
		na = nb = 0;
		do {
			x = mdk_trace_reader_next(ra, &ca, err, sizeof(err));
			ck_assert_msg(x >= 0, "%s", err);
			if (x <= 0)
				break;
			wa = ca.window;
			mdk_grow((void **)&ia, &capa, na + ca.n + 1,
				 sizeof(*ia));
			if (ca.n)
				memcpy(ia + na, ca.ids, ca.n * sizeof(*ia));
			na += ca.n;
		} while (!ca.window_end);
		do {
			y = mdk_trace_reader_next(rb, &cb, err, sizeof(err));
			ck_assert_msg(y >= 0, "%s", err);
			if (y <= 0)
				break;
			wb = cb.window;
			mdk_grow((void **)&ib, &capb, nb + cb.n + 1,
				 sizeof(*ib));
			if (cb.n)
				memcpy(ib + nb, cb.ids, cb.n * sizeof(*ib));
			nb += cb.n;
		} while (!cb.window_end);
		ck_assert_int_eq(x, y);
		if (!x)
			break;
		ck_assert_uint_eq(wa, wb);
		ck_assert_uint_eq(na, nb);
		ck_assert(!memcmp(ia, ib, na * sizeof(*ia)));
	}
	ck_assert_uint_eq(mdk_trace_reader_windows(ra),
			  mdk_trace_reader_windows(rb));
	mdk_trace_reader_close(ra);
	mdk_trace_reader_close(rb);
	free(ia);
	free(ib);
}

START_TEST(test_oracle_roundtrip)
{
	struct mdk_trace_writer_opts wo = { .window_us = 30000000,
					    .page_size = 4096 };
	struct tt *t = tt_framed(7, 60, 400);
	char tr[64], orc[64], back[64], err[512];
	size_t len, n;
	uint8_t *b;

	write_tt(t, tr, sizeof(tr));
	tmp_path(orc, sizeof(orc), ".oracleGeneral");
	tmp_path(back, sizeof(back), ".mdkt");
	ck_assert_msg(!mdk_trace_export_oracle(tr, orc, err, sizeof(err)), "%s",
		      err);
	b = read_whole_file(orc, &len);
	n = check_records(t, b, len);
	ck_assert_uint_eq(n, tt_records(t));
	/* The brute force: the next record with the same obj_id. */
	for (size_t i = 0; i < n; i++) {
		int64_t want = -1;

		for (size_t j = i + 1; j < n && want < 0; j++)
			if (get64(b + j * REC + 4) == get64(b + i * REC + 4))
				want = (int64_t)j;
		if ((int64_t)get64(b + i * REC + 16) != want)
			ck_abort_msg(
				"record %zu: next_access_vtime %lld, expected %lld",
				i, (long long)get64(b + i * REC + 16),
				(long long)want);
	}
	ck_assert_msg(!mdk_trace_import_oracle(orc, back, &wo, 0, err,
					       sizeof(err)),
		      "%s", err);
	same_trace(tr, back);
	free(b);
	tt_free(t);
	unlink(tr);
	unlink(orc);
	unlink(back);
}
END_TEST

/* Past the exporter's buffer, next_access_vtime is filled in the file. */
START_TEST(test_oracle_next_past_buffer)
{
	struct tt *t = tt_framed(11, 200, 12000);
	char tr[64], orc[64], err[512];
	size_t len, n;
	uint8_t *b;

	write_tt(t, tr, sizeof(tr));
	tmp_path(orc, sizeof(orc), ".oracleGeneral");
	ck_assert_msg(!mdk_trace_export_oracle(tr, orc, err, sizeof(err)), "%s",
		      err);
	b = read_whole_file(orc, &len);
	n = check_records(t, b, len);
	ck_assert_uint_gt(n, 1u << 18); /* more than the buffer */
	check_next_backward(b, n);
	free(b);
	tt_free(t);
	unlink(tr);
	unlink(orc);
}
END_TEST

/*
 * Two windows of the same N pages: record i's next request is N + i, and
 * nearly N fields are filled in the file -- more than one batch.
 */
START_TEST(test_oracle_next_batches)
{
	const size_t N = 800000;
	struct mdk_trace_writer_opts o = { .window_us = 1000000 };
	uint64_t *ids = malloc(N * sizeof(*ids));
	struct mdk_trace_writer *w;
	char tr[64], orc[64], err[512];
	size_t len, i;
	uint8_t *b;

	for (i = 0; i < N; i++)
		ids[i] = 3 * i + 1;
	tmp_path(tr, sizeof(tr), ".mdkt");
	tmp_path(orc, sizeof(orc), ".oracleGeneral");
	ck_assert(!mdk_trace_writer_open(tr, &o, &w, err, sizeof(err)));
	ck_assert(!mdk_trace_writer_put(w, 0, ids, N, 0, err, sizeof(err)));
	ck_assert(!mdk_trace_writer_put(w, 1, ids, N, 0, err, sizeof(err)));
	ck_assert(!mdk_trace_writer_close(w, err, sizeof(err)));
	ck_assert_msg(!mdk_trace_export_oracle(tr, orc, err, sizeof(err)), "%s",
		      err);
	b = read_whole_file(orc, &len);
	ck_assert_uint_eq(len, 2 * N * REC);
	for (i = 0; i < 2 * N; i++) {
		const uint8_t *r = b + i * REC;

		/* Page size unknown: 4096. */
		if (get32(r) != (i < N ? 0 : 1) || get64(r + 4) != ids[i % N] ||
		    get32(r + 12) != 4096 ||
		    (int64_t)get64(r + 16) != (i < N ? (int64_t)(N + i) : -1))
			ck_abort_msg("record %zu: next_access_vtime %lld", i,
				     (long long)get64(r + 16));
	}
	free(b);
	free(ids);
	unlink(tr);
	unlink(orc);
}
END_TEST

static void zstd_file(const char *in, const char *out)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "zstd -q -f %s -o %s", in, out);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_zstd_trace_reads_as_plain)
{
	struct tt *t = tt_framed(3, 80, 3000);
	char tr[64], zs[80], pipe_path[64], cmd[128], err[512];
	struct mdk_trace_reader *r;
	struct mdk_trace_chunk c;
	FILE *p;
	uint8_t *b;
	size_t len;
	int ret;

	write_tt(t, tr, sizeof(tr));
	snprintf(zs, sizeof(zs), "%s.zst", tr);
	zstd_file(tr, zs);
	same_trace(tr, zs);
	/* From a pipe: the magic number is read, then handed on. */
	snprintf(cmd, sizeof(cmd), "cat %s", zs);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	snprintf(pipe_path, sizeof(pipe_path), "/proc/self/fd/%d", fileno(p));
	same_trace(tr, pipe_path);
	pclose(p);
	/* From a pipe the index is checked at the end; seeking is refused. */
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	snprintf(pipe_path, sizeof(pipe_path), "/proc/self/fd/%d", fileno(p));
	ck_assert(!mdk_trace_reader_open(pipe_path, 0, &r, err, sizeof(err)));
	ck_assert(!mdk_trace_reader_info(r)->indexed);
	ck_assert_int_eq(mdk_trace_reader_seek(r, 3, err, sizeof(err)),
			 -ENOTSUP);
	while ((ret = mdk_trace_reader_next(r, &c, err, sizeof(err))) > 0)
		;
	ck_assert_int_eq(ret, 0);
	ck_assert(mdk_trace_reader_info(r)->indexed);
	ck_assert_uint_eq(mdk_trace_reader_records(r), tt_records(t));
	mdk_trace_reader_close(r);
	pclose(p);
	/* From a file the index is there at open, and seeking works. */
	ck_assert(!mdk_trace_reader_open(zs, 0, &r, err, sizeof(err)));
	ck_assert(mdk_trace_reader_info(r)->indexed);
	ck_assert_uint_eq(mdk_trace_reader_info(r)->windows, t->W);
	ck_assert_uint_eq(mdk_trace_reader_info(r)->records, tt_records(t));
	for (uint32_t w = 70; w > 2; w -= 17) {
		uint32_t *pg = malloc((t->P + 1) * sizeof(*pg));
		size_t n = tt_window(t, w, pg), k = 0;

		ck_assert_msg(!mdk_trace_reader_seek(r, w, err, sizeof(err)),
			      "%s", err);
		do {
			ck_assert_int_eq(mdk_trace_reader_next(r, &c, err,
							       sizeof(err)),
					 1);
			ck_assert_uint_eq(c.window, w);
			for (size_t i = 0; i < c.n; i++, k++)
				ck_assert_uint_eq(c.ids[i], t->ids[pg[k]]);
		} while (!c.window_end);
		ck_assert_uint_eq(k, n);
		free(pg);
	}
	mdk_trace_reader_close(r);
	/* From memory, densely mapped. */
	b = read_whole_file(zs, &len);
	ck_assert(!mdk_trace_reader_open_mem(b, len, "mem.zst", MDK_TRACE_DENSE,
					     &r, err, sizeof(err)));
	while ((ret = mdk_trace_reader_next(r, &c, err, sizeof(err))) > 0)
		;
	ck_assert_int_eq(ret, 0);
	ck_assert_uint_eq(mdk_trace_reader_windows(r), t->W);
	ck_assert_uint_eq(mdk_trace_reader_records(r), tt_records(t));
	mdk_trace_reader_close(r);
	free(b);
	tt_free(t);
	unlink(tr);
	unlink(zs);
}
END_TEST

/* Read @path to the end; the error, which must name @path, into @err. */
static int read_all(const char *path, unsigned int flags, char *err,
		    size_t errlen)
{
	struct mdk_trace_reader *r;
	struct mdk_trace_chunk c;
	int ret;

	ret = mdk_trace_reader_open(path, flags, &r, err, errlen);
	if (!ret) {
		while ((ret = mdk_trace_reader_next(r, &c, err, errlen)) > 0)
			;
		mdk_trace_reader_close(r);
	}
	if (ret)
		ck_assert_msg(strstr(err, path), "%s", err);
	return ret;
}

START_TEST(test_zstd_trace_corrupt)
{
	struct tt *t = tt_framed(5, 80, 3000);
	char tr[64], zs[80], bad[80], want[128], err[512];
	size_t len;
	uint8_t *b;

	write_tt(t, tr, sizeof(tr));
	snprintf(zs, sizeof(zs), "%s.zst", tr);
	snprintf(bad, sizeof(bad), "%s.bad", tr);
	zstd_file(tr, zs);
	b = read_whole_file(zs, &len);
	ck_assert_uint_gt(len, 2000);
	/* Cut short: named at the compressed offset where it ends. */
	spill(bad, b, len - 7);
	ck_assert_int_eq(read_all(bad, 0, err, sizeof(err)), -EBADMSG);
	snprintf(want, sizeof(want), "compressed offset %zu: truncated zstd",
		 len - 7);
	ck_assert_msg(strstr(err, want), "%s", err);
	/* A flipped byte inside the frame. */
	b[len / 2] ^= 0x5a;
	spill(bad, b, len);
	ck_assert_int_eq(read_all(bad, 0, err, sizeof(err)), -EBADMSG);
	ck_assert_msg(strstr(err, "zstd: "), "%s", err);
	ck_assert_msg(strstr(err, "compressed bytes "), "%s", err);
	/* Garbage after a frame is not a frame. */
	b[len / 2] ^= 0x5a;
	memcpy(b + len - 4, "junk", 4);
	b = realloc(b, len + 8);
	memcpy(b + len,
	       "\x28\xb5\x2f\xfd"
	       "abcd",
	       8);
	spill(bad, b, len + 8);
	ck_assert_int_lt(read_all(bad, 0, err, sizeof(err)), 0);
	free(b);
	tt_free(t);
	unlink(tr);
	unlink(zs);
	unlink(bad);
}
END_TEST

static int import(const char *in, const char *out, unsigned int flags,
		  uint32_t page_size, char *err, size_t errlen)
{
	struct mdk_trace_writer_opts wo = { .window_us = 10000000,
					    .page_size = page_size };

	return mdk_trace_import_oracle(in, out, &wo, flags, err, errlen);
}

/* Window @w of @path: its ids into @ids, the count returned. */
static size_t window_ids(const char *path, uint32_t w, uint64_t *ids)
{
	struct mdk_trace_reader *r;
	struct mdk_trace_chunk c;
	char err[256];
	size_t n = 0;

	ck_assert(!mdk_trace_reader_open(path, 0, &r, err, sizeof(err)));
	while (mdk_trace_reader_next(r, &c, err, sizeof(err)) > 0)
		if (c.window == w && c.n) {
			memcpy(ids + n, c.ids, c.n * sizeof(*ids));
			n += c.n;
		}
	mdk_trace_reader_close(r);
	return n;
}

START_TEST(test_oracle_import_windows)
{
	uint8_t b[8 * REC];
	char in[64], out[64], err[512];
	uint64_t ids[16];

	tmp_path(in, sizeof(in), ".oracleGeneral");
	tmp_path(out, sizeof(out), ".mdkt");
	/* 10 s windows from t=100: back in time within window 1 is fine. */
	put_rec(b + 0 * REC, 100, 9, 4096);
	put_rec(b + 1 * REC, 105, 3, 4096);
	put_rec(b + 2 * REC, 109, 9, 4096); /* repeated: collapses */
	put_rec(b + 3 * REC, 119, 7, 4096);
	put_rec(b + 4 * REC, 111, 5, 4096); /* back, still window 1 */
	put_rec(b + 5 * REC, 141, 3, 4096); /* window 4 */
	spill(in, b, 6 * REC);
	ck_assert_msg(!import(in, out, 0, 4096, err, sizeof(err)), "%s", err);
	ck_assert_uint_eq(window_ids(out, 0, ids), 2);
	ck_assert_uint_eq(ids[0], 3);
	ck_assert_uint_eq(ids[1], 9);
	ck_assert_uint_eq(window_ids(out, 1, ids), 2);
	ck_assert_uint_eq(ids[0], 5);
	ck_assert_uint_eq(ids[1], 7);
	ck_assert_uint_eq(window_ids(out, 2, ids), 0);
	ck_assert_uint_eq(window_ids(out, 4, ids), 1);
	/* Byte offsets: a request covers every page it touches. */
	put_rec(b + 0 * REC, 0, 8192, 4096); /* page 2 */
	put_rec(b + 1 * REC, 1, 4095, 2); /* pages 0 and 1 */
	put_rec(b + 2 * REC, 2, 20480, 9000); /* pages 5..7 */
	put_rec(b + 3 * REC, 3, 40960, 0); /* page 10 */
	spill(in, b, 4 * REC);
	ck_assert_msg(!import(in, out, MDK_ORACLE_OFFSETS, 4096, err,
			      sizeof(err)),
		      "%s", err);
	ck_assert_uint_eq(window_ids(out, 0, ids), 7);
	ck_assert_uint_eq(ids[0], 0);
	ck_assert_uint_eq(ids[2], 2);
	ck_assert_uint_eq(ids[3], 5);
	ck_assert_uint_eq(ids[5], 7);
	ck_assert_uint_eq(ids[6], 10);
	/* No window length, or offsets without a page size. */
	ck_assert_int_eq(mdk_trace_import_oracle(in, out, NULL, 0, err,
						 sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(import(in, out, MDK_ORACLE_OFFSETS, 0, err,
				sizeof(err)),
			 -EINVAL);
	unlink(in);
	unlink(out);
}
END_TEST

START_TEST(test_oracle_import_bad)
{
	char in[64], out[64], zs[80], want[160], err[512];
	uint8_t b[6 * REC + 5], *z;
	struct stat st;
	size_t zlen;

	tmp_path(in, sizeof(in), ".oracleGeneral");
	tmp_path(out, sizeof(out), ".mdkt");
	for (int i = 0; i < 6; i++)
		put_rec(b + i * REC, 50 + 20 * (uint32_t)i, (uint64_t)i, 4096);
	/* Not a whole number of records: named at the last one's offset. */
	spill(in, b, 6 * REC + 5);
	ck_assert_int_eq(import(in, out, 0, 4096, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: offset %u: truncated record (5 of 24",
		 in, 6 * REC);
	ck_assert_msg(strstr(err, want), "%s", err);
	ck_assert_int_ne(stat(out, &st), 0); /* no output left */
	/* A record cut short. */
	spill(in, b, 2 * REC + 23);
	ck_assert_int_eq(import(in, out, 0, 4096, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: offset %u: truncated record (23 of",
		 in, 2 * REC);
	ck_assert_msg(strstr(err, want), "%s", err);
	/* Back in time past the current window's start. */
	put_rec(b + 4 * REC, 69, 4, 4096);
	spill(in, b, 6 * REC);
	ck_assert_int_eq(import(in, out, 0, 4096, err, sizeof(err)), -EINVAL);
	snprintf(
		want, sizeof(want),
		"%s: offset %u: clock_time 69 falls in window 1, after window 6",
		in, 4 * REC);
	ck_assert_msg(strstr(err, want), "%s", err);
	/* Before the first request. */
	put_rec(b + 4 * REC, 49, 4, 4096);
	spill(in, b, 6 * REC);
	ck_assert_int_eq(import(in, out, 0, 4096, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: offset %u: clock_time 49 is before",
		 in, 4 * REC);
	ck_assert_msg(strstr(err, want), "%s", err);
	ck_assert_int_ne(stat(out, &st), 0);
	/* Compressed: a good stream imports, cut or corrupt ones fail. */
	put_rec(b + 4 * REC, 130, 4, 4096);
	spill(in, b, 6 * REC);
	snprintf(zs, sizeof(zs), "%s.zst", in);
	zstd_file(in, zs);
	ck_assert_msg(!import(zs, out, 0, 4096, err, sizeof(err)), "%s", err);
	z = read_whole_file(zs, &zlen);
	spill(zs, z, zlen - 3);
	ck_assert_int_eq(import(zs, out, 0, 4096, err, sizeof(err)), -EBADMSG);
	snprintf(want, sizeof(want),
		 "%s: compressed offset %zu: truncated zstd stream", zs,
		 zlen - 3);
	ck_assert_msg(strstr(err, want), "%s", err);
	ck_assert_int_ne(stat(out, &st), 0);
	z[zlen - 2] ^= 0xff; /* the frame's checksum */
	spill(zs, z, zlen);
	ck_assert_int_eq(import(zs, out, 0, 4096, err, sizeof(err)), -EBADMSG);
	snprintf(want, sizeof(want), "..%zu: zstd: ", zlen);
	ck_assert_msg(strstr(err, zs) && strstr(err, ": compressed bytes "),
		      "%s", err);
	ck_assert_msg(strstr(err, want), "%s", err);
	free(z);
	unlink(in);
	unlink(zs);
}
END_TEST

/* An output named .zst: the same records, compressed, nothing left over. */
START_TEST(test_oracle_export_zst)
{
	struct tt *t = tt_framed(9, 30, 500);
	char dir[64] = "/tmp/mdk-oracle-XXXXXX", tr[64], plain[96], zs[96],
	     cmd[256], err[512];
	size_t la, lb;
	uint8_t *a, *b;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	write_tt(t, tr, sizeof(tr));
	snprintf(plain, sizeof(plain), "%s/t.oracleGeneral", dir);
	snprintf(zs, sizeof(zs), "%s/t.oracleGeneral.zst", dir);
	ck_assert_msg(!mdk_trace_export_oracle(tr, plain, err, sizeof(err)),
		      "%s", err);
	ck_assert_msg(!mdk_trace_export_oracle(tr, zs, err, sizeof(err)), "%s",
		      err);
	snprintf(cmd, sizeof(cmd), "zstd -q -d -f %s -o %s/back", zs, dir);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/back", dir);
	a = read_whole_file(plain, &la);
	b = read_whole_file(cmd, &lb);
	ck_assert_uint_eq(la, lb);
	ck_assert_uint_eq(la, tt_records(t) * REC);
	ck_assert(!memcmp(a, b, la));
	unlink(cmd);
	unlink(plain);
	unlink(zs);
	ck_assert_int_eq(rmdir(dir), 0); /* no temporary file left */
	free(a);
	free(b);
	tt_free(t);
	unlink(tr);
}
END_TEST

START_TEST(test_oracle_export_errors)
{
	struct tt *t = tt_framed(2, 10, 50);
	char tr[64], orc[64], err[512];

	write_tt(t, tr, sizeof(tr));
	/* next_access_vtime is filled in place: a regular file only. */
	ck_assert_int_eq(mdk_trace_export_oracle(tr, "/dev/null", err,
						 sizeof(err)),
			 -ESPIPE);
	ck_assert_msg(strstr(err, "/dev/null: not a regular file"), "%s", err);
	snprintf(orc, sizeof(orc), "%s.oracleGeneral", tr);
	ck_assert_int_eq(mdk_trace_export_oracle("/nonexistent.mdkt", orc, err,
						 sizeof(err)),
			 -ENOENT);
	tt_free(t);
	unlink(tr);
}
END_TEST

static Suite *trace_oracle_suite(void)
{
	Suite *s = suite_create("trace_oracle");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_oracle_roundtrip);
	tcase_add_test(tc, test_oracle_next_past_buffer);
	tcase_add_test(tc, test_oracle_next_batches);
	tcase_add_test(tc, test_zstd_trace_reads_as_plain);
	tcase_add_test(tc, test_zstd_trace_corrupt);
	tcase_add_test(tc, test_oracle_import_windows);
	tcase_add_test(tc, test_oracle_import_bad);
	tcase_add_test(tc, test_oracle_export_zst);
	tcase_add_test(tc, test_oracle_export_errors);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(trace_oracle_suite)
