/* SPDX-License-Identifier: GPL-2.0 */
/* A growable text buffer for responses, records and metrics files. */
#ifndef MDKD_BUF_H
#define MDKD_BUF_H

#include <stddef.h>

struct mdkd_buf {
	char *data;
	size_t len, cap;
	int error; /* -ENOMEM once an append failed; later appends no-ops */
};

/* mdkd_buf_printf() - append formatted text.  Return: 0 or -ENOMEM. */
int mdkd_buf_printf(struct mdkd_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int mdkd_buf_append(struct mdkd_buf *b, const void *data, size_t len);
void mdkd_buf_reset(struct mdkd_buf *b);
void mdkd_buf_free(struct mdkd_buf *b);

#endif /* MDKD_BUF_H */
