// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl set CGROUP KEY=VALUE...: change settings of a cgroup mdkd manages,
 * at runtime.  All keys are applied or none; the change outlives reloads
 * of the configuration (until "mdkctl cgroup release").
 */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "client.h"
#include "mdkctl.h"

struct set_opts {
	const char *cgroup;
	struct json_object *settings;
};

/* 0; 2 after the usage or a message; MDKCTL_DONE after --help. */
static int parse_set(int argc, char **argv, struct set_opts *o)
{
	char err[1024];

	if (argc >= 2 &&
	    (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: mdkctl [-s SOCKET] set CGROUP KEY=VALUE...\n");
		return MDKCTL_DONE;
	}
	if (argc < 3) {
		fprintf(stderr,
			"usage: mdkctl [-s SOCKET] set CGROUP KEY=VALUE...\n");
		return 2;
	}
	o->cgroup = argv[1];
	if (mdkctl_client_settings(argc - 2, argv + 2, &o->settings, err,
				   sizeof(err))) {
		fprintf(stderr, "mdkctl: set: %s\n", err);
		return 2;
	}
	return 0;
}

int mdkctl_cmd_set(int argc, char **argv)
{
	struct json_object *resp;
	struct set_opts o;
	int ret;

	ret = parse_set(argc, argv, &o);
	if (ret)
		return ret == MDKCTL_DONE ? 0 : ret;
	if (mdkctl_client_request(mdkctl_socket, "set", "set", o.cgroup,
				  o.settings, &resp))
		return 1;
	json_object_put(resp);
	return 0;
}
