// SPDX-License-Identifier: GPL-2.0
/*
 * What the target is: a command line target parsed into a cgroup or PIDs,
 * the cgroup's depth for the BPF program's membership test, the PIDs of
 * a cgroup subtree read from its cgroup.procs files, and the PID set,
 * which grows with mdk_sampler_add_pid() and shrinks as its processes
 * exit (procs.c).
 */
#include <dirent.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>

#include "sampler_int.h"

/* Sort and drop duplicates. */
static size_t sort_unique_pids(pid_t *p, size_t n)
{
	size_t i, j = 0;

	qsort(p, n, sizeof(*p), cmp_pid);
	for (i = 0; i < n; i++)
		if (!j || p[j - 1] != p[i])
			p[j++] = p[i];
	return j;
}

int mdk_sampler_read_pids(const char *path, pid_t **pids, size_t *nr,
			  size_t *cap, char *msg, size_t len)
{
	unsigned int line = 0;
	char buf[64], *end;
	int err = 0;
	FILE *f;
	long v;

	f = fopen(path, "re");
	if (!f) {
		err = -errno;
		set_msg(msg, len, "%s: %s", path, strerror(errno));
		return err;
	}
	while (fgets(buf, sizeof(buf), f)) {
		line++;
		errno = 0;
		v = strtol(buf, &end, 10);
		if (end == buf || (*end && *end != '\n') || errno || v <= 0 ||
		    v > INT_MAX) {
			set_msg(msg, len, "%s:%u: expected a PID, got '%.*s'",
				path, line, (int)strcspn(buf, "\n"), buf);
			err = -EINVAL;
			break;
		}
		err = mdk_grow((void **)pids, cap, *nr + 1, sizeof(**pids));
		if (err) {
			set_msg(msg, len, "%s: out of memory", path);
			break;
		}
		(*pids)[(*nr)++] = v;
	}
	if (!err && ferror(f)) {
		err = -EIO;
		set_msg(msg, len, "%s: read error", path);
	}
	fclose(f);
	return err;
}

static int cgroup_walk(const char *dir, pid_t **pids, size_t *nr, size_t *cap,
		       char *msg, size_t len, int depth)
{
	char path[PATH_MAX];
	struct dirent *de;
	int err;
	DIR *d;

	if (depth > 64) {
		set_msg(msg, len, "%s: cgroup tree deeper than 64", dir);
		return -ELOOP;
	}
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	err = mdk_sampler_read_pids(path, pids, nr, cap, msg, len);
	if (err)
		return err;
	d = opendir(dir);
	if (!d) {
		/* Removed between reading its procs and listing it. */
		return errno == ENOENT ? 0 : -errno;
	}
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		err = cgroup_walk(path, pids, nr, cap, msg, len, depth + 1);
		/* A child cgroup removed meanwhile is no error. */
		if (err == -ENOENT)
			err = 0;
		if (err)
			break;
	}
	closedir(d);
	return err;
}

int mdk_sampler_cgroup_pids(const char *dir, pid_t **pids, size_t *nr,
			    size_t *cap, char *msg, size_t len)
{
	size_t first = *nr;
	int err;

	err = cgroup_walk(dir, pids, nr, cap, msg, len, 0);
	if (err)
		return err;
	*nr = first + sort_unique_pids(*pids + first, *nr - first);
	return 0;
}

static int parse_pid_list(const char *s, pid_t **pids, size_t *nr)
{
	size_t cap = *nr;
	const char *p = s;
	char *end;
	long v;

	while (*p) {
		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p || errno || v <= 0 || v > INT_MAX ||
		    (*end && *end != ','))
			return -EINVAL;
		if (mdk_grow((void **)pids, &cap, *nr + 1, sizeof(**pids)))
			return -ENOMEM;
		(*pids)[(*nr)++] = v;
		p = *end ? end + 1 : end;
	}
	return *nr ? 0 : -EINVAL;
}

int mdk_sampler_parse_target(const char *s, char *cgroup, size_t len,
			     pid_t **pids, size_t *nr)
{
	struct stat st;

	cgroup[0] = '\0';
	if (strspn(s, "0123456789,") == strlen(s))
		return parse_pid_list(s, pids, nr);
	if (s[0] == '/')
		snprintf(cgroup, len, "%s", s);
	else
		snprintf(cgroup, len, "/sys/fs/cgroup/%s", s);
	if (stat(cgroup, &st) || !S_ISDIR(st.st_mode))
		return -ENOENT;
	return 0;
}

/* The depth of cgroup @path below the root of its cgroup2 mount. */
int sampler__cgroup_level(const char *path, uint32_t *level, char *msg,
			  size_t len)
{
	char buf[PATH_MAX], *p;
	struct statfs sfs;
	struct stat st;
	dev_t dev;

	if (!realpath(path, buf) || stat(buf, &st) || statfs(buf, &sfs)) {
		set_msg(msg, len, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (sfs.f_type != CGROUP2_SUPER_MAGIC || !S_ISDIR(st.st_mode)) {
		set_msg(msg, len, "%s: not a cgroup v2 directory", path);
		return -ENOTDIR;
	}
	dev = st.st_dev;
	*level = 0;
	while ((p = strrchr(buf, '/')) && p != buf) {
		*p = '\0';
		if (stat(buf, &st) || st.st_dev != dev)
			break;
		(*level)++;
	}
	return 0;
}

/* The target's processes now, into s->members (sorted, unique). */
int sampler__gather(struct mdk_sampler *s, char *msg, size_t len)
{
	int err;

	s->nr_members = 0;
	if (s->cgroup) {
		err = mdk_sampler_cgroup_pids(s->cgroup, &s->members,
					      &s->nr_members, &s->cap_members,
					      msg, len);
		if (err == -ENOENT)
			set_msg(msg, len, "cgroup %s is gone", s->cgroup);
		return err;
	}
	if (!s->nr_pids) {
		set_msg(msg, len, "every process of the PID set has exited");
		return -ENOENT;
	}
	if (mdk_grow((void **)&s->members, &s->cap_members, s->nr_pids,
		     sizeof(pid_t)))
		return -ENOMEM;
	memcpy(s->members, s->pids, s->nr_pids * sizeof(pid_t));
	s->nr_members = s->nr_pids;
	return 0;
}

int mdk_sampler_add_pid(struct mdk_sampler *s, pid_t pid)
{
	char path[PATH_MAX];
	int err;

	if (s->cgroup)
		return -EINVAL;
	if (pid <= 0)
		return -ESRCH;
	snprintf(path, sizeof(path), "%s/%d", s->proc_root, pid);
	if (access(path, F_OK))
		return -ESRCH;
	if (bsearch(&pid, s->pids, s->nr_pids, sizeof(pid), cmp_pid))
		return 0;
	err = mdk_grow((void **)&s->pids, &s->cap_pids, s->nr_pids + 1,
		       sizeof(pid));
	if (err)
		return err;
	s->pids[s->nr_pids++] = pid;
	qsort(s->pids, s->nr_pids, sizeof(pid), cmp_pid);
	return 0;
}
