// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl mpc --live: the "live" object of mdkd's "mpc" reply back into
 * libmdk operating points.  Every field is checked; an error names it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mdk/err.h>

#include "mpc_live.h"

static bool is_num(struct json_object *v)
{
	return json_object_is_type(v, json_type_double) ||
	       json_object_is_type(v, json_type_int);
}

static struct json_object *get(struct json_object *o, const char *k,
			       json_type t)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, k, &v) || !v)
		return NULL;
	if (t == json_type_double)
		return is_num(v) ? v : NULL;
	return json_object_is_type(v, t) ? v : NULL;
}

static int get_num(struct json_object *o, const char *where, const char *k,
		   double *out, char *err, size_t errlen)
{
	struct json_object *v = get(o, k, json_type_double);

	if (!v)
		return mdk_err(err, errlen, -EINVAL, "%s%s: expected a number",
			       where, k);
	*out = json_object_get_double(v);
	return 0;
}

static int get_str(struct json_object *o, const char *where, const char *k,
		   bool nullable, const char **out, char *err, size_t errlen)
{
	struct json_object *v = NULL;

	if (o && json_object_object_get_ex(o, k, &v) && !v && nullable) {
		*out = NULL;
		return 0;
	}
	v = get(o, k, json_type_string);
	if (!v)
		return mdk_err(err, errlen, -EINVAL, "%s%s: expected a string",
			       where, k);
	*out = json_object_get_string(v);
	return 0;
}

/* [p1, p2|null, max_rate, mean_rate, p99_rate, savings, promotions,
 *  saved, footprint] (mode_policy.c, point_json()). */
static int parse_point(struct json_object *a, const char *policy,
		       struct mdk_point *p)
{
	struct json_object *v[9];
	size_t i;

	if (!json_object_is_type(a, json_type_array) ||
	    json_object_array_length(a) != 9)
		return -EINVAL;
	for (i = 0; i < 9; i++) {
		v[i] = json_object_array_get_idx(a, i);
		if (!(i == 1 && !v[i]) && !is_num(v[i]))
			return -EINVAL;
	}
	memset(p, 0, sizeof(*p));
	p->policy = policy;
	p->p1 = json_object_get_double(v[0]);
	p->has_p2 = v[1] != NULL;
	p->p2 = p->has_p2 ? json_object_get_double(v[1]) : 0;
	p->max_rate = json_object_get_double(v[2]);
	p->mean_rate = json_object_get_double(v[3]);
	p->p99_rate = json_object_get_double(v[4]);
	p->savings = json_object_get_double(v[5]);
	p->promotions = (uint64_t)json_object_get_uint64(v[6]);
	p->saved = (uint64_t)json_object_get_uint64(v[7]);
	p->footprint = (uint64_t)json_object_get_uint64(v[8]);
	return 0;
}

static int parse_rates(struct json_object *o, const char *k,
		       struct mdkctl_live_rates *r, char *err, size_t errlen)
{
	struct json_object *v = get(o, k, json_type_object);
	char where[64];

	memset(r, 0, sizeof(*r));
	if (!v)
		return mdk_err(err, errlen, -EINVAL, "%s: expected an object",
			       k);
	snprintf(where, sizeof(where), "%s.", k);
	if (get_num(v, where, "windows", &r->windows, err, errlen) ||
	    get_num(v, where, "promotions", &r->promotions, err, errlen) ||
	    get_num(v, where, "accessed", &r->accessed, err, errlen) ||
	    get_num(v, where, "max_rate", &r->max_rate, err, errlen) ||
	    get_num(v, where, "mean_rate", &r->mean_rate, err, errlen) ||
	    get_num(v, where, "p99_rate", &r->p99_rate, err, errlen))
		return -EINVAL;
	r->have = true;
	return 0;
}

void mdkctl_live_mpc_free(struct mdkctl_live_mpc *m)
{
	size_t i;

	for (i = 0; m->pts && i < m->npolicies; i++)
		free(m->pts[i]);
	free(m->pts);
	free(m->npts);
	free(m->names);
	json_object_put(m->doc);
	memset(m, 0, sizeof(*m));
}

/* The cgroup, its back end, the windows and the target; 0 or -EINVAL. */
static int parse_head(struct json_object *live, struct mdkctl_live_mpc *m,
		      char *err, size_t errlen)
{
	double lo, hi, horizon;

	if (get_str(live, "", "cgroup", false, &m->cgroup, err, errlen) ||
	    get_str(live, "", "backend", false, &m->backend, err, errlen) ||
	    get_num(live, "", "window_s", &m->window_s, err, errlen) ||
	    get_num(live, "", "target_rate", &m->target_rate, err, errlen) ||
	    get_num(live, "", "lo", &lo, err, errlen) ||
	    get_num(live, "", "hi", &hi, err, errlen) ||
	    get_num(live, "", "horizon", &horizon, err, errlen))
		return -EINVAL;
	m->lo = (unsigned long long)lo;
	m->hi = (unsigned long long)hi;
	m->horizon = (unsigned long long)horizon;
	return 0;
}

/* What runs and its predicted point; 0 or -EINVAL. */
static int parse_running(struct json_object *live, struct mdkctl_live_mpc *m,
			 char *err, size_t errlen)
{
	struct json_object *run, *pred, *v;

	run = get(live, "running", json_type_object);
	if (!run)
		return mdk_err(err, errlen, -EINVAL,
			       "running: expected an object");
	if (get_str(run, "running.", "setting", true, &m->setting, err,
		    errlen) ||
	    get_str(run, "running.", "reason", false, &m->reason, err, errlen))
		return -EINVAL;
	v = get(run, "auto_tune", json_type_boolean);
	m->auto_tune = v && json_object_get_boolean(v);
	if (json_object_object_get_ex(run, "predicted", &pred) && pred) {
		if (parse_point(pred, "", &m->predicted))
			return mdk_err(
				err, errlen, -EINVAL,
				"running.predicted: expected 9 numbers (p2 may be null)");
		m->have_predicted = true;
	}
	return 0;
}

/* OPP's best setting within the target, when evaluated; 0 or -EINVAL. */
static int parse_headroom(struct json_object *live, struct mdkctl_live_mpc *m,
			  char *err, size_t errlen)
{
	struct json_object *hd = get(live, "opp_headroom", json_type_object);

	if (!hd)
		return 0;
	if (get_str(hd, "opp_headroom.", "opp", false, &m->opp_setting, err,
		    errlen) ||
	    get_num(hd, "opp_headroom.", "opp_savings", &m->opp_savings, err,
		    errlen))
		return -EINVAL;
	m->have_opp = true;
	if (get(hd, "headroom", json_type_double)) {
		get_num(hd, "", "headroom", &m->headroom, err, errlen);
		m->have_headroom = true;
	}
	return 0;
}

/* Policy @i of @pols: its name and points; 0, -EINVAL or -ENOMEM. */
static int parse_policy(struct json_object *pols, size_t i,
			struct mdkctl_live_mpc *m, char *err, size_t errlen)
{
	struct json_object *po = json_object_array_get_idx(pols, i), *a;
	char where[48];
	size_t n, k;

	snprintf(where, sizeof(where), "policies[%zu].", i);
	if (get_str(po, where, "policy", false, &m->names[i], err, errlen))
		return -EINVAL;
	a = get(po, "points", json_type_array);
	if (!a)
		return mdk_err(err, errlen, -EINVAL,
			       "%spoints: expected an array", where);
	n = json_object_array_length(a);
	m->pts[i] = calloc(n ? n : 1, sizeof(**m->pts));
	if (!m->pts[i]) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (k = 0; k < n; k++)
		if (parse_point(json_object_array_get_idx(a, k), m->names[i],
				&m->pts[i][k]))
			return mdk_err(
				err, errlen, -EINVAL,
				"%spoints[%zu]: expected 9 numbers (p2 may be null)",
				where, k);
	m->npts[i] = n;
	return 0;
}

/* Every policy's curve; 0, -EINVAL or -ENOMEM. */
static int parse_policies(struct json_object *live, struct mdkctl_live_mpc *m,
			  char *err, size_t errlen)
{
	struct json_object *pols = get(live, "policies", json_type_array);
	size_t i;
	int ret;

	if (!pols)
		return mdk_err(err, errlen, -EINVAL,
			       "policies: expected an array");
	m->npolicies = json_object_array_length(pols);
	m->names = calloc(m->npolicies + 1, sizeof(*m->names));
	m->pts = calloc(m->npolicies + 1, sizeof(*m->pts));
	m->npts = calloc(m->npolicies + 1, sizeof(*m->npts));
	if (!m->names || !m->pts || !m->npts) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < m->npolicies; i++) {
		ret = parse_policy(pols, i, m, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

/* The running setting's policy name, for its CSV row. */
static void name_predicted(struct mdkctl_live_mpc *m)
{
	const char *colon = m->setting ? strchr(m->setting, ':') : NULL;

	for (size_t i = 0; colon && i < m->npolicies; i++)
		if (strlen(m->names[i]) == (size_t)(colon - m->setting) &&
		    !strncmp(m->names[i], m->setting,
			     (size_t)(colon - m->setting)))
			m->predicted.policy = m->names[i];
}

int mdkctl_live_mpc_parse(struct json_object *live, struct mdkctl_live_mpc *m,
			  char *err, size_t errlen)
{
	int ret;

	memset(m, 0, sizeof(*m));
	if (!json_object_is_type(live, json_type_object))
		return mdk_err(err, errlen, -EINVAL,
			       "live: expected an object");
	m->doc = json_object_get(live);
	ret = parse_head(live, m, err, errlen);
	if (!ret)
		ret = parse_running(live, m, err, errlen);
	if (!ret && (parse_rates(live, "measured", &m->measured, err, errlen) ||
		     parse_rates(live, "acted", &m->acted, err, errlen) ||
		     get_str(live, "", "measured_source", false,
			     &m->measured_source, err, errlen)))
		ret = -EINVAL;
	if (!ret)
		ret = parse_headroom(live, m, err, errlen);
	if (!ret)
		ret = parse_policies(live, m, err, errlen);
	if (ret) {
		mdkctl_live_mpc_free(m);
		return ret;
	}
	if (m->have_predicted)
		name_predicted(m);
	return 0;
}
