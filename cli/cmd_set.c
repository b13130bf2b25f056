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

int mdkctl_cmd_set(int argc, char **argv)
{
	struct json_object *req, *resp, *settings;
	char err[1024];

	if (argc >= 2 &&
	    (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: mdkctl [-s SOCKET] set CGROUP KEY=VALUE...\n");
		return 0;
	}
	if (argc < 3) {
		fprintf(stderr,
			"usage: mdkctl [-s SOCKET] set CGROUP KEY=VALUE...\n");
		return 2;
	}
	if (mdkctl_client_settings(argc - 2, argv + 2, &settings, err,
				   sizeof(err))) {
		fprintf(stderr, "mdkctl: set: %s\n", err);
		return 2;
	}
	req = json_object_new_object();
	json_object_object_add(req, "cmd", json_object_new_string("set"));
	json_object_object_add(req, "cgroup", json_object_new_string(argv[1]));
	json_object_object_add(req, "settings", settings);
	if (mdkctl_client_call(mdkctl_socket, req, &resp, err, sizeof(err))) {
		json_object_put(req);
		fprintf(stderr, "mdkctl: set: %s\n", err);
		return 1;
	}
	json_object_put(req);
	json_object_put(resp);
	return 0;
}
