// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl pool online, offline, share SEG...|all: a segment operation on
 * each segment named.  The module hot-adds a segment; it cannot online
 * memory blocks itself, so "online" then writes online_movable to each
 * block's state file under /sys/devices/system/memory, which is what
 * makes it one command.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/jsonout.h"
#include "pool.h"

#define MEMORY_SYSFS "/sys/devices/system/memory"

/* "online", "offline", ... of memory block @block; "" if unreadable. */
static void block_state(const char *root, uint32_t block, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/memory%u/state", root, block);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* Online memory block @block as movable; 0 or -errno after a message. */
static int online_block(const char *root, uint32_t block, uint32_t seg)
{
	char path[PATH_MAX], state[32];
	int fd, err = 0;

	block_state(root, block, state, sizeof(state));
	if (!strcmp(state, "online"))
		return 0;
	snprintf(path, sizeof(path), "%s/memory%u/state", root, block);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "online_movable", 14) != 14)
		err = errno;
	if (fd >= 0)
		close(fd);
	if (err)
		fprintf(stderr,
			"mdkctl: pool online: segment %u: %s: online_movable: %s\n",
			seg, path, strerror(err));
	return -err;
}

static int seg_op(int fd, unsigned long req, const char *verb,
		  struct cmm_mp_segment_info *s)
{
	int ret = mdkctl_pool_ioctl(fd, req, s);

	if (ret && ret != -EBUSY)
		fprintf(stderr, "mdkctl: pool %s: segment %u: %s\n", verb,
			s->id, strerror(-ret));
	return ret;
}

static void report_segment(const struct mdkctl_pool_opts *o,
			   struct json_object *a,
			   const struct cmm_mp_segment_info *s, const char *msg)
{
	if (o->json)
		mdkd_json_push(a, mdkctl_pool_json_segment(s));
	else
		printf("segment %u: %s%s\n", s->id,
		       mdkctl_pool_seg_state_name(s->state), msg);
}

/* Why @s stayed as it was, when the module said EBUSY. */
static void seg_busy(const char *verb, unsigned long req,
		     const struct mdkctl_pool_opts *o,
		     const struct cmm_mp_info *info,
		     const struct cmm_mp_segment_info *s)
{
	if (req == CMM_MP_IOC_SEG_OFFLINE)
		fprintf(stderr,
			"mdkctl: pool offline: segment %u: its pages could not all be migrated%s; it stays %s\n",
			s->id, o->timeout_s ? " before the timeout" : "",
			mdkctl_pool_seg_state_name(s->state));
	else if (info->nr_hosts > 1 &&
		 mdkctl_pool_other_holder(s, info->host) >= 0)
		fprintf(stderr,
			"mdkctl: pool %s: segment %u is owned by host %d\n",
			verb, s->id, mdkctl_pool_other_holder(s, info->host));
	else
		fprintf(stderr,
			"mdkctl: pool %s: segment %u: it is %s (offline it first)\n",
			verb, s->id, mdkctl_pool_seg_state_name(s->state));
}

/*
 * Online the memory blocks of the segment just added, then read it back
 * into @s and describe it in @msg; 0, or 1 after a message.
 */
static int seg_online_blocks(int fd, const char *verb,
			     const struct cmm_mp_info *info,
			     struct cmm_mp_segment_info *s, char *msg,
			     size_t len)
{
	uint32_t id = s->id;
	int ret, status = 0;

	for (uint32_t b = s->first_block; b < s->first_block + s->nr_blocks;
	     b++)
		if (online_block(MEMORY_SYSFS, b, s->id))
			status = 1;
	*s = (struct cmm_mp_segment_info){ .id = id };
	ret = seg_op(fd, CMM_MP_IOC_SEGMENT, verb, s);
	if (ret || s->state != CMM_MP_SEG_ONLINE) {
		if (!ret)
			fprintf(stderr,
				"mdkctl: pool online: segment %u: %u of %u memory blocks online\n",
				s->id, s->online_blocks, s->nr_blocks);
		status = 1;
	}
	snprintf(msg, len, " (node %d, memory blocks %u-%u)", info->node,
		 s->first_block, s->first_block + s->nr_blocks - 1);
	return status;
}

/* Segment @id through @req, reported; 0, or 1 after a message. */
static int seg_one(int fd, unsigned long req, const char *verb,
		   const struct mdkctl_pool_opts *o,
		   const struct cmm_mp_info *info, uint32_t id,
		   struct json_object *reported)
{
	struct cmm_mp_segment_info s = { .id = id };
	char msg[160] = "";
	int ret, status = 0;

	if (req == CMM_MP_IOC_SEG_OFFLINE)
		mdkctl_pool_arm_timeout(o->timeout_s);
	ret = seg_op(fd, req, verb, &s);
	mdkctl_pool_disarm_timeout();
	if (ret == -EBUSY)
		seg_busy(verb, req, o, info, &s);
	if (ret)
		return 1;
	if (req == CMM_MP_IOC_SEG_ADD)
		status =
			seg_online_blocks(fd, verb, info, &s, msg, sizeof(msg));
	else if (req == CMM_MP_IOC_SEG_SHARE)
		snprintf(msg, sizeof(msg),
			 " (mmap %s offset 0x%" PRIx64 ", %" PRIu64 " MiB)",
			 CMM_MP_DEVICE_PATH, (uint64_t)s.mmap_offset,
			 (uint64_t)(s.bytes >> 20));
	report_segment(o, reported, &s, msg);
	return status;
}

static int parse_segments_verb(int argc, char **argv, unsigned long req,
			       struct mdkctl_pool_opts *o)
{
	int i = mdkctl_pool_parse_opts(
		argc, argv, req == CMM_MP_IOC_SEG_OFFLINE ? "jt" : "j", o);

	if (i < 0)
		return 2;
	o->args = argv + i;
	o->nargs = argc - i;
	return 0;
}

static int pool_segments_verb(int argc, char **argv, unsigned long req)
{
	const char *verb = argv[0];
	struct mdkctl_pool_opts o = { .timeout_s = 120 };
	struct json_object *reported = NULL;
	struct cmm_mp_info info;
	uint32_t *ids = NULL;
	int fd, i, n, status = 0;

	status = parse_segments_verb(argc, argv, req, &o);
	if (status)
		return status;
	fd = mdkctl_pool_open_info(verb, &info);
	if (fd < 0)
		return 1;
	n = mdkctl_pool_parse_segments(verb, o.nargs, o.args, info.nr_segments,
				       &ids);
	if (n < 0) {
		status = 2;
		goto out;
	}
	if (o.json && !(reported = json_object_new_array())) {
		fprintf(stderr, "mdkctl: pool %s: out of memory\n", verb);
		status = 1;
		goto out;
	}
	for (i = 0; i < n; i++)
		if (seg_one(fd, req, verb, &o, &info, ids[i], reported))
			status = 1;
	/* The segments done, none when none was (as the text says). */
	if (reported && json_object_array_length(reported) &&
	    mdkd_json_print(stdout, reported))
		status = 1;
out:
	json_object_put(reported);
	free(ids);
	close(fd);
	return status;
}

int mdkctl_pool_online(int argc, char **argv)
{
	return pool_segments_verb(argc, argv, CMM_MP_IOC_SEG_ADD);
}

int mdkctl_pool_offline(int argc, char **argv)
{
	return pool_segments_verb(argc, argv, CMM_MP_IOC_SEG_OFFLINE);
}

int mdkctl_pool_share(int argc, char **argv)
{
	return pool_segments_verb(argc, argv, CMM_MP_IOC_SEG_SHARE);
}
