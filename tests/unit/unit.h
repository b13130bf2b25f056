/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the unit tests: each tests/unit/test_<source>.c defines one
 * Check suite and ends with MDK_UNIT_MAIN(<source>_suite).  Results go to
 * standard output as TAP (one line per test case), which tests/unit/run
 * nests into the suite's kselftest-style report.
 */
#ifndef MDK_TESTS_UNIT_H
#define MDK_TESTS_UNIT_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MDK_UNIT_MAIN(suite_fn)                              \
	int main(void)                                       \
	{                                                    \
		SRunner *sr = srunner_create(suite_fn());    \
		int failed;                                  \
                                                             \
		srunner_set_tap(sr, "-");                    \
		srunner_run_all(sr, CK_SILENT);              \
		failed = srunner_ntests_failed(sr);          \
		srunner_free(sr);                            \
		return failed ? EXIT_FAILURE : EXIT_SUCCESS; \
	}

/*
 * Check has no "skipped": run @suite with its TAP in a scratch file,
 * then copy the TAP out with " # SKIP @why" on the result line of the
 * case named @name (which the caller made return early), so that
 * tests/tap-count reports it as skipped rather than passed.  A NULL
 * @name skips nothing.
 */
int mdk_unit_run_skipping(Suite *suite, const char *name, const char *why);

#endif /* MDK_TESTS_UNIT_H */
