// SPDX-License-Identifier: GPL-2.0
/* A sampler window as JSON (see window_json.h). */
#include "jsonout.h"
#include "window_json.h"

struct json_object *mdkd_window_json(const struct mdk_sampler_window *w)
{
	struct json_object *o = json_object_new_object();
	double star = w->nr_pages ? (double)w->tier_pages / w->nr_pages : 0;

	mdkd_json_add_u64(o, "window", w->index);
	mdkd_json_add_u64(o, "pages", w->nr_pages);
	mdkd_json_add_u64(o, "procs", w->nr_procs);
	mdkd_json_add_u64(o, "joined", w->nr_joined);
	mdkd_json_add_u64(o, "stale", w->nr_stale);
	mdkd_json_add_u64(o, "left", w->nr_left);
	mdkd_json_add_u64(o, "swapin_pages", w->swapin_pages);
	mdkd_json_add_u64(o, "file_refault_pages", w->file_refault_pages);
	mdkd_json_add_u64(o, "promote_pages", w->promote_pages);
	mdkd_json_add_u64(o, "tier_pages", w->tier_pages);
	mdkd_json_add_fixed(o, "star", star, 6);
	mdkd_json_add_fixed(o, "cpu_ms", w->cpu_ns / 1e6, 3);
	mdkd_json_add_fixed(o, "walk_ms", w->walk_ns / 1e6, 3);
	mdkd_json_add_fixed(o, "clear_ms", w->clear_ns / 1e6, 3);
	mdkd_json_add_u64(o, "pte_tables", w->ptes_tables);
	return o;
}
