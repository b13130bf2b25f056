/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mdkd.conf: an INI file parsed with inih, one [global] section and any
 * number of [cgroup PATTERN] sections (PATTERN relative to the cgroup2
 * mount, '*' and '?' globs allowed).  Every key is one line of the table
 * in config.c: name, scope, type, field, default, range and help.  A key of
 * cgroup scope set in [global] is the default for every cgroup; a
 * [cgroup] section overrides only the keys it sets, and sections matching
 * the same cgroup apply in file order.
 *
 * Drop-ins: the files NAME.conf in DIR/mdkd.conf.d/ beside the configuration
 * file DIR/mdkd.conf are read after it, in strcmp() order of their names,
 * as if appended to it: a [global] key set again overrides the value read
 * before, [cgroup] sections add to those read before.  The file and line
 * of every value set are kept, for errors, "mdkd --dump-config" and the
 * status.
 *
 * Adding a key: a field in struct mdkd_settings (cgroup scope) or struct
 * mdkd_global, and one MDKD_KEY() line in mdkd_keys[].  The shipped
 * daemon/mdkd.conf and the documentation are checked against the table by
 * the unit tests.
 */
#ifndef MDKD_CONFIG_H
#define MDKD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "controller.h"
#include "limits.h"
#include "registry.h"
#include "tiers.h"

#define MDKD_CONFIG_PATH "/etc/mdk/mdkd.conf"
#define MDKD_CONFIG_DROPINS "mdkd.conf.d" /* beside the file */
#define MDKD_KEYS_MAX 64 /* the bits of a key mask */
#define MDKD_CONFIG_MAX_BYTES (1 << 20)

/* Daemon-wide settings ([global] only). */
struct mdkd_global {
	char socket[108]; /* the control socket */
	char cgroup_root[MDKD_PATH_MAX]; /* the cgroup2 mount */
	char proc_root[MDKD_PATH_MAX]; /* procfs */
	char sys_root[MDKD_PATH_MAX]; /* sysfs */
	char state_dir[MDKD_PATH_MAX]; /* crash-recovery journal */
	char prometheus_file[MDKD_PATH_MAX]; /* "" = off */
	char record_file[MDKD_PATH_MAX]; /* "" = off */
	uint64_t rescan_interval_us;
	int log_level;
	struct mdkd_limits_conf limits; /* host-wide limits (limits.h) */
	struct mdkd_tiers_conf tiers; /* the tier goals (tiers.h) */
	/* the back ends' measured costs (tier_costs.h); "" = none */
	char tier_file[MDKD_PATH_MAX];
};

enum mdkd_key_scope {
	MDKD_SCOPE_GLOBAL, /* [global] only */
	MDKD_SCOPE_CGROUP, /* [global] default, [cgroup] override */
};

enum mdkd_key_type {
	MDKD_T_DURATION, /* uint64_t microseconds: "6", "6s", "500ms" */
	MDKD_T_PERCENT, /* double share: "0.1" or "0.1%" = 0.001 */
	MDKD_T_DOUBLE, /* double */
	MDKD_T_BYTES, /* uint64_t: "4096", "512M", "1G" (powers of 1024) */
	MDKD_T_UINT, /* unsigned int */
	MDKD_T_MODE, /* const struct mdkd_mode_ops * */
	MDKD_T_ACTUATOR, /* const struct mdkd_actuator_ops *, "auto" = NULL */
	MDKD_T_PATH, /* char[]: an absolute path, "" where allowed */
	MDKD_T_LOGLEVEL, /* int: err, warning, notice, info, debug */
	MDKD_T_BOOL, /* bool: on/off, yes/no, true/false, 1/0 */
	MDKD_T_INT, /* int, -1 allowed where min is -1 */
	MDKD_T_POLICY, /* char[]: one online policy (age, paw, pace) */
	MDKD_T_POLICIES, /* char[]: a list of policies with curves */
	MDKD_T_BACKEND, /* int: enum mdkd_backend, swap, cxl or auto */
	MDKD_T_LOPP_MODEL, /* int: enum mdk_lopp_kind, logistic or trees */
	MDKD_T_TIERS, /* char[]: a tier list (mdk/tier.h), "" allowed */
};

struct mdkd_key {
	const char *name;
	enum mdkd_key_scope scope;
	enum mdkd_key_type type;
	size_t offset, size; /* into struct mdkd_global or mdkd_settings */
	const char *def; /* the default, as written in the file */
	double min, max; /* range (seconds for durations, percent, bytes) */
	bool restart; /* a change takes effect at the next start only */
	bool empty_ok; /* MDKD_T_PATH: "" allowed (the feature is off) */
	const char *help;
};

extern const struct mdkd_key mdkd_keys[];
extern const size_t mdkd_nkeys;

/* Where a value was set: line @line of cfg->files[@file]; line 0: nowhere. */
struct mdkd_origin {
	unsigned int file, line;
};

/* One [cgroup PATTERN] section. */
struct mdkd_section {
	char *pattern;
	struct mdkd_origin at; /* the header */
	struct mdkd_settings set;
	uint64_t mask; /* bit i: mdkd_keys[i] set here */
	struct mdkd_origin origin[MDKD_KEYS_MAX]; /* of the keys in mask */
};

struct mdkd_config {
	char **files; /* the files read, in order: the main one, drop-ins */
	size_t nfiles, files_cap;
	struct mdkd_global global;
	struct mdkd_settings defaults; /* [global] values of cgroup keys */
	struct mdkd_origin origin[MDKD_KEYS_MAX]; /* of global and defaults */
	struct mdkd_section *sections; /* in reading order */
	size_t nsections, sections_cap;
};

/* mdkd_key_find() - the table entry of @name, or NULL. */
const struct mdkd_key *mdkd_key_find(const char *name);

/*
 * mdkd_config_new_default() - a configuration of defaults only.
 * Return: the config (free with mdkd_config_free()) or NULL.
 */
struct mdkd_config *mdkd_config_new_default(void);
void mdkd_config_free(struct mdkd_config *cfg);

/*
 * mdkd_config_parse() - parse @len bytes of INI text named @name.
 * Return: 0 with *@out set, or -EINVAL (-ENOMEM) with "@name:LINE: key:
 * what was expected" in @err.
 */
int mdkd_config_parse(const char *buf, size_t len, const char *name,
		      struct mdkd_config **out, char *err, size_t errlen);

/*
 * mdkd_config_parse_more() - parse @len bytes of INI text named @name into
 * @cfg, after what it holds (a drop-in).  Return: 0, or as
 * mdkd_config_parse() with @cfg half-changed: the caller frees it.
 */
int mdkd_config_parse_more(struct mdkd_config *cfg, const char *buf, size_t len,
			   const char *name, char *err, size_t errlen);

/*
 * mdkd_config_load() - read and parse the file @path, then its drop-ins
 * (the NAME.conf files of dirname(@path)/mdkd.conf.d/; a missing directory
 * means none).  All or nothing.  Return: as mdkd_config_parse(), or -errno with the file
 * in @err when a file or the directory cannot be read.
 */
int mdkd_config_load(const char *path, struct mdkd_config **out, char *err,
		     size_t errlen);

/*
 * mdkd_config_load_default() - mdkd_config_load() of MDKD_CONFIG_PATH,
 * which may be absent: then the defaults and the drop-ins beside it.
 */
int mdkd_config_load_default(struct mdkd_config **out, char *err,
			     size_t errlen);

/*
 * mdkd_config_dump() - @cfg as a configuration file that parses to the
 * same configuration: every key with the file:line it was set at (or
 * "default") in a comment, then every [cgroup] section with its keys.
 */
void mdkd_config_dump(const struct mdkd_config *cfg, FILE *f);

/*
 * mdkd_config_settings_for() - the settings of cgroup @path: the [global]
 * defaults overlaid with every matching [cgroup] section in file order.
 * @src gets the file, line and pattern of the last matching section
 * ("[global]" when none matched).  Return: the number of matching sections.
 */
int mdkd_config_settings_for(const struct mdkd_config *cfg, const char *path,
			     struct mdkd_settings *set, char *src,
			     size_t srclen);

/*
 * mdkd_settings_apply() - parse "@key=@value" into @set (a cgroup-scope
 * key), setting bit i of *@mask.  All-or-nothing: @set is unchanged on
 * error.  Return: 0, -ENOENT (unknown key), -EPERM (a [global]-only key)
 * or -EINVAL (bad value), with a message in @err.
 */
int mdkd_settings_apply(struct mdkd_settings *set, uint64_t *mask,
			const char *key, const char *value, char *err,
			size_t errlen);

/* mdkd_settings_overlay() - copy the fields of @mask from @src to @dst. */
void mdkd_settings_overlay(struct mdkd_settings *dst,
			   const struct mdkd_settings *src, uint64_t mask);

/*
 * mdkd_key_parse() - @s as a value of @k into its field of @base (struct
 * mdkd_global or mdkd_settings), unchanged on error.  Return: 0 or
 * -EINVAL with the reason in @err.
 */
int mdkd_key_parse(const struct mdkd_key *k, const char *s, void *base,
		   char *err, size_t errlen);

/*
 * mdkd_key_format() - the value of @k in @base (a struct mdkd_global or
 * mdkd_settings) as it would be written in the file.
 */
void mdkd_key_format(const struct mdkd_key *k, const void *base, char *buf,
		     size_t len);

/*
 * mdkd_config_write_defaults() - a configuration file listing every key,
 * commented out, at its default (the shipped /etc/mdk/mdkd.conf).
 */
void mdkd_config_write_defaults(FILE *f);

#endif /* MDKD_CONFIG_H */
