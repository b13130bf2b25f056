// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl swarm stress: the operation log of --log and the clock of
 * --shared-clock.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "swarm.h"

/*
 * Stress across hosts (--log, --shared-clock): each host's clients write
 * every operation to a log before it starts ("c") and once it returned
 * ("r"), so that a host killed mid-run leaves its operations in flight
 * as pending, and "mdkctl swarm check" checks the hosts' logs as one
 * history.  Real-time order across hosts needs one clock: a counter in
 * the pool (the first word of a segment both hosts share) of which every
 * call and return takes a ticket, a linearizable clock.
 *
 *   c CLIENT.SEQ put|get KEY VALUE TICKET
 *   r CLIENT.SEQ TICKET VALUE|absent|failed
 */
static struct {
	FILE *f;
	pthread_mutex_t lock;
	struct mdk_swarm_memnode *clock;
	volatile int clock_failed; /* a ticket could not be taken */
} hist = { .lock = PTHREAD_MUTEX_INITIALIZER };

uint64_t mdkctl_swarm_log_now(void)
{
	uint64_t v = 0, old;

	if (!hist.clock)
		return mdk_swarm_lin_now_ns();
	for (;;) {
		if (mdk_swarm_memnode_cas(hist.clock, 0, v, v + 1, &old)) {
			/* No ticket: the log's order is lost; the run fails. */
			hist.clock_failed = 1;
			return 0;
		}
		if (old == v)
			return v + 1;
		v = old;
	}
}

/* One log line, on the log's host file before the operation goes on. */
__attribute__((format(printf, 1, 2))) static void hist_put(const char *fmt, ...)
{
	va_list ap;

	if (!hist.f)
		return;
	pthread_mutex_lock(&hist.lock);
	va_start(ap, fmt);
	vfprintf(hist.f, fmt, ap);
	va_end(ap);
	fflush(hist.f);
	pthread_mutex_unlock(&hist.lock);
}

void mdkctl_swarm_log_call(const struct mdk_swarm_lin_op *op,
			   unsigned int client, uint64_t seq)
{
	hist_put("c %u.%llu %s %llu %llu %llu\n", client,
		 (unsigned long long)seq,
		 op->kind == MDK_SWARM_LIN_PUT ? "put" : "get",
		 (unsigned long long)op->key,
		 (unsigned long long)(op->kind == MDK_SWARM_LIN_PUT ?
					      op->value :
					      0),
		 (unsigned long long)op->call_ns);
}

void mdkctl_swarm_log_ret(const struct mdk_swarm_lin_op *op,
			  unsigned int client, uint64_t seq, bool failed)
{
	char v[24];

	if (failed)
		snprintf(v, sizeof(v), "failed");
	else if (op->kind == MDK_SWARM_LIN_GET &&
		 op->value == MDK_SWARM_LIN_ABSENT)
		snprintf(v, sizeof(v), "absent");
	else
		snprintf(v, sizeof(v), "%llu", (unsigned long long)op->value);
	hist_put("r %u.%llu %llu %s\n", client, (unsigned long long)seq,
		 (unsigned long long)op->ret_ns, v);
}

/* The clock is the first segment of device DEVICE. */
int mdkctl_swarm_log_open(const struct mdkctl_swarm_opts *o)
{
	char err[256];

	if (o->log) {
		hist.f = fopen(o->log, "w");
		if (!hist.f) {
			fprintf(stderr, "mdkctl swarm: --log %s: %s\n", o->log,
				strerror(errno));
			return 1;
		}
	}
	if (o->clock_device >= 0) {
		hist.clock = mdk_swarm_memnode_new_cmm_mp(
			o->cmm_mp, (unsigned int)o->clock_device,
			MDK_SWARM_MEMNODE_CMM_MP_FIRST, 4096, err, sizeof(err));
		if (!hist.clock) {
			fprintf(stderr, "mdkctl swarm: --shared-clock: %s\n",
				err);
			return 1;
		}
	}
	return 0;
}

void mdkctl_swarm_log_close(void)
{
	if (hist.f)
		fclose(hist.f);
	if (hist.clock)
		mdk_swarm_memnode_destroy(hist.clock);
	hist.f = NULL;
	hist.clock = NULL;
}

bool mdkctl_swarm_log_on(void)
{
	return hist.f != NULL;
}

bool mdkctl_swarm_log_failed(void)
{
	return hist.clock_failed;
}
