// SPDX-License-Identifier: LGPL-2.1-or-later
/* Small helpers shared by libmdk's sources (see internal.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int mdk_verr(char *err, size_t errlen, int ret, const char *fmt, va_list ap)
{
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
	return ret;
}

int mdk_err(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mdk_verr(err, errlen, ret, fmt, ap);
	va_end(ap);
	return ret;
}

int mdk__grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 16;
	void *np;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / size)
			return -ENOMEM;
		ncap *= 2;
	}
	np = realloc(*p, ncap * size);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

int mdk__parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s)
		return -EINVAL;
	/* strtoull(0) takes a leading 0 as octal: refuse "010" ambiguity. */
	if (s[0] == '0' && s[1] && s[1] != 'x' && s[1] != 'X')
		return -EINVAL;
	*out = v;
	return 0;
}
