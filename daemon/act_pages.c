// SPDX-License-Identifier: GPL-2.0
/* What the page actuators (act_pageout.c, act_migrate.c) share: pages.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "controller.h"
#include "log.h"
#include "pages.h"
#include "target.h"

int mdkd_pages_attach(const struct mdkd_target *t, const char *name, char *err,
		      size_t errlen)
{
	if (!t->set->mode || !t->set->mode->picks_pages) {
		snprintf(
			err, errlen,
			"actuator %s moves the pages mode policy picks (set mode = policy)",
			name);
		return -EINVAL;
	}
	return 0;
}

void mdkd_pages_done(struct mdkd_target *t, const struct mdkd_pages *p,
		     const char *name, bool promotes, int ret)
{
	const struct mdkd_pages_result *r = &p->res;
	char moved[64];

	if (r->denied || r->failed) {
		if (promotes)
			snprintf(moved, sizeof(moved),
				 "%llu demoted, %llu promoted",
				 (unsigned long long)r->out_done,
				 (unsigned long long)r->back_done);
		else
			snprintf(moved, sizeof(moved), "%llu advised",
				 (unsigned long long)r->out_done);
		log_debug(
			"%s: %s: %s, %llu failed, %llu denied, %llu gone (%s)",
			t->path, name, moved, (unsigned long long)r->failed,
			(unsigned long long)r->denied,
			(unsigned long long)r->gone, strerror(-r->first_error));
	}
	/* What moved out is what counts as reclaimed. */
	t->act_bytes = r->out_done * MDKD_PAGE_SIZE;
	if (!ret && !r->out_done && !r->back_done && r->first_error &&
	    r->first_error != -ESRCH)
		ret = r->first_error;
	mdkd_target_act_done(t, ret);
}
