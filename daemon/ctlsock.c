// SPDX-License-Identifier: GPL-2.0
/* mdkd's control socket server: see ctlsock.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "buf.h"
#include "ctlsock.h"
#include "log.h"
#include "proto.h"

struct mdkd_client {
	struct mdkd_ctlsock *srv;
	struct mdkd_client *next;
	int fd;
	struct mdkd_op recv_op, send_op, timeout_op;
	struct __kernel_timespec idle;
	char in[MDKD_REQ_MAX];
	size_t inlen;
	struct mdkd_buf out;
	size_t out_off;
	unsigned int ops;
	bool recv_armed, send_armed, closing;
};

#define CLIENT(op, field)                                                 \
	((struct mdkd_client *)((char *)(op)-offsetof(struct mdkd_client, \
						      field)))

static void client_kick(struct mdkd_client *c);

/* ---- clients ---- */

static void client_free(struct mdkd_client *c)
{
	struct mdkd_ctlsock *srv = c->srv;
	struct mdkd_client **p;

	for (p = &srv->clients; *p; p = &(*p)->next)
		if (*p == c) {
			*p = c->next;
			break;
		}
	srv->nclients--;
	close(c->fd);
	mdkd_buf_free(&c->out);
	free(c);
}

/* One of @c's operations completed: free it once the last one did. */
static void client_put(struct mdkd_client *c)
{
	if (--c->ops == 0 && c->closing)
		client_free(c);
}

static void client_close(struct mdkd_client *c)
{
	if (c->closing)
		return;
	c->closing = true;
	/* Wake a pending recv: it completes with 0 and drops its reference. */
	shutdown(c->fd, SHUT_RDWR);
}

static void recv_done(struct mdkd_op *op, int res)
{
	struct mdkd_client *c = CLIENT(op, recv_op);
	char *nl;

	c->recv_armed = false;
	if (!res && !c->closing) {
		/* EOF: answer what came before it, then close. */
		c->closing = true;
		client_kick(c);
		client_put(c);
		return;
	}
	if (res < 0 || c->closing) {
		client_close(c);
		client_put(c);
		return;
	}
	c->inlen += (size_t)res;
	while ((nl = memchr(c->in, '\n', c->inlen))) {
		size_t n = (size_t)(nl - c->in);

		c->srv->handle(c->srv->arg, c->in, n, &c->out);
		memmove(c->in, nl + 1, c->inlen - n - 1);
		c->inlen -= n + 1;
	}
	if (c->inlen == sizeof(c->in)) {
		char msg[64];

		snprintf(msg, sizeof(msg), "request longer than %d bytes",
			 MDKD_REQ_MAX - 1);
		mdkd_reply_error(&c->out, msg);
		c->inlen = 0;
		c->closing = true; /* after the error is sent */
	}
	client_kick(c);
	client_put(c);
}

static void send_done(struct mdkd_op *op, int res)
{
	struct mdkd_client *c = CLIENT(op, send_op);

	c->send_armed = false;
	if (res <= 0) {
		client_close(c);
	} else {
		c->out_off += (size_t)res;
		if (c->out_off >= c->out.len) {
			mdkd_buf_reset(&c->out);
			c->out_off = 0;
		}
		client_kick(c);
	}
	client_put(c);
}

static void timeout_done(struct mdkd_op *op, int res)
{
	client_put(CLIENT(op, timeout_op));
}

static void client_kick(struct mdkd_client *c)
{
	struct mdkd_loop *l = c->srv->loop;
	struct io_uring_sqe *sqe;

	if (c->out.error) {
		client_close(c);
		return;
	}
	if (!c->send_armed && c->out.len > c->out_off) {
		sqe = mdkd_loop_sqe(l, &c->send_op);
		if (sqe) {
			io_uring_prep_send(sqe, c->fd, c->out.data + c->out_off,
					   c->out.len - c->out_off,
					   MSG_NOSIGNAL);
			c->send_armed = true;
			c->ops++;
		}
	}
	if (c->closing) {
		/* Error sent (or failed): close once nothing is pending. */
		if (!c->send_armed)
			shutdown(c->fd, SHUT_RDWR);
		return;
	}
	if (!c->recv_armed) {
		sqe = mdkd_loop_sqe(l, &c->recv_op);
		if (!sqe) {
			client_close(c);
			return;
		}
		io_uring_prep_recv(sqe, c->fd, c->in + c->inlen,
				   sizeof(c->in) - c->inlen, 0);
		sqe->flags |= IOSQE_IO_LINK;
		c->recv_armed = true;
		c->ops++;
		sqe = mdkd_loop_sqe(l, &c->timeout_op);
		if (sqe) {
			io_uring_prep_link_timeout(sqe, &c->idle, 0);
			c->ops++;
		}
	}
}

static bool peer_allowed(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		return false;
	return cred.uid == 0 || cred.uid == geteuid();
}

static void accept_done(struct mdkd_op *op, int res)
{
	struct mdkd_ctlsock *srv =
		(struct mdkd_ctlsock *)((char *)op -
					offsetof(struct mdkd_ctlsock,
						 accept_op));
	struct mdkd_client *c;
	static const char busy[] =
		"{\"v\":1,\"ok\":false,\"error\":\"too many clients\"}\n";
	static const char denied[] =
		"{\"v\":1,\"ok\":false,\"error\":\"permission denied: root only\"}\n";

	srv->accept_armed = false;
	if (res < 0) {
		/* At exit shutdown() ends the accept with EINVAL. */
		if (res != -ECANCELED && srv->listen_fd >= 0)
			log_warn("control: accept: %s", strerror(-res));
		return;
	}
	if (srv->listen_fd < 0) {
		close(res);
		return;
	}
	if (!peer_allowed(res) || srv->nclients >= MDKD_MAX_CLIENTS) {
		bool ok = peer_allowed(res);

		/* Best effort: a fresh socket's buffer takes it at once. */
		if (send(res, ok ? busy : denied,
			 ok ? sizeof(busy) - 1 : sizeof(denied) - 1,
			 MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
			log_debug("control: %s", strerror(errno));
		log_notice("control: refused a client (%s)",
			   ok ? "too many clients" : "not root");
		close(res);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(res);
		return;
	}
	c->srv = srv;
	c->fd = res;
	c->recv_op.fn = recv_done;
	c->send_op.fn = send_done;
	c->timeout_op.fn = timeout_done;
	c->idle.tv_sec = MDKD_CLIENT_IDLE_S;
	c->next = srv->clients;
	srv->clients = c;
	srv->nclients++;
	c->ops = 1; /* held until the first kick is done */
	client_kick(c);
	client_put(c);
}

void mdkd_ctlsock_arm(struct mdkd_ctlsock *srv)
{
	struct io_uring_sqe *sqe;

	if (srv->listen_fd < 0 || srv->accept_armed)
		return;
	sqe = mdkd_loop_sqe(srv->loop, &srv->accept_op);
	if (!sqe)
		return;
	io_uring_prep_accept(sqe, srv->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	srv->accept_armed = true;
}

int mdkd_ctlsock_start(struct mdkd_ctlsock *srv, struct mdkd_loop *loop,
		       const char *path, mdkd_ctlsock_fn handle, void *arg,
		       char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[sizeof(sa.sun_path)], *slash;
	struct stat st;
	mode_t old;
	int fd, ret;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "%s: socket path too long", path);
		return -ENAMETOOLONG;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST) {
			snprintf(err, errlen, "%s: %s", dir, strerror(errno));
			return -errno;
		}
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -errno;
	}
	if (!lstat(path, &st)) {
		if (!S_ISSOCK(st.st_mode)) {
			close(fd);
			snprintf(err, errlen, "%s: exists and is no socket",
				 path);
			return -EEXIST;
		}
		if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			close(fd);
			snprintf(err, errlen,
				 "%s: another mdkd is listening there", path);
			return -EADDRINUSE;
		}
		close(fd);
		unlink(path); /* stale, from a daemon that died */
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			snprintf(err, errlen, "socket: %s", strerror(errno));
			return -errno;
		}
	}
	old = umask(0177);
	ret = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (ret || chmod(path, 0600) || listen(fd, 16)) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return ret;
	}
	srv->loop = loop;
	srv->handle = handle;
	srv->arg = arg;
	srv->listen_fd = fd;
	snprintf(srv->path, sizeof(srv->path), "%s", path);
	srv->accept_op.fn = accept_done;
	mdkd_ctlsock_arm(srv);
	return 0;
}

void mdkd_ctlsock_stop(struct mdkd_ctlsock *srv)
{
	struct mdkd_client *c;

	if (srv->listen_fd >= 0) {
		/* shutdown() ends a pending accept; close follows in free. */
		shutdown(srv->listen_fd, SHUT_RDWR);
		close(srv->listen_fd);
		srv->listen_fd = -1;
		unlink(srv->path);
	}
	for (c = srv->clients; c; c = c->next)
		client_close(c);
}

void mdkd_ctlsock_free(struct mdkd_ctlsock *srv)
{
	while (srv->clients) {
		srv->clients->ops = 0;
		client_free(srv->clients);
	}
}
