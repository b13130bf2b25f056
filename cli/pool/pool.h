/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mdkctl pool, inside: what its files share.  device.c opens /dev/cmm_mp
 * and names what it reports, options.c parses, and each verb has a file:
 * status.c, translate.c, segments.c (online, offline, share), fault.c
 * (fail, recover), bench.c.
 */
#ifndef MDKCTL_POOL_H
#define MDKCTL_POOL_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "kmod/uapi/cmm_mp.h"

/* Options of the pool verbs; each verb accepts the ones it documents. */
struct mdkctl_pool_opts {
	bool json;
	bool nha;
	bool wipe;
	unsigned int timeout_s;
	uint64_t bench_bytes;
	unsigned int bench_rounds;
	char **args; /* the operands (SEG..., DEV), once parsed */
	int nargs;
};

/* The verbs: argv[0] is the verb; they return the exit status. */
int mdkctl_pool_status(int argc, char **argv);
int mdkctl_pool_translate(int argc, char **argv);
int mdkctl_pool_online(int argc, char **argv);
int mdkctl_pool_offline(int argc, char **argv);
int mdkctl_pool_share(int argc, char **argv);
int mdkctl_pool_fail(int argc, char **argv);
int mdkctl_pool_recover(int argc, char **argv);
int mdkctl_pool_bench(int argc, char **argv);

/* device.c */

/* /dev/cmm_mp opened: the fd, or a negative errno after a message. */
int mdkctl_pool_open(const char *verb);
/* ioctl(): 0 or a negative errno. */
int mdkctl_pool_ioctl(int fd, unsigned long req, void *arg);
/* CMM_MP_IOC_INFO into @info: 0, or a negative errno after a message. */
int mdkctl_pool_get_info(int fd, const char *verb, struct cmm_mp_info *info);
/* Both of the above: the fd, or -1 after a message (nothing left open). */
int mdkctl_pool_open_info(const char *verb, struct cmm_mp_info *info);
/* SIGALRM after @timeout_s interrupts a long ioctl (0: never). */
void mdkctl_pool_arm_timeout(unsigned int timeout_s);
void mdkctl_pool_disarm_timeout(void);
const char *mdkctl_pool_seg_state_name(uint32_t state);
/* "none", "host 1", "shared 0,1": who holds a segment in the pool. */
const char *mdkctl_pool_holder_name(const struct cmm_mp_segment_info *s,
				    char *buf, size_t len);
/* A live host other than @self holding @s: its id, or -1. */
int mdkctl_pool_other_holder(const struct cmm_mp_segment_info *s,
			     uint32_t self);
struct json_object *
mdkctl_pool_json_segment(const struct cmm_mp_segment_info *s);

/* options.c */

/* 0 on success, -EINVAL (after a message) for a bad number. */
int mdkctl_pool_parse_u64(const char *verb, const char *what, const char *s,
			  uint64_t *v);
/*
 * Options common to the verbs; @allowed lists the short options a verb
 * takes.  Returns the index of the first operand, or -1 after a message.
 */
int mdkctl_pool_parse_opts(int argc, char **argv, const char *allowed,
			   struct mdkctl_pool_opts *o);
/*
 * The segment ids named by the operands: numbers, ranges "A-B", or "all".
 * Returns the count (ids in *out, to free), or -1 after a message.
 */
int mdkctl_pool_parse_segments(const char *verb, int argc, char **argv,
			       uint32_t nr_segments, uint32_t **out);
/* The one DEV operand into @dev: 0, or -1 after a message. */
int mdkctl_pool_parse_device(const char *verb, int argc, char **argv,
			     uint32_t nr_devices, uint32_t *dev);

#endif /* MDKCTL_POOL_H */
