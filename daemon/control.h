/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mdkd's control socket: a UNIX stream socket, mode 0600, that accepts
 * connections from root (or the daemon's own user) only.  Each line
 * received is a request of the protocol in proto.h; each gets one response
 * line.  All I/O runs on the loop: accept, recv (with an idle timeout of
 * MDKD_CLIENT_IDLE_S linked to it) and send.
 */
#ifndef MDKD_CONTROL_H
#define MDKD_CONTROL_H

#include <stddef.h>

struct mdkd;
struct mdkd_buf;

#define MDKD_MAX_CLIENTS 32
#define MDKD_CLIENT_IDLE_S 30

/*
 * mdkd_control_start() - listen on @path (a stale socket is replaced, a
 * live one is an error: another mdkd runs).  Return: 0 or -errno with the
 * reason in @err.
 */
int mdkd_control_start(struct mdkd *d, const char *path, char *err,
		       size_t errlen);

/* mdkd_control_arm() - keep an accept in flight. */
void mdkd_control_arm(struct mdkd *d);

/* mdkd_control_stop() - stop listening, unlink the socket, end clients. */
void mdkd_control_stop(struct mdkd *d);

/* mdkd_control_free() - free the clients once the loop is drained. */
void mdkd_control_free(struct mdkd *d);

/*
 * mdkd_control_handle() - the response line (with "\n") to one request
 * line, appended to @out.  Used by the socket and by the tests.
 */
void mdkd_control_handle(struct mdkd *d, const char *line, size_t len,
			 struct mdkd_buf *out);

#endif /* MDKD_CONTROL_H */
