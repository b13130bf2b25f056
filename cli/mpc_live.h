/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live MPCs of a policy-mode cgroup as mdkctl mpc --live reads them:
 * the "live" object of mdkd's "mpc" reply (daemon/mode_policy.c,
 * policy_live_json()) turned back into libmdk operating points, so
 * that the live curves print and plot with the code of the offline ones.
 */
#ifndef MDKCTL_MPC_LIVE_H
#define MDKCTL_MPC_LIVE_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>
#include <mdk/mpc.h>

/* A promotion-rate summary over the horizon (struct mdk_eval_rates). */
struct mdkctl_live_rates {
	bool have; /* present in the reply */
	double windows, promotions, accessed;
	double max_rate, mean_rate, p99_rate;
};

struct mdkctl_live_mpc {
	struct json_object *doc; /* the reply's "live" object (held) */
	const char *cgroup, *backend, *setting; /* setting: NULL if none */
	const char *reason, *measured_source;
	bool auto_tune, have_predicted;
	double window_s, target_rate;
	unsigned long long lo, hi, horizon;
	struct mdk_point predicted; /* the running setting's live point */
	struct mdkctl_live_rates measured, acted;
	/* OPP headroom: OPP's best savings at the target minus the running
	 * setting's (have_headroom false without OPP or a running setting). */
	bool have_opp, have_headroom;
	const char *opp_setting;
	double opp_savings, headroom;
	/* The curves, one per evaluated policy. */
	size_t npolicies;
	const char **names;
	struct mdk_point **pts;
	size_t *npts;
};

/*
 * mdkctl_live_mpc_parse() - @live (the "live" object of an "mpc" reply) into
 * *@m; @live gets one more reference, dropped by mdkctl_live_mpc_free().
 * Return: 0, -EINVAL with the field that was missing or malformed in @err
 * ("policies[1].points[3]: expected 9 numbers"), or -ENOMEM.
 */
int mdkctl_live_mpc_parse(struct json_object *live, struct mdkctl_live_mpc *m,
			  char *err, size_t errlen);
void mdkctl_live_mpc_free(struct mdkctl_live_mpc *m);

#endif /* MDKCTL_MPC_LIVE_H */
