// SPDX-License-Identifier: GPL-2.0
/* Pressure stall information parsing: see psi.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psi.h"

/* Parse "avg10=F avg60=F avg300=F total=U" from @p up to @end. */
static int parse_fields(const char *p, const char *end, struct mdkd_psi_line *l)
{
	static const char *const names[] = { "avg10=", "avg60=", "avg300=",
					     "total=" };
	double *avgs[] = { &l->avg10, &l->avg60, &l->avg300 };
	char num[32];
	unsigned int i;

	for (i = 0; i < 4; i++) {
		size_t nlen = strlen(names[i]), n = 0;
		char *q;

		while (p < end && *p == ' ')
			p++;
		if ((size_t)(end - p) < nlen || memcmp(p, names[i], nlen))
			return -EINVAL;
		p += nlen;
		while (p + n < end && p[n] != ' ' && n < sizeof(num) - 1)
			n++;
		if (!n || (p + n < end && p[n] != ' '))
			return -EINVAL;
		memcpy(num, p, n);
		num[n] = '\0';
		p += n;
		errno = 0;
		if (i < 3) {
			*avgs[i] = strtod(num, &q);
			if (*q || errno || *avgs[i] < 0 || *avgs[i] > 100)
				return -EINVAL;
		} else {
			if (num[0] == '-')
				return -EINVAL;
			l->total_us = strtoull(num, &q, 10);
			if (*q || errno)
				return -EINVAL;
		}
	}
	while (p < end && *p == ' ')
		p++;
	return p == end ? 0 : -EINVAL;
}

int mdkd_psi_parse(const char *buf, size_t len, struct mdkd_psi *psi, char *err,
		   size_t errlen)
{
	const char *p = buf, *end = buf + len;
	bool some = false;
	unsigned int lineno = 0;

	memset(psi, 0, sizeof(*psi));
	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);
		struct mdkd_psi_line *l;

		if (!eol)
			eol = end;
		lineno++;
		if (eol - p >= 5 && !memcmp(p, "some ", 5) && !some) {
			l = &psi->some;
			some = true;
		} else if (eol - p >= 5 && !memcmp(p, "full ", 5) &&
			   !psi->has_full) {
			l = &psi->full;
			psi->has_full = true;
		} else if (eol == p) {
			p = eol + 1;
			continue;
		} else {
			snprintf(
				err, errlen,
				"line %u: expected \"some ...\" or \"full ...\"",
				lineno);
			return -EINVAL;
		}
		if (parse_fields(p + 5, eol, l)) {
			snprintf(
				err, errlen,
				"line %u: expected avg10=F avg60=F avg300=F total=N",
				lineno);
			return -EINVAL;
		}
		p = eol + 1;
	}
	if (!some) {
		snprintf(err, errlen, "no \"some\" line");
		return -EINVAL;
	}
	return 0;
}

double mdkd_psi_fraction(uint64_t prev_us, uint64_t now_us, uint64_t dt_us)
{
	double f;

	if (!dt_us || now_us < prev_us)
		return 0;
	f = (double)(now_us - prev_us) / (double)dt_us;
	return f > 1 ? 1 : f;
}
