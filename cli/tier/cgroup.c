// SPDX-License-Identifier: GPL-2.0
/*
 * The probe cgroup (tier.h): mdk-calibrate under the cgroup2 mount, with
 * the memory controller on; removed at the end and on a signal, after the
 * probe child is killed, so that no run leaves it behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tier.h"

static char cg_path[512];
static volatile sig_atomic_t child_pid;

void tier_cgroup_child(int pid)
{
	child_pid = pid;
}

/* Async-signal-safe: kill, waitpid, rmdir, raise. */
static void on_signal(int sig)
{
	if (child_pid > 0) {
		kill(child_pid, SIGKILL);
		waitpid(child_pid, NULL, 0);
	}
	if (cg_path[0])
		rmdir(cg_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The cgroup2 mount point, from /proc/self/mounts. */
static int cgroup2_mount(char *out, size_t len)
{
	char dev[256], dir[256], type[64];
	FILE *f = fopen("/proc/self/mounts", "re");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fscanf(f, "%255s %255s %63s %*[^\n]", dev, dir, type) == 3) {
		if (!strcmp(type, "cgroup2")) {
			snprintf(out, len, "%s", dir);
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

int tier_write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

int tier_cgroup_create(char *path, size_t len, char *err, size_t errlen)
{
	char root[256], file[600];
	struct sigaction sa = { .sa_handler = on_signal };
	int ret;

	ret = cgroup2_mount(root, sizeof(root));
	if (ret) {
		snprintf(
			err, errlen,
			"no cgroup2 mount in /proc/self/mounts: the probe needs cgroup v2");
		return ret;
	}
	snprintf(file, sizeof(file), "%s/cgroup.subtree_control", root);
	/* often on already; a refusal shows at memory.reclaim */
	tier_write_file(file, "+memory");
	snprintf(cg_path, sizeof(cg_path), "%s/mdk-calibrate", root);
	/* a run killed by SIGKILL leaves an empty one behind */
	rmdir(cg_path);
	if (mkdir(cg_path, 0755)) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", cg_path, strerror(errno));
		cg_path[0] = '\0';
		return ret;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	snprintf(path, len, "%s", cg_path);
	return 0;
}

void tier_cgroup_remove(void)
{
	if (cg_path[0] && rmdir(cg_path) && errno != ENOENT)
		fprintf(stderr, "mdkctl: tier calibrate: rmdir %s: %s\n",
			cg_path, strerror(errno));
	cg_path[0] = '\0';
}
