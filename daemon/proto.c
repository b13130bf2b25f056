// SPDX-License-Identifier: GPL-2.0
/* The control-socket protocol: see proto.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>
#include <mdk/err.h>

#include "buf.h"
#include "proto.h"

const char *const mdkd_cmd_names[MDKD_CMD_NR] = {
	[MDKD_CMD_PING] = "ping",	[MDKD_CMD_STATUS] = "status",
	[MDKD_CMD_SET] = "set",		[MDKD_CMD_MANAGE] = "manage",
	[MDKD_CMD_RELEASE] = "release", [MDKD_CMD_RELOAD] = "reload",
	[MDKD_CMD_MPC] = "mpc",
};

/* A JSON string or number as text, copied into @out of @size bytes. */
static int scalar(struct json_object *v, char *out, size_t size)
{
	const char *s;
	size_t n;

	if (!json_object_is_type(v, json_type_string) &&
	    !json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double))
		return -EINVAL;
	s = json_object_get_string(v);
	n = json_object_is_type(v, json_type_string) ?
		    (size_t)json_object_get_string_len(v) :
		    strlen(s);
	if (n >= size || memchr(s, '\0', n))
		return -EINVAL;
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

static int parse_settings(struct json_object *obj, struct mdkd_request *req,
			  char *err, size_t errlen)
{
	struct json_object_iterator it, end;

	if (!json_object_is_type(obj, json_type_object))
		return mdk_err(err, errlen, -EINVAL,
			       "settings: expected an object%s", "");
	if (json_object_object_length(obj) > MDKD_REQ_MAX_SETTINGS) {
		snprintf(err, errlen, "settings: more than %d keys",
			 MDKD_REQ_MAX_SETTINGS);
		return -EINVAL;
	}
	it = json_object_iter_begin(obj);
	end = json_object_iter_end(obj);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		const char *k = json_object_iter_peek_name(&it);
		unsigned int i = req->nsettings;

		if (!*k || strlen(k) >= MDKD_REQ_KEY_MAX)
			return mdk_err(
				err, errlen, -EINVAL,
				"settings: key '%.64s' empty or too long", k);
		snprintf(req->keys[i], sizeof(req->keys[i]), "%s", k);
		if (scalar(json_object_iter_peek_value(&it), req->values[i],
			   sizeof(req->values[i]))) {
			snprintf(
				err, errlen,
				"settings: %s: expected a string or number shorter than %d bytes",
				req->keys[i], MDKD_REQ_VALUE_MAX);
			return -EINVAL;
		}
		req->nsettings++;
	}
	return 0;
}

/* The fields seen so far. */
struct seen {
	bool v, cmd, settings;
};

/* @buf as one JSON object, or NULL with the reason in @err. */
static struct json_object *tokenize(const char *buf, size_t len, char *err,
				    size_t errlen)
{
	struct json_object *obj;
	enum json_tokener_error jerr;
	struct json_tokener *tok = json_tokener_new_ex(4);

	if (!tok) {
		mdk_err(err, errlen, -EINVAL, "out of memory%s", "");
		return NULL;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
					    JSON_TOKENER_VALIDATE_UTF8);
	obj = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	if (!obj || jerr != json_tokener_success) {
		snprintf(err, errlen, "not JSON at offset %zu: %s",
			 json_tokener_get_parse_end(tok),
			 json_tokener_error_desc(
				 jerr == json_tokener_continue ?
					 json_tokener_error_parse_eof :
					 jerr));
		goto err_put;
	}
	if (json_tokener_get_parse_end(tok) != len) {
		snprintf(err, errlen, "trailing bytes at offset %zu",
			 json_tokener_get_parse_end(tok));
		goto err_put;
	}
	if (!json_object_is_type(obj, json_type_object)) {
		mdk_err(err, errlen, -EINVAL, "expected a JSON object%s", "");
		goto err_put;
	}
	json_tokener_free(tok);
	return obj;

err_put:
	json_object_put(obj);
	json_tokener_free(tok);
	return NULL;
}

static int parse_version(struct json_object *v, char *err, size_t errlen)
{
	if (!json_object_is_type(v, json_type_int))
		return mdk_err(err, errlen, -EINVAL, "v: expected an integer%s",
			       "");
	if (json_object_get_int64(v) != MDKD_PROTO_VERSION) {
		snprintf(
			err, errlen,
			"protocol version %lld not supported (this mdkd speaks %d)",
			(long long)json_object_get_int64(v),
			MDKD_PROTO_VERSION);
		return -EPROTONOSUPPORT;
	}
	return 0;
}

static int parse_cmd(struct json_object *v, struct mdkd_request *req, char *err,
		     size_t errlen)
{
	const char *c;
	int i;

	if (!json_object_is_type(v, json_type_string))
		return mdk_err(err, errlen, -EINVAL, "cmd: expected a string%s",
			       "");
	c = json_object_get_string(v);
	for (i = 0; i < MDKD_CMD_NR; i++)
		if (!strcmp(c, mdkd_cmd_names[i]))
			break;
	if (i == MDKD_CMD_NR)
		return mdk_err(
			err, errlen, -EINVAL,
			"cmd: unknown command '%.64s' (ping, status, set, manage, release, reload, mpc)",
			c);
	req->cmd = (enum mdkd_cmd)i;
	return 0;
}

static int parse_cgroup(struct json_object *v, struct mdkd_request *req,
			char *err, size_t errlen)
{
	char why[256];

	if (!json_object_is_type(v, json_type_string) ||
	    scalar(v, req->cgroup, sizeof(req->cgroup)))
		return mdk_err(err, errlen, -EINVAL,
			       "cgroup: expected a path%s", "");
	if (mdkd_cgroup_path_check(req->cgroup, false, why, sizeof(why)))
		return mdk_err(err, errlen, -EINVAL, "cgroup: %s", why);
	req->has_cgroup = true;
	return 0;
}

/* One field @k of the request object. */
static int parse_field(const char *k, struct json_object *v,
		       struct mdkd_request *req, struct seen *seen, char *err,
		       size_t errlen)
{
	int ret;

	if (!strcmp(k, "v")) {
		ret = parse_version(v, err, errlen);
		seen->v = !ret;
	} else if (!strcmp(k, "cmd")) {
		ret = parse_cmd(v, req, err, errlen);
		seen->cmd = !ret;
	} else if (!strcmp(k, "cgroup")) {
		ret = parse_cgroup(v, req, err, errlen);
	} else if (!strcmp(k, "settings")) {
		ret = parse_settings(v, req, err, errlen);
		seen->settings = !ret;
	} else {
		ret = mdk_err(err, errlen, -EINVAL, "unknown field '%.64s'", k);
	}
	return ret;
}

/* What each command needs and refuses. */
static int check_request(const struct mdkd_request *req,
			 const struct seen *seen, char *err, size_t errlen)
{
	const char *name;

	if (!seen->v)
		return mdk_err(err, errlen, -EINVAL,
			       "missing \"v\" (the protocol version, %s)", "1");
	if (!seen->cmd)
		return mdk_err(err, errlen, -EINVAL, "missing \"cmd\"%s", "");
	name = mdkd_cmd_names[req->cmd];
	switch (req->cmd) {
	case MDKD_CMD_SET:
		if (!seen->settings || !req->nsettings)
			return mdk_err(err, errlen, -EINVAL,
				       "set: needs \"settings\"%s", "");
		/* fall through */
	case MDKD_CMD_MANAGE:
	case MDKD_CMD_RELEASE:
	case MDKD_CMD_MPC:
		if (!req->has_cgroup)
			return mdk_err(err, errlen, -EINVAL,
				       "%s: needs \"cgroup\"", name);
		break;
	case MDKD_CMD_STATUS:
		break;
	default:
		if (req->has_cgroup)
			return mdk_err(err, errlen, -EINVAL,
				       "%s: takes no \"cgroup\"", name);
	}
	if (seen->settings && req->cmd != MDKD_CMD_SET &&
	    req->cmd != MDKD_CMD_MANAGE)
		return mdk_err(err, errlen, -EINVAL,
			       "%s: takes no \"settings\"", name);
	return 0;
}

int mdkd_request_parse(const char *buf, size_t len, struct mdkd_request *req,
		       char *err, size_t errlen)
{
	struct json_object_iterator it, end;
	struct seen seen = { 0 };
	struct json_object *obj;
	int ret = 0;

	memset(req, 0, sizeof(*req));
	while (len && (buf[len - 1] == '\r' || buf[len - 1] == ' '))
		len--;
	if (len >= MDKD_REQ_MAX)
		return mdk_err(err, errlen, -EINVAL,
			       "request longer than %s bytes", "4095");
	if (!len)
		return mdk_err(err, errlen, -EINVAL, "empty request%s", "");
	if (memchr(buf, '\0', len))
		return mdk_err(err, errlen, -EINVAL,
			       "NUL byte in the request%s", "");
	obj = tokenize(buf, len, err, errlen);
	if (!obj)
		return -EINVAL;
	it = json_object_iter_begin(obj);
	end = json_object_iter_end(obj);
	for (; !ret && !json_object_iter_equal(&it, &end);
	     json_object_iter_next(&it))
		ret = parse_field(json_object_iter_peek_name(&it),
				  json_object_iter_peek_value(&it), req, &seen,
				  err, errlen);
	if (!ret)
		ret = check_request(req, &seen, err, errlen);
	json_object_put(obj);
	return ret;
}

void mdkd_reply_send(struct mdkd_buf *out, struct json_object *o)
{
	mdkd_buf_printf(out, "%s\n",
			json_object_to_json_string_ext(
				o, JSON_C_TO_STRING_PLAIN |
					   JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

struct json_object *mdkd_reply_new(bool ok)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "v", json_object_new_int(MDKD_PROTO_VERSION));
	json_object_object_add(o, "ok", json_object_new_boolean(ok));
	return o;
}

void mdkd_reply_error(struct mdkd_buf *out, const char *msg)
{
	struct json_object *o = mdkd_reply_new(false);

	json_object_object_add(o, "error", json_object_new_string(msg));
	mdkd_reply_send(out, o);
}
