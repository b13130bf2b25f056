/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The client side of mdkd's control socket (proto.h), for mdkctl: one
 * request, one response, each a JSON line.
 */
#ifndef MDKCTL_CLIENT_H
#define MDKCTL_CLIENT_H

#include <stddef.h>

#include <json-c/json.h>

#define MDKCTL_SOCKET_DEFAULT "/run/mdk/mdkd.sock"
#define MDKCTL_CLIENT_TIMEOUT_S 30

/*
 * mdkctl_client_call() - send @req (a JSON object; "v" is added) to the
 * daemon at @socket and wait for its answer.  Return: 0 with the response
 * in *@resp (json_object_put() it) when it says "ok": true; -errno with
 * the daemon's or the transport's message in @err otherwise (*@resp is
 * NULL).
 */
int mdkctl_client_call(const char *socket, struct json_object *req,
		       struct json_object **resp, char *err, size_t errlen);

/*
 * mdkctl_client_request() - mdkctl_client_call() of the request {"cmd":
 * @cmd, "cgroup": @cgroup, "settings": @settings} (each of the last two
 * only when not NULL; @settings is taken) to the daemon at @socket.
 * Return: 0 with the response in *@resp (json_object_put() it), or 1
 * after "mdkctl: @what: MESSAGE" on stderr.
 */
int mdkctl_client_request(const char *socket, const char *what, const char *cmd,
			  const char *cgroup, struct json_object *settings,
			  struct json_object **resp);

/*
 * mdkctl_client_settings() - a "settings" object from @n arguments of the
 * form KEY=VALUE.  Return: 0 with the object in *@out, or -EINVAL naming
 * the malformed argument in @err.
 */
int mdkctl_client_settings(int n, char *const kv[], struct json_object **out,
			   char *err, size_t errlen);

/*
 * mdkctl_client_bytes() - @v bytes for humans: "0", "512K", "1.5M", "2.0G".
 */
const char *mdkctl_client_bytes(double v, char *buf, size_t len);

#endif /* MDKCTL_CLIENT_H */
