// SPDX-License-Identifier: GPL-2.0
/*
 * Description: cgroup paths are checked, globs resolve against a fake
 * cgroup2 tree (only directories with the memory controller), and the
 * files of real 6.1 and 6.12 cgroups (tests/fixtures/daemon/kernel-*)
 * parse into a sample; malformed files are refused with their name.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/cgroup.h"
#include "fakecg.h"
#include "unit.h"

START_TEST(test_path_check_accepts_and_refuses)
{
	static const char *const good[] = { "a", "system.slice/x.service",
					    "a b/c-d_e", "w/*", "w/job-??" };
	static const char *const bad[] = { "",	   "/abs",   "a//b", "a/",
					   "./a",  "a/../b", "..",   "a\\b",
					   "a[1]", "a\nb" };
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(!mdkd_cgroup_path_check(good[i], true, err,
						      sizeof(err)),
			      "%s: %s", good[i], err);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(mdkd_cgroup_path_check(bad[i], true, err,
						     sizeof(err)) == -EINVAL,
			      "accepted '%s'", bad[i]);
	ck_assert_int_eq(mdkd_cgroup_path_check("w/*", false, err, sizeof(err)),
			 -EINVAL);
	ck_assert(mdkd_cgroup_is_glob("a/*"));
	ck_assert(!mdkd_cgroup_is_glob("a/b"));
}
END_TEST

START_TEST(test_resolve_globs_memory_only)
{
	struct fakecg f;
	unsigned int nomem;
	char **paths, dir[PATH_MAX * 2];
	int n, i;

	fake_setup(&f, NULL);
	fake_cgroup(&f, "w/job-1", 1 << 20, 0);
	fake_cgroup(&f, "w/job-2", 1 << 20, 0);
	fake_cgroup(&f, "w/other", 1 << 20, 0);
	snprintf(dir, sizeof(dir), "%s/w/job-3", f.root);
	fake_mkdirs(dir); /* no memory.current: memory controller off */
	fake_file(&f, "w", "job-file", "not a directory");

	n = mdkd_cgroup_resolve(f.root, "w/job-*", &paths, &nomem);
	ck_assert_int_eq(n, 2);
	ck_assert_uint_eq(nomem, 1);
	ck_assert_str_eq(paths[0], "w/job-1");
	ck_assert_str_eq(paths[1], "w/job-2");
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);

	n = mdkd_cgroup_resolve(f.root, "w/other", &paths, &nomem);
	ck_assert_int_eq(n, 1);
	free(paths[0]);
	free(paths);

	n = mdkd_cgroup_resolve(f.root, "nothing/*", &paths, &nomem);
	ck_assert_int_eq(n, 0);
	free(paths);
	fake_teardown(&f);
}
END_TEST

/* Read fixture file @name of @dir into a malloc'ed buffer. */
static char *fixture(const char *dir, const char *name, size_t *len)
{
	char path[PATH_MAX];
	const char *txt;

	snprintf(path, sizeof(path), "%s/daemon/%s/%s",
		 getenv("MDK_FIXTURES") ? getenv("MDK_FIXTURES") :
					  "tests/fixtures",
		 dir, name);
	if (access(path, R_OK))
		return NULL;
	txt = fake_read(path);
	*len = strlen(txt);
	return strdup(txt);
}

static void parse_kernel(const char *dir)
{
	char *bufs[MDKD_CGF_NR] = { 0 };
	size_t lens[MDKD_CGF_NR] = { 0 };
	struct mdkd_sample s = { 0 };
	char err[256];
	int i;

	for (i = 0; i < MDKD_CGF_NR; i++)
		bufs[i] = fixture(dir, mdkd_cgroup_files[i].name, &lens[i]);
	ck_assert_msg(bufs[MDKD_CGF_STAT], "fixture %s missing", dir);
	ck_assert_msg(!mdkd_cgroup_parse(&s, (const char *const *)bufs, lens,
					 err, sizeof(err)),
		      "%s: %s", dir, err);
	ck_assert_uint_gt(s.current_bytes, 32 << 20);
	ck_assert_uint_gt(s.stat.anon, 32 << 20);
	ck_assert_uint_eq(
		s.stat.active_anon + s.stat.inactive_anon > s.stat.anon / 2, 1);
	ck_assert(s.has_swap);
	ck_assert(s.has_io);
	ck_assert_uint_gt(s.swap_current_bytes, 0);
	ck_assert_uint_eq(s.swap_max_bytes, UINT64_MAX);
	/* Neither Debian kernel has pswpin/pswpout in memory.stat; both
	 * have swapcached (policy mode's swap-cache drop reads it). */
	ck_assert(!s.stat.has_pswp);
	ck_assert(s.stat.has_swapcached);
	ck_assert_uint_gt(s.stat.swapcached, 0);
	for (i = 0; i < MDKD_CGF_NR; i++)
		free(bufs[i]);
}

START_TEST(test_parse_kernel_6_1)
{
	parse_kernel("kernel-6.1");
}
END_TEST

START_TEST(test_parse_kernel_6_12)
{
	parse_kernel("kernel-6.12");
}
END_TEST

START_TEST(test_parse_refuses_bad_files)
{
	const char *bufs[MDKD_CGF_NR] = { 0 };
	size_t lens[MDKD_CGF_NR] = { 0 };
	struct mdkd_sample s;
	char err[256];
	static const char stat[] =
		"anon 1\nfile 2\nactive_anon 1\ninactive_anon 0\n"
		"active_file 1\ninactive_file 1\n";
	static const char psi[] =
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
	int i;

	bufs[MDKD_CGF_CURRENT] = "3\n";
	bufs[MDKD_CGF_STAT] = stat;
	bufs[MDKD_CGF_PRESSURE] = psi;
	bufs[MDKD_CGF_MIN] = "max\n";
	for (i = 0; i < MDKD_CGF_NR; i++)
		lens[i] = bufs[i] ? strlen(bufs[i]) : 0;
	ck_assert_int_eq(mdkd_cgroup_parse(&s, bufs, lens, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(s.min_bytes, UINT64_MAX);
	ck_assert(!s.has_swap);
	ck_assert(!s.stat.has_swapcached);

	bufs[MDKD_CGF_CURRENT] = "max\n";
	lens[MDKD_CGF_CURRENT] = 4;
	ck_assert_int_eq(mdkd_cgroup_parse(&s, bufs, lens, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "memory.current"));
	bufs[MDKD_CGF_CURRENT] = "3\n";
	lens[MDKD_CGF_CURRENT] = 2;

	bufs[MDKD_CGF_STAT] = "anon 1\nfile x\n";
	lens[MDKD_CGF_STAT] = strlen(bufs[MDKD_CGF_STAT]);
	ck_assert_int_eq(mdkd_cgroup_parse(&s, bufs, lens, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "memory.stat line 2"));
	bufs[MDKD_CGF_STAT] = "anon 1\nfile 2x\n";
	lens[MDKD_CGF_STAT] = strlen(bufs[MDKD_CGF_STAT]);
	ck_assert_int_eq(mdkd_cgroup_parse(&s, bufs, lens, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "memory.stat line 2: file"));

	bufs[MDKD_CGF_STAT] = "anon 1\nfile 1\n";
	lens[MDKD_CGF_STAT] = strlen(bufs[MDKD_CGF_STAT]);
	ck_assert_int_eq(mdkd_cgroup_parse(&s, bufs, lens, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "active_anon"));

	bufs[MDKD_CGF_STAT] = stat;
	lens[MDKD_CGF_STAT] = strlen(stat);
	bufs[MDKD_CGF_PRESSURE] = NULL;
	ck_assert_int_eq(mdkd_cgroup_parse(&s, bufs, lens, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "memory.pressure"));
}
END_TEST

START_TEST(test_reclaimable_depends_on_swap)
{
	struct mdkd_sample s = { 0 };

	s.current_bytes = 100;
	s.stat.active_file = 10;
	s.stat.inactive_file = 20;
	s.stat.active_anon = 30;
	s.stat.inactive_anon = 40;
	s.has_swap = true;
	s.swap_max_bytes = UINT64_MAX;
	s.host_swap_free_bytes = 1;
	ck_assert_uint_eq(mdkd_reclaimable_bytes(&s), 100);
	s.host_swap_free_bytes = 0; /* swap full or none */
	ck_assert_uint_eq(mdkd_reclaimable_bytes(&s), 30);
	s.host_swap_free_bytes = 1;
	s.swap_max_bytes = 0; /* memory.swap.max = 0 */
	ck_assert_uint_eq(mdkd_reclaimable_bytes(&s), 30);
}
END_TEST

static Suite *cgroup_suite(void)
{
	Suite *s = suite_create("cgroup");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_path_check_accepts_and_refuses);
	tcase_add_test(tc, test_resolve_globs_memory_only);
	tcase_add_test(tc, test_parse_kernel_6_1);
	tcase_add_test(tc, test_parse_kernel_6_12);
	tcase_add_test(tc, test_parse_refuses_bad_files);
	tcase_add_test(tc, test_reclaimable_depends_on_swap);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(cgroup_suite)
