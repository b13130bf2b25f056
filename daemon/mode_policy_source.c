// SPDX-License-Identifier: GPL-2.0
/* Policy mode's windows from the sampler (mode_policy.h). */
#include "mode_policy.h"

static void *sampler_open(const struct mdk_sampler_opts *opts, char *msg,
			  size_t len)
{
	return mdk_sampler_new(opts, msg, len);
}

static int sampler_start(void *src, char *msg, size_t len)
{
	return mdk_sampler_start(src, msg, len);
}

static int sampler_next(void *src, struct mdk_sampler_window *w, char *msg,
			size_t len)
{
	return mdk_sampler_next(src, w, msg, len);
}

static const struct mdk_sampler_proc *sampler_proc(void *src, uint32_t id)
{
	return mdk_sampler_proc(src, id);
}

static void sampler_close(void *src)
{
	mdk_sampler_free(src);
}

const struct mdkd_policy_source mdkd_policy_source_sampler = {
	.open = sampler_open,
	.start = sampler_start,
	.next = sampler_next,
	.proc = sampler_proc,
	.close = sampler_close,
};
