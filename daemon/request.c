// SPDX-License-Identifier: GPL-2.0
/*
 * The answers to the control socket's requests (proto.h), from the
 * manager: status, runtime settings, release, reload, live MPCs.  The
 * socket itself is ctlsock.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "jsonout.h"
#include "log.h"
#include "manager.h"
#include "metrics.h"
#include "proto.h"
#include "request.h"

/* The daemon's own part of the status. */
static struct json_object *daemon_json(struct mdkd *d)
{
	struct json_object *dm = json_object_new_object();

	mdkd_json_add_str(dm, "version", MDK_VERSION);
	mdkd_json_add_u64(dm, "pid", (uint64_t)getpid());
	mdkd_json_add_double(dm, "uptime_s",
			     (mdkd_now_us() - d->started_us) / 1e6);
	mdkd_json_add_str(dm, "config",
			  d->config_path ? d->config_path : "defaults");
	mdkd_json_add_str(dm, "cgroup_root", d->cfg->global.cgroup_root);
	json_object_object_add(dm, "memory_reclaim",
			       json_object_new_boolean(d->have_reclaim));
	mdkd_json_add_u64(dm, "managed", d->cgroups.n);
	mdkd_json_add_u64(dm, "flushes", d->ticks);
	mdkd_json_add_u64(dm, "reloads", d->reloads);
	mdkd_json_add_u64(dm, "reload_failures", d->reload_failures);
	mdkd_json_add_str(dm, "last_reload_error", d->last_reload_error);
	mdkd_json_add_u64(dm, "swap_total", d->pipeline.host.swap_total);
	json_object_object_add(dm, "limits",
			       mdkd_limits_json(&d->pipeline.limits,
						&d->pipeline.host));
	json_object_object_add(dm, "tiers",
			       mdkd_tiers_json(&d->pipeline.tiers,
					       &d->pipeline.host));
	json_object_object_add(dm, "tier_costs",
			       mdkd_tier_costs_json(&d->costs));
	return dm;
}

static int answer_status(struct mdkd *d, const struct mdkd_request *req,
			 struct mdkd_buf *out, char *err, size_t errlen)
{
	const char *filter = req->has_cgroup ? req->cgroup : NULL;
	struct json_object *o, *cgs;
	size_t i;

	if (filter && !mdkd_find(d, filter)) {
		snprintf(err, errlen, "%.512s: not managed", filter);
		return -ENOENT;
	}
	o = mdkd_reply_new(true);
	json_object_object_add(o, "daemon", daemon_json(d));
	cgs = json_object_new_array();
	for (i = 0; i < d->cgroups.n; i++)
		if (!filter || !strcmp(filter, d->cgroups.cgs[i]->path))
			json_object_array_add(
				cgs, mdkd_cgroup_json(d->cgroups.cgs[i]));
	json_object_object_add(o, "cgroups", cgs);
	mdkd_reply_send(out, o);
	return 0;
}

static int answer_set(struct mdkd *d, const struct mdkd_request *req,
		      struct mdkd_buf *out, char *err, size_t errlen)
{
	const char *keys[MDKD_REQ_MAX_SETTINGS], *vals[MDKD_REQ_MAX_SETTINGS];
	struct json_object *o;
	unsigned int i;
	int ret;

	for (i = 0; i < req->nsettings; i++) {
		keys[i] = req->keys[i];
		vals[i] = req->values[i];
	}
	ret = mdkd_cgroups_set(&d->cgroups, req->cgroup, keys, vals,
			       req->nsettings, req->cmd == MDKD_CMD_MANAGE, err,
			       errlen);
	if (ret)
		return ret;
	o = mdkd_reply_new(true);
	json_object_object_add(o, "cgroup",
			       mdkd_cgroup_json(mdkd_find(d, req->cgroup)));
	mdkd_reply_send(out, o);
	return 0;
}

static int answer_mpc(struct mdkd *d, const struct mdkd_request *req,
		      struct mdkd_buf *out, char *err, size_t errlen)
{
	struct mdkd_cgroup *cg = mdkd_find(d, req->cgroup);
	struct json_object *o, *live;

	if (!cg) {
		snprintf(err, errlen, "%.512s: not managed", req->cgroup);
		return -ENOENT;
	}
	if (!cg->ctl.mode->live_json) {
		snprintf(err, errlen, "%s: mode %s, not policy: no live MPC",
			 cg->path, cg->ctl.mode->name);
		return -EINVAL;
	}
	live = cg->ctl.mode->live_json(&cg->t, cg->ctl.mode_state, err, errlen);
	if (!live)
		return -EINVAL;
	o = mdkd_reply_new(true);
	json_object_object_add(o, "live", live);
	mdkd_reply_send(out, o);
	return 0;
}

static int answer(struct mdkd *d, const struct mdkd_request *req,
		  struct mdkd_buf *out, char *err, size_t errlen)
{
	struct json_object *o;
	int ret;

	switch (req->cmd) {
	case MDKD_CMD_PING:
		o = mdkd_reply_new(true);
		json_object_object_add(o, "version",
				       json_object_new_string(MDK_VERSION));
		mdkd_reply_send(out, o);
		return 0;
	case MDKD_CMD_STATUS:
		return answer_status(d, req, out, err, errlen);
	case MDKD_CMD_SET:
	case MDKD_CMD_MANAGE:
		return answer_set(d, req, out, err, errlen);
	case MDKD_CMD_RELEASE:
		ret = mdkd_cgroups_release(&d->cgroups, req->cgroup, err,
					   errlen);
		break;
	case MDKD_CMD_RELOAD:
		ret = mdkd_reload_config(d, err, errlen);
		break;
	case MDKD_CMD_MPC:
		return answer_mpc(d, req, out, err, errlen);
	default:
		snprintf(err, errlen, "unsupported command");
		return -EINVAL;
	}
	if (!ret)
		mdkd_reply_send(out, mdkd_reply_new(true));
	return ret;
}

void mdkd_request_handle(void *daemon, const char *line, size_t len,
			 struct mdkd_buf *out)
{
	struct mdkd_request *req = malloc(sizeof(*req));
	char err[1024];

	if (!req) {
		mdkd_reply_error(out, "out of memory");
		return;
	}
	if (mdkd_request_parse(line, len, req, err, sizeof(err))) {
		log_debug("control: bad request: %s", err);
		mdkd_reply_error(out, err);
	} else if (answer(daemon, req, out, err, sizeof(err))) {
		mdkd_reply_error(out, err);
	}
	free(req);
}
