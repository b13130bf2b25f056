// SPDX-License-Identifier: GPL-2.0
/*
 * The helpers of fakecg.h: a fake cgroup2 tree and procfs in a
 * temporary directory.
 */
#include "fakecg.h"

int fake_write(const char *path, const char *fmt, ...)
{
	va_list ap;
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	return fclose(f) ? -errno : 0;
}

const char *fake_read(const char *path)
{
	static char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	buf[0] = '\0';
	if (fd < 0)
		return buf;
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	return buf;
}

void fake_mkdirs(const char *path)
{
	char tmp[PATH_MAX], *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
	mkdir(tmp, 0755);
}

void fake_psi(const char *path, uint64_t some_us, uint64_t full_us)
{
	fake_write(path,
		   "some avg10=0.00 avg60=0.00 avg300=0.00 total=%llu\n"
		   "full avg10=0.00 avg60=0.00 avg300=0.00 total=%llu\n",
		   (unsigned long long)some_us, (unsigned long long)full_us);
}

void fake_file(const struct fakecg *f, const char *cg, const char *name,
	       const char *fmt, ...)
{
	char path[PATH_MAX * 2], val[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s/%s", f->root, cg, name);
	fake_write(path, "%s", val);
}

void fake_cgroup(const struct fakecg *f, const char *cg, uint64_t anon,
		 uint64_t file)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", f->root, cg);
	fake_mkdirs(path);
	fake_file(f, cg, "memory.current", "%llu\n",
		  (unsigned long long)(anon + file));
	fake_file(f, cg, "memory.stat",
		  "anon %llu\nfile %llu\nkernel 0\nactive_anon %llu\n"
		  "inactive_anon %llu\nactive_file %llu\ninactive_file %llu\n"
		  "unevictable 0\nworkingset_refault_anon 0\n"
		  "workingset_refault_file 0\npgsteal 0\n",
		  (unsigned long long)anon, (unsigned long long)file,
		  (unsigned long long)anon / 2,
		  (unsigned long long)(anon - anon / 2),
		  (unsigned long long)file / 2,
		  (unsigned long long)(file - file / 2));
	snprintf(path, sizeof(path), "%s/%s/memory.pressure", f->root, cg);
	fake_psi(path, 0, 0);
	snprintf(path, sizeof(path), "%s/%s/io.pressure", f->root, cg);
	fake_psi(path, 0, 0);
	fake_file(f, cg, "memory.min", "0\n");
	fake_file(f, cg, "memory.high", "max\n");
	fake_file(f, cg, "memory.swap.current", "0\n");
	fake_file(f, cg, "memory.swap.max", "max\n");
	fake_file(f, cg, "memory.reclaim", "%s", "");
}

static inline int fake_rm_one(const char *p, const struct stat *st, int flag,
			      struct FTW *ftw)
{
	return remove(p);
}

void fake_rmtree(const char *path)
{
	nftw(path, fake_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void fake_setup(struct fakecg *f, const char *conf)
{
	char path[PATH_MAX * 2];

	snprintf(f->top, sizeof(f->top), "/tmp/mdk-unit-XXXXXX");
	if (!mkdtemp(f->top))
		abort();
	snprintf(f->root, sizeof(f->root), "%s/cgroup", f->top);
	snprintf(f->proc, sizeof(f->proc), "%s/proc", f->top);
	snprintf(f->state, sizeof(f->state), "%s/state", f->top);
	snprintf(f->sock, sizeof(f->sock), "%s/mdkd.sock", f->top);
	snprintf(f->conf, sizeof(f->conf), "%s/mdkd.conf", f->top);
	fake_mkdirs(f->root);
	fake_mkdirs(f->proc);
	snprintf(path, sizeof(path), "%s/cgroup.controllers", f->root);
	fake_write(path, "cpuset cpu io memory pids\n");
	snprintf(path, sizeof(path), "%s/memory.pressure", f->root);
	fake_psi(path, 0, 0);
	snprintf(path, sizeof(path), "%s/memory.reclaim", f->root);
	fake_write(path, "%s", "");
	snprintf(path, sizeof(path), "%s/meminfo", f->proc);
	fake_write(path, "MemTotal: 4194304 kB\nMemFree: 1048576 kB\n"
			 "MemAvailable: 2097152 kB\nSwapTotal: 1048576 kB\n"
			 "SwapFree: 1048576 kB\n");
	fake_write(f->conf,
		   "[global]\ncgroup_root = %s\nproc_root = %s\n"
		   "state_dir = %s\nsocket = %s\n%s",
		   f->root, f->proc, f->state, f->sock, conf ? conf : "");
}

void fake_teardown(struct fakecg *f)
{
	fake_rmtree(f->top);
}
