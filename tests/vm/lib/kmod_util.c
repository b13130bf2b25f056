// SPDX-License-Identifier: GPL-2.0
/*
 * The helpers of kmod_util.h: cmm_mp.ko in and out, sysfs and the kernel log.
 */
#include "kmod_util.h"

const char *kmod_path(void)
{
	static char path[512];
	const char *build = getenv("MDK_BUILD");
	struct utsname u;

	if (!build || uname(&u))
		return NULL;
	snprintf(path, sizeof(path), "%s/kmod/%s/cmm_mp.ko", build, u.release);
	return access(path, R_OK) ? NULL : path;
}

int kmod_load(const char *params)
{
	const char *path = kmod_path();
	int fd, ret;

	if (!path)
		return -ENOENT;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

int kmod_unload(void)
{
	return syscall(SYS_delete_module, "cmm_mp", O_NONBLOCK) ? -errno : 0;
}

int kmod_loaded(void)
{
	return !access("/sys/module/cmm_mp", F_OK);
}

int read_text(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

int write_text_file(const char *path, const char *text)
{
	ssize_t n, len = strlen(text);
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	close(fd);
	return n == len ? 0 : n < 0 ? -errno : -EIO;
}

const char *cmm_attr(const char *rel)
{
	static char buf[8][256];
	static int slot;
	char path[512];
	char *b = buf[slot++ & 7];

	snprintf(path, sizeof(path), CMM_MP_SYS "/%s", rel);
	if (read_text(path, b, sizeof(buf[0])))
		b[0] = '\0';
	return b;
}

int file_has(const char *path, const char *needle)
{
	static char buf[1 << 16];

	if (read_text(path, buf, sizeof(buf)))
		return 0;
	return strstr(buf, needle) != NULL;
}

int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

void kmsg_read(int fd, char *buf, size_t len)
{
	char rec[2048];
	size_t used = 0;
	ssize_t n;

	buf[0] = '\0';
	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0) {
		char *text;
		size_t tl;

		rec[n] = '\0';
		/* "prio,seq,ts,flags;text\n" */
		text = strchr(rec, ';');
		text = text ? text + 1 : rec;
		tl = strcspn(text, "\n");
		if (used + tl + 2 > len)
			break;
		memcpy(buf + used, text, tl);
		used += tl;
		buf[used++] = '\n';
		buf[used] = '\0';
	}
}

int count_lines(const char *log, const char *needle)
{
	const char *p = log;
	int n = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		char line[2048];

		if (l >= sizeof(line))
			l = sizeof(line) - 1;
		memcpy(line, p, l);
		line[l] = '\0';
		n += strstr(line, needle) != NULL;
		p += l + (nl ? 1 : 0);
	}
	return n;
}

const char *kmod_skip_reason(bool have_pool)
{
	if (geteuid())
		return "needs root";
	if (!kmod_path())
		return "cmm_mp.ko is not built for this kernel";
	if (!have_pool)
		return "no CMM-MP pool (tests/vm/run -p SIZE)";
	return NULL;
}
