// SPDX-License-Identifier: GPL-2.0
/* The values of mdkctl's options (see parse.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <mdk/trace.h>

#include "parse.h"

int mdkctl_parse_u64(const char *s, int base, uint64_t min, uint64_t max,
		     uint64_t *out)
{
	unsigned long long v;
	char *end;

	/* strtoull() takes "-1", after blanks too, as 2^64 - 1. */
	if (strchr(s, '-'))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || end == s || *end)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int mdkctl_parse_count(const char *s, unsigned long long *out)
{
	unsigned long long v, mul = 1;
	char *e;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &e, 10);
	if (errno || e == s)
		return -EINVAL;
	switch (*e) {
	case 'K':
	case 'k':
		mul = 1ull << 10;
		e++;
		break;
	case 'M':
	case 'm':
		mul = 1ull << 20;
		e++;
		break;
	case 'G':
	case 'g':
		mul = 1ull << 30;
		e++;
		break;
	}
	if (*e || v > UINT64_MAX / mul)
		return -EINVAL;
	*out = v * mul;
	return 0;
}

int mdkctl_parse_fraction(const char *s, double *out)
{
	char *e;
	double v;

	errno = 0;
	v = strtod(s, &e);
	if (errno || e == s)
		return -EINVAL;
	if (*e == '%') {
		v /= 100;
		e++;
	}
	if (*e || !(v >= 0 && v <= 1))
		return -EINVAL;
	*out = v;
	return 0;
}

int mdkctl_parse_seconds(const char *s, uint64_t *us)
{
	double secs;
	char *end;

	secs = strtod(s, &end);
	if (*end || end == s || !(secs >= 0 && secs < 1e12))
		return -EINVAL;
	*us = (uint64_t)llround(secs * 1e6);
	return 0;
}

int mdkctl_parse_time(const char *s, uint64_t max_ns, uint64_t *ns)
{
	double v, unit = 1e9;
	char *end;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !(v > 0))
		return -EINVAL;
	if (!strcmp(end, "ms"))
		unit = 1e6;
	else if (!strcmp(end, "m"))
		unit = 60e9;
	else if (!strcmp(end, "h"))
		unit = 3600e9;
	else if (!strcmp(end, "d"))
		unit = 86400e9;
	else if (*end && strcmp(end, "s"))
		return -EINVAL;
	if (v * unit < 1e6 || v * unit > (double)max_ns)
		return -ERANGE;
	*ns = v * unit;
	return 0;
}

int mdkctl_parse_window(const char *s, uint64_t *ns)
{
	return mdkctl_parse_time(s, 86400ULL * 1000000000ULL, ns);
}

int mdkctl_parse_window_index(const char *s, const char *opt, uint32_t *out)
{
	unsigned long long v;
	char *e;

	errno = 0;
	v = s && *s >= '0' && *s <= '9' ? strtoull(s, &e, 10) : ULLONG_MAX;
	if (v == ULLONG_MAX || errno || *e || v >= MDK_TRACE_MAX_WINDOW) {
		fprintf(stderr,
			"mdkctl: %s '%s': expected a window number from 0 to %u\n",
			opt, s ? s : "", MDK_TRACE_MAX_WINDOW - 1);
		return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}
