// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl cgroup create|attach|list|release: cgroups for mdkd to manage.
 * create and attach work on the cgroup tree through libcgroup; create,
 * list and release then talk to mdkd over its control socket.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <libcgroup.h>

#include "daemon/cgroup.h"
#include "client.h"
#include "daemon/jsonout.h"
#include "mdkctl.h"

static int cg_init(const char *what)
{
	int ret = cgroup_init();

	if (ret) {
		fprintf(stderr, "mdkctl: cgroup %s: libcgroup: %s\n", what,
			cgroup_strerror(ret));
		return 1;
	}
	return 0;
}

static int check_path(const char *what, const char *path)
{
	char err[256];

	if (mdkd_cgroup_path_check(path, false, err, sizeof(err))) {
		fprintf(stderr, "mdkctl: cgroup %s: %s\n", what, err);
		return 2;
	}
	return 0;
}

static int manage_call(const char *cmd, const char *path,
		       struct json_object *settings)
{
	struct json_object *resp;
	char what[32];

	snprintf(what, sizeof(what), "cgroup %s", cmd);
	if (mdkctl_client_request(mdkctl_socket, what, cmd, path, settings,
				  &resp))
		return 1;
	json_object_put(resp);
	return 0;
}

/* The operands of the verbs: each takes those it documents. */
struct cgroup_opts {
	const char *path;
	struct json_object *settings; /* create's KEY=VALUE... */
	char **pids; /* attach's PID... */
	int npids;
	bool json; /* list -j */
};

static int parse_create(int argc, char **argv, struct cgroup_opts *o)
{
	char err[512];
	int ret;

	if (argc < 2) {
		fprintf(stderr,
			"usage: mdkctl cgroup create PATH [KEY=VALUE...]\n");
		return 2;
	}
	ret = check_path("create", argv[1]);
	if (ret)
		return ret;
	o->path = argv[1];
	if (mdkctl_client_settings(argc - 2, argv + 2, &o->settings, err,
				   sizeof(err))) {
		fprintf(stderr, "mdkctl: cgroup create: %s\n", err);
		return 2;
	}
	return 0;
}

/* create PATH [KEY=VALUE...]: mkdir with memory on, then manage it. */
static int do_create(int argc, char **argv)
{
	struct cgroup_opts o = { 0 };
	struct cgroup *cg = NULL;
	int ret;

	ret = parse_create(argc, argv, &o);
	if (ret)
		return ret;
	ret = 1;
	if (cg_init("create"))
		goto out;
	cg = cgroup_new_cgroup(o.path);
	if (!cg || !cgroup_add_controller(cg, "memory")) {
		fprintf(stderr, "mdkctl: cgroup create: out of memory\n");
		goto out;
	}
	ret = cgroup_create_cgroup(cg, 0);
	if (ret && ret != ECGROUPVALUENOTEXIST) {
		fprintf(stderr, "mdkctl: cgroup create: %s: %s\n", o.path,
			cgroup_strerror(ret));
		ret = 1;
		goto out;
	}
	ret = manage_call("manage", o.path, o.settings);
	o.settings = NULL; /* taken */
out:
	cgroup_free(&cg);
	json_object_put(o.settings);
	return ret;
}

static int parse_attach(int argc, char **argv, struct cgroup_opts *o)
{
	int i, ret;

	if (argc < 3) {
		fprintf(stderr, "usage: mdkctl cgroup attach PATH PID...\n");
		return 2;
	}
	ret = check_path("attach", argv[1]);
	if (ret)
		return ret;
	for (i = 2; i < argc; i++) {
		char *end;

		if (strtol(argv[i], &end, 10) <= 0 || *end) {
			fprintf(stderr,
				"mdkctl: cgroup attach: '%s': expected a PID\n",
				argv[i]);
			return 2;
		}
	}
	o->path = argv[1];
	o->pids = argv + 2;
	o->npids = argc - 2;
	return 0;
}

/* attach PATH PID...: move processes into the cgroup. */
static int do_attach(int argc, char **argv)
{
	struct cgroup_opts o = { 0 };
	struct cgroup *cg = NULL;
	int i, ret;

	ret = parse_attach(argc, argv, &o);
	if (ret)
		return ret;
	if (cg_init("attach"))
		return 1;
	ret = 1;
	cg = cgroup_new_cgroup(o.path);
	if (!cg || !cgroup_add_controller(cg, "memory")) {
		fprintf(stderr, "mdkctl: cgroup attach: out of memory\n");
		goto out;
	}
	for (i = 0; i < o.npids; i++) {
		int err = cgroup_attach_task_pid(cg, (pid_t)atoi(o.pids[i]));

		if (err) {
			fprintf(stderr,
				"mdkctl: cgroup attach: %s: pid %s: %s\n",
				o.path, o.pids[i], cgroup_strerror(err));
			goto out;
		}
	}
	ret = 0;
out:
	cgroup_free(&cg);
	return ret;
}

/* The members of a cgroup that list -j shows. */
static struct json_object *list_entry(struct json_object *cg)
{
	struct json_object *e = json_object_new_object();

	json_object_object_foreach(cg, key, val)
	{
		if (!strcmp(key, "path") || !strcmp(key, "mode") ||
		    !strcmp(key, "actuator") || !strcmp(key, "source") ||
		    !strcmp(key, "settings"))
			json_object_object_add(e, key, json_object_get(val));
	}
	return e;
}

static void list_text(struct json_object *cgs, size_t n)
{
	struct json_object *cg, *v;

	if (n)
		printf("%-32s %-15s %-10s %8s %s\n", "CGROUP", "MODE",
		       "ACTUATOR", "INTERVAL", "FROM");
	for (size_t i = 0; i < n; i++) {
		double interval = 0;

		cg = json_object_array_get_idx(cgs, i);
		if (json_object_object_get_ex(cg, "interval_s", &v))
			interval = json_object_get_double(v);
		printf("%-32s %-15s %-10s %7gs %s\n",
		       json_object_get_string(
			       json_object_object_get(cg, "path")),
		       json_object_get_string(
			       json_object_object_get(cg, "mode")),
		       json_object_get_string(
			       json_object_object_get(cg, "actuator")),
		       interval,
		       json_object_get_string(
			       json_object_object_get(cg, "source")));
	}
}

static int parse_list(int argc, char **argv, struct cgroup_opts *o)
{
	o->json = argc > 1 && !strcmp(argv[1], "-j");
	if (argc > 2 || (argc == 2 && !o->json)) {
		fprintf(stderr, "usage: mdkctl cgroup list [-j]\n");
		return 2;
	}
	return 0;
}

/* list [-j]: the cgroups mdkd manages, with where their settings came from. */
static int do_list(int argc, char **argv)
{
	struct json_object *resp, *cgs = NULL, *out;
	struct cgroup_opts o = { 0 };
	size_t i, n;
	int ret;

	ret = parse_list(argc, argv, &o);
	if (ret)
		return ret;
	if (mdkctl_client_request(mdkctl_socket, "cgroup list", "status", NULL,
				  NULL, &resp))
		return 1;
	json_object_object_get_ex(resp, "cgroups", &cgs);
	n = json_object_array_length(cgs);
	if (o.json) {
		out = json_object_new_array();
		for (i = 0; i < n; i++)
			json_object_array_add(
				out,
				list_entry(json_object_array_get_idx(cgs, i)));
		mdkd_json_print(stdout, out);
		json_object_put(out);
	} else {
		list_text(cgs, n);
	}
	json_object_put(resp);
	return 0;
}

static int parse_release(int argc, char **argv, struct cgroup_opts *o)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mdkctl cgroup release PATH\n");
		return 2;
	}
	o->path = argv[1];
	return check_path("release", o->path);
}

/* release PATH: stop managing it at runtime. */
static int do_release(int argc, char **argv)
{
	struct cgroup_opts o = { 0 };
	int ret = parse_release(argc, argv, &o);

	return ret ? ret : manage_call("release", o.path, NULL);
}

static int do_help(int argc, char **argv);

static const struct mdkctl_cmd cgroup_cmds[] = {
	{ "create", do_create,
	  "PATH [KEY=VALUE...]: create it (memory on) and let mdkd manage it" },
	{ "attach", do_attach, "PATH PID...: move processes into it" },
	{ "list", do_list, "[-j]: the cgroups mdkd manages" },
	{ "release", do_release, "PATH: stop managing it at runtime" },
	{ "help", do_help, "this help" },
	{ 0 },
};

static int do_help(int argc, char **argv)
{
	const struct mdkctl_cmd *c;

	printf("usage: mdkctl [-s SOCKET] cgroup VERB [ARGS...]\n\nverbs:\n");
	for (c = cgroup_cmds; c->name; c++)
		printf("  %-8s %s\n", c->name, c->help);
	return 0;
}

int mdkctl_cmd_cgroup(int argc, char **argv)
{
	return mdkctl_dispatch(cgroup_cmds, "cgroup", argc - 1, argv + 1);
}
