// SPDX-License-Identifier: GPL-2.0
/*
 * The plot of mdkctl trace report (trace_plot.h): one gnuplot multiplot,
 * the heatmap across the top and four panels below it.
 */
#include <inttypes.h>
#include <stdio.h>

#include "gnuplot.h"
#include "trace_plot.h"

/* Ranges x columns on a uniform grid: each at its first index / window. */
static void put_heat(FILE *gp, const struct mdk_report *r)
{
	uint64_t rw = r->heat_rows ? r->range_first[1] : 1;
	uint32_t cw = r->heat_cols ? r->col_first[1] : 1, i, j;

	fputs("$heat << EOD\n", gp);
	for (i = 0; i < r->heat_rows; i++) {
		for (j = 0; j < r->heat_cols; j++)
			fprintf(gp, "%" PRIu64 " %" PRIu64 " %.6g\n",
				(uint64_t)j * cw, (uint64_t)i * rw,
				r->heat[(size_t)i * r->heat_cols + j]);
		fputc('\n', gp);
	}
	fputs("EOD\n", gp);
	fputs("set origin 0,0.58\nset size 1,0.39\n"
	      "set title 'accesses: fraction of each page range''s pages accessed'\n"
	      "set xlabel 'window'\nset ylabel 'page index (compact, 64-page groups by first access)'\n"
	      "set palette defined (0 'white', 0.1 '#fee8c8', 0.3 '#fdbb84', 0.6 '#e34a33', 1 '#7f0000')\n"
	      "set cbrange [0:1]\nset autoscale xfix\nset autoscale yfix\n",
	      gp);
	if (r->heat_rows && r->heat_cols)
		fputs("plot $heat using 1:2:3 with image notitle\n", gp);
	else
		fputs("plot 0 notitle\n", gp); /* an empty trace */
	fputs("unset colorbox\nunset autoscale\nset autoscale\n", gp);
}

static void put_windows(FILE *gp, const struct mdk_report *r)
{
	uint32_t w, k;

	fputs("$win << EOD\n", gp);
	for (w = 0; w < r->windows; w++) {
		fprintf(gp, "%u %" PRIu64 " %" PRIu64, w, r->accessed[w],
			r->footprint[w]);
		for (k = 0; k < r->buckets; k++)
			fprintf(gp, " %" PRIu64,
				r->idle[(size_t)w * r->buckets + k]);
		fputc('\n', gp);
	}
	fputs("EOD\n", gp);
	fputs("set origin 0,0.29\nset size 0.5,0.29\nset key top left\n"
	      "set title 'accessed pages U(w) and footprint F(w)'\n"
	      "set xlabel 'window'\nset ylabel 'pages'\nset yrange [0:*]\n",
	      gp);
	if (r->windows)
		fputs("plot $win using 1:3 with lines lw 2 title 'footprint', "
		      "$win using 1:2 with lines lw 2 title 'accessed'\n",
		      gp);
	else
		fputs("plot 0 notitle\n", gp);
	fputs("set origin 0.5,0.29\nset title 'pages idle >= T windows'\n", gp);
	if (!r->buckets) {
		fputs("plot 0 notitle\n", gp);
		return;
	}
	fputs("plot ", gp);
	for (k = 0; k < r->buckets; k++)
		fprintf(gp, "%s$win using 1:%u with lines title 'T = %u'",
			k ? ", " : "", 4 + k, 1u << k);
	fputc('\n', gp);
}

static void put_reuse(FILE *gp, const struct mdk_report *r)
{
	uint32_t k;

	fputs("$reuse << EOD\n", gp);
	for (k = 0; k < r->buckets; k++)
		if (k)
			fprintf(gp, "%u %" PRIu64 " %u-%u\n", k, r->reuse[k],
				1u << k, (uint32_t)((2ull << k) - 1));
		else
			fprintf(gp, "0 %" PRIu64 " 1\n", r->reuse[0]);
	fprintf(gp, "%u %" PRIu64 " never\nEOD\n", r->buckets, r->never_reused);
	fputs("set origin 0,0\nset size 0.5,0.29\nunset key\n"
	      "set title 'reuse distance (windows); never: pages accessed once'\n"
	      "set xlabel 'windows'\nset ylabel 'reuses (never: pages)'\n"
	      "set style fill solid 0.7\nset boxwidth 0.8\nset xtics rotate by -45\n"
	      "set xrange [-0.6:*]\n"
	      "plot $reuse using 1:2:xtic(3) with boxes lc rgb '#1f77b4'\n"
	      "set xtics norotate\nset xrange [*:*]\n",
	      gp);
}

/* Pages ranked by windows accessed, most first: one step per count. */
static void put_popularity(FILE *gp, const struct mdk_report *r)
{
	uint64_t rank = 0;
	uint32_t c;

	fputs("$pop << EOD\n", gp);
	for (c = r->windows; c >= 1; c--) {
		uint64_t n = r->pages_by_windows[c];

		if (!n)
			continue;
		fprintf(gp, "%" PRIu64 " %u\n%" PRIu64 " %u\n", rank + 1, c,
			rank + n, c);
		rank += n;
	}
	fputs("EOD\n", gp);
	fputs("set origin 0.5,0\nset size 0.5,0.29\n"
	      "set title 'popularity: windows accessed by page rank'\n"
	      "set xlabel 'page rank (most accessed first)'\n"
	      "set ylabel 'windows accessed'\nset logscale x\n"
	      "set format x '%.0s%c'\nset format y '%g'\n",
	      gp);
	if (rank)
		fputs("plot $pop using 1:2 with lines lw 2 lc rgb '#d62728'\n",
		      gp);
	else
		fputs("plot 1 notitle\n", gp);
}

int mdkctl_plot_trace_report(const char *path, const char *title,
			     const struct mdk_report *r, char *err,
			     size_t errlen)
{
	FILE *gp;
	int ret;

	ret = mdkctl_gnuplot_open(path, 1280, 1400, &gp, err, errlen);
	if (ret)
		return ret;
	fputs("set multiplot title ", gp);
	mdkctl_gnuplot_quote(gp, title);
	/* Counts up to millions: 1.2M rather than 1.2x10^6. */
	fputs(" noenhanced\nset grid\nset format y '%.1s%c'\n", gp);
	put_heat(gp, r);
	put_windows(gp, r);
	put_reuse(gp, r);
	put_popularity(gp, r);
	fputs("unset multiplot\n", gp);
	return mdkctl_gnuplot_close(gp, path, err, errlen);
}
