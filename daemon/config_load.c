// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the configuration from disk: the main file, then the drop-ins
 * DIR/mdkd.conf.d/NAME.conf in strcmp() order (systemd's and oomd's
 * convention), all into one new configuration or none: see config.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"

/* The whole of the file @path into *@buf (malloc()ed) and *@len. */
static int read_file(const char *path, char **buf, size_t *len, char *err,
		     size_t errlen)
{
	struct stat st;
	size_t got = 0;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_size > MDKD_CONFIG_MAX_BYTES) {
		close(fd);
		snprintf(err, errlen,
			 "%s: not a regular file of at most %d bytes", path,
			 MDKD_CONFIG_MAX_BYTES);
		return -EINVAL;
	}
	*buf = malloc(st.st_size + 1);
	if (!*buf) {
		close(fd);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, *buf + got, st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			snprintf(err, errlen, "%s: read: %s", path,
				 strerror(-ret));
			free(*buf);
			close(fd);
			return ret;
		}
		got += n;
	}
	close(fd);
	*len = got;
	return 0;
}

static int parse_file(struct mdkd_config *cfg, const char *path, char *err,
		      size_t errlen)
{
	size_t len = 0;
	char *buf = NULL;
	int ret;

	ret = read_file(path, &buf, &len, err, errlen);
	if (ret)
		return ret;
	ret = mdkd_config_parse_more(cfg, buf, len, path, err, errlen);
	free(buf);
	return ret;
}

/* NAME.conf, not hidden (editors' and package managers' leftovers). */
static int is_dropin(const struct dirent *de)
{
	size_t n = strlen(de->d_name);

	return de->d_name[0] != '.' && n > 5 &&
	       !strcmp(de->d_name + n - 5, ".conf");
}

/* The byte order of the names, whatever the locale (LC_ALL=C sort). */
static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* The drop-ins beside @path into @cfg, in order. */
static int parse_dropins(struct mdkd_config *cfg, const char *path, char *err,
			 size_t errlen)
{
	const char *slash = strrchr(path, '/');
	char dir[MDKD_PATH_MAX + 32], file[MDKD_PATH_MAX * 2];
	struct dirent **names;
	int n, i, ret = 0;

	if (slash)
		snprintf(dir, sizeof(dir), "%.*s/%s", (int)(slash - path), path,
			 MDKD_CONFIG_DROPINS);
	else
		snprintf(dir, sizeof(dir), "%s", MDKD_CONFIG_DROPINS);
	n = scandir(dir, &names, is_dropin, by_name);
	if (n < 0) {
		if (errno == ENOENT)
			return 0; /* no drop-ins */
		ret = -errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(-ret));
		return ret;
	}
	for (i = 0; i < n; i++) {
		snprintf(file, sizeof(file), "%s/%s", dir, names[i]->d_name);
		if (!ret)
			ret = parse_file(cfg, file, err, errlen);
		free(names[i]);
	}
	free(names);
	return ret;
}

static int load(const char *path, bool optional, struct mdkd_config **out,
		char *err, size_t errlen)
{
	struct mdkd_config *cfg = mdkd_config_new_default();
	int ret;

	*out = NULL;
	if (!cfg) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	if (optional && access(path, F_OK) && errno == ENOENT)
		ret = 0; /* every key at its default */
	else
		ret = parse_file(cfg, path, err, errlen);
	if (!ret)
		ret = parse_dropins(cfg, path, err, errlen);
	if (ret) {
		mdkd_config_free(cfg);
		return ret;
	}
	*out = cfg;
	return 0;
}

int mdkd_config_load(const char *path, struct mdkd_config **out, char *err,
		     size_t errlen)
{
	return load(path, false, out, err, errlen);
}

int mdkd_config_load_default(struct mdkd_config **out, char *err, size_t errlen)
{
	return load(MDKD_CONFIG_PATH, true, out, err, errlen);
}
