/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pressure stall information: the "some" and "full" lines of a cgroup's
 * memory.pressure or io.pressure (Documentation/accounting/psi.rst):
 *
 *   some avg10=0.12 avg60=0.05 avg300=0.01 total=123456
 *   full avg10=0.00 avg60=0.00 avg300=0.00 total=2345
 *
 * avgN are percentages, total is the cumulative stall in microseconds.
 */
#ifndef MDKD_PSI_H
#define MDKD_PSI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mdkd_psi_line {
	double avg10, avg60, avg300; /* percent */
	uint64_t total_us;
};

struct mdkd_psi {
	struct mdkd_psi_line some;
	struct mdkd_psi_line full;
	bool has_full; /* the root's cpu.pressure had no full line before 5.13 */
};

/*
 * mdkd_psi_parse() - parse the text of a pressure file (@len bytes, need
 * not be NUL-terminated).  Return: 0 on success, -EINVAL with a message in
 * @err when a line is malformed or "some" is missing.
 */
int mdkd_psi_parse(const char *buf, size_t len, struct mdkd_psi *psi, char *err,
		   size_t errlen);

/*
 * mdkd_psi_fraction() - the share of @dt_us stalled, from two cumulative
 * totals: (@now - @prev) / @dt_us, clamped to [0, 1]; 0 when @dt_us is 0
 * or the counter went backwards (a recreated cgroup).
 */
double mdkd_psi_fraction(uint64_t prev_us, uint64_t now_us, uint64_t dt_us);

#endif /* MDKD_PSI_H */
