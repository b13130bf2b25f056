/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MDKCTL_GNUPLOT_H
#define MDKCTL_GNUPLOT_H

/*
 * mdkctl's plots: a gnuplot process writing SVG or PNG, chosen by the
 * output file's extension, that the caller feeds a script (mpc curves in
 * report.c, trace reports in cmd_trace_report.c).
 */
#include <stddef.h>
#include <stdio.h>

/*
 * mdkctl_gnuplot_check() - whether @path names a plot file: 1 for SVG, 0
 * for PNG, -EINVAL with a message in @err for anything else.
 */
int mdkctl_gnuplot_check(const char *path, char *err, size_t errlen);

/*
 * mdkctl_gnuplot_open() - start gnuplot writing @path, @width x @height
 * pixels, with its terminal and output set: *@gp is the pipe to write
 * the rest of the script to.  Returns 0, -EINVAL (@path ends neither in
 * .svg nor in .png) or -errno, with a message in @err.
 */
int mdkctl_gnuplot_open(const char *path, int width, int height, FILE **gp,
			char *err, size_t errlen);

/*
 * mdkctl_gnuplot_close() - end the script and wait for gnuplot.  Returns
 * 0, -ENOENT (no gnuplot: install gnuplot-nox) or -EIO (gnuplot failed),
 * with a message in @err.
 */
int mdkctl_gnuplot_close(FILE *gp, const char *path, char *err, size_t errlen);

/* mdkctl_gnuplot_quote() - @s as a gnuplot single-quoted string. */
void mdkctl_gnuplot_quote(FILE *f, const char *s);

#endif /* MDKCTL_GNUPLOT_H */
