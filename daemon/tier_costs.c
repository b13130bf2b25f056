// SPDX-License-Identifier: GPL-2.0
/*
 * The measured tier costs (tier_costs.h): the tier file through
 * mdk_tiers_load(), all or nothing, and their status JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "jsonout.h"
#include "log.h"
#include "tier_costs.h"

int mdkd_tier_costs_load(struct mdkd_tier_costs *c, const char *path, char *err,
			 size_t errlen)
{
	struct mdk_tiers t;
	struct stat sb;
	int ret;

	if (!path[0]) {
		memset(c, 0, sizeof(*c));
		snprintf(c->note, sizeof(c->note), "tier_file is off");
		return 0;
	}
	ret = mdk_tiers_load(path, &t, err, errlen);
	if (ret == -ENOENT) {
		memset(c, 0, sizeof(*c));
		snprintf(c->path, sizeof(c->path), "%s", path);
		snprintf(c->note, sizeof(c->note),
			 "no tier costs: run mdkctl tier calibrate");
		log_notice("%s: no tier costs: run mdkctl tier calibrate",
			   path);
		return 0;
	}
	if (ret)
		return ret;
	memset(c, 0, sizeof(*c));
	c->loaded = true;
	c->tiers = t;
	snprintf(c->path, sizeof(c->path), "%s", path);
	if (!stat(path, &sb))
		c->mtime = (int64_t)sb.st_mtime;
	log_info("%s: %u tier cost%s", path, t.n, t.n == 1 ? "" : "s");
	return 0;
}

struct json_object *mdkd_tier_costs_json(const struct mdkd_tier_costs *c)
{
	struct json_object *o = json_object_new_object(), *arr, *t;
	time_t m = (time_t)c->mtime;
	char date[32] = "";
	struct tm tm;
	unsigned int i;

	mdkd_json_add_str(o, "file", c->path);
	json_object_object_add(o, "loaded", json_object_new_boolean(c->loaded));
	if (c->loaded && gmtime_r(&m, &tm))
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S UTC", &tm);
	mdkd_json_add_str(o, "date", date);
	mdkd_json_add_str(o, "note", c->note);
	arr = json_object_new_array();
	for (i = 0; c->loaded && i < c->tiers.n; i++) {
		const struct mdk_tier *k = &c->tiers.t[i];

		t = json_object_new_object();
		mdkd_json_add_str(t, "name", k->name);
		mdkd_json_add_u64(t, "cost_ns", k->cost_ns);
		if (k->capacity)
			mdkd_json_add_u64(t, "capacity_pages", k->capacity);
		else
			mdkd_json_add(t, "capacity_pages", NULL);
		json_object_array_add(arr, t);
	}
	json_object_object_add(o, "tiers", arr);
	return o;
}
