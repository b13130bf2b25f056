/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sampler window as JSON, in one vocabulary for every tool that shows
 * one: mdkctl sample -j prints it a window a line, and mdkd's status puts
 * the last window of a policy-mode cgroup under "last_window".
 */
#ifndef MDKD_WINDOW_JSON_H
#define MDKD_WINDOW_JSON_H

#include <json-c/json.h>

#include "bpf/loader.h"

/*
 * mdkd_window_json() - a new object with the fields of window @w: window,
 * pages, procs, joined, stale, left, swapin_pages, file_refault_pages,
 * promote_pages, tier_pages, star, cpu_ms, walk_ms, clear_ms, pte_tables
 * (Documentation/man/mdkctl.8, SAMPLE COMMAND).  Return: the object,
 * which the caller owns.
 */
struct json_object *mdkd_window_json(const struct mdk_sampler_window *w);

#endif /* MDKD_WINDOW_JSON_H */
