/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sd_notify(3) protocol through libsystemd: READY, RELOADING,
 * STOPPING, STATUS and WATCHDOG messages to $NOTIFY_SOCKET.  Without
 * NOTIFY_SOCKET (not started by systemd) every call is a no-op.
 */
#ifndef MDKD_NOTIFY_H
#define MDKD_NOTIFY_H

#include <stdint.h>

/*
 * mdkd_notify() - send one notification (several "KEY=VALUE" lines).
 * Return: >0 sent, 0 no NOTIFY_SOCKET, -errno on failure.
 */
int mdkd_notify(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * mdkd_watchdog_usec() - the watchdog period systemd asks for
 * ($WATCHDOG_USEC for this pid), 0 when none.
 */
uint64_t mdkd_watchdog_usec(void);

#endif /* MDKD_NOTIFY_H */
