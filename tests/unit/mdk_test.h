/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by libmdk's unit tests: in-memory access-bit traces, and a
 * brute-force evaluation of the pinned definitions (ARCHITECTURE.md,
 * Documentation/mdk.rst) that steps every page through every window with
 * its residency, written apart from libmdk's simulator and generators.
 * Tests then hold three computations to each other: the single-pass
 * generators, the exact simulator and this brute force.
 * Defined in mdk_test.c.
 */
#ifndef MDK_TESTS_MDK_TEST_H
#define MDK_TESTS_MDK_TEST_H

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mdk/interval.h>
#include <mdk/lopp.h>
#include <mdk/mpc.h>
#include <mdk/mrc.h>
#include <mdk/policy.h>
#include <mdk/sim.h>
#include <mdk/synth.h>
#include <mdk/trace.h>

#include "unit.h"

#define MDK_ARRAY(a) (sizeof(a) / sizeof((a)[0]))

/* A trace as a pages x windows matrix; page p has id ids[p] (increasing). */
struct tt {
	uint32_t W;
	size_t P;
	uint8_t *acc; /* acc[p * W + w] */
	uint64_t *ids;
};

static inline bool tt_get(const struct tt *t, size_t p, uint32_t w)
{
	return t->acc[p * t->W + w];
}

struct tt *tt_new(uint32_t W, size_t P);

void tt_free(struct tt *t);

uint64_t tt_rand(uint64_t *s);

/*
 * A random trace: each page gets its own access probability (some pages
 * hot, some cold, some accessed only once) so that every kind of gap,
 * reuse distance and tail occurs.
 */
struct tt *tt_random(uint64_t seed, uint32_t W, size_t P);

/* A trace from libmdk's synthetic generators (default mix unless @spec). */
struct tt *tt_synth(uint64_t seed, uint32_t W, size_t P, const char *spec);

/* Window @w's pages (indices into ids[], increasing); returns the count. */
size_t tt_window(const struct tt *t, uint32_t w, uint32_t *out);

uint64_t tt_records(const struct tt *t);

/* Write @t as a trace file (returns the path in @path, a temp file). */
void tt_write(const struct tt *t, char *path, size_t len);

struct mdk_policy *tt_policy(const char *spec, uint32_t W);

/*
 * Curve of @p over @t through the live path: the interval stream and
 * mdk_mpc_add_accesses(), i.e. open intervals tracked per access.
 */
size_t tt_mpc(const struct tt *t, struct mdk_policy *p, unsigned int flags,
	      struct mdk_point **pts);

/* Setting @i of @p simulated over @t by mdk_sim. */
void tt_sim(const struct tt *t, const struct mdk_policy *p, size_t i,
	    unsigned int flags, struct mdk_point *pt);

/* ------------------------------------------------------------------ */
/* Brute force, straight from the definitions. */

/*
 * The operating point of @name with values @v (T; T; P, wait; P, A; rho in
 * ppm) over @t.  Residency is stepped window by window: a page is resident
 * in a window it is accessed in; "reclaimed at the end of window a + d"
 * makes it absent from a + d + 1 until its next access, which promotes it.
 */
void bf_point(const struct tt *t, const char *name, const uint64_t *v,
	      bool paper, struct mdk_point *pt);
/* bf_point() counting windows @from.. only (the state sees them all). */
void bf_point_from(const struct tt *t, const char *name, const uint64_t *v,
		   bool paper, uint32_t from, struct mdk_point *pt);

/* Two evaluations of one setting agree: counts exactly, savings to 1e-12. */
void check_same(const struct mdk_point *a, const struct mdk_point *b,
		const char *what);

/*
 * Every point of @spec's curve over @t against the simulator, and (when
 * @brute) the simulator against the brute force.
 */
void check_curve(const struct tt *t, const char *spec, unsigned int flags,
		 bool brute);

/* A fixture path under $MDK_FIXTURES (tests/unit/run sets it). */
const char *fixture(const char *rel, char *buf, size_t len);

/* The whole file at @path in a new buffer (one byte spare), its size in *@len. */
uint8_t *read_whole_file(const char *path, size_t *len);

/* @m written to a new temp file, its path in @path; @m is freed. */
void lopp_model_to_file(struct mdk_lopp_model *m, char *path, size_t len);

#endif /* MDK_TESTS_MDK_TEST_H */
