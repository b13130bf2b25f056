/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control-socket protocol, version 1.  A UNIX stream socket carries
 * requests and responses, each one JSON object on one line ("\n" ends it,
 * at most MDKD_REQ_MAX bytes with it):
 *
 *   {"v":1,"cmd":"ping"}
 *   {"v":1,"cmd":"status"}                       (optional "cgroup")
 *   {"v":1,"cmd":"set","cgroup":"a/b","settings":{"interval":"2s"}}
 *   {"v":1,"cmd":"manage","cgroup":"a/b"}        (optional "settings")
 *   {"v":1,"cmd":"release","cgroup":"a/b"}
 *   {"v":1,"cmd":"reload"}
 *   {"v":1,"cmd":"mpc","cgroup":"a/b"}           (policy mode: live MPCs)
 *
 * and every response is {"v":1,"ok":true,...} or
 * {"v":1,"ok":false,"error":"what was wrong"}.  Unknown fields, a
 * version other than 1, wrong types, oversized strings and trailing bytes
 * are errors; the connection stays usable after one.
 */
#ifndef MDKD_PROTO_H
#define MDKD_PROTO_H

#include <stdbool.h>
#include <stddef.h>

#include "cgroup.h"

struct json_object;
struct mdkd_buf;

#define MDKD_PROTO_VERSION 1
#define MDKD_REQ_MAX 4096
#define MDKD_REQ_MAX_SETTINGS 32
#define MDKD_REQ_KEY_MAX 64
#define MDKD_REQ_VALUE_MAX 256

enum mdkd_cmd {
	MDKD_CMD_PING,
	MDKD_CMD_STATUS,
	MDKD_CMD_SET,
	MDKD_CMD_MANAGE,
	MDKD_CMD_RELEASE,
	MDKD_CMD_RELOAD,
	MDKD_CMD_MPC,
	MDKD_CMD_NR,
};

extern const char *const mdkd_cmd_names[MDKD_CMD_NR];

struct mdkd_request {
	enum mdkd_cmd cmd;
	bool has_cgroup;
	char cgroup[MDKD_CGROUP_PATH_MAX];
	unsigned int nsettings;
	char keys[MDKD_REQ_MAX_SETTINGS][MDKD_REQ_KEY_MAX];
	char values[MDKD_REQ_MAX_SETTINGS][MDKD_REQ_VALUE_MAX];
};

/*
 * mdkd_request_parse() - validate and decode one request line (@len bytes,
 * the "\n" excluded; need not be NUL-terminated).  Return: 0, or -EINVAL
 * (-EPROTONOSUPPORT for another version) with a message in @err.
 */
int mdkd_request_parse(const char *buf, size_t len, struct mdkd_request *req,
		       char *err, size_t errlen);

/* Responses: a new {"v":1,"ok":@ok} object to add fields to; one object
 * as a line appended to @out (@o dropped); an error response. */
struct json_object *mdkd_reply_new(bool ok);
void mdkd_reply_send(struct mdkd_buf *out, struct json_object *o);
void mdkd_reply_error(struct mdkd_buf *out, const char *msg);

#endif /* MDKD_PROTO_H */
