// SPDX-License-Identifier: GPL-2.0
/* The JSON writer (see json.h). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "json.h"

#define MAX_DEPTH 64

struct mdkd_json {
	FILE *f;
	int depth;
	bool first[MAX_DEPTH]; /* no member written yet at this depth */
	bool named; /* a name was just written */
};

struct mdkd_json *mdkd_json_new(FILE *f)
{
	struct mdkd_json *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->f = f;
	j->first[0] = true;
	return j;
}

void mdkd_json_free(struct mdkd_json *j)
{
	if (!j)
		return;
	fputc('\n', j->f);
	free(j);
}

/* Before a value: the comma, unless it follows its name. */
static void sep(struct mdkd_json *j)
{
	if (j->named) {
		j->named = false;
		return;
	}
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
}

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		default:
			if (c < 0x20)
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
		}
	}
	fputc('"', f);
}

static void open_(struct mdkd_json *j, char c)
{
	sep(j);
	fputc(c, j->f);
	if (j->depth + 1 < MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_(struct mdkd_json *j, char c)
{
	fputc(c, j->f);
	if (j->depth)
		j->depth--;
}

void mdkd_json_start_object(struct mdkd_json *j)
{
	open_(j, '{');
}

void mdkd_json_end_object(struct mdkd_json *j)
{
	close_(j, '}');
}

void mdkd_json_start_array(struct mdkd_json *j)
{
	open_(j, '[');
}

void mdkd_json_end_array(struct mdkd_json *j)
{
	close_(j, ']');
}

void mdkd_json_name(struct mdkd_json *j, const char *name)
{
	sep(j);
	put_string(j->f, name);
	fputc(':', j->f);
	j->named = true;
}

void mdkd_json_string(struct mdkd_json *j, const char *s)
{
	sep(j);
	put_string(j->f, s);
}

void mdkd_json_uint(struct mdkd_json *j, uint64_t v)
{
	sep(j);
	fprintf(j->f, "%" PRIu64, v);
}

void mdkd_json_int(struct mdkd_json *j, int64_t v)
{
	sep(j);
	fprintf(j->f, "%" PRId64, v);
}

void mdkd_json_double(struct mdkd_json *j, double v)
{
	sep(j);
	if (isfinite(v))
		fprintf(j->f, "%.10g", v);
	else
		fputs("null", j->f);
}

void mdkd_json_bool(struct mdkd_json *j, bool v)
{
	sep(j);
	fputs(v ? "true" : "false", j->f);
}

void mdkd_json_null(struct mdkd_json *j)
{
	sep(j);
	fputs("null", j->f);
}

void mdkd_json_string_field(struct mdkd_json *j, const char *name,
			    const char *s)
{
	mdkd_json_name(j, name);
	mdkd_json_string(j, s);
}

void mdkd_json_uint_field(struct mdkd_json *j, const char *name, uint64_t v)
{
	mdkd_json_name(j, name);
	mdkd_json_uint(j, v);
}

void mdkd_json_double_field(struct mdkd_json *j, const char *name, double v)
{
	mdkd_json_name(j, name);
	mdkd_json_double(j, v);
}

void mdkd_json_bool_field(struct mdkd_json *j, const char *name, bool v)
{
	mdkd_json_name(j, name);
	mdkd_json_bool(j, v);
}

void mdkd_json_null_field(struct mdkd_json *j, const char *name)
{
	mdkd_json_name(j, name);
	mdkd_json_null(j);
}
