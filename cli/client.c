// SPDX-License-Identifier: GPL-2.0
/* The client side of mdkd's control socket: see client.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/buf.h"
#include "client.h"
#include "daemon/proto.h"

static int send_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int mdkctl_client_call(const char *socket_path, struct json_object *req,
		       struct json_object **resp, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = MDKCTL_CLIENT_TIMEOUT_S };
	struct mdkd_buf in = { 0 };
	struct json_object *o, *ok, *msg;
	const char *line;
	char chunk[65536];
	int fd, ret;

	*resp = NULL;
	if (strlen(socket_path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "%s: socket path too long", socket_path);
		return -ENAMETOOLONG;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", socket_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -errno;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s (is mdkd running?)", socket_path,
			 strerror(errno));
		close(fd);
		return ret;
	}
	json_object_object_add(req, "v",
			       json_object_new_int(MDKD_PROTO_VERSION));
	line = json_object_to_json_string_ext(
		req, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	ret = send_all(fd, line, strlen(line));
	if (!ret)
		ret = send_all(fd, "\n", 1);
	if (ret) {
		snprintf(err, errlen, "%s: send: %s", socket_path,
			 strerror(-ret));
		close(fd);
		return ret;
	}
	while (!in.len || !memchr(in.data, '\n', in.len)) {
		ssize_t n = recv(fd, chunk, sizeof(chunk), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n ? -errno : -ECONNRESET;
			snprintf(err, errlen, "%s: %s", socket_path,
				 n ? strerror(errno) :
				     "connection closed before a response");
			close(fd);
			mdkd_buf_free(&in);
			return ret;
		}
		if (mdkd_buf_append(&in, chunk, (size_t)n)) {
			close(fd);
			mdkd_buf_free(&in);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	close(fd);
	o = json_tokener_parse(in.data);
	mdkd_buf_free(&in);
	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "ok", &ok)) {
		json_object_put(o);
		snprintf(err, errlen, "%s: malformed response", socket_path);
		return -EPROTO;
	}
	if (!json_object_get_boolean(ok)) {
		snprintf(err, errlen, "%s",
			 json_object_object_get_ex(o, "error", &msg) ?
				 json_object_get_string(msg) :
				 "request failed");
		json_object_put(o);
		return -EINVAL;
	}
	*resp = o;
	return 0;
}

int mdkctl_client_request(const char *socket, const char *what, const char *cmd,
			  const char *cgroup, struct json_object *settings,
			  struct json_object **resp)
{
	struct json_object *req = json_object_new_object();
	char err[1024];
	int ret;

	if (!req) {
		json_object_put(settings);
		return 1;
	}
	json_object_object_add(req, "cmd", json_object_new_string(cmd));
	if (cgroup)
		json_object_object_add(req, "cgroup",
				       json_object_new_string(cgroup));
	if (settings)
		json_object_object_add(req, "settings", settings);
	ret = mdkctl_client_call(socket, req, resp, err, sizeof(err));
	json_object_put(req);
	if (ret) {
		fprintf(stderr, "mdkctl: %s: %s\n", what, err);
		return 1;
	}
	return 0;
}

int mdkctl_client_settings(int n, char *const kv[], struct json_object **out,
			   char *err, size_t errlen)
{
	struct json_object *o = json_object_new_object();
	int i;

	*out = NULL;
	if (!o) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		const char *eq = strchr(kv[i], '=');
		char key[MDKD_REQ_KEY_MAX];

		if (!eq || eq == kv[i] || (size_t)(eq - kv[i]) >= sizeof(key)) {
			snprintf(err, errlen, "'%s': expected KEY=VALUE",
				 kv[i]);
			json_object_put(o);
			return -EINVAL;
		}
		memcpy(key, kv[i], eq - kv[i]);
		key[eq - kv[i]] = '\0';
		if (json_object_object_get_ex(o, key, NULL)) {
			snprintf(err, errlen, "'%s': %s given twice", kv[i],
				 key);
			json_object_put(o);
			return -EINVAL;
		}
		json_object_object_add(o, key, json_object_new_string(eq + 1));
	}
	*out = o;
	return 0;
}

const char *mdkctl_client_bytes(double v, char *buf, size_t len)
{
	static const char units[] = "KMGTP";
	int i = -1;

	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.1f%c", v, units[i]);
	return buf;
}
