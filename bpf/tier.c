// SPDX-License-Identifier: GPL-2.0
/*
 * The tier node's memory blocks, for STAR: the BPF program counts an
 * accessed page as resident on the tier node when the memory block of its
 * frame is set in the bitmap tier_blocks, which this fills from
 * SYS/devices/system/node/nodeN/memoryB and refreshes every window
 * (memory is hot-added later).
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "sampler_int.h"

/* The tier bitmap covers physical addresses up to 64 TiB (at least). */
#define TIER_PHYS_BITS 46

static int read_u64_file(const char *path, int base, uint64_t *v, char *msg,
			 size_t len)
{
	char buf[64], *end;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		set_msg(msg, len, "%s: %s", path, strerror(errno));
		return -errno;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0) {
		set_msg(msg, len, "%s: %s", path, strerror(errno));
		return -EIO;
	}
	buf[n] = '\0';
	errno = 0;
	*v = strtoull(buf, &end, base);
	if (end == buf || (*end && *end != '\n') || errno) {
		set_msg(msg, len, "%s:1: expected a number, got '%.*s'", path,
			(int)strcspn(buf, "\n"), buf);
		return -EINVAL;
	}
	return 0;
}

/* SYS/devices/system/memory/block_size_bytes (hex, no 0x). */
static int memory_block_bytes(const char *sys_root, uint64_t *bytes, char *msg,
			      size_t len)
{
	char path[PATH_MAX];
	int err;

	snprintf(path, sizeof(path),
		 "%s/devices/system/memory/block_size_bytes", sys_root);
	err = read_u64_file(path, 16, bytes, msg, len);
	if (err)
		return err;
	if (*bytes < 4096 || (*bytes & (*bytes - 1))) {
		set_msg(msg, len, "%s:1: expected a power of two >= 4096",
			path);
		return -EINVAL;
	}
	return 0;
}

int mdk_sampler_node_blocks(const char *sys_root, int node, uint64_t *bitmap,
			    size_t nwords, uint64_t *block_bytes, char *msg,
			    size_t len)
{
	char path[PATH_MAX], *end;
	struct dirent *de;
	unsigned long b;
	int err;
	DIR *d;

	err = memory_block_bytes(sys_root, block_bytes, msg, len);
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/devices/system/node/node%d", sys_root,
		 node);
	d = opendir(path);
	if (!d) {
		err = -errno;
		set_msg(msg, len, "%s: %s (no NUMA node %d?)", path,
			strerror(errno), node);
		return err;
	}
	memset(bitmap, 0, nwords * sizeof(*bitmap));
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "memory", 6) || !de->d_name[6])
			continue;
		errno = 0;
		b = strtoul(de->d_name + 6, &end, 10);
		if (*end || errno)
			continue; /* memory_failure, memory_side_cache... */
		if (b / 64 >= nwords) {
			set_msg(msg, len,
				"%s/%s: block beyond the %zu-word map", path,
				de->d_name, nwords);
			err = -E2BIG;
			break;
		}
		bitmap[b / 64] |= 1ULL << (b % 64);
	}
	closedir(d);
	return err;
}

/*
 * Size the tier bitmap for the block size (*@block_bytes) and fail now on
 * a node that does not exist; nothing to do without a tier node.
 */
int sampler__tier_init(struct mdk_sampler *s, uint64_t *block_bytes, char *msg,
		       size_t len)
{
	int err;

	if (s->tier_node < 0)
		return 0;
	err = memory_block_bytes(s->sys_root, block_bytes, msg, len);
	if (err)
		return err;
	s->tier_words = ((1ULL << TIER_PHYS_BITS) / *block_bytes + 63) / 64;
	s->tier_scratch = calloc(s->tier_words, sizeof(uint64_t));
	if (!s->tier_scratch) {
		set_msg(msg, len, "out of memory");
		return -ENOMEM;
	}
	return mdk_sampler_node_blocks(s->sys_root, s->tier_node,
				       s->tier_scratch, s->tier_words,
				       block_bytes, msg, len);
}

/* Refresh the tier node's block bitmap (memory is hot-added later). */
int sampler__tier_refresh(struct mdk_sampler *s, char *msg, size_t len)
{
	uint64_t bytes;
	size_t i;
	int err;

	if (s->tier_node < 0)
		return 0;
	err = mdk_sampler_node_blocks(s->sys_root, s->tier_node,
				      s->tier_scratch, s->tier_words, &bytes,
				      msg, len);
	if (err)
		return err;
	for (i = 0; i < s->tier_words; i++)
		if (s->tier[i] != s->tier_scratch[i])
			s->tier[i] = s->tier_scratch[i];
	return 0;
}
