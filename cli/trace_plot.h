/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MDKCTL_TRACE_PLOT_H
#define MDKCTL_TRACE_PLOT_H

#include <stddef.h>

#include <mdk/report.h>

/*
 * mdkctl_plot_trace_report() - the panels of mdkctl trace report --plot
 * into @path, SVG or PNG by its extension, with gnuplot (gnuplot.h): the
 * access heatmap; accessed pages and footprint; pages idle >= T; the
 * reuse distances; popularity (windows accessed by page rank).  Returns
 * 0 or -errno, with a message in @err.
 */
int mdkctl_plot_trace_report(const char *path, const char *title,
			     const struct mdk_report *r, char *err,
			     size_t errlen);

#endif /* MDKCTL_TRACE_PLOT_H */
