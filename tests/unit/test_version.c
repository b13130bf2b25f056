// SPDX-License-Identifier: GPL-2.0
/* Description: mdk_version() reports the version the library was built as. */
#include <stdio.h>
#include <string.h>

#include <mdk/version.h>

#include "unit.h"

START_TEST(test_version_matches_build)
{
	ck_assert_str_eq(mdk_version(), MDK_VERSION);
}
END_TEST

START_TEST(test_version_is_semver)
{
	unsigned int major, minor, patch;
	char rest;

	ck_assert_int_eq(sscanf(mdk_version(), "%u.%u.%u%c", &major, &minor,
				&patch, &rest),
			 3);
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
