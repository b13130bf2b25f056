// SPDX-License-Identifier: GPL-2.0
/* The sd_notify(3) protocol through libsystemd: see notify.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <systemd/sd-daemon.h>

#include "notify.h"

int mdkd_notify(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sd_notify(0, msg);
}

uint64_t mdkd_watchdog_usec(void)
{
	uint64_t usec = 0;

	if (sd_watchdog_enabled(0, &usec) <= 0)
		return 0;
	return usec;
}
