// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the oracleGeneral importer (libmdk/trace_oracle_import.c)
 * over arbitrary bytes, plain or, when they start with zstd's magic
 * number, compressed (libmdk/trace_zstd.c).  The first byte picks byte
 * offsets, the window length and the page size.  Bad input must fail
 * naming the file; good input must give a trace that reads back and
 * exports again.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mdk/trace.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int in = -1, out = -1, back = -1;
	static char inpath[64], outpath[64], backpath[64];
	struct mdk_trace_writer_opts wo = { .page_size = 4096 };
	struct mdk_trace_reader *r;
	struct mdk_trace_chunk c;
	unsigned int flags = 0;
	char err[512];
	int ret;

	if (size < 1)
		return 0;
	if (in < 0) {
		/* Memory files: no disk, and nothing to unlink by mistake. */
		in = memfd_create("fuzz-oracle-in", 0);
		out = memfd_create("fuzz-oracle-out", 0);
		back = memfd_create("fuzz-oracle-back", 0);
		if (in < 0 || out < 0 || back < 0)
			__builtin_trap();
		snprintf(inpath, sizeof(inpath), "/proc/self/fd/%d", in);
		snprintf(outpath, sizeof(outpath), "/proc/self/fd/%d", out);
		snprintf(backpath, sizeof(backpath), "/proc/self/fd/%d", back);
	}
	if (data[0] & 1)
		flags |= MDK_ORACLE_OFFSETS;
	wo.window_us = 1000000ull << ((data[0] >> 1) & 7);
	/* Pages of 4 KiB to 512 KiB: a request of 4 GiB covers 1 Mi to 8 Ki. */
	wo.page_size = 4096u << ((data[0] >> 4) & 7);
	data++;
	size--;
	if (ftruncate(in, 0) || pwrite(in, data, size, 0) != (ssize_t)size)
		__builtin_trap();
	err[0] = 0;
	ret = mdk_trace_import_oracle(inpath, outpath, &wo, flags, err,
				      sizeof(err));
	if (ret) {
		if (ret != -ENOMEM && !strstr(err, inpath))
			__builtin_trap(); /* every error names the input */
		return 0;
	}
	if (mdk_trace_reader_open(outpath, MDK_TRACE_DENSE, &r, err,
				  sizeof(err)))
		__builtin_trap(); /* the importer wrote a bad trace */
	/*
	 * A jump in time gives up to 2^20 empty windows, each handed out:
	 * past a few thousand, reading them back says little for its time.
	 */
	if (mdk_trace_reader_info(r)->windows > 4096) {
		mdk_trace_reader_close(r);
		return 0;
	}
	while ((ret = mdk_trace_reader_next(r, &c, err, sizeof(err))) > 0)
		;
	if (ret)
		__builtin_trap();
	mdk_trace_reader_close(r);
	if (mdk_trace_export_oracle(outpath, backpath, err, sizeof(err)))
		__builtin_trap();
	return 0;
}
