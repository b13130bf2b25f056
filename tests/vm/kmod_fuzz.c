// SPDX-License-Identifier: GPL-2.0
/*
 * Description: /dev/cmm_mp rejects malformed ioctls with the documented
 * errors (unknown numbers and directions ENOTTY, short structs EINVAL,
 * unknown nonzero tails E2BIG, bad pointers EFAULT, ids out of range
 * ENOENT, unknown flags EINVAL, addresses outside the pool ERANGE) and
 * survives a stream of random ioctls (numbers, sizes, contents) and mmaps
 * with only the errors documented for each ioctl; the pool still works
 * afterwards.
 */
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "kselftest.h"
#include "lib/kmod_util.h"
#include "../../kmod/uapi/cmm_mp.h"

#define STREAM 3000
#define SEED 0x6d646b2d66757a7aULL

static uint64_t rng = SEED;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static unsigned long cmd_of(unsigned int dir, unsigned int nr,
			    unsigned int size)
{
	return _IOC(dir, CMM_MP_IOC_MAGIC, nr, size);
}

/*
 * Each ioctl's errors as Documentation/cmm_mp.rst lists them ("Errors of
 * each ioctl"), past those of the struct: EFAULT for any, EINVAL below
 * VER0 size, E2BIG above ours.  Anything else from the stream is a bug.
 */
#define NR_IOCTLS 10
#define ERRS 8
#define IOC(name_, ver0_, struct_, ...)                                \
	[_IOC_NR(CMM_MP_IOC_##name_) - 0x40] = {                       \
		#name_, ver0_, sizeof(struct struct_), { __VA_ARGS__ } \
	}

static const struct ioc_errs {
	const char *name;
	unsigned int ver0, size;
	int errs[ERRS]; /* zero-terminated */
} iocs[NR_IOCTLS] = {
	IOC(INFO, CMM_MP_INFO_SIZE_VER0, cmm_mp_info, 0),
	IOC(DEVICE, CMM_MP_DEVICE_INFO_SIZE_VER0, cmm_mp_device_info, ENOENT),
	IOC(SEGMENT, CMM_MP_SEGMENT_INFO_SIZE_VER0, cmm_mp_segment_info,
	    ENOENT),
	IOC(TRANSLATE, CMM_MP_TRANSLATE_SIZE_VER0, cmm_mp_translate, EINVAL,
	    ERANGE),
	IOC(SEG_ADD, CMM_MP_SEGMENT_INFO_SIZE_VER0, cmm_mp_segment_info, EPERM,
	    ENOENT, EBUSY, EIO, ENOMEM, EINTR),
	IOC(SEG_OFFLINE, CMM_MP_SEGMENT_INFO_SIZE_VER0, cmm_mp_segment_info,
	    EPERM, ENOENT, EBUSY, EINTR),
	IOC(SEG_SHARE, CMM_MP_SEGMENT_INFO_SIZE_VER0, cmm_mp_segment_info,
	    EPERM, ENOENT, EBUSY, EIO, ENOMEM, EINTR),
	IOC(DEV_FAIL, CMM_MP_FAULT_SIZE_VER0, cmm_mp_fault, EPERM, EINVAL,
	    ENOENT, EBUSY, EINTR, EOPNOTSUPP),
	IOC(DEV_RECOVER, CMM_MP_FAULT_SIZE_VER0, cmm_mp_fault, EPERM, EINVAL,
	    ENOENT, EINTR, EOPNOTSUPP),
	IOC(HOSTS, CMM_MP_HOSTS_SIZE_VER0, cmm_mp_hosts, 0),
};

/* The ioctl @cmd is, or NULL for a number the module does not know. */
static const struct ioc_errs *ioc_of(unsigned long cmd)
{
	unsigned int nr = _IOC_NR(cmd);

	if (_IOC_TYPE(cmd) != CMM_MP_IOC_MAGIC || nr < 0x40 ||
	    nr >= 0x40 + NR_IOCTLS || _IOC_DIR(cmd) != (_IOC_READ | _IOC_WRITE))
		return NULL;
	return &iocs[nr - 0x40];
}

/* Whether @err (0 or -errno) is what ioctl @cmd may return. */
static int documented(unsigned long cmd, int err)
{
	const struct ioc_errs *ioc = ioc_of(cmd);
	unsigned int size = _IOC_SIZE(cmd);
	int i;

	if (!ioc)
		return err == -ENOTTY;
	if (size < ioc->ver0)
		return err == -EINVAL;
	if (!err || err == -EFAULT || (err == -E2BIG && size > ioc->size))
		return 1;
	for (i = 0; i < ERRS && ioc->errs[i]; i++)
		if (err == -ioc->errs[i])
			return 1;
	return 0;
}

/* The fixed cases: each class of malformed ioctl gets its error. */
static void check_malformed(int fd, const struct cmm_mp_info *ip)
{
	struct cmm_mp_info info = *ip;
	unsigned char buf[512], big[512];
	struct cmm_mp_translate t;
	struct cmm_mp_fault f;
	int ok, ret, i;

	ok = xioctl(fd, cmd_of(_IOC_READ | _IOC_WRITE, 0x4a, 64), buf) ==
		     -ENOTTY &&
	     xioctl(fd, cmd_of(_IOC_READ | _IOC_WRITE, 0x3f, 64), buf) ==
		     -ENOTTY &&
	     xioctl(fd, _IOWR('x', 0x40, struct cmm_mp_info), buf) == -ENOTTY &&
	     xioctl(fd, 0, buf) == -ENOTTY;
	ksft_test_result(ok, "unknown ioctl numbers: ENOTTY\n");
	ok = xioctl(fd, cmd_of(_IOC_READ, 0x40, sizeof(info)), buf) ==
		     -ENOTTY &&
	     xioctl(fd, cmd_of(_IOC_WRITE, 0x40, sizeof(info)), buf) ==
		     -ENOTTY &&
	     xioctl(fd, cmd_of(_IOC_NONE, 0x40, 0), buf) == -ENOTTY;
	ksft_test_result(ok,
			 "a known number with the wrong direction: ENOTTY\n");
	ok = 1;
	for (i = 0x40; i <= 0x49; i++)
		ok &= xioctl(fd, cmd_of(_IOC_READ | _IOC_WRITE, i, 4), buf) ==
		      -EINVAL;
	ksft_test_result(ok, "structs shorter than their VER0 size: EINVAL\n");
	memset(big, 0, sizeof(big));
	ret = xioctl(fd, cmd_of(_IOC_READ | _IOC_WRITE, 0x40, 200), big);
	ok = !ret &&
	     ((struct cmm_mp_info *)big)->abi_version == CMM_MP_ABI_VERSION &&
	     big[199] == 0;
	big[150] = 1;
	ok &= xioctl(fd, cmd_of(_IOC_READ | _IOC_WRITE, 0x40, 200), big) ==
	      -E2BIG;
	ksft_test_result(
		ok,
		"a longer struct works with a zero tail, E2BIG with a nonzero one\n");
	ok = xioctl(fd, CMM_MP_IOC_INFO, NULL) == -EFAULT &&
	     xioctl(fd, CMM_MP_IOC_SEGMENT, (void *)8) == -EFAULT;
	ksft_test_result(ok, "bad pointers: EFAULT\n");
	{
		struct cmm_mp_device_info dv = { .id = info.nr_devices };
		struct cmm_mp_segment_info sg = { .id = info.nr_segments };

		ok = xioctl(fd, CMM_MP_IOC_DEVICE, &dv) == -ENOENT &&
		     xioctl(fd, CMM_MP_IOC_SEGMENT, &sg) == -ENOENT &&
		     xioctl(fd, CMM_MP_IOC_SEG_ADD, &sg) == -ENOENT &&
		     xioctl(fd, CMM_MP_IOC_SEG_SHARE, &sg) == -ENOENT;
		sg.id = 0xffffffff;
		ok &= xioctl(fd, CMM_MP_IOC_SEG_OFFLINE, &sg) == -ENOENT;
	}
	f = (struct cmm_mp_fault){ .device = info.nr_devices };
	ok &= xioctl(fd, CMM_MP_IOC_DEV_FAIL, &f) == -ENOENT;
	ksft_test_result(ok, "device and segment ids out of range: ENOENT\n");
	t = (struct cmm_mp_translate){ .addr = info.hdm_base, .flags = 2 };
	f = (struct cmm_mp_fault){ .device = 0, .flags = 1 };
	ok = xioctl(fd, CMM_MP_IOC_TRANSLATE, &t) == -EINVAL &&
	     xioctl(fd, CMM_MP_IOC_DEV_FAIL, &f) == -EINVAL;
	f.flags = 2;
	ok &= xioctl(fd, CMM_MP_IOC_DEV_RECOVER, &f) == -EINVAL;
	ksft_test_result(ok, "unknown flags: EINVAL\n");
	t = (struct cmm_mp_translate){ .addr = info.hdm_base - 1 };
	ok = xioctl(fd, CMM_MP_IOC_TRANSLATE, &t) == -ERANGE;
	t = (struct cmm_mp_translate){ .addr = info.hdm_base +
					       info.pool_bytes };
	ok &= xioctl(fd, CMM_MP_IOC_TRANSLATE, &t) == -ERANGE;
	t = (struct cmm_mp_translate){ .addr = info.pool_bytes,
				       .flags = CMM_MP_XLATE_NHA };
	ok &= xioctl(fd, CMM_MP_IOC_TRANSLATE, &t) == -ERANGE;
	t = (struct cmm_mp_translate){ .addr = UINT64_MAX,
				       .flags = CMM_MP_XLATE_NHA };
	ok &= xioctl(fd, CMM_MP_IOC_TRANSLATE, &t) == -ERANGE;
	ksft_test_result(ok, "addresses outside the pool: ERANGE\n");
}

/*
 * STREAM random ioctls and mmaps; returns how many ioctls got an error
 * their ioctl does not document.
 */
static int random_stream(int fd, const struct cmm_mp_info *info)
{
	int counts[256] = { 0 }, ret, i, undocumented = 0, maps = 0;
	unsigned char buf[512];

	for (i = 0; i < STREAM; i++) {
		uint64_t r = rnd();
		unsigned int size = rnd() % sizeof(buf), nr, dir;
		unsigned long cmd;
		size_t k;

		for (k = 0; k < sizeof(buf); k += 8)
			*(uint64_t *)(buf + k) = rnd();
		switch (r % 4) {
		case 0: /* anything */
			cmd = (unsigned long)(uint32_t)rnd();
			break;
		case 1: /* our magic, any number, direction and size */
			cmd = cmd_of(rnd() % 4, 0x38 + rnd() % 24, size);
			break;
		default: /* a known ioctl, plausible contents */
			nr = 0x40 + rnd() % 10;
			dir = _IOC_READ | _IOC_WRITE;
			size = rnd() % 2 ? 96 : size;
			/* State changes only now and then: they are slow. */
			*(uint32_t *)buf =
				rnd() % 8 ? 1000 + rnd() % 1000 :
					    rnd() % (info->nr_segments + 1);
			if (nr == 0x43) {
				*(uint64_t *)buf =
					info->hdm_base +
					rnd() % (2 * info->pool_bytes);
				*(uint32_t *)(buf + 8) = rnd() % 3;
			}
			if (nr >= 0x47)
				*(uint32_t *)(buf + 4) = rnd() % 3;
			memset(buf + 96, 0, sizeof(buf) - 96);
			cmd = cmd_of(dir, nr, size);
			break;
		}
		ret = xioctl(fd, cmd,
			     rnd() % 64 ? (void *)buf :
					  (void *)(uintptr_t)(rnd() % 4096));
		counts[-ret & 0xff]++;
		if (!documented(cmd, ret)) {
			if (undocumented++ < 10)
				ksft_print_msg(
					"ioctl 0x%lx (%s, size %u): %s\n", cmd,
					ioc_of(cmd) ? ioc_of(cmd)->name :
						      "unknown",
					_IOC_SIZE(cmd),
					ret ? strerror(-ret) : "ok");
		}
		if (rnd() % 16 == 0) {
			size_t len = (rnd() % 4 + 1) * 4096;
			off_t off = (off_t)(rnd() % (info->nr_segments + 1)) *
					    info->segment_bytes +
				    (rnd() % 8) * 4096;
			void *m = mmap(
				NULL, len,
				rnd() % 2 ? PROT_READ : PROT_READ | PROT_WRITE,
				rnd() % 4 ? MAP_SHARED : MAP_PRIVATE, fd, off);

			if (m != MAP_FAILED) {
				maps++;
				munmap(m, len);
			}
		}
	}
	ksft_print_msg(
		"%d random ioctls (seed 0x%llx): ok %d, ENOTTY %d, EINVAL %d, E2BIG %d, EFAULT %d, ENOENT %d, ERANGE %d, EBUSY %d, EIO %d; %d mmaps succeeded\n",
		STREAM, (unsigned long long)SEED, counts[0], counts[ENOTTY],
		counts[EINVAL], counts[E2BIG], counts[EFAULT], counts[ENOENT],
		counts[ERANGE], counts[EBUSY], counts[EIO], maps);
	return undocumented;
}

/* After the stream: the pool answers, recovers, offlines, shares. */
static void check_after(int fd)
{
	struct cmm_mp_info info;
	struct cmm_mp_fault f;
	int ok;
	uint32_t d;

	memset(&info, 0, sizeof(info));
	ok = !xioctl(fd, CMM_MP_IOC_INFO, &info) &&
	     info.abi_version == CMM_MP_ABI_VERSION;
	for (d = 0; d < info.nr_devices; d++) {
		f = (struct cmm_mp_fault){ .device = d };
		ok &= !xioctl(fd, CMM_MP_IOC_DEV_RECOVER, &f);
	}
	for (d = 0; d < info.nr_segments; d++) {
		struct cmm_mp_segment_info sg = { .id = d };

		ok &= !xioctl(fd, CMM_MP_IOC_SEG_OFFLINE, &sg) &&
		      sg.state == CMM_MP_SEG_OFFLINE;
	}
	ksft_test_result(
		ok,
		"afterwards the pool answers; every device recovers, every segment offlines\n");
	{
		struct cmm_mp_segment_info sg = { .id = 0 };
		uint64_t *m;

		ok = !xioctl(fd, CMM_MP_IOC_SEG_SHARE, &sg);
		m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		ok &= m != MAP_FAILED && m[0] == 0;
		if (m != MAP_FAILED)
			munmap(m, 4096);
		ok &= !xioctl(fd, CMM_MP_IOC_SEG_OFFLINE, &sg);
	}
	ksft_test_result(ok, "and a segment can still be shared and mapped\n");
}

int main(void)
{
	const char *skip;
	struct cmm_mp_info info = { 0 };
	int fd, ret;

	ksft_print_header();
	skip = kmod_skip_reason(getenv("MDK_POOL_BASE"));
	if (skip)
		ksft_exit_skip("%s\n", skip);
	ret = kmod_load("");
	if (ret)
		ksft_exit_fail_msg("finit_module: %s\n", strerror(-ret));
	fd = open(CMM_MP_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, CMM_MP_IOC_INFO, &info))
		ksft_exit_fail_msg("%s: %s\n", CMM_MP_DEVICE_PATH,
				   strerror(errno));
	ksft_set_plan(12);

	check_malformed(fd, &info);
	ksft_test_result(
		!random_stream(fd, &info),
		"the random stream got only the errors documented for each ioctl\n");

	check_after(fd);
	close(fd);
	ret = kmod_unload();
	ksft_test_result(!ret, "unloaded\n");
	ksft_finished();
}
