// SPDX-License-Identifier: GPL-2.0
/*
 * Description: daemon/mdkd.service, as "make install" fills it in, passes
 * "systemd-analyze verify" without a single complaint, and keeps what mdkd
 * relies on: Type=notify, a watchdog, the journal replay after any exit,
 * a writable cgroupfs under the hardening.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fakecg.h"
#include "unit.h"

static char unit[PATH_MAX];

static bool have_systemd_analyze(void)
{
	return !system("systemd-analyze --version >/dev/null 2>&1");
}

/* The unit with @SBINDIR@ pointing at the build and @SYSCONFDIR@ at /etc. */
static const char *installed_unit(char *dir)
{
	const char *top = getenv("MDK_TOP") ? getenv("MDK_TOP") : ".";
	char src[PATH_MAX], bindir[PATH_MAX + 16], *text, *p;
	FILE *f;

	snprintf(src, sizeof(src), "%s/daemon/mdkd.service", top);
	text = strdup(fake_read(src));
	ck_assert_msg(*text, "%s missing", src);
	snprintf(bindir, sizeof(bindir), "%s/build/bin", top);
	snprintf(unit, sizeof(unit), "%s/mdkd.service", dir);
	f = fopen(unit, "w");
	for (p = text; *p; p++) {
		if (!strncmp(p, "@SBINDIR@", 9)) {
			fputs(bindir, f);
			p += 8;
		} else if (!strncmp(p, "@SYSCONFDIR@", 12)) {
			fputs("/etc", f);
			p += 11;
		} else {
			fputc(*p, f);
		}
	}
	fclose(f);
	free(text);
	return unit;
}

START_TEST(test_service_has_what_mdkd_needs)
{
	char dir[] = "/tmp/mdk-unit-service-XXXXXX";
	const char *text;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	text = fake_read(installed_unit(dir));
	ck_assert_ptr_nonnull(strstr(text, "\nType=notify\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nWatchdogSec="));
	ck_assert_ptr_nonnull(
		strstr(text, "\nExecReload=/bin/kill -HUP $MAINPID\n"));
	ck_assert_ptr_nonnull(strstr(text, "mdkd --restore"));
	ck_assert_ptr_nonnull(
		strstr(text, "\nReadWritePaths=/sys/fs/cgroup\n"));
	ck_assert_ptr_null(strstr(text, "\nProtectControlGroups=yes"));
	ck_assert_ptr_null(strstr(text, "\nProtectKernelTunables=yes"));
	ck_assert_ptr_null(strstr(text, "@SBINDIR@"));
	ck_assert_ptr_null(strstr(text, "@SYSCONFDIR@"));
	fake_rmtree(dir);
}
END_TEST

START_TEST(test_service_verifies)
{
	char dir[] = "/tmp/mdk-unit-service-XXXXXX", cmd[PATH_MAX * 2];
	char out[4096] = "";
	size_t n;
	FILE *p;
	int status;

	/* Reported as skipped by main(), not as passed. */
	if (!have_systemd_analyze())
		return;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "systemd-analyze verify --man=no %s 2>&1",
		 installed_unit(dir));
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	status = pclose(p);
	fake_rmtree(dir);
	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status) && !n,
		      "systemd-analyze verify: %s", out);
}
END_TEST

static Suite *service_suite(void)
{
	Suite *s = suite_create("service");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_service_has_what_mdkd_needs);
	tcase_add_test(tc, test_service_verifies);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (have_systemd_analyze())
		return mdk_unit_run_skipping(service_suite(), NULL, NULL);
	return mdk_unit_run_skipping(service_suite(), "test_service_verifies",
				     "systemd-analyze missing");
}
