/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The answers to the control socket's requests: the handler mdkd.c gives
 * mdkd_new() for the socket (ctlsock.h), and the tests call directly.
 */
#ifndef MDKD_REQUEST_H
#define MDKD_REQUEST_H

#include <stddef.h>

struct mdkd_buf;

/*
 * mdkd_request_handle() - the response line (with "\n") to one request
 * line to @daemon (a struct mdkd), appended to @out.
 */
void mdkd_request_handle(void *daemon, const char *line, size_t len,
			 struct mdkd_buf *out);

#endif /* MDKD_REQUEST_H */
