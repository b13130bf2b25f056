// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: L-OPP's model reader (libmdk/lopp/model.c, and file2.c
 * for version 2, trees) over arbitrary bytes.  Bad input must fail with
 * -EINVAL and "NAME:LINE: (offset N) expected ..., got ..." (version 2:
 * "NAME: (offset N) ..."); good input must print back to a file that
 * parses to a model scoring every row the same, in [0, 1] -- for version
 * 2, the very bytes read.
 */
#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/lopp.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const float rows[][MDK_LOPP_FEATURES] = {
		{ 0 },
		{ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 },
		{ NAN, INFINITY, -INFINITY, 1e38f, -1e38f, 0.5f },
	};
	struct mdk_lopp_model *m, *m2;
	char err[512], *text = NULL;
	size_t len = 0, i;
	FILE *f;
	static const char v2_line[] = "mdk-lopp-model 2\n";
	bool v2 = size >= sizeof(v2_line) &&
		  !memcmp(data, v2_line, sizeof(v2_line) - 1);
	int ret;

	err[0] = 0;
	ret = mdk_lopp_model_parse((const char *)data, size, "fuzz", &m, err,
				   sizeof(err));
	if (ret && v2) {
		if (ret != -EINVAL || m || strncmp(err, "fuzz: (offset ", 14))
			__builtin_trap();
		return 0;
	}
	if (ret) {
		if (ret != -EINVAL || m || strncmp(err, "fuzz:", 5) ||
		    !strstr(err, ": (offset ") || !strstr(err, " expected ") ||
		    !strstr(err, ", got "))
			__builtin_trap();
		return 0;
	}
	f = open_memstream(&text, &len);
	if (!f || mdk_lopp_model_print(m, f))
		__builtin_trap();
	fclose(f);
	if (v2 && (len != size || memcmp(text, data, size)))
		__builtin_trap(); /* a version 2 file is canonical */
	if (mdk_lopp_model_parse(text, len, "again", &m2, err, sizeof(err)))
		__builtin_trap(); /* printed what it cannot read */
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double a = mdk_lopp_score(m, rows[i]),
		       b = mdk_lopp_score(m2, rows[i]);

		if (!(a >= 0 && a <= 1) || a != b ||
		    mdk_lopp_key(a) != mdk_lopp_key(b))
			__builtin_trap();
	}
	if (mdk_lopp_model_rho(m) != mdk_lopp_model_rho(m2))
		__builtin_trap();
	mdk_lopp_model_free(m2);
	mdk_lopp_model_free(m);
	free(text);
	return 0;
}
