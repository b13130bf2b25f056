// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the trace reader's zstd source (libmdk/trace_zstd.c,
 * libmdk/trace_source.c).  The first byte picks the mode: bit 0 clear
 * reads the rest as a zstd stream (zstd's magic number put in front when
 * missing), so that the decoder meets corrupt frames; bit 0 set
 * compresses the rest, cuts the stream at the point bits 1..7 choose and
 * reads that, so that the trace reader meets trace bytes behind a valid
 * or truncated frame.  Bit 1 also reads the trace as a partial one.  Any input must give chunks or an error naming the
 * file, never a crash, a leak or undefined behaviour.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include <mdk/trace.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	struct mdk_trace_reader *r;
	struct mdk_trace_chunk c;
	unsigned int flags;
	uint8_t *buf;
	size_t len;
	char err[512];
	int ret;

	if (size < 1)
		return 0;
	flags = data[0] & 2 ? MDK_TRACE_PARTIAL : 0;
	if (data[0] & 1) {
		size_t cap = ZSTD_compressBound(size - 1);

		buf = malloc(cap + 1);
		if (!buf)
			return 0;
		len = ZSTD_compress(buf, cap, data + 1, size - 1, 1);
		if (ZSTD_isError(len))
			__builtin_trap();
		/* Cut at k/127 of the stream; 127: keep it whole. */
		if ((data[0] >> 1) != 127 && len * (data[0] >> 1) / 127 < len)
			len = len * (data[0] >> 1) / 127;
	} else {
		bool has = size > 4 && !memcmp(data + 1, magic, 4);

		buf = malloc(size + 4);
		if (!buf)
			return 0;
		memcpy(buf, magic, 4);
		memcpy(buf + (has ? 0 : 4), data + 1, size - 1);
		len = size - 1 + (has ? 0 : 4);
	}
	err[0] = 0;
	if (mdk_trace_reader_open_mem(buf, len, "fuzz.mdkt.zst", flags, &r, err,
				      sizeof(err))) {
		if (!strstr(err, "fuzz.mdkt.zst"))
			__builtin_trap();
		free(buf);
		return 0;
	}
	while ((ret = mdk_trace_reader_next(r, &c, err, sizeof(err))) > 0)
		;
	if (ret < 0 && !strstr(err, "fuzz.mdkt.zst"))
		__builtin_trap();
	mdk_trace_reader_close(r);
	free(buf);
	return 0;
}
