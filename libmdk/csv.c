// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * CSV access lists ("window,page" rows) and their conversion to and from
 * .mdkt traces.  The reader hands out rows in file order (mdkctl mrc uses
 * them as a reference string); the importer groups them into windows.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mdk/trace.h>

#include "internal.h"

struct mdk_csv_reader {
	FILE *f;
	bool is_stdin;
	char *name;
	char *line;
	size_t linecap;
	uint64_t lineno;
	bool seen_row;
};

int mdk_csv_reader_open(const char *path, struct mdk_csv_reader **out,
			char *err, size_t errlen)
{
	struct mdk_csv_reader *c = calloc(1, sizeof(*c));

	if (!c)
		return mdk_err(err, errlen, -ENOMEM, "%s: out of memory", path);
	c->is_stdin = !strcmp(path, "-");
	c->name = strdup(c->is_stdin ? "<stdin>" : path);
	c->f = c->is_stdin ? stdin : fopen(path, "re");
	if (!c->name || !c->f) {
		int ret = c->name ? -errno : -ENOMEM;

		mdk_err(err, errlen, ret, "%s: %s", path, strerror(-ret));
		free(c->name);
		free(c);
		return ret;
	}
	*out = c;
	return 0;
}

void mdk_csv_reader_close(struct mdk_csv_reader *c)
{
	if (!c)
		return;
	if (!c->is_stdin)
		fclose(c->f);
	free(c->line);
	free(c->name);
	free(c);
}

uint64_t mdk_csv_reader_line(const struct mdk_csv_reader *c)
{
	return c->lineno;
}

/* Parse an unsigned field at *@p, skipping blanks around it. */
static bool csv_field(char **p, uint64_t *v)
{
	char *s = *p, *e;
	unsigned long long x;
	int base = 10;

	while (*s == ' ' || *s == '\t')
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (!isxdigit((unsigned char)*s))
			return false;
	} else if (!isdigit((unsigned char)*s)) {
		return false;
	}
	errno = 0;
	x = strtoull(s, &e, base);
	if (errno)
		return false;
	while (*e == ' ' || *e == '\t')
		e++;
	*v = x;
	*p = e;
	return true;
}

/* A printable excerpt of @s for messages. */
static const char *excerpt(const char *s, char *buf, size_t len)
{
	size_t i;

	for (i = 0; s[i] && i + 4 < len; i++)
		buf[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
	buf[i] = 0;
	if (s[i])
		strcpy(buf + (i > 3 ? i - 3 : 0), "...");
	return buf;
}

int mdk_csv_reader_next(struct mdk_csv_reader *c, uint64_t *window,
			uint64_t *page, char *err, size_t errlen)
{
	for (;;) {
		ssize_t n = getline(&c->line, &c->linecap, c->f);
		char *p, buf[48];
		uint64_t w, pg;

		if (n < 0) {
			if (ferror(c->f))
				return mdk_err(err, errlen, -EIO,
					       "%s:%llu: read error", c->name,
					       (unsigned long long)c->lineno +
						       1);
			return 0;
		}
		c->lineno++;
		if ((size_t)n != strlen(c->line))
			return mdk_err(
				err, errlen, -EINVAL,
				"%s:%llu: NUL byte in line: expected text 'window,page'",
				c->name, (unsigned long long)c->lineno);
		while (n && (c->line[n - 1] == '\n' || c->line[n - 1] == '\r'))
			c->line[--n] = 0;
		p = c->line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		if (!c->seen_row && !isdigit((unsigned char)*p)) {
			/* A header line: anything not numeric, once, first. */
			c->seen_row = true;
			continue;
		}
		c->seen_row = true;
		if (!csv_field(&p, &w) || *p != ',') {
			return mdk_err(
				err, errlen, -EINVAL,
				"%s:%llu: expected 'window,page' (two unsigned integers), got '%s'",
				c->name, (unsigned long long)c->lineno,
				excerpt(c->line, buf, sizeof(buf)));
		}
		p++;
		if (!csv_field(&p, &pg) || *p)
			return mdk_err(
				err, errlen, -EINVAL,
				"%s:%llu: expected 'window,page' (two unsigned integers), got '%s'",
				c->name, (unsigned long long)c->lineno,
				excerpt(c->line, buf, sizeof(buf)));
		*window = w;
		*page = pg;
		return 1;
	}
}

int mdk_trace_import_csv(const char *csv, const char *out,
			 const struct mdk_trace_writer_opts *opts, char *err,
			 size_t errlen)
{
	struct mdk_csv_reader *c = NULL;
	struct mdk_trace_writer *w = NULL;
	uint64_t *ids = NULL, cur = 0, win, page;
	size_t n = 0, cap = 0;
	bool have = false;
	int ret;

	ret = mdk_csv_reader_open(csv, &c, err, errlen);
	if (ret)
		return ret;
	ret = mdk_trace_writer_open(out, opts, &w, err, errlen);
	if (ret)
		goto out_close_csv;
	while ((ret = mdk_csv_reader_next(c, &win, &page, err, errlen)) > 0) {
		if (win > MDK_TRACE_MAX_WINDOW) {
			ret = mdk_err(
				err, errlen, -EINVAL,
				"%s:%llu: window %llu is above the maximum %u",
				c->name, (unsigned long long)c->lineno,
				(unsigned long long)win, MDK_TRACE_MAX_WINDOW);
			break;
		}
		if (have && win < cur) {
			ret = mdk_err(
				err, errlen, -EINVAL,
				"%s:%llu: window %llu after window %llu: windows must be non-decreasing",
				c->name, (unsigned long long)c->lineno,
				(unsigned long long)win,
				(unsigned long long)cur);
			break;
		}
		if (win - (have ? cur : 0) > MDK_TRACE_MAX_GAP) {
			ret = mdk_err(
				err, errlen, -EINVAL,
				"%s:%llu: window %llu after window %llu: more than %u empty windows between them",
				c->name, (unsigned long long)c->lineno,
				(unsigned long long)win,
				(unsigned long long)(have ? cur : 0),
				MDK_TRACE_MAX_GAP);
			break;
		}
		if (have && win != cur) {
			ret = mdk_trace_writer_put(w, (uint32_t)cur, ids, n,
						   MDK_TRACE_UNSORTED, err,
						   errlen);
			if (ret)
				break;
			n = 0;
		}
		cur = win;
		have = true;
		if (mdk_grow((void **)&ids, &cap, n + 1, sizeof(*ids))) {
			ret = mdk_err(err, errlen, -ENOMEM, "%s: out of memory",
				      csv);
			break;
		}
		ids[n++] = page;
	}
	if (!ret && have)
		ret = mdk_trace_writer_put(w, (uint32_t)cur, ids, n,
					   MDK_TRACE_UNSORTED, err, errlen);
	if (ret) {
		mdk_trace_writer_abort(w);
		unlink(out);
	} else {
		ret = mdk_trace_writer_close(w, err, errlen);
		if (ret)
			unlink(out);
	}
	free(ids);
out_close_csv:
	mdk_csv_reader_close(c);
	return ret;
}

int mdk_trace_export_csv(const char *path, FILE *out, char *err, size_t errlen)
{
	struct mdk_trace_reader *r;
	struct mdk_trace_chunk ch;
	int ret;

	ret = mdk_trace_reader_open(path, 0, &r, err, errlen);
	if (ret)
		return ret;
	fputs("window,page\n", out);
	while ((ret = mdk_trace_reader_next(r, &ch, err, errlen)) > 0) {
		size_t i;

		for (i = 0; i < ch.n; i++)
			fprintf(out, "%u,%llu\n", ch.window,
				(unsigned long long)ch.ids[i]);
	}
	mdk_trace_reader_close(r);
	if (!ret && (fflush(out) || ferror(out)))
		ret = mdk_err(err, errlen, -EIO, "write error on output");
	return ret;
}
