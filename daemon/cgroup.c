// SPDX-License-Identifier: GPL-2.0
/* cgroup v2 access for mdkd: see cgroup.h. */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"

const struct mdkd_cgroup_file_desc mdkd_cgroup_files[MDKD_CGF_NR] = {
	[MDKD_CGF_CURRENT] = { "memory.current", true, 32 },
	[MDKD_CGF_STAT] = { "memory.stat", true, 8192 },
	[MDKD_CGF_PRESSURE] = { "memory.pressure", true, 256 },
	[MDKD_CGF_IO_PRESSURE] = { "io.pressure", false, 256 },
	[MDKD_CGF_MIN] = { "memory.min", true, 32 },
	[MDKD_CGF_SWAP_CURRENT] = { "memory.swap.current", false, 32 },
	[MDKD_CGF_SWAP_MAX] = { "memory.swap.max", false, 32 },
};

bool mdkd_cgroup_is_glob(const char *pattern)
{
	return strpbrk(pattern, "*?") != NULL;
}

int mdkd_cgroup_path_check(const char *path, bool glob, char *err,
			   size_t errlen)
{
	const char *p, *comp;
	size_t len = strlen(path);

	if (!len) {
		snprintf(err, errlen, "empty cgroup path");
		return -EINVAL;
	}
	if (len >= MDKD_CGROUP_PATH_MAX) {
		snprintf(err, errlen, "cgroup path longer than %d bytes",
			 MDKD_CGROUP_PATH_MAX - 1);
		return -EINVAL;
	}
	if (path[0] == '/') {
		snprintf(
			err, errlen,
			"cgroup path '%s' must be relative to the cgroup2 mount (no leading '/')",
			path);
		return -EINVAL;
	}
	for (p = path; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == '\\' ||
		    *p == '[' || *p == ']') {
			snprintf(
				err, errlen,
				"cgroup path has a forbidden character (0x%02x) at offset %zu",
				(unsigned char)*p, (size_t)(p - path));
			return -EINVAL;
		}
		if (!glob && (*p == '*' || *p == '?')) {
			snprintf(err, errlen,
				 "cgroup path '%s' must not be a glob here",
				 path);
			return -EINVAL;
		}
	}
	for (comp = path; comp;) {
		const char *slash = strchr(comp, '/');
		size_t n = slash ? (size_t)(slash - comp) : strlen(comp);

		if (!n || (n == 1 && comp[0] == '.') ||
		    (n == 2 && comp[0] == '.' && comp[1] == '.')) {
			snprintf(
				err, errlen,
				"cgroup path '%s' has an empty, '.' or '..' component",
				path);
			return -EINVAL;
		}
		comp = slash ? slash + 1 : NULL;
	}
	return 0;
}

/* @root with glob(3) metacharacters escaped, then "/". */
static char *escape_root(const char *root)
{
	size_t n = strlen(root);
	char *out = malloc(2 * n + 2), *q = out;
	const char *p;

	if (!out)
		return NULL;
	for (p = root; *p; p++) {
		if (strchr("*?[]\\", *p))
			*q++ = '\\';
		*q++ = *p;
	}
	while (q > out && q[-1] == '/')
		q--;
	*q++ = '/';
	*q = '\0';
	return out;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int mdkd_cgroup_resolve(const char *root, const char *pattern, char ***paths,
			unsigned int *nomem)
{
	char *eroot, *full, **out;
	size_t rootlen, i, n = 0;
	glob_t g;
	int ret;

	*paths = NULL;
	*nomem = 0;
	eroot = escape_root(root);
	if (!eroot)
		return -ENOMEM;
	rootlen = strlen(eroot);
	full = malloc(rootlen + strlen(pattern) + 1);
	if (!full) {
		free(eroot);
		return -ENOMEM;
	}
	memcpy(full, eroot, rootlen);
	strcpy(full + rootlen, pattern);
	free(eroot);
	/* glob(3) on the escaped root: paths come back unescaped. */
	ret = glob(full, GLOB_ONLYDIR, NULL, &g);
	free(full);
	if (ret == GLOB_NOMATCH)
		return 0;
	if (ret)
		return ret == GLOB_NOSPACE ? -ENOMEM : -EIO;

	out = calloc(g.gl_pathc ? g.gl_pathc : 1, sizeof(*out));
	if (!out) {
		globfree(&g);
		return -ENOMEM;
	}
	rootlen = strlen(root);
	while (rootlen > 1 && root[rootlen - 1] == '/')
		rootlen--;
	for (i = 0; i < g.gl_pathc; i++) {
		const char *p = g.gl_pathv[i];
		char file[MDKD_CGROUP_PATH_MAX + 32];
		struct stat st;

		if (strncmp(p, root, rootlen) || p[rootlen] != '/')
			continue;
		snprintf(file, sizeof(file), "%s/memory.current", p);
		if (stat(p, &st) || !S_ISDIR(st.st_mode))
			continue;
		if (access(file, F_OK)) {
			(*nomem)++;
			continue;
		}
		out[n] = strdup(p + rootlen + 1);
		if (!out[n]) {
			while (n)
				free(out[--n]);
			free(out);
			globfree(&g);
			return -ENOMEM;
		}
		n++;
	}
	globfree(&g);
	qsort(out, n, sizeof(*out), cmp_str);
	*paths = out;
	return (int)n;
}

int mdkd_parse_u64_file(const char *buf, size_t len, uint64_t *val)
{
	char num[32];
	char *end;

	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	if (!len || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, buf, len);
	num[len] = '\0';
	if (!strcmp(num, "max")) {
		*val = UINT64_MAX;
		return 0;
	}
	if (num[0] < '0' || num[0] > '9')
		return -EINVAL;
	errno = 0;
	*val = strtoull(num, &end, 10);
	return *end || errno ? -EINVAL : 0;
}

int mdkd_memstat_parse(const char *buf, size_t len, struct mdkd_memstat *st,
		       char *err, size_t errlen)
{
	static const struct {
		const char *key;
		size_t off;
		bool required;
	} keys[] = {
#define K(k, req) { #k, offsetof(struct mdkd_memstat, k), req }
		K(anon, true),
		K(file, true),
		K(active_anon, true),
		K(inactive_anon, true),
		K(active_file, true),
		K(inactive_file, true),
		K(unevictable, false),
		K(workingset_refault_anon, false),
		K(workingset_refault_file, false),
		K(pgsteal, false),
		K(file_writeback, false),
		K(swapcached, false),
		K(pswpin, false),
		K(pswpout, false),
#undef K
	};
	const size_t nkeys = sizeof(keys) / sizeof(keys[0]);
	const char *p = buf, *end = buf + len;
	unsigned int seen = 0, lineno = 0;
	size_t i;

	memset(st, 0, sizeof(*st));
	while (p < end) {
		const char *eol = memchr(p, '\n', end - p), *sp;
		char num[32];
		char *q;
		size_t n;
		bool ok;

		if (!eol)
			eol = end;
		lineno++;
		sp = memchr(p, ' ', eol - p);
		if (!sp) {
			if (eol == p) {
				p = eol + 1;
				continue;
			}
			snprintf(err, errlen,
				 "memory.stat line %u: expected \"KEY VALUE\"",
				 lineno);
			return -EINVAL;
		}
		for (i = 0; i < nkeys; i++)
			if ((size_t)(sp - p) == strlen(keys[i].key) &&
			    !memcmp(p, keys[i].key, sp - p))
				break;
		if (i < nkeys) {
			n = eol - sp - 1;
			ok = n && n < sizeof(num) && sp[1] >= '0' &&
			     sp[1] <= '9';
			if (ok) {
				memcpy(num, sp + 1, n);
				num[n] = '\0';
				errno = 0;
				*(uint64_t *)((char *)st + keys[i].off) =
					strtoull(num, &q, 10);
				ok = !*q && !errno;
			}
			if (!ok) {
				snprintf(
					err, errlen,
					"memory.stat line %u: %s: expected a number",
					lineno, keys[i].key);
				return -EINVAL;
			}
			seen |= 1U << i;
		}
		p = eol + 1;
	}
	for (i = 0; i < nkeys; i++)
		if (keys[i].required && !(seen & (1U << i))) {
			snprintf(err, errlen, "memory.stat: no '%s' key",
				 keys[i].key);
			return -EINVAL;
		}
	st->has_swapcached = seen & (1U << (nkeys - 3));
	st->has_pswp = (seen & (3U << (nkeys - 2))) == (3U << (nkeys - 2));
	return 0;
}

int mdkd_cgroup_parse(struct mdkd_sample *s, const char *const bufs[],
		      const size_t lens[], char *err, size_t errlen)
{
	char why[128];
	int i;

	for (i = 0; i < MDKD_CGF_NR; i++)
		if (!bufs[i] && mdkd_cgroup_files[i].required) {
			snprintf(err, errlen, "%s: missing",
				 mdkd_cgroup_files[i].name);
			return -EINVAL;
		}
	if (mdkd_parse_u64_file(bufs[MDKD_CGF_CURRENT], lens[MDKD_CGF_CURRENT],
				&s->current_bytes) ||
	    s->current_bytes == UINT64_MAX) {
		snprintf(err, errlen, "memory.current: expected a number");
		return -EINVAL;
	}
	if (mdkd_parse_u64_file(bufs[MDKD_CGF_MIN], lens[MDKD_CGF_MIN],
				&s->min_bytes)) {
		snprintf(err, errlen, "memory.min: expected a number or max");
		return -EINVAL;
	}
	if (mdkd_memstat_parse(bufs[MDKD_CGF_STAT], lens[MDKD_CGF_STAT],
			       &s->stat, err, errlen))
		return -EINVAL;
	if (mdkd_psi_parse(bufs[MDKD_CGF_PRESSURE], lens[MDKD_CGF_PRESSURE],
			   &s->mem, why, sizeof(why))) {
		snprintf(err, errlen, "memory.pressure: %s", why);
		return -EINVAL;
	}
	s->has_io = bufs[MDKD_CGF_IO_PRESSURE] != NULL;
	if (s->has_io && mdkd_psi_parse(bufs[MDKD_CGF_IO_PRESSURE],
					lens[MDKD_CGF_IO_PRESSURE], &s->io, why,
					sizeof(why))) {
		snprintf(err, errlen, "io.pressure: %s", why);
		return -EINVAL;
	}
	s->has_swap = bufs[MDKD_CGF_SWAP_CURRENT] && bufs[MDKD_CGF_SWAP_MAX];
	s->swap_current_bytes = 0;
	s->swap_max_bytes = 0;
	if (s->has_swap) {
		if (mdkd_parse_u64_file(bufs[MDKD_CGF_SWAP_CURRENT],
					lens[MDKD_CGF_SWAP_CURRENT],
					&s->swap_current_bytes) ||
		    s->swap_current_bytes == UINT64_MAX) {
			snprintf(err, errlen,
				 "memory.swap.current: expected a number");
			return -EINVAL;
		}
		if (mdkd_parse_u64_file(bufs[MDKD_CGF_SWAP_MAX],
					lens[MDKD_CGF_SWAP_MAX],
					&s->swap_max_bytes)) {
			snprintf(err, errlen,
				 "memory.swap.max: expected a number or max");
			return -EINVAL;
		}
	}
	return 0;
}

int mdkd_reclaim_swappiness_probe(int dirfd)
{
	static const char probe[] = "0 swappiness=60";
	ssize_t n;
	int fd;

	fd = openat(dirfd, "memory.reclaim", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, probe, sizeof(probe) - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n == -EINVAL)
		return 0;
	return n < 0 ? (int)n : 1;
}

uint64_t mdkd_reclaimable_bytes(const struct mdkd_sample *s)
{
	uint64_t r = s->stat.active_file + s->stat.inactive_file;
	bool can_swap =
		s->host_swap_free_bytes > 0 &&
		(!s->has_swap || s->swap_max_bytes > s->swap_current_bytes);

	if (can_swap)
		r += s->stat.active_anon + s->stat.inactive_anon;
	return r;
}
