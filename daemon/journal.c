// SPDX-License-Identifier: GPL-2.0
/* The high-pulse journal: see journal.h. */
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

int mdkd_journal_write(const char *state_dir, const char *file,
		       const char *cgroup, const char *orig, const char *target)
{
	char dir[MDKD_PATH_MAX + 16], tmp[MDKD_PATH_MAX + 80];
	FILE *f;

	mkdir(state_dir, 0700);
	snprintf(dir, sizeof(dir), "%s/high-pulse", state_dir);
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

int mdkd_restore_journal(const char *state_dir, const char *cgroup_root)
{
	char dir[MDKD_PATH_MAX + 16];
	struct dirent *de;
	int restored = 0;
	DIR *dh;

	snprintf(dir, sizeof(dir), "%s/high-pulse", state_dir);
	dh = opendir(dir);
	if (!dh)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(dh))) {
		char file[sizeof(dir) + 256], high[MDKD_PATH_MAX * 2 + 32];
		char path[MDKD_CGROUP_PATH_MAX], orig[32], target[32], cur[32];
		ssize_t n;
		FILE *f;
		int fd;

		if (de->d_name[0] == '.' || strstr(de->d_name, ".tmp"))
			continue;
		snprintf(file, sizeof(file), "%s/%s", dir, de->d_name);
		f = fopen(file, "re");
		if (!f)
			continue;
		if (!fgets(path, sizeof(path), f) ||
		    !fgets(orig, sizeof(orig), f) ||
		    !fgets(target, sizeof(target), f)) {
			fclose(f);
			log_warn("%s: malformed journal entry; removed", file);
			unlink(file);
			continue;
		}
		fclose(f);
		path[strcspn(path, "\n")] = '\0';
		snprintf(high, sizeof(high), "%s/%s/memory.high", cgroup_root,
			 path);
		fd = open(high, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			/* The cgroup is gone, and its limit with it. */
			unlink(file);
			continue;
		}
		n = pread(fd, cur, sizeof(cur) - 1, 0);
		cur[n > 0 ? n : 0] = '\0';
		close(fd);
		/* Only a value we set is ours to put back. */
		if (!strcmp(cur, target)) {
			fd = open(high, O_WRONLY | O_TRUNC | O_CLOEXEC);
			if (fd < 0 || write(fd, orig, strlen(orig)) < 0) {
				log_err("%s: cannot restore memory.high: %s",
					path, strerror(errno));
				if (fd >= 0)
					close(fd);
				continue;
			}
			close(fd);
			orig[strcspn(orig, "\n")] = '\0';
			log_notice(
				"%s: restored memory.high to %s after an interrupted pulse",
				path, orig);
			restored++;
		}
		unlink(file);
	}
	closedir(dh);
	return restored;
}
