// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the CSV importer (libmdk/csv.c) over arbitrary text, read
 * back through the trace reader.  Bad input must fail with "file:line:"
 * in the message; good input must give a trace that reads back.
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
	static int in = -1, out = -1;
	static char inpath[64], outpath[64];
	struct mdk_trace_reader *r;
	struct mdk_trace_chunk c;
	char err[512];
	int ret;

	if (in < 0) {
		/* Memory files: no disk, and nothing to unlink by mistake. */
		in = memfd_create("fuzz-csv-in", 0);
		out = memfd_create("fuzz-csv-out", 0);
		if (in < 0 || out < 0)
			__builtin_trap();
		snprintf(inpath, sizeof(inpath), "/proc/self/fd/%d", in);
		snprintf(outpath, sizeof(outpath), "/proc/self/fd/%d", out);
	}
	if (ftruncate(in, 0) || pwrite(in, data, size, 0) != (ssize_t)size)
		__builtin_trap();
	err[0] = 0;
	ret = mdk_trace_import_csv(inpath, outpath, NULL, err, sizeof(err));
	if (ret) {
		if (ret == -EINVAL && !strstr(err, inpath))
			__builtin_trap();
		return 0;
	}
	if (mdk_trace_reader_open(outpath, MDK_TRACE_DENSE, &r, err,
				  sizeof(err)))
		__builtin_trap(); /* the importer wrote a bad trace */
	while ((ret = mdk_trace_reader_next(r, &c, err, sizeof(err))) > 0)
		;
	if (ret)
		__builtin_trap();
	mdk_trace_reader_close(r);
	return 0;
}
