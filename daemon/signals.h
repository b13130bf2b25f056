/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mdkd's signals: SIGHUP, SIGTERM and SIGINT blocked and read from a
 * signalfd on the loop (SIGPIPE ignored).  Each one read goes to the
 * handler given at setup.
 */
#ifndef MDKD_SIGNALS_H
#define MDKD_SIGNALS_H

#include <stdbool.h>
#include <stddef.h>

#include "loop.h"

/* A signal arrived.  Return: true to keep reading signals. */
typedef bool (*mdkd_signal_fn)(void *arg, int signo);

struct mdkd_signals {
	struct mdkd_loop *loop;
	mdkd_signal_fn fn;
	void *arg;
	int fd; /* the signalfd, -1 none */
	struct mdkd_op op;
	char buf[128];
	bool armed;
};

/* mdkd_signals_init() - nothing set up yet (fd -1). */
void mdkd_signals_init(struct mdkd_signals *s);

/*
 * mdkd_signals_setup() - block the signals, open the signalfd and start
 * reading it.  Return: 0 or -errno with the reason in @err.
 */
int mdkd_signals_setup(struct mdkd_signals *s, struct mdkd_loop *loop,
		       mdkd_signal_fn fn, void *arg, char *err, size_t errlen);

/* mdkd_signals_arm() - keep a read in flight. */
void mdkd_signals_arm(struct mdkd_signals *s);

void mdkd_signals_close(struct mdkd_signals *s);

#endif /* MDKD_SIGNALS_H */
