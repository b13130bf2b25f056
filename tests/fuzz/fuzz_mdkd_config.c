// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: mdkd.conf through inih and the key table
 * (daemon/config.c), from a buffer.  Any input must parse or be refused
 * with "name:LINE: ...", never crash or leak; a parsed configuration must
 * answer settings lookups, and its dump (mdkd --dump-config) must parse to
 * the same values.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same_value(const struct mdkd_key *k, const void *a, const void *b)
{
	const char *x = (const char *)a + k->offset;
	const char *y = (const char *)b + k->offset;

	if (k->type == MDKD_T_PATH || k->type == MDKD_T_POLICY ||
	    k->type == MDKD_T_POLICIES)
		return !strcmp(x, y);
	return !memcmp(x, y, k->size);
}

/* The dump of @cfg parses to the same values, or abort(). */
static void check_dump(const struct mdkd_config *cfg)
{
	struct mdkd_config *again;
	char *text = NULL, err[1024];
	size_t len = 0, i, j;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	mdkd_config_dump(cfg, f);
	fclose(f);
	if (mdkd_config_parse(text, len, "dump", &again, err, sizeof(err)))
		abort();
	for (i = 0; i < mdkd_nkeys; i++)
		if (!same_value(&mdkd_keys[i],
				mdkd_keys[i].scope == MDKD_SCOPE_GLOBAL ?
					(const void *)&cfg->global :
					(const void *)&cfg->defaults,
				mdkd_keys[i].scope == MDKD_SCOPE_GLOBAL ?
					(const void *)&again->global :
					(const void *)&again->defaults))
			abort();
	if (again->nsections != cfg->nsections)
		abort();
	for (j = 0; j < cfg->nsections; j++) {
		const struct mdkd_section *x = &cfg->sections[j];
		const struct mdkd_section *y = &again->sections[j];

		if (strcmp(x->pattern, y->pattern) || x->mask != y->mask)
			abort();
		for (i = 0; i < mdkd_nkeys; i++)
			if ((x->mask & (1ULL << i)) &&
			    !same_value(&mdkd_keys[i], &x->set, &y->set))
				abort();
	}
	mdkd_config_free(again);
	free(text);
}

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
	check_dump(cfg);
	mdkd_config_free(cfg);
	return 0;
}
