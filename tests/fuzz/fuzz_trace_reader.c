// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the .mdkt reader (libmdk/trace_*.c) over arbitrary bytes.
 * The first byte picks the flags (dense page map, partial traces), a
 * window to seek to, and whether the harness first repairs the CRCs of
 * the header, the blocks it can walk and the footer -- without that the
 * fuzzer would rarely get past a checksum to the decoder.  The rest is
 * the file.  Any input must give chunks or an error with a message, never
 * a crash, a leak or undefined behaviour.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>
#include <zlib.h>

#include <mdk/trace.h>

static uint32_t get32(const uint8_t *p)
{
	return p[0] | (p[1] << 8) | (p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Recompute the checksums the layout of Documentation/trace-format.rst puts. */
static void repair(uint8_t *b, size_t n)
{
	size_t off, dlen;

	if (n < 48)
		return;
	dlen = b[40] | (b[41] << 8);
	if (48 + dlen <= n)
		put32(b + 44,
		      (uint32_t)crc32(crc32(0, b, 44), b + 48, (uInt)dlen));
	off = (48 + dlen + 7) & ~(size_t)7;
	while (off + 24 <= n && get32(b + off) == 0x424b444d) {
		size_t bytes = get32(b + off + 12);

		if (bytes > n - off - 24)
			break;
		put32(b + off + 20, (uint32_t)crc32(crc32(0, b + off, 20),
						    b + off + 24, (uInt)bytes));
		off += 24 + bytes;
	}
	if (off + 8 <= n && get32(b + off) == 0x494b444d) {
		size_t ents = get32(b + off + 4);

		if (ents <= (n - off - 8) / 16 && off + 12 + ents * 16 <= n)
			put32(b + off + 8 + ents * 16,
			      (uint32_t)crc32(0, b + off,
					      (uInt)(8 + ents * 16)));
	}
	if (n >= 32 && get32(b + n - 32) == 0x454b444d)
		put32(b + n - 4, (uint32_t)crc32(0, b + n - 32, 28));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mdk_trace_reader *r;
	struct mdk_trace_chunk c;
	unsigned int flags = 0;
	uint64_t ids = 0;
	uint8_t *copy = NULL;
	char err[512];
	int ret;

	if (size < 1)
		return 0;
	if (data[0] & 0x80) {
		copy = malloc(size);
		if (!copy)
			return 0;
		memcpy(copy, data, size);
		repair(copy + 1, size - 1);
		data = copy;
	}
	if (data[0] & 1)
		flags |= MDK_TRACE_DENSE;
	if (data[0] & 2)
		flags |= MDK_TRACE_PARTIAL;
	err[0] = 0;
	if (mdk_trace_reader_open_mem(data + 1, size - 1, "fuzz.mdkt", flags,
				      &r, err, sizeof(err))) {
		if (!strstr(err, "fuzz.mdkt"))
			__builtin_trap(); /* every error names the file */
		free(copy);
		return 0;
	}
	if (data[0] & 4)
		mdk_trace_reader_seek(r, (data[0] >> 3) & 15, err, sizeof(err));
	while ((ret = mdk_trace_reader_next(r, &c, err, sizeof(err))) > 0) {
		size_t i;

		for (i = 0; i < c.n; i++) {
			ids += c.ids[i];
			if (c.pages && c.pages[i] >= mdk_trace_reader_slots(r))
				__builtin_trap();
			if (i && c.ids[i] <= c.ids[i - 1])
				__builtin_trap();
		}
	}
	if (ret < 0 && !strstr(err, "fuzz.mdkt"))
		__builtin_trap();
	mdk_trace_reader_close(r);
	free(copy);
	return ids == 42 ? 0 : 0;
}
