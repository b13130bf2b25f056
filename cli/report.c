// SPDX-License-Identifier: GPL-2.0
/* Output of mdkctl's analysis commands (see report.h). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/trace.h>

#include <json-c/printbuf.h>

#include "gnuplot.h"
#include "report.h"

/* Policies whose first parameter is a fraction (rho, theta). */
static bool is_fraction_policy(const char *policy)
{
	return !strcmp(policy, "opp") || !strcmp(policy, "lopp");
}

/* p1 and p2 as their policy writes them: integers or a fraction. */
static void put_param(FILE *f, const char *policy, double v, bool frac)
{
	if (frac || is_fraction_policy(policy))
		fprintf(f, "%.10g", v);
	else
		fprintf(f, "%.0f", v);
}

void mdkctl_point_csv(FILE *f, const struct mdk_point *p)
{
	fprintf(f, "%s,", p->policy);
	put_param(f, p->policy, p->p1, false);
	fputc(',', f);
	if (p->has_p2 && !strcmp(p->policy, "lopp") &&
	    p->p2 >= (double)MDK_TRACE_MAX_WINDOW)
		fputs("none", f); /* lopp's A = none: never reclaimed */
	else if (p->has_p2)
		put_param(f, "", p->p2, false);
	fprintf(f, ",%.10g,%.10g,%.10g,%.10g,%" PRIu64 "\n", p->max_rate,
		p->mean_rate, p->p99_rate, p->savings, p->promotions);
}

static const char *const param_keys[][3] = {
	{ "age", "T" },	      { "vmin", "T" },	{ "paw", "P", "wait" },
	{ "pace", "P", "A" }, { "opp", "rho" }, { "lopp", "theta", "A" },
};

static const char *param_key(const char *policy, int which)
{
	size_t i;

	for (i = 0; i < sizeof(param_keys) / sizeof(param_keys[0]); i++)
		if (!strcmp(param_keys[i][0], policy) && param_keys[i][which])
			return param_keys[i][which];
	return which == 1 ? "p1" : "p2";
}

void mdkctl_point_setting(const struct mdk_point *p, char *buf, size_t len)
{
	/* lopp's A = none: never reclaimed, the largest window count */
	if (!strcmp(p->policy, "lopp") && p->has_p2 &&
	    p->p2 >= (double)MDK_TRACE_MAX_WINDOW)
		snprintf(buf, len, "%s:%s=%g,%s=none", p->policy,
			 param_key(p->policy, 1), p->p1,
			 param_key(p->policy, 2));
	else if (is_fraction_policy(p->policy) && p->has_p2)
		snprintf(buf, len, "%s:%s=%g,%s=%.0f", p->policy,
			 param_key(p->policy, 1), p->p1,
			 param_key(p->policy, 2), p->p2);
	else if (is_fraction_policy(p->policy))
		snprintf(buf, len, "%s:%s=%g", p->policy,
			 param_key(p->policy, 1), p->p1);
	else if (p->has_p2)
		snprintf(buf, len, "%s:%s=%.0f,%s=%.0f", p->policy,
			 param_key(p->policy, 1), p->p1,
			 param_key(p->policy, 2), p->p2);
	else
		snprintf(buf, len, "%s:%s=%.0f", p->policy,
			 param_key(p->policy, 1), p->p1);
}

/*
 * A member of a point: the key is a literal and new to the object, so
 * json-c need neither copy it nor look for it (one object per point, up
 * to tens of thousands of points in an MPC).
 */
static void add_member(struct json_object *o, const char *key,
		       struct json_object *v)
{
	if (!o ||
	    json_object_object_add_ex(o, key, v,
				      JSON_C_OBJECT_ADD_KEY_IS_NEW |
					      JSON_C_OBJECT_ADD_CONSTANT_KEY))
		json_object_put(v);
}

struct json_object *mdkctl_point_json(const struct mdk_point *p)
{
	struct json_object *o = json_object_new_object();
	char set[64];

	mdkctl_point_setting(p, set, sizeof(set));
	add_member(o, "policy", json_object_new_string(p->policy));
	add_member(o, "setting", json_object_new_string(set));
	add_member(o, "p1", mdkd_json_double(p->p1));
	add_member(o, "p2", p->has_p2 ? mdkd_json_double(p->p2) : NULL);
	add_member(o, "max_rate", mdkd_json_double(p->max_rate));
	add_member(o, "mean_rate", mdkd_json_double(p->mean_rate));
	add_member(o, "p99_rate", mdkd_json_double(p->p99_rate));
	add_member(o, "savings", mdkd_json_double(p->savings));
	add_member(o, "promotions", json_object_new_uint64(p->promotions));
	add_member(o, "saved_page_windows", json_object_new_uint64(p->saved));
	add_member(o, "footprint_page_windows",
		   json_object_new_uint64(p->footprint));
	return o;
}

/* The points of an array made by mdkctl_points_json(). */
struct points_ref {
	const struct mdk_point *pts;
	size_t n;
};

/*
 * Writes the array one point at a time: a json-c object for each point,
 * dropped once printed.  A tree of every point (57,121 for PACE over 240
 * windows) would take 70 MB and most of the run's time in malloc.
 */
static int put_points(struct json_object *a, struct printbuf *pb, int level,
		      int flags)
{
	const struct points_ref *r = json_object_get_userdata(a);
	size_t k;

	if (printbuf_memappend(pb, "[", 1) < 0)
		return -1;
	for (k = 0; k < r->n; k++) {
		struct json_object *o = mdkctl_point_json(&r->pts[k]);
		const char *s;
		size_t len;
		int ret = -1;

		s = o ? json_object_to_json_string_length(o, flags, &len) :
			NULL;
		if (s && (!k || printbuf_memappend(pb, ",", 1) >= 0))
			ret = printbuf_memappend(pb, s, (int)len);
		json_object_put(o);
		if (ret < 0)
			return -1;
	}
	return printbuf_memappend(pb, "]", 1);
}

struct json_object *mdkctl_points_json(const struct mdk_point *pts, size_t n)
{
	struct json_object *a = json_object_new_array();
	struct points_ref *r = malloc(sizeof(*r));

	if (!a || !r) {
		json_object_put(a);
		free(r);
		return NULL;
	}
	r->pts = pts;
	r->n = n;
	json_object_set_serializer(a, put_points, r, json_object_free_userdata);
	return a;
}

void mdkctl_mrc_csv(FILE *f, const struct mdk_mrc_point *p)
{
	fprintf(f, "%s,%" PRIu64 ",%" PRIu64 ",%.10g\n", p->policy, p->size,
		p->misses, p->miss_ratio);
}

struct json_object *mdkctl_mrc_json(const struct mdk_mrc_point *p)
{
	struct json_object *o = json_object_new_object();

	mdkd_json_add_str(o, "policy", p->policy);
	mdkd_json_add_u64(o, "size", p->size);
	mdkd_json_add_u64(o, "misses", p->misses);
	mdkd_json_add_double(o, "miss_ratio", p->miss_ratio);
	return o;
}

static const char *policy_colour(const char *name, size_t i)
{
	static const char *const names[] = { "age", "vmin", "paw", "pace",
					     "opp" };
	static const char *const colours[] = { "#1f77b4", "#ff7f0e", "#2ca02c",
					       "#d62728", "#9467bd", "#8c564b",
					       "#e377c2", "#7f7f7f" };
	size_t k;

	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (!strcmp(names[k], name))
			return colours[k];
	return colours[(5 + i) % 8];
}

int mdkctl_plot_mpc(const char *path, const char *title,
		    const struct mdkctl_curve *curves, size_t n, double target,
		    char *err, size_t errlen)
{
	FILE *gp;
	size_t i, k;
	int ret;

	ret = mdkctl_gnuplot_open(path, 960, 640, &gp, err, errlen);
	if (ret)
		return ret;
	fputs("set title ", gp);
	mdkctl_gnuplot_quote(gp, title);
	fputs(" noenhanced\n"
	      "set xlabel 'max window promotion rate (promotions / accessed pages)'\n"
	      "set ylabel 'savings (fraction of footprint page-windows)'\n"
	      "set key outside right top noenhanced\n"
	      "set grid\nset yrange [0:*]\n",
	      gp);
	if (target >= 0) {
		fprintf(gp, "set xrange [0:%.10g]\n",
			target > 0 ? fmin(1, 3 * target) : 0.01);
		fprintf(gp,
			"set arrow from %.10g, graph 0 to %.10g, graph 1 nohead dt 2 lc rgb 'gray40'\n",
			target, target);
	} else {
		fputs("set xrange [0:*]\n", gp);
	}
	for (i = 0; i < n; i++) {
		fprintf(gp, "$d%zu << EOD\n", i);
		for (k = 0; k < curves[i].n; k++)
			fprintf(gp, "%.10g %.10g\n", curves[i].pts[k].max_rate,
				curves[i].pts[k].savings);
		fputs("EOD\n", gp);
	}
	/*
	 * The largest grids first (PACE's thousands of points), so that the
	 * sparser curves are drawn over them and stay visible.
	 */
	fputs("plot ", gp);
	for (k = 0; k < n; k++) {
		size_t j, big = n;

		for (j = 0; j < n; j++) {
			size_t before = 0, m;

			for (m = 0; m < n; m++)
				before += curves[m].n > curves[j].n ||
					  (curves[m].n == curves[j].n && m < j);
			if (before == k)
				big = j;
		}
		fprintf(gp,
			"%s$d%zu using 1:2 with points pt 7 ps %s lc rgb '%s' title ",
			k ? ", " : "", big,
			curves[big].n > 1000 ? "0.4" : "0.6",
			policy_colour(curves[big].name, big));
		mdkctl_gnuplot_quote(gp, curves[big].name);
	}
	fputs("\n", gp);
	return mdkctl_gnuplot_close(gp, path, err, errlen);
}

const char *mdkctl_pct(double x, char *buf, size_t len)
{
	snprintf(buf, len, "%.3g%%", 100 * x);
	return buf;
}

void mdkctl_point_human(const struct mdk_point *p)
{
	char set[64], a[16], b[16], c[16], d[16];

	mdkctl_point_setting(p, set, sizeof(set));
	printf("%-24s max %-8s mean %-8s p99 %-8s savings %-8s promotions %" PRIu64
	       "\n",
	       set, mdkctl_pct(p->max_rate, a, sizeof(a)),
	       mdkctl_pct(p->mean_rate, b, sizeof(b)),
	       mdkctl_pct(p->p99_rate, c, sizeof(c)),
	       mdkctl_pct(p->savings, d, sizeof(d)), p->promotions);
}
