/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mdkd's log: one line per message on standard error.  Under systemd
 * (JOURNAL_STREAM set, or standard error not a terminal) each line starts
 * with an sd-daemon(3) priority prefix ("<3>" ... "<7>") so the journal
 * keeps the priority; on a terminal it starts with "mdkd: " instead.
 * Messages above the configured level are dropped.
 */
#ifndef MDKD_LOG_H
#define MDKD_LOG_H

#include <stdbool.h>
#include <syslog.h>

/*
 * mdkd_log_init() - choose the line format and the most verbose level to
 * print (LOG_ERR ... LOG_DEBUG).  @prefix: -1 decides from the
 * environment, 0 plain "mdkd: " lines, 1 sd-daemon prefixes.
 */
void mdkd_log_init(int level, int prefix);
void mdkd_log_set_level(int level);

/* mdkd_log() - print one message at @prio (LOG_ERR ... LOG_DEBUG). */
void mdkd_log(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define log_err(...) mdkd_log(LOG_ERR, __VA_ARGS__)
#define log_warn(...) mdkd_log(LOG_WARNING, __VA_ARGS__)
#define log_notice(...) mdkd_log(LOG_NOTICE, __VA_ARGS__)
#define log_info(...) mdkd_log(LOG_INFO, __VA_ARGS__)
#define log_debug(...) mdkd_log(LOG_DEBUG, __VA_ARGS__)

#endif /* MDKD_LOG_H */
