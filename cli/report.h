/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MDKCTL_REPORT_H
#define MDKCTL_REPORT_H

/*
 * Output shared by mdkctl's analysis commands (mpc, simulate, mrc): the
 * CSV rows and JSON objects of operating points, human tables, and MPC
 * scatter plots drawn by gnuplot (gnuplot.h).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <mdk/mpc.h>
#include <mdk/mrc.h>

#include "daemon/jsonout.h"
#include "parse.h"

/* The exact CSV header of mdkctl mpc and mdkctl simulate. */
#define MDKCTL_MPC_CSV_HEADER \
	"policy,p1,p2,max_rate,mean_rate,p99_rate,savings,promotions"
/* The exact CSV header of mdkctl mrc. */
#define MDKCTL_MRC_CSV_HEADER "policy,size,misses,miss_ratio"

/* One CSV row of @p (p1 and p2 in their units: windows, or a fraction). */
void mdkctl_point_csv(FILE *f, const struct mdk_point *p);
/* One line of text of @p: its setting, rates, savings and promotions. */
void mdkctl_point_human(const struct mdk_point *p);
/* One JSON object of @p: a new object (NULL when out of memory). */
struct json_object *mdkctl_point_json(const struct mdk_point *p);
/*
 * mdkctl_points_json() - a JSON array of the @n points at @pts, as
 * mdkctl_point_json() writes each, made point by point when printed
 * (compact: JSON_C_TO_STRING_PRETTY would not indent it).  The points
 * must outlive the array; it has no elements for json-c's array calls.
 * Return: a new array, or NULL (out of memory).
 */
struct json_object *mdkctl_points_json(const struct mdk_point *pts, size_t n);
/* "age:T=4", "paw:P=3,wait=2", "opp:rho=0.001" for @p. */
void mdkctl_point_setting(const struct mdk_point *p, char *buf, size_t len);

void mdkctl_mrc_csv(FILE *f, const struct mdk_mrc_point *p);
/* One JSON object of @p, as mdkctl_point_json(). */
struct json_object *mdkctl_mrc_json(const struct mdk_mrc_point *p);

/* One policy's curve, for plots. */
struct mdkctl_curve {
	const char *name;
	const struct mdk_point *pts;
	size_t n;
};

/*
 * mdkctl_plot_mpc() - scatter plot (points only, one colour per policy) of
 * the curves into @path, SVG or PNG by its extension, with gnuplot.
 * @target >= 0 draws the rate limit as a dashed line and zooms the x axis
 * to 3 x @target.  Returns 0, -EINVAL (extension) or -errno, with a
 * message in @err.
 */
int mdkctl_plot_mpc(const char *path, const char *title,
		    const struct mdkctl_curve *curves, size_t n, double target,
		    char *err, size_t errlen);

/* mdkctl_pct() - @x as a percentage with 3 significant digits, in @buf. */
const char *mdkctl_pct(double x, char *buf, size_t len);

#endif /* MDKCTL_REPORT_H */
