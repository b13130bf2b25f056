/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MDKCTL_PARSE_H
#define MDKCTL_PARSE_H

/*
 * The values of mdkctl's options, parsed one way for every command:
 * counts and sizes, durations, fractions.  Each returns 0 with the value
 * in *@out, or a negative error code and leaves *@out alone; the caller
 * names the option in its message.  (mdkd.conf has its own grammar, with
 * units in words: see config.c and mdkd.conf(5).)
 */
#include <stdint.h>

/*
 * mdkctl_parse_u64() - an unsigned integer in @base (0: C's prefixes, 0x..
 * and 0..; 10: decimal only) from @min to @max, as strtoull() reads it
 * (leading blanks and a '+' allowed) but never negative.
 *
 * Return: 0, -EINVAL when malformed or too large for 64 bits, -ERANGE
 * outside @min..@max.
 */
int mdkctl_parse_u64(const char *s, int base, uint64_t min, uint64_t max,
		     uint64_t *out);

/*
 * mdkctl_parse_count() - an unsigned decimal count with K, M, G (1024)
 * suffixes.  Return: 0 or -EINVAL.
 */
int mdkctl_parse_count(const char *s, unsigned long long *out);

/*
 * mdkctl_parse_fraction() - "0.01", "1%" or "1e-3" as a fraction in [0, 1].
 * Return: 0 or -EINVAL.
 */
int mdkctl_parse_fraction(const char *s, double *out);

/*
 * mdkctl_parse_seconds() - a number of seconds such as "30" or "0.5", at
 * least 0 and below 10^12, in microseconds (rounded).  Return: 0 or
 * -EINVAL.
 */
int mdkctl_parse_seconds(const char *s, uint64_t *us);

/*
 * mdkctl_parse_time() - a duration, "30", "30s", "500ms", "1.5s", "2m",
 * "1h", "7d", in nanoseconds, between 1 ms and @max_ns.
 *
 * Return: 0, -EINVAL when malformed, -ERANGE out of range.
 */
int mdkctl_parse_time(const char *s, uint64_t max_ns, uint64_t *ns);

/* mdkctl_parse_window() - mdkctl_parse_time() up to 24 h, for windows. */
int mdkctl_parse_window(const char *s, uint64_t *ns);

/*
 * mdkctl_parse_window_index() - a window number (0 .. MDK_TRACE_MAX_WINDOW - 1)
 * for option @opt; -EINVAL after a message naming it.
 */
int mdkctl_parse_window_index(const char *s, const char *opt, uint32_t *out);

#endif /* MDKCTL_PARSE_H */
