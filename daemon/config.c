// SPDX-License-Identifier: GPL-2.0
/*
 * mdkd.conf parsing with inih, through one table of keys: see config.h.
 *
 * inih is fed by our own line reader (ini_parse_stream) over a buffer.  The
 * reader counts lines, so every error names its line; it also owns the
 * section headers: it checks them, records [cgroup] sections even when
 * they set no key (inih only reports keys), and strips leading blanks so
 * that an indented key is a key, never inih's "continuation line".
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>
#include <mdk/util.h>
#include <mdk/err.h>

#include "config.h"

static void *key_base(const struct mdkd_key *k, struct mdkd_global *g,
		      struct mdkd_settings *s)
{
	return k->scope == MDKD_SCOPE_GLOBAL ? (void *)g : (void *)s;
}

struct mdkd_config *mdkd_config_new_default(void)
{
	struct mdkd_config *cfg = calloc(1, sizeof(*cfg));
	char err[256];
	size_t i;

	if (!cfg)
		return NULL;
	for (i = 0; i < mdkd_nkeys; i++) {
		const struct mdkd_key *k = &mdkd_keys[i];

		/* A default that does not parse is a bug the tests catch. */
		if (mdkd_key_parse(k, k->def,
				   key_base(k, &cfg->global, &cfg->defaults),
				   err, sizeof(err))) {
			mdkd_config_free(cfg);
			return NULL;
		}
	}
	return cfg;
}

void mdkd_config_free(struct mdkd_config *cfg)
{
	size_t i;

	if (!cfg)
		return;
	for (i = 0; i < cfg->nsections; i++)
		free(cfg->sections[i].pattern);
	free(cfg->sections);
	for (i = 0; i < cfg->nfiles; i++)
		free(cfg->files[i]);
	free(cfg->files);
	free(cfg);
}

/* Where the parse is: shared by the line reader and the inih handler. */
struct parse_state {
	struct mdkd_config *cfg;
	const char *name;
	unsigned int file; /* cfg->files[] index of @name */
	const char *buf;
	size_t len, pos;
	unsigned int line;
	int section; /* -2 none yet, -1 [global], else cfg->sections[] */
	uint64_t global_mask;
	unsigned int err_line;
	int err_code;
	char err[512];
};

static void record(struct parse_state *ps, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void record(struct parse_state *ps, int code, const char *fmt, ...)
{
	va_list ap;

	if (ps->err_line)
		return; /* the first error is the one reported */
	ps->err_line = ps->line;
	ps->err_code = code;
	va_start(ap, fmt);
	vsnprintf(ps->err, sizeof(ps->err), fmt, ap);
	va_end(ap);
}

static void section_header(struct parse_state *ps, const char *line)
{
	const char *close = strchr(line, ']'), *rest, *p;
	char name[MDKD_CGROUP_PATH_MAX + 16], *n, *e;
	struct mdkd_section *s;
	char why[256];
	size_t len;

	if (!close) {
		record(ps, -EINVAL, "expected ']' to close the section header");
		return;
	}
	for (rest = close + 1; *rest == ' ' || *rest == '\t'; rest++)
		;
	if (*rest && *rest != ';' && *rest != '#') {
		record(ps, -EINVAL, "unexpected text after ']'");
		return;
	}
	/* A copy: inih parses the same line after us. */
	for (p = line + 1; *p == ' ' || *p == '\t'; p++)
		;
	len = (size_t)(close - p);
	if (len >= sizeof(name))
		len = sizeof(name) - 1;
	memcpy(name, p, len);
	name[len] = '\0';
	for (e = name + len; e > name && (e[-1] == ' ' || e[-1] == '\t');)
		*--e = '\0';
	if (!strcmp(name, "global")) {
		ps->section = -1;
		return;
	}
	ps->section = -2;
	if (strncmp(name, "cgroup", 6) || (name[6] != ' ' && name[6] != '\t')) {
		record(ps, -EINVAL,
		       "unknown section [%s]: expected [global] or [cgroup PATH]",
		       name);
		return;
	}
	for (n = name + 6; *n == ' ' || *n == '\t'; n++)
		;
	if (mdkd_cgroup_path_check(n, true, why, sizeof(why))) {
		record(ps, -EINVAL, "[cgroup %s]: %s", n, why);
		return;
	}
	if (mdk_grow((void **)&ps->cfg->sections, &ps->cfg->sections_cap,
		     ps->cfg->nsections + 1, sizeof(*ps->cfg->sections))) {
		record(ps, -ENOMEM, "out of memory");
		return;
	}
	s = ps->cfg->sections + ps->cfg->nsections;
	memset(s, 0, sizeof(*s));
	s->pattern = strdup(n);
	if (!s->pattern) {
		record(ps, -ENOMEM, "out of memory");
		return;
	}
	s->at.file = ps->file;
	s->at.line = ps->line;
	s->set = ps->cfg->defaults; /* overlaid per mask, never read whole */
	ps->section = (int)ps->cfg->nsections++;
}

/* inih's line source: one line of the buffer per call, counted. */
static char *read_line(char *str, int num, void *stream)
{
	struct parse_state *ps = stream;
	const char *p, *eol;
	size_t n;

	if (ps->pos >= ps->len)
		return NULL;
	p = ps->buf + ps->pos;
	eol = memchr(p, '\n', ps->len - ps->pos);
	n = eol ? (size_t)(eol - p) : ps->len - ps->pos;
	ps->pos += n + (eol ? 1 : 0);
	ps->line++;
	if (ps->line == 1 && n >= 3 && !memcmp(p, "\xef\xbb\xbf", 3)) {
		p += 3;
		n -= 3;
	}
	while (n && (*p == ' ' || *p == '\t')) {
		p++;
		n--;
	}
	if (memchr(p, '\0', n)) {
		record(ps, -EINVAL, "NUL byte in the line");
		n = strnlen(p, n);
	}
	if (n > (size_t)num - 2) {
		record(ps, -EINVAL, "line longer than %d characters", num - 2);
		n = (size_t)num - 2;
	}
	memcpy(str, p, n);
	str[n] = '\0';
	if (str[0] == '[')
		section_header(ps, str);
	return str;
}

static int handle_key(void *user, const char *section, const char *name,
		      const char *value)
{
	struct parse_state *ps = user;
	const struct mdkd_key *k = mdkd_key_find(name);
	struct mdkd_section *s = NULL;
	struct mdkd_origin *origin;
	uint64_t *mask, bit;
	char why[512];
	void *base;

	if (ps->section == -2) {
		if (!ps->err_line)
			record(ps, -EINVAL,
			       "%s: outside a section: expected [global] or [cgroup PATH] first",
			       name);
		return 0;
	}
	if (!k) {
		record(ps, -EINVAL, "%s: unknown key", name);
		return 0;
	}
	bit = 1ULL << (k - mdkd_keys);
	if (ps->section >= 0) {
		s = &ps->cfg->sections[ps->section];
		if (k->scope == MDKD_SCOPE_GLOBAL) {
			record(ps, -EINVAL,
			       "%s: belongs in [global], not in [cgroup %s]",
			       name, s->pattern);
			return 0;
		}
		mask = &s->mask;
		base = &s->set;
		origin = &s->origin[k - mdkd_keys];
	} else {
		mask = &ps->global_mask;
		base = key_base(k, &ps->cfg->global, &ps->cfg->defaults);
		origin = &ps->cfg->origin[k - mdkd_keys];
	}
	if (*mask & bit) {
		record(ps, -EINVAL, "%s: set twice in this section", name);
		return 0;
	}
	if (mdkd_key_parse(k, value, base, why, sizeof(why))) {
		record(ps, -EINVAL, "%s", why);
		return 0;
	}
	*mask |= bit;
	origin->file = ps->file;
	origin->line = ps->line;
	return 1;
}

/* Sections start from the final [global] defaults: again after each file. */
static void settle_sections(struct mdkd_config *cfg)
{
	size_t i;

	for (i = 0; i < cfg->nsections; i++) {
		struct mdkd_settings set = cfg->defaults;

		mdkd_settings_overlay(&set, &cfg->sections[i].set,
				      cfg->sections[i].mask);
		cfg->sections[i].set = set;
	}
}

int mdkd_config_parse_more(struct mdkd_config *cfg, const char *buf, size_t len,
			   const char *name, char *err, size_t errlen)
{
	struct parse_state ps = { 0 };
	int ret;

	if (mdk_grow((void **)&cfg->files, &cfg->files_cap, cfg->nfiles + 1,
		     sizeof(*cfg->files)) ||
	    !(cfg->files[cfg->nfiles] = strdup(name))) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	ps.cfg = cfg;
	ps.name = name;
	ps.file = (unsigned int)cfg->nfiles++;
	ps.buf = buf;
	ps.len = len;
	ps.section = -2;
	ret = ini_parse_stream(read_line, &ps, handle_key, &ps);
	if (ret == -2) {
		record(&ps, -ENOMEM, "out of memory");
	} else if (ret > 0 &&
		   (!ps.err_line || (unsigned int)ret < ps.err_line)) {
		/* inih's own complaint: a line that is no key = value. */
		ps.err_line = 0;
		ps.line = (unsigned int)ret;
		record(&ps, -EINVAL,
		       "expected KEY = VALUE, [global] or [cgroup PATH]");
	}
	if (ps.err_line) {
		snprintf(err, errlen, "%s:%u: %s", name, ps.err_line, ps.err);
		return ps.err_code;
	}
	settle_sections(cfg);
	return 0;
}

int mdkd_config_parse(const char *buf, size_t len, const char *name,
		      struct mdkd_config **out, char *err, size_t errlen)
{
	struct mdkd_config *cfg = mdkd_config_new_default();
	int ret;

	*out = NULL;
	if (!cfg) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	ret = mdkd_config_parse_more(cfg, buf, len, name, err, errlen);
	if (ret) {
		mdkd_config_free(cfg);
		return ret;
	}
	*out = cfg;
	return 0;
}

void mdkd_settings_overlay(struct mdkd_settings *dst,
			   const struct mdkd_settings *src, uint64_t mask)
{
	size_t i;

	for (i = 0; i < mdkd_nkeys; i++) {
		const struct mdkd_key *k = &mdkd_keys[i];

		if (k->scope == MDKD_SCOPE_CGROUP && (mask & (1ULL << i)))
			memcpy((char *)dst + k->offset,
			       (const char *)src + k->offset, k->size);
	}
}

int mdkd_config_settings_for(const struct mdkd_config *cfg, const char *path,
			     struct mdkd_settings *set, char *src,
			     size_t srclen)
{
	int n = 0;
	size_t i;

	*set = cfg->defaults;
	snprintf(src, srclen, "[global]");
	for (i = 0; i < cfg->nsections; i++) {
		const struct mdkd_section *s = &cfg->sections[i];

		if (fnmatch(s->pattern, path, FNM_PATHNAME | FNM_PERIOD))
			continue;
		mdkd_settings_overlay(set, &s->set, s->mask);
		snprintf(src, srclen, "%s:%u [cgroup %s]",
			 cfg->files[s->at.file], s->at.line, s->pattern);
		n++;
	}
	return n;
}

int mdkd_settings_apply(struct mdkd_settings *set, uint64_t *mask,
			const char *key, const char *value, char *err,
			size_t errlen)
{
	const struct mdkd_key *k = mdkd_key_find(key);

	if (!k) {
		snprintf(err, errlen, "%s: unknown key", key);
		return -ENOENT;
	}
	if (k->scope != MDKD_SCOPE_CGROUP) {
		snprintf(
			err, errlen,
			"%s: a [global] key, set in the configuration file only",
			key);
		return -EPERM;
	}
	if (mdkd_key_parse(k, value, set, err, errlen))
		return -EINVAL;
	*mask |= 1ULL << (k - mdkd_keys);
	return 0;
}

void mdkd_config_write_defaults(FILE *f)
{
	struct mdkd_config *cfg = mdkd_config_new_default();
	size_t i;

	fprintf(f,
		"# mdkd(8) configuration: see mdkd.conf(5).  Every key is listed\n"
		"# at its default, commented out.  Keys of [global] marked \"cgroup\"\n"
		"# are the defaults of every [cgroup] section, which may override\n"
		"# them.\n\n[global]\n");
	for (i = 0; cfg && i < mdkd_nkeys; i++) {
		const struct mdkd_key *k = &mdkd_keys[i];
		char val[MDKD_PATH_MAX];

		mdkd_key_format(k, key_base(k, &cfg->global, &cfg->defaults),
				val, sizeof(val));
		fprintf(f, "\n# %s%s%s.\n#%s =%s%s\n",
			k->scope == MDKD_SCOPE_CGROUP ? "(cgroup) " : "",
			k->restart ? "(restart) " : "", k->help, k->name,
			*val ? " " : "", val);
	}
	fprintf(f,
		"\n# The cgroups to manage, relative to the cgroup2 mount; '*' and\n"
		"# '?' match within one path component.  Sections matching the same\n"
		"# cgroup apply in file order.  No [cgroup] section: mdkd manages\n"
		"# nothing until \"mdkctl cgroup create\" tells it to.\n"
		"#\n#[cgroup workload.slice/*]\n#interval = 6s\n");
	mdkd_config_free(cfg);
}
