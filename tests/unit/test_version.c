// SPDX-License-Identifier: GPL-2.0
/* Description: mdk_version() reports the version the library was built as. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/version.h>

#include "unit.h"

/*
 * The version the Makefile gives the build, read from the Makefile
 * itself: comparing mdk_version() with this file's own MDK_VERSION
 * would compare the one -D flag with itself.
 */
static void makefile_version(char buf[64])
{
	const char *top = getenv("MDK_TOP") ? getenv("MDK_TOP") : ".";
	char path[PATH_MAX], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/Makefile", top);
	f = fopen(path, "r");
	ck_assert_msg(f, "%s: cannot open", path);
	*buf = '\0';
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MDK_VERSION := %63s", buf) == 1)
			break;
	fclose(f);
	ck_assert_msg(*buf, "%s: no MDK_VERSION", path);
}

START_TEST(test_version_matches_build)
{
	char want[64];

	makefile_version(want);
	ck_assert_str_eq(mdk_version(), want);
}
END_TEST

/* "MAJOR.MINOR.PATCH", as <mdk/version.h> documents: digits only. */
START_TEST(test_version_is_semver)
{
	const char *v = mdk_version();
	unsigned int major, minor, patch;
	char rest, again[64];

	ck_assert_uint_eq(strspn(v, "0123456789."), strlen(v));
	ck_assert_int_eq(sscanf(v, "%u.%u.%u%c", &major, &minor, &patch, &rest),
			 3);
	/* No leading zeros, signs or spaces: printing it back gives it. */
	snprintf(again, sizeof(again), "%u.%u.%u", major, minor, patch);
	ck_assert_str_eq(v, again);
}
END_TEST

static Suite *version_suite(void)
{
	Suite *s = suite_create("version");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_version_matches_build);
	tcase_add_test(tc, test_version_is_semver);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(version_suite)
