// SPDX-License-Identifier: GPL-2.0
/*
 * mdkd: mdk's reclaim daemon.  This file is main() only.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include <mdk/version.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: mdkd [-h|--help] [--version]\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("mdkd %s (libmdk %s)\n", MDK_VERSION,
			       mdk_version());
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	fprintf(stderr, "mdkd: the reclaim controller is not built yet\n");
	return 1;
}
