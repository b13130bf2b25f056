// SPDX-License-Identifier: GPL-2.0
/*
 * The helper of unit.h: a suite run with one case reported as skipped.
 */
#include "unit.h"

int mdk_unit_run_skipping(Suite *suite, const char *name, const char *why)
{
	char tap[] = "/tmp/mdk-unit-tap-XXXXXX", line[1024], key[256];
	SRunner *sr = srunner_create(suite);
	int fd = mkstemp(tap), failed;
	FILE *f;

	if (fd < 0) {
		perror("mkstemp");
		return EXIT_FAILURE;
	}
	close(fd);
	snprintf(key, sizeof(key), ":%s:", name ? name : "");
	srunner_set_tap(sr, tap);
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	f = fopen(tap, "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (name && !strncmp(line, "ok ", 3) && strstr(line, key))
			printf("%s # SKIP %s\n", line, why);
		else
			printf("%s\n", line);
	}
	if (f)
		fclose(f);
	unlink(tap);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
