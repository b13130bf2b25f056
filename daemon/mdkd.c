// SPDX-License-Identifier: GPL-2.0
/*
 * mdkd: mdk's reclaim daemon.  This file is main() only: the command line,
 * the configuration, the up-front checks (in mdkd_new()), READY and
 * STOPPING; manager.c owns the event loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <mdk/version.h>

#include "config.h"
#include "journal.h"
#include "log.h"
#include "manager.h"
#include "notify.h"
#include "request.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mdkd [-f|--foreground] [-c|--config FILE] [-s|--socket PATH]\n"
		"       mdkd --check-config [-c FILE] | --dump-config [-c FILE]\n"
		"       mdkd --dump-defaults | --restore [-c FILE]\n"
		"       mdkd -h|--help | --version\n"
		"\n"
		"  -f, --foreground   stay in the foreground (as under systemd)\n"
		"  -c, --config FILE  configuration (default %s)\n"
		"  -s, --socket PATH  control socket (default: the socket key)\n"
		"      --check-config parse the configuration (and drop-ins) and exit\n"
		"      --dump-config  print the configuration read, every key with\n"
		"                     the file:line that set it, and exit\n"
		"      --dump-defaults print every key at its default, commented\n"
		"                     out (the shipped mdkd.conf), and exit\n"
		"      --restore      put back memory.high values a killed mdkd\n"
		"                     left mid-pulse (the journal) and exit\n"
		"\nSee mdkd(8) and mdkd.conf(5).\n",
		MDKD_CONFIG_PATH);
}

/*
 * Without -f: fork, and let the parent exit 0 only once the child is
 * ready (or 1 when it failed), so that "mdkd && mdkctl status" works.
 */
static int daemonize(int *ready_fd)
{
	int p[2], null;
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		close(p[1]);
		exit(read(p[0], &c, 1) == 1 && c == '1' ? 0 : 1);
	}
	close(p[0]);
	setsid();
	if (chdir("/"))
		return -errno;
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		close(null);
	}
	*ready_fd = p[1];
	return 0;
}

struct args {
	const char *config, *socket;
	bool foreground, check, dump, restore;
};

/* The command line into @a.  Return: -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, struct args *a)
{
	enum {
		OPT_VERSION = 256,
		OPT_CHECK,
		OPT_DUMP,
		OPT_DEFAULTS,
		OPT_RESTORE
	};
	static const struct option opts[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "config", required_argument, NULL, 'c' },
		{ "socket", required_argument, NULL, 's' },
		{ "check-config", no_argument, NULL, OPT_CHECK },
		{ "dump-config", no_argument, NULL, OPT_DUMP },
		{ "dump-defaults", no_argument, NULL, OPT_DEFAULTS },
		{ "restore", no_argument, NULL, OPT_RESTORE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "fc:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			a->foreground = true;
			break;
		case 'c':
			a->config = optarg;
			break;
		case 's':
			a->socket = optarg;
			break;
		case OPT_CHECK:
			a->check = true;
			break;
		case OPT_DUMP:
			a->dump = true;
			break;
		case OPT_DEFAULTS:
			mdkd_config_write_defaults(stdout);
			return 0;
		case OPT_RESTORE:
			a->restore = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case OPT_VERSION:
			printf("mdkd %s (libmdk %s)\n", MDK_VERSION,
			       mdk_version());
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "mdkd: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return 2;
	}
	return -1;
}

/*
 * The configuration of @a->config, or of the default file, which may be
 * absent (then every key is at its default but for the drop-ins beside
 * it), with their drop-ins.  Return: it, or NULL (logged).
 */
static struct mdkd_config *load_config(struct args *a)
{
	struct mdkd_config *cfg = NULL;
	char err[1024];
	int ret;

	if (a->config)
		ret = mdkd_config_load(a->config, &cfg, err, sizeof(err));
	else
		ret = mdkd_config_load_default(&cfg, err, sizeof(err));
	if (ret) {
		log_err("%s", err);
		return NULL;
	}
	return cfg;
}

/* mdkd --restore: replay the journal.  Return: the exit code. */
static int restore(struct mdkd_config *cfg)
{
	int ret = mdkd_restore_journal(cfg->global.state_dir,
				       cfg->global.cgroup_root);

	if (ret < 0)
		log_err("%s/high-pulse: %s", cfg->global.state_dir,
			strerror(-ret));
	else
		log_info("restore: %d cgroup%s restored", ret,
			 ret == 1 ? "" : "s");
	mdkd_config_free(cfg);
	return ret < 0;
}

/*
 * Each managed cgroup keeps about ten files open: take the hard limit
 * (systemd's default soft limit of 1024 is for select(2)).
 */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Run the daemon on @cfg (taken over).  Return: the exit code. */
static int serve(const struct args *a, struct mdkd_config *cfg, int ready_fd)
{
	char err[1024];
	struct mdkd *d;
	int ret;

	raise_nofile();
	d = mdkd_new(cfg, a->config, a->socket, true, mdkd_request_handle, err,
		     sizeof(err));
	if (!d) {
		log_err("%s", err);
		mdkd_config_free(cfg);
		mdkd_notify("STATUS=failed: %s", err);
		return 1;
	}
	log_info("mdkd %s started: %zu cgroup%s managed, socket %s",
		 MDK_VERSION, d->cgroups.n, d->cgroups.n == 1 ? "" : "s",
		 d->ctl.path);
	mdkd_notify("READY=1\nSTATUS=managing %zu cgroup%s", d->cgroups.n,
		    d->cgroups.n == 1 ? "" : "s");
	if (ready_fd >= 0) {
		if (write(ready_fd, "1", 1) != 1)
			log_warn("cannot tell the parent we are ready");
		close(ready_fd);
	}
	ret = mdkd_run(d);
	mdkd_notify("STOPPING=1\nSTATUS=stopping");
	log_info("stopping: restoring limits and releasing %zu cgroup%s",
		 d->cgroups.n, d->cgroups.n == 1 ? "" : "s");
	mdkd_free(d);
	return ret ? 1 : 0;
}

/* --check-config: say when reclaim_swappiness is set for nothing. */
static void check_swappiness(const struct mdkd_config *cfg)
{
	bool set = cfg->defaults.reclaim_swappiness >= 0;
	int dirfd, ret = -ENOENT;
	size_t i;

	for (i = 0; i < cfg->nsections; i++)
		set |= cfg->sections[i].set.reclaim_swappiness >= 0;
	if (!set)
		return;
	dirfd = open(cfg->global.cgroup_root,
		     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd >= 0) {
		ret = mdkd_reclaim_swappiness_probe(dirfd);
		close(dirfd);
	}
	if (!ret)
		printf("note: reclaim_swappiness is set, but memory.reclaim of this kernel does not take swappiness= (Linux 6.9+ does): it has no effect here\n");
	else if (ret < 0)
		printf("note: reclaim_swappiness is set; %s/memory.reclaim: %s: whether the kernel takes it is unknown\n",
		       cfg->global.cgroup_root, strerror(-ret));
}

int main(int argc, char **argv)
{
	struct args a = { 0 };
	struct mdkd_config *cfg;
	int ret, ready_fd = -1;

	mdkd_log_init(LOG_INFO, -1);
	ret = parse_args(argc, argv, &a);
	if (ret >= 0)
		return ret;
	cfg = load_config(&a);
	if (!cfg)
		return 1;
	if (a.check) {
		const char *name = a.config ? a.config : MDKD_CONFIG_PATH;

		printf("%s: ok, %zu file%s, %zu [cgroup] section%s\n",
		       cfg->nfiles ? name : "defaults", cfg->nfiles,
		       cfg->nfiles == 1 ? "" : "s", cfg->nsections,
		       cfg->nsections == 1 ? "" : "s");
		check_swappiness(cfg);
		mdkd_config_free(cfg);
		return 0;
	}
	if (a.dump) {
		mdkd_config_dump(cfg, stdout);
		mdkd_config_free(cfg);
		return fflush(stdout) ? 1 : 0;
	}
	mdkd_log_set_level(cfg->global.log_level);
	if (a.restore)
		return restore(cfg);
	if (!a.foreground) {
		ret = daemonize(&ready_fd);
		if (ret) {
			log_err("daemonize: %s", strerror(-ret));
			mdkd_config_free(cfg);
			return 1;
		}
	}
	return serve(&a, cfg, ready_fd);
}
