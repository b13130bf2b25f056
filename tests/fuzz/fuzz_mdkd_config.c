// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: mdkd.conf through inih and the key table
 * (daemon/config.c), from a buffer.  Any input must parse or be refused
 * with "name:LINE: ...", never crash or leak; a parsed configuration must
 * answer settings lookups.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const paths[] = { "a", "a/b", "w/job-1",
					     "system.slice/x.service" };
	struct mdkd_settings set;
	struct mdkd_config *cfg;
	char err[1024], src[4200];
	size_t i;
	int ret;

	ret = mdkd_config_parse((const char *)data, size, "fuzz", &cfg, err,
				sizeof(err));
	if (ret) {
		if (strncmp(err, "fuzz:", 5))
			abort(); /* every refusal names the line */
		return 0;
	}
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		mdkd_config_settings_for(cfg, paths[i], &set, src, sizeof(src));
	mdkd_config_free(cfg);
	return 0;
}
