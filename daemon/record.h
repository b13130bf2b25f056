/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mdkd's two files, written asynchronously on the loop: the record file
 * (record_file: CSV lines appended, one write in flight at a time) and the
 * Prometheus file (prometheus_file: rewritten whole, via FILE.tmp and a
 * rename, again once the write in flight is done if the metrics changed
 * meanwhile).  It knows files, not metrics: the owner queues the lines
 * (mdkd_record_csv() into @record) and gives the function that writes the
 * Prometheus text.
 */
#ifndef MDKD_RECORD_H
#define MDKD_RECORD_H

#include <stdbool.h>

#include "buf.h"
#include "cgroup.h"
#include "loop.h"

/* Write the whole Prometheus text into @b. */
typedef void (*mdkd_prom_text_fn)(void *arg, struct mdkd_buf *b);

struct mdkd_recorder {
	struct mdkd_loop *loop;
	const char *record_header; /* the first line of a new record file */
	mdkd_prom_text_fn prom_text;
	void *arg;

	int record_fd;
	char record_path[MDKD_PATH_MAX]; /* open; "" none */
	char record_want[MDKD_PATH_MAX]; /* configured; "" off */
	struct mdkd_buf record, record_out; /* queued, being written */
	struct mdkd_op record_op;
	bool record_busy;

	char prom_path[MDKD_PATH_MAX]; /* "" off */
	struct mdkd_buf prom;
	char prom_tmp[MDKD_PATH_MAX + 8];
	int prom_fd;
	unsigned int prom_pending; /* SQEs in flight */
	bool prom_dirty; /* write again once the one in flight is done */
	struct mdkd_op prom_write_op, prom_rename_op;
	int prom_err; /* the last error logged */
};

void mdkd_recorder_init(struct mdkd_recorder *r, struct mdkd_loop *loop,
			const char *record_header, mdkd_prom_text_fn prom_text,
			void *arg);

/*
 * mdkd_recorder_configure() - the files of the configuration: opens
 * @record_file if it changed (once the write in flight is done).
 * Return: 0 or -errno (logged).
 */
int mdkd_recorder_configure(struct mdkd_recorder *r, const char *record_file,
			    const char *prometheus_file);

/* mdkd_recorder_kick() - write the lines queued in @r->record. */
void mdkd_recorder_kick(struct mdkd_recorder *r);

/* mdkd_recorder_prom() - rewrite the Prometheus file. */
void mdkd_recorder_prom(struct mdkd_recorder *r);

/* mdkd_recorder_busy() - a write of either file is in flight. */
bool mdkd_recorder_busy(const struct mdkd_recorder *r);

/* mdkd_recorder_close() - write what the loop's drain left, close. */
void mdkd_recorder_close(struct mdkd_recorder *r);

#endif /* MDKD_RECORD_H */
