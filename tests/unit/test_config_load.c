// SPDX-License-Identifier: GPL-2.0
/*
 * Description: mdkd.conf and its drop-ins from disk (config_load.c) and
 * their dump (config_dump.c): drop-ins read after the file in byte order
 * of their names, a [global] key overriding, [cgroup] sections appended,
 * other names ignored, a missing directory fine, an error naming the
 * drop-in's file:line and loading nothing; the file:line of every value;
 * "mdkd --dump-config" text that parses to the same configuration.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/config.h"
#include "fakecg.h"
#include "unit.h"

struct tree {
	char top[64], conf[PATH_MAX], dir[PATH_MAX];
};

/* A scratch directory with mdkd.conf holding @main and no drop-in. */
static void tree_new(struct tree *t, const char *main)
{
	snprintf(t->top, sizeof(t->top), "/tmp/mdk-unit-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(t->top));
	snprintf(t->conf, sizeof(t->conf), "%s/mdkd.conf", t->top);
	snprintf(t->dir, sizeof(t->dir), "%s/mdkd.conf.d", t->top);
	fake_write(t->conf, "%s", main);
}

/* The drop-in @name holding @text; its path. */
static const char *dropin(struct tree *t, const char *name, const char *text)
{
	static char path[PATH_MAX * 2];

	fake_mkdirs(t->dir);
	snprintf(path, sizeof(path), "%s/%s", t->dir, name);
	fake_write(path, "%s", text);
	return path;
}

static struct mdkd_config *load_ok(const struct tree *t)
{
	struct mdkd_config *cfg;
	char err[1024];

	ck_assert_msg(!mdkd_config_load(t->conf, &cfg, err, sizeof(err)), "%s",
		      err);
	return cfg;
}

static size_t key_index(const char *name)
{
	const struct mdkd_key *k = mdkd_key_find(name);

	ck_assert_ptr_nonnull(k);
	return (size_t)(k - mdkd_keys);
}

/* "FILE:LINE" of an origin, "default" for none. */
static const char *where(const struct mdkd_config *cfg, struct mdkd_origin o)
{
	static char buf[PATH_MAX + 16];

	if (!o.line)
		return "default";
	ck_assert_uint_lt(o.file, cfg->nfiles);
	snprintf(buf, sizeof(buf), "%s:%u", cfg->files[o.file], o.line);
	return buf;
}

static const char *at(const char *file, unsigned int line)
{
	static char buf[PATH_MAX + 16];

	snprintf(buf, sizeof(buf), "%s:%u", file, line);
	return buf;
}

/* "DIR/NAME:LINE" of drop-in @name; "DIR/NAME" for line 0. */
static const char *in_dir(const struct tree *t, const char *name,
			  unsigned int line)
{
	static char buf[PATH_MAX * 2];

	snprintf(buf, sizeof(buf), "%s/%s", t->dir, name);
	if (line)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ":%u",
			 line);
	return buf;
}

START_TEST(test_dropins_byte_order_and_override)
{
	struct mdkd_config *cfg;
	struct tree t;

	ck_assert_uint_le(mdkd_nkeys, MDKD_KEYS_MAX);
	tree_new(&t, "[global]\ninterval = 10s\nmax_bytes = 1M\n");
	/* Byte order: "10-x" < "B" < "a" (a locale's order differs). */
	dropin(&t, "a.conf", "[global]\n\ninterval = 30s\n");
	dropin(&t, "B.conf", "[global]\ninterval = 20s\nmin_bytes = 4K\n");
	dropin(&t, "10-x.conf", "[global]\ninterval = 5s\nlog_level = debug\n");
	cfg = load_ok(&t);
	ck_assert_uint_eq(cfg->nfiles, 4);
	ck_assert_str_eq(cfg->files[0], t.conf);
	ck_assert_str_eq(cfg->files[1], in_dir(&t, "10-x.conf", 0));
	ck_assert_ptr_nonnull(strstr(cfg->files[2], "/B.conf"));
	ck_assert_ptr_nonnull(strstr(cfg->files[3], "/a.conf"));
	ck_assert_uint_eq(cfg->defaults.interval_us, 30000000);
	ck_assert_str_eq(where(cfg, cfg->origin[key_index("interval")]),
			 in_dir(&t, "a.conf", 3));
	ck_assert_uint_eq(cfg->defaults.min_bytes, 4096);
	ck_assert_str_eq(where(cfg, cfg->origin[key_index("min_bytes")]),
			 in_dir(&t, "B.conf", 3));
	ck_assert_uint_eq(cfg->defaults.max_bytes, 1 << 20);
	ck_assert_str_eq(where(cfg, cfg->origin[key_index("max_bytes")]),
			 at(t.conf, 3));
	ck_assert_str_eq(where(cfg, cfg->origin[key_index("log_level")]),
			 in_dir(&t, "10-x.conf", 3));
	ck_assert_str_eq(where(cfg, cfg->origin[key_index("socket")]),
			 "default");
	mdkd_config_free(cfg);
	fake_rmtree(t.top);
}
END_TEST

START_TEST(test_dropins_sections_append)
{
	struct mdkd_settings set;
	struct mdkd_config *cfg;
	char src[PATH_MAX * 2], want[PATH_MAX * 3];
	struct tree t;

	tree_new(&t, "[global]\ninterval = 10s\n[cgroup w/*]\n"
		     "reclaim_ratio = 0.01\n");
	dropin(&t, "50-db.conf",
	       "[cgroup w/db]\n; the database\n"
	       "reclaim_ratio = 0.02\n");
	/* A [global] key read after the section is still its default. */
	dropin(&t, "90-late.conf", "[global]\ninterval = 2s\n");
	cfg = load_ok(&t);
	ck_assert_uint_eq(cfg->nsections, 2);
	ck_assert_str_eq(cfg->sections[0].pattern, "w/*");
	ck_assert_str_eq(where(cfg, cfg->sections[0].at), at(t.conf, 3));
	ck_assert_str_eq(cfg->sections[1].pattern, "w/db");
	ck_assert_str_eq(where(cfg, cfg->sections[1].at),
			 in_dir(&t, "50-db.conf", 1));
	ck_assert_str_eq(
		where(cfg, cfg->sections[1].origin[key_index("reclaim_ratio")]),
		in_dir(&t, "50-db.conf", 3));

	/* Each section's settings start from the final [global] values. */
	ck_assert_uint_eq(cfg->sections[0].set.interval_us, 2000000);
	ck_assert_uint_eq(cfg->sections[1].set.interval_us, 2000000);
	ck_assert_int_eq(mdkd_config_settings_for(cfg, "w/db", &set, src,
						  sizeof(src)),
			 2);
	ck_assert_double_eq(set.reclaim_ratio, 0.02);
	ck_assert_uint_eq(set.interval_us, 2000000);
	snprintf(want, sizeof(want), "%s [cgroup w/db]",
		 in_dir(&t, "50-db.conf", 1));
	ck_assert_str_eq(src, want);
	ck_assert_int_eq(mdkd_config_settings_for(cfg, "w/web", &set, src,
						  sizeof(src)),
			 1);
	ck_assert_double_eq(set.reclaim_ratio, 0.01);
	ck_assert_uint_eq(set.interval_us, 2000000);
	mdkd_config_free(cfg);
	fake_rmtree(t.top);
}
END_TEST

START_TEST(test_dropins_other_names_ignored_missing_dir_fine)
{
	struct mdkd_config *cfg;
	char path[PATH_MAX * 2];
	struct tree t;

	tree_new(&t, "[global]\ninterval = 10s\n");
	cfg = load_ok(&t); /* no mdkd.conf.d */
	ck_assert_uint_eq(cfg->nfiles, 1);
	mdkd_config_free(cfg);

	dropin(&t, "README", "not a configuration\n");
	dropin(&t, "20-x.conf.bak", "[global]\ninterval = 1s\n");
	dropin(&t, ".20-x.conf.swp", "garbage\n");
	dropin(&t, ".hidden.conf", "[global]\ninterval = 1s\n");
	dropin(&t, ".conf", "garbage\n");
	dropin(&t, "20-x.config", "garbage\n");
	snprintf(path, sizeof(path), "%s/sub", t.dir);
	fake_mkdirs(path);
	cfg = load_ok(&t);
	ck_assert_uint_eq(cfg->nfiles, 1);
	ck_assert_uint_eq(cfg->defaults.interval_us, 10000000);
	mdkd_config_free(cfg);
	fake_rmtree(t.top);
}
END_TEST

/* A bad drop-in is named with its line, and nothing is loaded. */
START_TEST(test_dropins_error_names_file_and_line)
{
	struct mdkd_config *cfg = (void *)1;
	char err[1024], path[PATH_MAX * 2];
	struct tree t;

	tree_new(&t, "[global]\ninterval = 10s\n");
	dropin(&t, "10-good.conf", "[global]\ninterval = 5s\n");
	dropin(&t, "20-bad.conf", "[cgroup w/*]\n\nsocket = /x.sock\n");
	ck_assert_int_eq(mdkd_config_load(t.conf, &cfg, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_null(cfg);
	snprintf(path, sizeof(path), "%s: socket: belongs in [global]",
		 in_dir(&t, "20-bad.conf", 3));
	ck_assert_msg(!strncmp(err, path, strlen(path)), "got '%s'", err);

	/* A key set twice across files is an override, not an error. */
	dropin(&t, "20-bad.conf", "[global]\ninterval = 6s\n");
	cfg = load_ok(&t);
	ck_assert_uint_eq(cfg->defaults.interval_us, 6000000);
	mdkd_config_free(cfg);

	/* A drop-in that cannot be read is an error, not skipped. */
	snprintf(path, sizeof(path), "%s/30-gone.conf", t.dir);
	ck_assert_int_eq(symlink("/nonexistent/mdkd.conf", path), 0);
	ck_assert_int_eq(mdkd_config_load(t.conf, &cfg, err, sizeof(err)),
			 -ENOENT);
	ck_assert_ptr_null(cfg);
	ck_assert_msg(strstr(err, "30-gone.conf"), "%s", err);
	unlink(path);
	snprintf(path, sizeof(path), "%s/40-dir.conf", t.dir);
	fake_mkdirs(path);
	ck_assert_int_eq(mdkd_config_load(t.conf, &cfg, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "40-dir.conf: not a regular file"), "%s",
		      err);
	fake_rmtree(t.top);
}
END_TEST

/* The value of @k is the same in @a and @b (struct mdkd_global or settings). */
static bool same_value(const struct mdkd_key *k, const void *a, const void *b)
{
	const char *x = (const char *)a + k->offset;
	const char *y = (const char *)b + k->offset;

	if (k->type == MDKD_T_PATH || k->type == MDKD_T_POLICY ||
	    k->type == MDKD_T_POLICIES)
		return !strcmp(x, y);
	return !memcmp(x, y, k->size);
}

static void assert_same_config(const struct mdkd_config *a,
			       const struct mdkd_config *b)
{
	size_t i, j;

	for (i = 0; i < mdkd_nkeys; i++) {
		const struct mdkd_key *k = &mdkd_keys[i];

		ck_assert_msg(k->scope == MDKD_SCOPE_GLOBAL ?
				      same_value(k, &a->global, &b->global) :
				      same_value(k, &a->defaults, &b->defaults),
			      "[global] %s differs", k->name);
	}
	ck_assert_uint_eq(a->nsections, b->nsections);
	for (j = 0; j < a->nsections; j++) {
		const struct mdkd_section *x = &a->sections[j];
		const struct mdkd_section *y = &b->sections[j];

		ck_assert_str_eq(x->pattern, y->pattern);
		ck_assert_uint_eq(x->mask, y->mask);
		for (i = 0; i < mdkd_nkeys; i++)
			if (mdkd_keys[i].scope == MDKD_SCOPE_CGROUP)
				ck_assert_msg(same_value(&mdkd_keys[i], &x->set,
							 &y->set),
					      "[cgroup %s] %s differs",
					      x->pattern, mdkd_keys[i].name);
	}
}

static void assert_has(const char *text, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void assert_has(const char *text, const char *fmt, ...)
{
	char want[PATH_MAX * 3];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	ck_assert_msg(strstr(text, want), "no '%s' in:\n%s", want, text);
}

/* The dump names every source and parses back to the same configuration. */
START_TEST(test_dump_config_round_trip)
{
	struct mdkd_config *cfg, *again;
	char *text = NULL, *text2 = NULL, err[1024];
	char longpath[171], text60[256];
	size_t len = 0, len2 = 0;
	struct tree t;
	FILE *f;

	tree_new(&t, "[global]\ninterval = 10s\nreclaim_ratio = 0.0123456789\n"
		     "psi_threshold = 0.123456789\n[cgroup w/*]\nmode = off\n");
	dropin(&t, "50.conf",
	       "[global]\nprometheus_file = /run/m.prom\nrecord_file = /r.csv\n"
	       "[cgroup w/db]\nmax_bytes = 3M\n; why\ninterval = 1500ms\n");
	/* A value too long for its comment on the same line. */
	memset(longpath, 'x', 170);
	longpath[0] = '/';
	longpath[170] = '\0';
	snprintf(text60, sizeof(text60),
		 "[global]\nprometheus_file =\nstate_dir = %s\n", longpath);
	dropin(&t, "60.conf", text60);
	/* A name that would end a comment line early. */
	dropin(&t, "70\n[global].conf", "[global]\nlog_level = debug\n");
	cfg = load_ok(&t);
	f = open_memstream(&text, &len);
	mdkd_config_dump(cfg, f);
	fclose(f);

	assert_has(text, "\ninterval = 10s ; %s:2\n", t.conf);
	assert_has(text, "\nreclaim_ratio = 0.0123456789 ; %s:3\n", t.conf);
	assert_has(text, "\nsocket = /run/mdk/mdkd.sock ; default\n");
	assert_has(text, "\nprometheus_file = ; %s/%s:2\n", t.dir, "60.conf");
	assert_has(text, "\n; %s/60.conf:3\nstate_dir = %s\n", t.dir, longpath);
	assert_has(text, "\nrecord_file = /r.csv ; %s/%s:3\n", t.dir,
		   "50.conf");
	assert_has(text, "\n[cgroup w/*] ; %s:5\nmode = off ; %s:6\n\n[",
		   t.conf, t.conf);
	assert_has(text,
		   "\n[cgroup w/db] ; %s/50.conf:4\n"
		   "interval = 1500ms ; %s/50.conf:7\n",
		   t.dir, t.dir);
	assert_has(text, "\nmax_bytes = 3M ; %s/%s:5\n", t.dir, "50.conf");
	assert_has(text, "\nlog_level = debug ; %s/%s:2\n", t.dir,
		   "70?[global].conf");
	assert_has(text, "\n; %s/%s\n", t.dir, "70?[global].conf");

	ck_assert_msg(!mdkd_config_parse(text, len, "dump", &again, err,
					 sizeof(err)),
		      "%s in:\n%s", err, text);
	assert_same_config(cfg, again);
	/* And again: the dump of the dump holds the same values. */
	f = open_memstream(&text2, &len2);
	mdkd_config_dump(again, f);
	fclose(f);
	mdkd_config_free(again);
	ck_assert_int_eq(mdkd_config_parse(text2, len2, "dump2", &again, err,
					   sizeof(err)),
			 0);
	assert_same_config(cfg, again);
	mdkd_config_free(again);
	mdkd_config_free(cfg);
	free(text);
	free(text2);
	fake_rmtree(t.top);
}
END_TEST

/* Defaults only: every key says so, and the text parses to the defaults. */
START_TEST(test_dump_config_defaults)
{
	struct mdkd_config *cfg = mdkd_config_new_default(), *again;
	char *text = NULL, err[1024];
	size_t len = 0, i, n = 0;
	FILE *f = open_memstream(&text, &len);
	const char *p;

	mdkd_config_dump(cfg, f);
	fclose(f);
	for (p = text; (p = strstr(p, "default\n")); p++)
		n++;
	ck_assert_uint_eq(n, mdkd_nkeys);
	for (i = 0; i < mdkd_nkeys; i++)
		ck_assert_msg(strstr(text, mdkd_keys[i].name), "%s",
			      mdkd_keys[i].name);
	ck_assert_int_eq(mdkd_config_parse(text, len, "dump", &again, err,
					   sizeof(err)),
			 0);
	assert_same_config(cfg, again);
	mdkd_config_free(again);
	mdkd_config_free(cfg);
	free(text);
}
END_TEST

static Suite *config_load_suite(void)
{
	Suite *s = suite_create("config_load");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_dropins_byte_order_and_override);
	tcase_add_test(tc, test_dropins_sections_append);
	tcase_add_test(tc, test_dropins_other_names_ignored_missing_dir_fine);
	tcase_add_test(tc, test_dropins_error_names_file_and_line);
	tcase_add_test(tc, test_dump_config_round_trip);
	tcase_add_test(tc, test_dump_config_defaults);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(config_load_suite)
