// SPDX-License-Identifier: LGPL-2.1-or-later
/* Small helpers shared by libmdk's sources (internal.h, mdk/util.h). */
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

int mdk_grow(void **arr, size_t *cap, size_t need, size_t elem_size)
{
	size_t ncap = *cap ? *cap : 16;
	void *np;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elem_size)
			return -ENOMEM;
		ncap *= 2;
	}
	/* need <= ncap: the doubling stopped short of overflow, check once */
	if (ncap > SIZE_MAX / elem_size)
		return -ENOMEM;
	np = realloc(*arr, ncap * elem_size);
	if (!np)
		return -ENOMEM;
	*arr = np;
	*cap = ncap;
	return 0;
}

int mdk__grow_zeroed(void **arr, size_t *cap, size_t need, size_t elem_size)
{
	size_t old = *cap;

	if (mdk_grow(arr, cap, need, elem_size))
		return -ENOMEM;
	memset((char *)*arr + old * elem_size, 0, (*cap - old) * elem_size);
	return 0;
}

/* The one out-of-line copy of the inline in <mdk/util.h>, for the ABI. */
extern inline uint64_t mdk_hash64(uint64_t x);
extern inline uint64_t mdk_splitmix64(uint64_t *state);

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
