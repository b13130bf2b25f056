// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: mdkd's control-socket request parser (daemon/proto.c), the
 * first thing any client's bytes reach.  Any input must give 0 or -errno
 * with a message, never a crash, a leak or undefined behaviour.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mdkd_request req;
	char err[512];
	int ret;

	err[0] = '\0';
	ret = mdkd_request_parse((const char *)data, size, &req, err,
				 sizeof(err));
	if (ret && !err[0])
		abort(); /* every refusal says why */
	if (!ret &&
	    (req.cmd >= MDKD_CMD_NR || req.nsettings > MDKD_REQ_MAX_SETTINGS ||
	     (req.has_cgroup && !req.cgroup[0])))
		abort();
	return 0;
}
