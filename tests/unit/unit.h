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
#include <stdlib.h>

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

#endif /* MDK_TESTS_UNIT_H */
