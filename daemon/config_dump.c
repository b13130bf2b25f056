// SPDX-License-Identifier: GPL-2.0
/*
 * mdkd --dump-config: the effective configuration as a file that parses
 * to it again, every value annotated with the file:line that set it.
 * inih takes " ;" (not "#") as an inline comment, looking for it before
 * it skips the blanks after '=': "KEY = ; comment" is an empty value.  A
 * line too long for inih's buffer gets its comment on the line above.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"

#define LINE_MAX_CHARS 198 /* inih's 200-byte buffer, newline and NUL */

/*
 * The value of @k in @base as text that parses back to the same bits: the
 * short form when it does, else more digits (a double set as 0.1234567).
 */
static void exact_value(const struct mdkd_key *k, const void *base, char *buf,
			size_t len)
{
	union {
		struct mdkd_global g;
		struct mdkd_settings s;
	} tmp;
	const double *v = (const double *)((const char *)base + k->offset);
	double scale = k->type == MDKD_T_PERCENT ? 100 : 1;
	char why[256];
	int prec;

	mdkd_key_format(k, base, buf, len);
	if (k->type != MDKD_T_DOUBLE && k->type != MDKD_T_PERCENT)
		return;
	for (prec = 7; prec <= 17; prec++) {
		memset(&tmp, 0, sizeof(tmp));
		if (!mdkd_key_parse(k, buf, &tmp, why, sizeof(why)) &&
		    !memcmp((char *)&tmp + k->offset, v, sizeof(*v)))
			return;
		snprintf(buf, len, "%.*g%s", prec, *v * scale,
			 k->type == MDKD_T_PERCENT ? "%" : "");
	}
}

/* A file name for a comment: a control character would end the line. */
static void printable(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

static void origin_text(const struct mdkd_config *cfg, struct mdkd_origin o,
			char *buf, size_t len)
{
	if (!o.line)
		snprintf(buf, len, "default");
	else
		snprintf(buf, len, "%s:%u", cfg->files[o.file], o.line);
	printable(buf);
}

/* A comment line, its start cut when too long for the parser. */
static void comment_line(FILE *f, const char *text)
{
	size_t n = strlen(text), room = LINE_MAX_CHARS - 6;

	if (n <= room)
		fprintf(f, "; %s\n", text);
	else
		fprintf(f, "; ...%s\n", text + n - room);
}

/* "KEY = VALUE ; ORIGIN", or the comment above when the line is too long. */
static void key_line(FILE *f, const struct mdkd_config *cfg,
		     const struct mdkd_key *k, const void *base,
		     struct mdkd_origin o)
{
	char val[MDKD_PATH_MAX], where[MDKD_PATH_MAX + 32];

	exact_value(k, base, val, sizeof(val));
	origin_text(cfg, o, where, sizeof(where));
	if (strlen(k->name) + strlen(val) + strlen(where) + 6 <=
	    LINE_MAX_CHARS) {
		fprintf(f, "%s = %s%s; %s\n", k->name, val, *val ? " " : "",
			where);
		return;
	}
	comment_line(f, where);
	/* The file's own line was at most as long as "KEY=VALUE". */
	if (strlen(k->name) + strlen(val) + 3 <= LINE_MAX_CHARS)
		fprintf(f, "%s = %s\n", k->name, val);
	else
		fprintf(f, "%s=%s\n", k->name, val);
}

void mdkd_config_dump(const struct mdkd_config *cfg, FILE *f)
{
	char where[MDKD_PATH_MAX + 32];
	size_t i, j;

	fprintf(f, "; The configuration of mdkd(8), read from %s%s\n",
		cfg->nfiles ? "" : "no file: every key at its default",
		cfg->nfiles ? "(in this order):" : ".");
	for (i = 0; i < cfg->nfiles; i++) {
		snprintf(where, sizeof(where), "%s", cfg->files[i]);
		printable(where);
		comment_line(f, where);
	}
	fprintf(f,
		"; Each value with the file:line that set it.\n\n[global]\n");
	for (i = 0; i < mdkd_nkeys; i++) {
		const struct mdkd_key *k = &mdkd_keys[i];

		key_line(f, cfg, k,
			 k->scope == MDKD_SCOPE_GLOBAL ?
				 (const void *)&cfg->global :
				 (const void *)&cfg->defaults,
			 cfg->origin[i]);
	}
	for (j = 0; j < cfg->nsections; j++) {
		const struct mdkd_section *s = &cfg->sections[j];

		origin_text(cfg, s->at, where, sizeof(where));
		if (strlen(s->pattern) + strlen(where) + 12 > LINE_MAX_CHARS) {
			fprintf(f, "\n");
			comment_line(f, where);
			fprintf(f, "[cgroup %s]\n", s->pattern);
		} else {
			fprintf(f, "\n[cgroup %s] ; %s\n", s->pattern, where);
		}
		for (i = 0; i < mdkd_nkeys; i++)
			if (s->mask & (1ULL << i))
				key_line(f, cfg, &mdkd_keys[i], &s->set,
					 s->origin[i]);
	}
}
