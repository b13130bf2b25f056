/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mdkd's control socket server: a UNIX stream socket, mode 0600, that
 * accepts connections from root (or the daemon's own user) only.  Each
 * line received goes to the handler given at start, which appends one
 * response line (the protocol of proto.h; request.c answers it).  All I/O
 * runs on the loop: accept, recv (with an idle timeout of
 * MDKD_CLIENT_IDLE_S linked to it) and send.
 */
#ifndef MDKD_CTLSOCK_H
#define MDKD_CTLSOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "loop.h"

struct mdkd_buf;
struct mdkd_client;

#define MDKD_MAX_CLIENTS 32
#define MDKD_CLIENT_IDLE_S 30

/* Answer the request @line (@len bytes, no "\n"): append to @out. */
typedef void (*mdkd_ctlsock_fn)(void *arg, const char *line, size_t len,
				struct mdkd_buf *out);

struct mdkd_ctlsock {
	struct mdkd_loop *loop;
	mdkd_ctlsock_fn handle;
	void *arg;
	int listen_fd; /* -1: not listening */
	char path[108];
	struct mdkd_op accept_op;
	bool accept_armed;
	struct mdkd_client *clients;
	unsigned int nclients;
};

/*
 * mdkd_ctlsock_start() - listen on @path (a stale socket is replaced, a
 * live one is an error: another mdkd runs), answering with @handle.
 * Return: 0 or -errno with the reason in @err.
 */
int mdkd_ctlsock_start(struct mdkd_ctlsock *srv, struct mdkd_loop *loop,
		       const char *path, mdkd_ctlsock_fn handle, void *arg,
		       char *err, size_t errlen);

/* mdkd_ctlsock_arm() - keep an accept in flight. */
void mdkd_ctlsock_arm(struct mdkd_ctlsock *srv);

/* mdkd_ctlsock_stop() - stop listening, unlink the socket, end clients. */
void mdkd_ctlsock_stop(struct mdkd_ctlsock *srv);

/* mdkd_ctlsock_free() - free the clients once the loop is drained. */
void mdkd_ctlsock_free(struct mdkd_ctlsock *srv);

#endif /* MDKD_CTLSOCK_H */
