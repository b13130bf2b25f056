/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the window policies' tests (test_policy_{age,vmin,paw,pace,
 * opp}.c): the checks every policy gets, so that each test file holds only
 * its policy's parameter grids, golden numbers and bad parameters.
 * Defined in policy_test.c.
 */
#ifndef MDK_TESTS_POLICY_TEST_H
#define MDK_TESTS_POLICY_TEST_H

#include "mdk_test.h"

/*
 * Every curve of @specs, for both savings definitions, against the
 * simulator and the brute force on random traces of 1 to 20 windows and
 * 1 to 40 pages.
 */
void policy_check_random(const char *const *specs, size_t n);

/*
 * Every curve of @specs against the simulator (and the brute force when
 * @brute) on one trace of several generators at once: Zipf, periodic,
 * scan and phase changes.
 */
void policy_check_synthetic(const char *const *specs, size_t n, bool brute);

/*
 * One setting @spec over the trace at @path: the simulator and the
 * single-pass curve agree and give the pinned @prom promotions and @saved
 * page-windows.
 */
void check_file_point(const char *path, const char *spec, uint64_t prom,
		      uint64_t saved);

/*
 * The worked example of Documentation/mdk.rst (footprint 44
 * page-windows), imported from its CSV fixture into a temporary trace
 * whose name is written over @path ("/tmp/mdk-example-XXXXXX"); the
 * caller unlinks it.
 */
void example_trace(char *path);

/* A policy string that must be refused, and a part of the message. */
struct bad_param {
	const char *spec;
	const char *msg;
};

/* Each of @bad is -EINVAL with a message naming @name and saying why. */
void policy_check_bad_params(const char *name, const struct bad_param *bad,
			     size_t n);

/* An L-OPP model trained on @trace at rho 1%, written to @path (a temp file). */
void lopp_train_model(const char *trace, char *path, size_t len);

#endif /* MDK_TESTS_POLICY_TEST_H */
