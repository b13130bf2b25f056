// SPDX-License-Identifier: GPL-2.0
/* mdkd's record and Prometheus files: see record.h. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "record.h"

static int record_reopen(struct mdkd_recorder *r);
static void record_done(struct mdkd_op *op, int res);
static void prom_write_done(struct mdkd_op *op, int res);
static void prom_rename_done(struct mdkd_op *op, int res);

void mdkd_recorder_init(struct mdkd_recorder *r, struct mdkd_loop *loop,
			const char *record_header, mdkd_prom_text_fn prom_text,
			void *arg)
{
	memset(r, 0, sizeof(*r));
	r->loop = loop;
	r->record_header = record_header;
	r->prom_text = prom_text;
	r->arg = arg;
	r->record_fd = -1;
	r->prom_fd = -1;
	r->record_op.fn = record_done;
	r->prom_write_op.fn = prom_write_done;
	r->prom_rename_op.fn = prom_rename_done;
}

int mdkd_recorder_configure(struct mdkd_recorder *r, const char *record_file,
			    const char *prometheus_file)
{
	snprintf(r->prom_path, sizeof(r->prom_path), "%s", prometheus_file);
	snprintf(r->record_want, sizeof(r->record_want), "%s", record_file);
	return record_reopen(r);
}

bool mdkd_recorder_busy(const struct mdkd_recorder *r)
{
	return r->record_busy || r->prom_pending;
}

void mdkd_recorder_close(struct mdkd_recorder *r)
{
	/* Whole lines that the drain cancelled: write them now. */
	if (r->record_fd >= 0) {
		if (r->record_out.len && write(r->record_fd, r->record_out.data,
					       r->record_out.len) < 0)
			log_warn("record_file: %s", strerror(errno));
		if (r->record.len &&
		    write(r->record_fd, r->record.data, r->record.len) < 0)
			log_warn("record_file: %s", strerror(errno));
		close(r->record_fd);
	}
	if (r->prom_fd >= 0)
		close(r->prom_fd);
	mdkd_buf_free(&r->record);
	mdkd_buf_free(&r->record_out);
	mdkd_buf_free(&r->prom);
}

static void record_done(struct mdkd_op *op, int res)
{
	struct mdkd_recorder *r =
		(struct mdkd_recorder *)((char *)op -
					 offsetof(struct mdkd_recorder,
						  record_op));

	if (res < 0)
		log_warn("%s: write: %s", r->record_path, strerror(-res));
	else if ((size_t)res < r->record_out.len)
		log_warn("%s: short write (%d of %zu bytes)", r->record_path,
			 res, r->record_out.len);
	r->record_busy = false;
	mdkd_buf_reset(&r->record_out);
	if (strcmp(r->record_want, r->record_path))
		record_reopen(r);
	mdkd_recorder_kick(r);
}

void mdkd_recorder_kick(struct mdkd_recorder *r)
{
	struct io_uring_sqe *sqe;
	struct mdkd_buf t;

	if (r->record_busy || !r->record.len || r->record_fd < 0)
		return;
	sqe = mdkd_loop_sqe(r->loop, &r->record_op);
	if (!sqe)
		return;
	t = r->record_out;
	r->record_out = r->record;
	r->record = t;
	mdkd_buf_reset(&r->record);
	/* O_APPEND: each write lands at the end, whole lines only. */
	io_uring_prep_write(sqe, r->record_fd, r->record_out.data,
			    (unsigned int)r->record_out.len, (uint64_t)-1);
	r->record_busy = true;
}

static int record_reopen(struct mdkd_recorder *r)
{
	const char *path = r->record_want;
	struct stat st;
	int fd;

	if (!strcmp(path, r->record_path))
		return 0;
	if (r->record_fd >= 0 && !r->record_busy) {
		close(r->record_fd);
		r->record_fd = -1;
	} else if (r->record_fd >= 0) {
		return 0; /* switch once the write in flight is done */
	}
	r->record_path[0] = '\0';
	if (!*path)
		return 0;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		log_err("record_file %s: %s", path, strerror(errno));
		return -errno;
	}
	if (!fstat(fd, &st) && !st.st_size &&
	    write(fd, r->record_header, strlen(r->record_header)) < 0)
		log_warn("record_file %s: %s", path, strerror(errno));
	r->record_fd = fd;
	snprintf(r->record_path, sizeof(r->record_path), "%s", path);
	return 0;
}

static void prom_done(struct mdkd_recorder *r, int res, const char *what)
{
	if (res < 0 && res != r->prom_err)
		log_warn("prometheus_file %s: %s: %s", r->prom_path, what,
			 strerror(-res));
	if (res < 0)
		r->prom_err = res;
	if (--r->prom_pending)
		return;
	close(r->prom_fd);
	r->prom_fd = -1;
	/* Metrics changed while the last file was being written. */
	if (r->prom_dirty) {
		r->prom_dirty = false;
		mdkd_recorder_prom(r);
	}
}

static void prom_write_done(struct mdkd_op *op, int res)
{
	struct mdkd_recorder *r =
		(struct mdkd_recorder *)((char *)op -
					 offsetof(struct mdkd_recorder,
						  prom_write_op));

	if (res >= 0 && (size_t)res < r->prom.len)
		res = -EIO;
	prom_done(r, res, "write");
}

static void prom_rename_done(struct mdkd_op *op, int res)
{
	struct mdkd_recorder *r =
		(struct mdkd_recorder *)((char *)op -
					 offsetof(struct mdkd_recorder,
						  prom_rename_op));

	if (!res)
		r->prom_err = 0;
	prom_done(r, res == -ECANCELED ? 0 : res, "rename");
}

/*
 * Write FILE.tmp, then rename it over FILE (linked SQEs: the rename runs
 * only after a complete write), so node_exporter never reads half a file.
 */
void mdkd_recorder_prom(struct mdkd_recorder *r)
{
	const char *path = r->prom_path;
	struct io_uring_sqe *sqe;

	if (!*path)
		return;
	if (r->prom_pending) {
		r->prom_dirty = true;
		return;
	}
	mdkd_buf_reset(&r->prom);
	r->prom_text(r->arg, &r->prom);
	if (r->prom.error)
		return;
	snprintf(r->prom_tmp, sizeof(r->prom_tmp), "%s.tmp", path);
	r->prom_fd = open(r->prom_tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			  0644);
	if (r->prom_fd < 0) {
		if (-errno != r->prom_err)
			log_warn("prometheus_file %s: %s", r->prom_tmp,
				 strerror(errno));
		r->prom_err = -errno;
		return;
	}
	sqe = mdkd_loop_sqe(r->loop, &r->prom_write_op);
	if (!sqe) {
		close(r->prom_fd);
		r->prom_fd = -1;
		return;
	}
	io_uring_prep_write(sqe, r->prom_fd, r->prom.data,
			    (unsigned int)r->prom.len, 0);
	sqe->flags |= IOSQE_IO_LINK;
	sqe = mdkd_loop_sqe(r->loop, &r->prom_rename_op);
	if (!sqe) {
		r->prom_pending = 1;
		return;
	}
	io_uring_prep_rename(sqe, r->prom_tmp, path);
	r->prom_pending = 2;
}
