// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl pool: /dev/cmm_mp, its ioctls and their timeout, and the names
 * of what it reports.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "daemon/jsonout.h"
#include "pool.h"

static const char *const seg_state_names[] = {
	[CMM_MP_SEG_OFFLINE] = "offline",
	[CMM_MP_SEG_ADDED] = "added",
	[CMM_MP_SEG_ONLINE] = "online",
	[CMM_MP_SEG_SHARED] = "shared",
};

const char *mdkctl_pool_seg_state_name(uint32_t state)
{
	return state < sizeof(seg_state_names) / sizeof(seg_state_names[0]) ?
		       seg_state_names[state] :
		       "?";
}

const char *mdkctl_pool_holder_name(const struct cmm_mp_segment_info *s,
				    char *buf, size_t len)
{
	size_t n;
	int h;

	switch (s->holding) {
	case CMM_MP_HOLD_NONE:
		return "none";
	case CMM_MP_HOLD_EXCLUSIVE:
		for (h = 0; h < CMM_MP_HOSTS_MAX && !(s->holders & 1U << h);
		     h++)
			;
		snprintf(buf, len, "host %d", h);
		return buf;
	case CMM_MP_HOLD_SHARED:
		n = (size_t)snprintf(buf, len, "shared");
		for (h = 0; h < CMM_MP_HOSTS_MAX && n < len; h++)
			if (s->holders & 1U << h)
				n += (size_t)snprintf(buf + n, len - n, "%s%d",
						      n == 6 ? " " : ",", h);
		return buf;
	default:
		return "invalid";
	}
}

int mdkctl_pool_other_holder(const struct cmm_mp_segment_info *s, uint32_t self)
{
	int h;

	for (h = 0; h < CMM_MP_HOSTS_MAX; h++)
		if (s->holders & 1U << h && (uint32_t)h != self)
			return h;
	return -1;
}

static void on_alarm(int sig)
{
	(void)sig;
}

void mdkctl_pool_arm_timeout(unsigned int timeout_s)
{
	struct sigaction sa = { .sa_handler = on_alarm };

	if (!timeout_s)
		return;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL); /* no SA_RESTART */
	alarm(timeout_s);
}

void mdkctl_pool_disarm_timeout(void)
{
	alarm(0);
}

int mdkctl_pool_open(const char *verb)
{
	int fd = open(CMM_MP_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		int err = errno;

		fprintf(stderr, "mdkctl: pool %s: %s: %s%s\n", verb,
			CMM_MP_DEVICE_PATH, strerror(err),
			err == ENOENT ? " (is cmm_mp.ko loaded?)" : "");
		return -err;
	}
	return fd;
}

int mdkctl_pool_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

int mdkctl_pool_get_info(int fd, const char *verb, struct cmm_mp_info *info)
{
	int ret;

	memset(info, 0, sizeof(*info));
	ret = mdkctl_pool_ioctl(fd, CMM_MP_IOC_INFO, info);
	if (ret)
		fprintf(stderr, "mdkctl: pool %s: CMM_MP_IOC_INFO: %s\n", verb,
			strerror(-ret));
	return ret;
}

struct json_object *
mdkctl_pool_json_segment(const struct cmm_mp_segment_info *s)
{
	struct json_object *o = json_object_new_object();

	mdkd_json_add_u64(o, "id", s->id);
	mdkd_json_add_str(o, "state", mdkctl_pool_seg_state_name(s->state));
	mdkd_json_add_u64(o, "device", s->device);
	mdkd_json_add_bool(o, "local", s->flags & CMM_MP_SEGMENT_LOCAL);
	mdkd_json_add_bool(o, "device_failed",
			   s->flags & CMM_MP_SEGMENT_DEV_FAILED);
	mdkd_json_add_u64(o, "phys", s->phys);
	mdkd_json_add_u64(o, "nha", s->nha);
	mdkd_json_add_u64(o, "dev_offset", s->dev_offset);
	mdkd_json_add_u64(o, "bytes", s->bytes);
	mdkd_json_add_u64(o, "mmap_offset", s->mmap_offset);
	mdkd_json_add_u64(o, "first_block", s->first_block);
	mdkd_json_add_u64(o, "nr_blocks", s->nr_blocks);
	mdkd_json_add_u64(o, "online_blocks", s->online_blocks);
	mdkd_json_add_u64(o, "mappings", s->mappings);
	mdkd_json_add_i64(o, "owner", s->owner);
	{
		char held[64];

		mdkd_json_add_str(o, "held_by",
				  mdkctl_pool_holder_name(s, held,
							  sizeof(held)));
	}
	mdkd_json_add_u64(o, "holders", s->holders);
	mdkd_json_add_u64(o, "lookups", s->lookups);
	mdkd_json_add_u64(o, "failures", s->failures);
	return o;
}

int mdkctl_pool_open_info(const char *verb, struct cmm_mp_info *info)
{
	int fd = mdkctl_pool_open(verb);

	if (fd < 0)
		return -1;
	if (mdkctl_pool_get_info(fd, verb, info)) {
		close(fd);
		return -1;
	}
	return fd;
}
