// SPDX-License-Identifier: GPL-2.0
/* The journal of limits set for a moment: see journal.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "journal.h"
#include "log.h"

/* The kinds of entry: the directory, the control file, what was cut short. */
static const struct {
	const char *kind, *control, *what;
} kinds[] = {
	{ "high-pulse", "memory.high", "an interrupted pulse" },
	{ "zswap-off", "memory.zswap.max", "interrupted page-outs past zswap" },
};

int mdkd_journal_write(const char *state_dir, const char *kind,
		       const char *file, const char *cgroup, const char *orig,
		       const char *target)
{
	char dir[MDKD_PATH_MAX + 16], tmp[MDKD_PATH_MAX + 80];
	FILE *f;

	mkdir(state_dir, 0700);
	snprintf(dir, sizeof(dir), "%s/%s", state_dir, kind);
	mkdir(dir, 0700);
	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fprintf(f, "%s\n%s%s", cgroup, orig, target);
	if (fclose(f) || rename(tmp, file)) {
		unlink(tmp);
		return -errno;
	}
	return 0;
}

/*
 * Put back the entry @file of kind @k (its cgroup under @cgroup_root) and
 * remove it.  Return: 1 when a value was put back, else 0.
 */
static int restore_one(const char *file, unsigned int k,
		       const char *cgroup_root)
{
	char ctl[MDKD_PATH_MAX * 2 + 32], path[MDKD_CGROUP_PATH_MAX];
	char orig[32], target[32], cur[32];
	ssize_t n;
	FILE *f;
	int fd;

	f = fopen(file, "re");
	if (!f)
		return 0;
	if (!fgets(path, sizeof(path), f) || !fgets(orig, sizeof(orig), f) ||
	    !fgets(target, sizeof(target), f)) {
		fclose(f);
		log_warn("%s: malformed journal entry; removed", file);
		unlink(file);
		return 0;
	}
	fclose(f);
	path[strcspn(path, "\n")] = '\0';
	snprintf(ctl, sizeof(ctl), "%s/%s/%s", cgroup_root, path,
		 kinds[k].control);
	fd = open(ctl, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		/* The cgroup is gone, and its limit with it. */
		unlink(file);
		return 0;
	}
	n = pread(fd, cur, sizeof(cur) - 1, 0);
	cur[n > 0 ? n : 0] = '\0';
	close(fd);
	/* Only a value we set is ours to put back. */
	if (strcmp(cur, target)) {
		unlink(file);
		return 0;
	}
	fd = open(ctl, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0 || write(fd, orig, strlen(orig)) < 0) {
		log_err("%s: cannot restore %s: %s", path, kinds[k].control,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return 0; /* kept: the next start tries again */
	}
	close(fd);
	orig[strcspn(orig, "\n")] = '\0';
	log_notice("%s: restored %s to %s after %s", path, kinds[k].control,
		   orig, kinds[k].what);
	unlink(file);
	return 1;
}

int mdkd_restore_journal(const char *state_dir, const char *cgroup_root)
{
	int restored = 0, ret = 0;
	unsigned int k;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		char dir[MDKD_PATH_MAX + 16];
		struct dirent *de;
		DIR *dh;

		snprintf(dir, sizeof(dir), "%s/%s", state_dir, kinds[k].kind);
		dh = opendir(dir);
		if (!dh) {
			if (errno != ENOENT)
				ret = -errno;
			continue;
		}
		while ((de = readdir(dh))) {
			char file[sizeof(dir) + 256];

			if (de->d_name[0] == '.' || strstr(de->d_name, ".tmp"))
				continue;
			snprintf(file, sizeof(file), "%s/%s", dir, de->d_name);
			restored += restore_one(file, k, cgroup_root);
		}
		closedir(dh);
	}
	return restored ? restored : ret;
}
