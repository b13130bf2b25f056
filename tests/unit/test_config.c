// SPDX-License-Identifier: GPL-2.0
/*
 * Description: mdkd.conf through inih and the key table: defaults, layered
 * [cgroup] sections with globs, every kind of error refused with
 * file:line and the key, runtime settings all-or-nothing, and the shipped
 * daemon/mdkd.conf and the documentation agree with the table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "daemon/config.h"
#include "fakecg.h"
#include "unit.h"

static struct mdkd_config *parse_ok(const char *text)
{
	struct mdkd_config *cfg;
	char err[1024];

	ck_assert_msg(!mdkd_config_parse(text, strlen(text), "t.conf", &cfg,
					 err, sizeof(err)),
		      "%s", err);
	return cfg;
}

START_TEST(test_config_defaults)
{
	struct mdkd_config *cfg = mdkd_config_new_default();
	const struct mdkd_settings *s;

	ck_assert_ptr_nonnull(cfg);
	s = &cfg->defaults;
	ck_assert_uint_eq(s->interval_us, 6000000);
	ck_assert_double_eq_tol(s->psi_threshold, 0.001, 1e-12);
	ck_assert_double_eq(s->reclaim_ratio, 0.0005);
	ck_assert_uint_eq(s->min_bytes, 0);
	ck_assert_uint_eq(s->max_bytes, 0);
	ck_assert_ptr_eq(s->mode, &mdkd_mode_senpai);
	ck_assert_ptr_null(s->actuator);
	ck_assert_str_eq(cfg->global.socket, "/run/mdk/mdkd.sock");
	ck_assert_str_eq(cfg->global.cgroup_root, "/sys/fs/cgroup");
	ck_assert_str_eq(cfg->global.prometheus_file, "");
	ck_assert_int_eq(cfg->global.log_level, LOG_INFO);
	ck_assert_uint_eq(cfg->nsections, 0);
	ck_assert_str_eq(mdkd_lopp_model_name(s->lopp_model), "logistic");
	mdkd_config_free(cfg);
}
END_TEST

/* lopp_model: a cgroup's trees over the global logistic. */
START_TEST(test_config_lopp_model)
{
	static const char text[] = "[global]\nlopp_model = logistic\n"
				   "[cgroup a]\nlopp_model = trees\n";
	struct mdkd_config *cfg;
	char err[512];

	ck_assert_msg(!mdkd_config_parse(text, strlen(text), "t.conf", &cfg,
					 err, sizeof(err)),
		      "%s", err);
	ck_assert_int_eq(cfg->defaults.lopp_model, 0);
	ck_assert_uint_eq(cfg->nsections, 1);
	ck_assert_int_eq(cfg->sections[0].set.lopp_model, 1);
	ck_assert_str_eq(mdkd_lopp_model_name(1), "trees");
	mdkd_config_free(cfg);
}
END_TEST

/* Every value formats back to text that parses to the same value. */
START_TEST(test_config_format_round_trips)
{
	struct mdkd_config *cfg = mdkd_config_new_default();
	struct mdkd_settings set = cfg->defaults;
	char val[MDKD_PATH_MAX], err[512];
	uint64_t mask = 0;
	size_t i;

	ck_assert_int_eq(mdkd_settings_apply(&set, &mask, "min_bytes", "1536M",
					     err, sizeof(err)),
			 0);
	ck_assert_uint_eq(set.min_bytes, 1536ULL << 20);
	ck_assert_int_eq(mdkd_settings_apply(&set, &mask, "interval", "250ms",
					     err, sizeof(err)),
			 0);
	for (i = 0; i < mdkd_nkeys; i++) {
		const struct mdkd_key *k = &mdkd_keys[i];
		struct mdkd_settings again = set;
		uint64_t m = 0;

		if (k->scope != MDKD_SCOPE_CGROUP)
			continue;
		mdkd_key_format(k, &set, val, sizeof(val));
		ck_assert_msg(!mdkd_settings_apply(&again, &m, k->name, val,
						   err, sizeof(err)),
			      "%s = %s: %s", k->name, val, err);
		ck_assert_msg(!memcmp((char *)&again + k->offset,
				      (char *)&set + k->offset, k->size),
			      "%s = %s does not round-trip", k->name, val);
	}
	mdkd_key_format(mdkd_key_find("min_bytes"), &set, val, sizeof(val));
	ck_assert_str_eq(val, "1536M");
	mdkd_key_format(mdkd_key_find("interval"), &set, val, sizeof(val));
	ck_assert_str_eq(val, "250ms");
	mdkd_config_free(cfg);
}
END_TEST

START_TEST(test_config_sections_layer)
{
	struct mdkd_config *cfg = parse_ok(
		"\xef\xbb\xbf# comment\n"
		"[global]\n"
		"interval = 2s ; inline comment\n"
		"  reclaim_ratio = 0.01\n" /* indented: a key, not a continuation */
		"prometheus_file = /var/lib/prom/mdkd.prom\n"
		"[cgroup work/*]\n"
		"psi_threshold = 0.5%\n"
		"[cgroup work/db]\n"
		"mode = senpai-integral\n"
		"max_bytes = 64M\n"
		"[cgroup idle]\n"
		"[ global ]\n"
		"min_bytes = 1G\n");
	struct mdkd_settings s;
	char src[256];

	ck_assert_uint_eq(cfg->nsections, 3);
	ck_assert_str_eq(cfg->global.prometheus_file,
			 "/var/lib/prom/mdkd.prom");
	/* [global] defaults apply to all sections, even after them. */
	ck_assert_int_eq(mdkd_config_settings_for(cfg, "work/db", &s, src,
						  sizeof(src)),
			 2);
	ck_assert_uint_eq(s.interval_us, 2000000);
	ck_assert_double_eq(s.reclaim_ratio, 0.01);
	ck_assert_double_eq_tol(s.psi_threshold, 0.005, 1e-12);
	ck_assert_ptr_eq(s.mode, &mdkd_mode_senpai_integral);
	ck_assert_uint_eq(s.max_bytes, 64 << 20);
	ck_assert_uint_eq(s.min_bytes, 1 << 30);
	ck_assert_str_eq(src, "t.conf:8 [cgroup work/db]");

	ck_assert_int_eq(mdkd_config_settings_for(cfg, "work/web", &s, src,
						  sizeof(src)),
			 1);
	ck_assert_ptr_eq(s.mode, &mdkd_mode_senpai);
	ck_assert_uint_eq(s.max_bytes, 0);
	/* '*' stays within one component. */
	ck_assert_int_eq(mdkd_config_settings_for(cfg, "work/db/child", &s, src,
						  sizeof(src)),
			 0);
	ck_assert_str_eq(src, "[global]");
	ck_assert_int_eq(
		mdkd_config_settings_for(cfg, "idle", &s, src, sizeof(src)), 1);
	mdkd_config_free(cfg);
}
END_TEST

static const struct {
	const char *text, *error;
} bad_configs[] = {
	{ "[global]\ninterval = abc\n",
	  "t.conf:2: interval: expected a duration" },
	{ "[global]\ninterval = 0\n", "t.conf:2: interval: expected" },
	{ "[global]\nbogus = 1\n", "t.conf:2: bogus: unknown key" },
	{ "interval = 5\n", "t.conf:1: interval: outside a section" },
	{ "[global]\n[cgroup a]\nsocket = /x\n",
	  "t.conf:3: socket: belongs in [global]" },
	{ "[global]\ninterval = 1\ninterval = 2\n",
	  "t.conf:3: interval: set twice" },
	{ "[globl]\n", "t.conf:1: unknown section [globl]" },
	{ "\n\n[global\n", "t.conf:3: expected ']'" },
	{ "[global] junk\n", "t.conf:1: unexpected text after ']'" },
	{ "[global]\njust text\n", "t.conf:2: expected KEY = VALUE" },
	{ "[cgroup /abs]\n", "t.conf:1: [cgroup /abs]: cgroup path" },
	{ "[cgroup a/../b]\n", "t.conf:1: [cgroup a/../b]" },
	{ "[cgroup]\n", "t.conf:1: unknown section [cgroup]" },
	{ "[global]\npsi_threshold = 200%\n",
	  "t.conf:2: psi_threshold: expected a percentage" },
	{ "[global]\nreclaim_ratio = 1.5\n",
	  "t.conf:2: reclaim_ratio: expected a number from 0 to 1" },
	{ "[global]\nreclaim_ratio = nan\n", "t.conf:2: reclaim_ratio" },
	{ "[global]\nmode = fast\n",
	  "t.conf:2: mode: expected one of senpai, senpai-integral, off" },
	{ "[global]\nactuator = magic\n",
	  "t.conf:2: actuator: expected one of auto, reclaim, high-pulse" },
	{ "[global]\nmin_bytes = 12Q\n",
	  "t.conf:2: min_bytes: expected a size" },
	{ "[global]\nmin_bytes = -1\n", "t.conf:2: min_bytes" },
	{ "[global]\nbackoff_max = 1.5\n", "t.conf:2: backoff_max" },
	{ "[global]\nsocket = relative/path\n",
	  "t.conf:2: socket: expected an absolute path" },
	{ "[global]\nsocket =\n",
	  "t.conf:2: socket: expected an absolute path" },
	{ "[global]\nlog_level = loud\n", "t.conf:2: log_level" },
	{ "[global]\nlopp_model = forest\n",
	  "t.conf:2: lopp_model: expected logistic or trees, got 'forest'" },
	{ "[global]\ninterval = 6 # not a comment\n", "t.conf:2: interval" },
	/* backend auto's keys */
	{ "[global]\nbackend = hybrid\n",
	  "t.conf:2: backend: expected swap, cxl or auto, got 'hybrid'" },
	{ "[global]\ntiers = nvme:cost=1us\n",
	  "t.conf:2: tiers: tier 1: expected cxl, zswap or swap, each once, got 'nvme'" },
	{ "[global]\ntiers = cxl:cost=1us;cxl:cost=2us\n",
	  "t.conf:2: tiers: tier list, part 2: tier cxl given twice" },
	{ "[global]\ntiers = cxl:cost=fast\n", "t.conf:2: tiers: " },
	{ "[global]\ntarget_stall = 200%\n", "t.conf:2: target_stall" },
	/* The first error is the one reported, whatever its kind. */
	{ "[global]\nbogus = 1\ninterval = x\n", "t.conf:2: bogus" },
	{ "[global]\nno equals sign\ninterval = x\n",
	  "t.conf:2: expected KEY = VALUE" },
};

START_TEST(test_config_errors_name_line_and_key)
{
	struct mdkd_config *cfg;
	char err[1024];
	int i = _i;

	ck_assert_int_eq(mdkd_config_parse(bad_configs[i].text,
					   strlen(bad_configs[i].text),
					   "t.conf", &cfg, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_null(cfg);
	ck_assert_msg(!strncmp(err, bad_configs[i].error,
			       strlen(bad_configs[i].error)),
		      "case %d: got '%s', expected '%s...'", i, err,
		      bad_configs[i].error);
}
END_TEST

START_TEST(test_config_refuses_long_lines_and_nul)
{
	char text[512], err[1024];
	struct mdkd_config *cfg;

	snprintf(text, sizeof(text), "[global]\n#%0300d\n", 0);
	ck_assert_int_eq(mdkd_config_parse(text, strlen(text), "t.conf", &cfg,
					   err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "t.conf:2: line longer than"));
	memcpy(text, "[global]\ninterval = 1\0\n", 24);
	ck_assert_int_eq(mdkd_config_parse(text, 24, "t.conf", &cfg, err,
					   sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "t.conf:2: NUL byte"));
}
END_TEST

START_TEST(test_config_load_missing_file)
{
	struct mdkd_config *cfg;
	char err[1024];

	ck_assert_int_eq(mdkd_config_load("/nonexistent/mdkd.conf", &cfg, err,
					  sizeof(err)),
			 -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/mdkd.conf"));
}
END_TEST

START_TEST(test_settings_apply_all_or_nothing)
{
	struct mdkd_config *cfg = mdkd_config_new_default();
	struct mdkd_settings s = cfg->defaults, before;
	uint64_t mask = 0;
	char err[512];

	before = s;
	ck_assert_int_eq(mdkd_settings_apply(&s, &mask, "nope", "1", err,
					     sizeof(err)),
			 -ENOENT);
	ck_assert_int_eq(mdkd_settings_apply(&s, &mask, "socket", "/x", err,
					     sizeof(err)),
			 -EPERM);
	ck_assert_int_eq(mdkd_settings_apply(&s, &mask, "interval", "-1", err,
					     sizeof(err)),
			 -EINVAL);
	ck_assert(!memcmp(&s, &before, sizeof(s)));
	ck_assert_uint_eq(mask, 0);
	ck_assert_int_eq(mdkd_settings_apply(&s, &mask, "mode", "off", err,
					     sizeof(err)),
			 0);
	ck_assert_ptr_eq(s.mode, &mdkd_mode_off);
	ck_assert_uint_eq(mask, 1ULL << (mdkd_key_find("mode") - mdkd_keys));
	mdkd_config_free(cfg);
}
END_TEST

static const char *top_file(const char *rel)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s",
		 getenv("MDK_TOP") ? getenv("MDK_TOP") : ".", rel);
	return path;
}

/* daemon/mdkd.conf is exactly what the table generates, and parses. */
START_TEST(test_shipped_config_matches_table)
{
	struct mdkd_config *cfg;
	char *gen = NULL, err[1024];
	size_t len = 0;
	FILE *f = open_memstream(&gen, &len);
	const char *shipped;

	mdkd_config_write_defaults(f);
	fclose(f);
	shipped = fake_read(top_file("daemon/mdkd.conf"));
	ck_assert_msg(!strcmp(shipped, gen),
		      "daemon/mdkd.conf differs from 'mdkd --dump-defaults'");
	ck_assert_int_eq(mdkd_config_load(top_file("daemon/mdkd.conf"), &cfg,
					  err, sizeof(err)),
			 0);
	mdkd_config_free(cfg);
	free(gen);
}
END_TEST

/* Every key is documented in the guide and in mdkd.conf(5). */
START_TEST(test_every_key_documented)
{
	static const char *const docs[] = { "Documentation/mdkd.rst",
					    "Documentation/man/mdkd.conf.5" };
	size_t i, j;

	for (j = 0; j < sizeof(docs) / sizeof(docs[0]); j++) {
		char *text = strdup(fake_read(top_file(docs[j])));

		ck_assert_msg(*text, "%s missing", docs[j]);
		for (i = 0; i < mdkd_nkeys; i++) {
			char needle[80];

			snprintf(needle, sizeof(needle), "%s",
				 mdkd_keys[i].name);
			/* man pages escape '_' nowhere, '-' as \-. */
			ck_assert_msg(strstr(text, needle), "%s: no '%s'",
				      docs[j], needle);
		}
		free(text);
	}
}
END_TEST

START_TEST(test_registries)
{
	ck_assert_ptr_eq(mdkd_mode_find("senpai"), &mdkd_mode_senpai);
	ck_assert_ptr_eq(mdkd_mode_find("senpai-integral"),
			 &mdkd_mode_senpai_integral);
	ck_assert_ptr_eq(mdkd_mode_find("off"), &mdkd_mode_off);
	ck_assert_ptr_null(mdkd_mode_find("auto"));
	ck_assert_ptr_eq(mdkd_actuator_find("reclaim"), &mdkd_act_reclaim);
	ck_assert_ptr_eq(mdkd_actuator_find("high-pulse"),
			 &mdkd_act_high_pulse);
	ck_assert_ptr_null(mdkd_actuator_find("auto"));
}
END_TEST

/* test_controller.c drives the core with these, without the config. */
START_TEST(test_core_defaults)
{
	struct mdkd_config *cfg = mdkd_config_new_default();
	const struct mdkd_settings *s = &cfg->defaults;

	ck_assert_uint_eq(s->interval_us, 6000000);
	ck_assert_double_eq(s->psi_threshold, 0.001);
	ck_assert_double_eq(s->reclaim_ratio, 0.0005);
	ck_assert_uint_eq(s->min_bytes, 0);
	ck_assert_uint_eq(s->max_bytes, 0);
	ck_assert_double_eq(s->io_psi_threshold, 0.1);
	ck_assert_uint_eq(s->backoff_max, 8);
	ck_assert_double_eq(s->max_probe, 0.01);
	ck_assert_double_eq(s->max_backoff, 1.0);
	ck_assert_double_eq(s->coeff_probe, 10);
	ck_assert_double_eq(s->coeff_backoff, 20);
	ck_assert_ptr_eq(s->mode, &mdkd_mode_senpai);
	mdkd_config_free(cfg);
}
END_TEST

static Suite *config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_config_defaults);
	tcase_add_test(tc, test_config_lopp_model);
	tcase_add_test(tc, test_config_format_round_trips);
	tcase_add_test(tc, test_config_sections_layer);
	tcase_add_loop_test(tc, test_config_errors_name_line_and_key, 0,
			    sizeof(bad_configs) / sizeof(bad_configs[0]));
	tcase_add_test(tc, test_config_refuses_long_lines_and_nul);
	tcase_add_test(tc, test_config_load_missing_file);
	tcase_add_test(tc, test_settings_apply_all_or_nothing);
	tcase_add_test(tc, test_shipped_config_matches_table);
	tcase_add_test(tc, test_every_key_documented);
	tcase_add_test(tc, test_registries);
	tcase_add_test(tc, test_core_defaults);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(config_suite)
