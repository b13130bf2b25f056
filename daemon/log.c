// SPDX-License-Identifier: GPL-2.0
/* mdkd's log: see log.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "log.h"

static int log_level = LOG_INFO;
static bool log_prefix;

void mdkd_log_init(int level, int prefix)
{
	log_level = level;
	if (prefix < 0)
		prefix = getenv("JOURNAL_STREAM") || !isatty(STDERR_FILENO);
	log_prefix = prefix;
}

void mdkd_log_set_level(int level)
{
	log_level = level;
}

void mdkd_log(int prio, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (prio > log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* One fprintf per line: concurrent writers cannot interleave it. */
	if (log_prefix)
		fprintf(stderr, "<%d>%s\n", prio, line);
	else
		fprintf(stderr, "mdkd: %s\n", line);
}
