// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The cmm_mp back end: a memory node on one device of the emulated CMM-MP
 * pool (kmod/, Documentation/cmm_mp.rst).  The node shares one segment of
 * its device (CMM_MP_IOC_SEG_SHARE) and maps it from /dev/cmm_mp; one node
 * per pool device, so that a failed device is one crashed node.
 *
 * A failed device revokes the mappings of its shared segments: accesses
 * then fault with SIGBUS, which the mapped back end's guard turns into a
 * crashed node.  The node also polls the device's state (at most once a
 * millisecond), so that it stops answering even before an access faults.
 * The round-trip time starts as the device's emulated load latency from
 * this host (its local or remote latency in the pool map).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <mdk/memnode.h>

#include "swarm_int.h"

#include "kmod/uapi/cmm_mp.h"

struct cmm_node {
	int fd;
	unsigned int device;
	uint64_t next_poll_ns;
	bool failed;
	const struct mdk_swarm_memnode_ops *mapped;
	void *mapped_priv;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int mdk_swarm_memnode_cmm_mp_info(const char *path, unsigned int *nr_devices,
				  uint64_t *segment_bytes, char *err,
				  size_t errlen)
{
	struct cmm_mp_info info = { 0 };
	int fd = open(path ? path : CMM_MP_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		int e = errno;

		sw_err(err, errlen, "cmm_mp: %s: %s",
		       path ? path : CMM_MP_DEVICE_PATH, strerror(e));
		return -e;
	}
	if (ioctl(fd, CMM_MP_IOC_INFO, &info)) {
		int e = errno;

		sw_err(err, errlen, "cmm_mp: CMM_MP_IOC_INFO: %s", strerror(e));
		close(fd);
		return -e;
	}
	close(fd);
	*nr_devices = info.nr_devices;
	*segment_bytes = info.segment_bytes;
	return 0;
}

static bool cmm_failed(void *priv)
{
	struct cmm_node *cn = priv;
	struct cmm_mp_device_info di = { .id = cn->device };
	uint64_t now;

	if (cn->failed)
		return true;
	now = now_ns();
	if (now < cn->next_poll_ns)
		return false;
	cn->next_poll_ns = now + 1000000;
	if (!ioctl(cn->fd, CMM_MP_IOC_DEVICE, &di) &&
	    di.state == CMM_MP_DEV_FAILED)
		cn->failed = true;
	return cn->failed;
}

static int cmm_read(void *priv, uint64_t off, void *buf, size_t len)
{
	struct cmm_node *cn = priv;

	return cn->mapped->read(cn->mapped_priv, off, buf, len);
}

static int cmm_write(void *priv, uint64_t off, const void *buf, size_t len)
{
	struct cmm_node *cn = priv;

	return cn->mapped->write(cn->mapped_priv, off, buf, len);
}

static int cmm_cas(void *priv, uint64_t off, uint64_t expect, uint64_t desired,
		   uint64_t *old)
{
	struct cmm_node *cn = priv;

	return cn->mapped->cas(cn->mapped_priv, off, expect, desired, old);
}

static void cmm_destroy(void *priv)
{
	struct cmm_node *cn = priv;

	cn->mapped->destroy(cn->mapped_priv);
	close(cn->fd);
	free(cn);
}

static const struct mdk_swarm_memnode_ops cmm_ops = {
	.name = "cmm_mp",
	.read = cmm_read,
	.write = cmm_write,
	.cas = cmm_cas,
	.failed = cmm_failed,
	.destroy = cmm_destroy,
};

struct mdk_swarm_memnode *mdk_swarm_memnode_new_cmm_mp(const char *path,
						       unsigned int device,
						       unsigned int segment,
						       uint64_t bytes,
						       char *err, size_t errlen)
{
	const char *p = path ? path : CMM_MP_DEVICE_PATH;
	struct cmm_mp_device_info di = { .id = device };
	struct cmm_mp_segment_info si = { 0 };
	struct mdk_swarm_memnode *inner, *n;
	struct cmm_node *cn;
	void *base;
	int fd, e;

	fd = open(p, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		sw_err(err, errlen, "cmm_mp: %s: %s", p, strerror(e));
		return NULL;
	}
	if (ioctl(fd, CMM_MP_IOC_DEVICE, &di)) {
		e = errno;
		sw_err(err, errlen, "cmm_mp: device %u: %s", device,
		       strerror(e));
		goto err_close;
	}
	if (di.state == CMM_MP_DEV_FAILED) {
		sw_err(err, errlen, "cmm_mp: device %u has failed", device);
		goto err_close;
	}
	if (segment == MDK_SWARM_MEMNODE_CMM_MP_LAST)
		segment = di.first_segment + di.nr_segments - 1;
	else if (segment == MDK_SWARM_MEMNODE_CMM_MP_FIRST)
		segment = di.first_segment;
	if (segment < di.first_segment ||
	    segment >= di.first_segment + di.nr_segments) {
		sw_err(err, errlen,
		       "cmm_mp: segment %u is not on device %u (segments %u-%u)",
		       segment, device, di.first_segment,
		       di.first_segment + di.nr_segments - 1);
		goto err_close;
	}
	si.id = segment;
	if (ioctl(fd, CMM_MP_IOC_SEG_SHARE, &si)) {
		e = errno;
		sw_err(err, errlen, "cmm_mp: share segment %u: %s", segment,
		       strerror(e));
		goto err_close;
	}
	if (!bytes)
		bytes = si.bytes;
	if (bytes > si.bytes || bytes % 8) {
		sw_err(err, errlen,
		       "cmm_mp: segment %u has %llu bytes, %llu asked", segment,
		       (unsigned long long)si.bytes, (unsigned long long)bytes);
		goto err_close;
	}
	base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    (off_t)si.mmap_offset);
	if (base == MAP_FAILED) {
		e = errno;
		sw_err(err, errlen, "cmm_mp: mmap segment %u: %s", segment,
		       strerror(e));
		goto err_close;
	}
	inner = sw_memnode_new_mapped(NULL, base, bytes, true, err, errlen);
	if (!inner) {
		munmap(base, bytes);
		goto err_close;
	}
	cn = calloc(1, sizeof(*cn));
	if (!cn) {
		sw_err(err, errlen, "cmm_mp: out of memory");
		mdk_swarm_memnode_destroy(inner);
		goto err_close;
	}
	cn->fd = fd;
	cn->device = device;
	sw_memnode_steal(inner, &cn->mapped, &cn->mapped_priv);
	n = mdk_swarm_memnode_new(&cmm_ops, cn, bytes, err, errlen);
	if (!n) {
		cmm_destroy(cn);
		return NULL;
	}
	mdk_swarm_memnode_set_rtt(n, di.latency_ns);
	return n;
err_close:
	close(fd);
	return NULL;
}
