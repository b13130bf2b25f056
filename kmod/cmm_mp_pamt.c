// SPDX-License-Identifier: GPL-2.0
/*
 * cmm_mp: the kernel-free logic of the pool.
 *
 * Discovery as the CMM-MP paper describes it: every device of the pool
 * announces its chip id and capacity; the ranks of the sorted chip ids are
 * the device ids, and the devices are laid out in the pool in id order, so
 * device 0 holds pool offsets (NHA) 0 to its capacity - 1 and so on.  The
 * Pool Address Map Table has one entry per 2 MiB granule of the pool with
 * (valid, device id, device pool offset): a lookup is one shift and one
 * load.  Segments are segment_size slices of the backed part of the pool;
 * capacities are multiples of segment_size, so a segment never straddles
 * two devices.
 *
 * This file is also compiled in userspace by tests/unit (see kshim.h): it
 * uses no kernel service beyond snprintf().
 */
#include "cmm_mp_pamt.h"

static int digit_value(char c, unsigned int base)
{
	int d;

	if (c >= '0' && c <= '9')
		d = c - '0';
	else if (c >= 'a' && c <= 'f')
		d = c - 'a' + 10;
	else if (c >= 'A' && c <= 'F')
		d = c - 'A' + 10;
	else
		return -1;
	return d < (int)base ? d : -1;
}

/* A decimal or 0x-prefixed hexadecimal number; *end is the first char after it. */
static int parse_num(const char *s, u64 *val, const char **end)
{
	unsigned int base = 10;
	const char *p = s;
	int digits = 0;
	u64 v = 0;
	int d;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	for (; (d = digit_value(*p, base)) >= 0; p++, digits++) {
		if (v > (U64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	if (!digits)
		return -EINVAL;
	*val = v;
	*end = p;
	return 0;
}

/**
 * cmm_mp_parse_size() - parse a byte count such as "1G", "0x8000000", "256M".
 * @s: the text: a decimal or 0x-prefixed hexadecimal number, then
 *	optionally K, M, G or T (binary multiples, either case).
 * @val: the result, in bytes.
 * @end: if not NULL, set to the first character after the size; if NULL,
 *	the size must be all of @s.
 *
 * Return: 0 on success, -EINVAL on malformed text, -ERANGE on overflow.
 */
int cmm_mp_parse_size(const char *s, u64 *val, const char **end)
{
	unsigned int shift = 0;
	const char *p;
	u64 v;
	int ret;

	ret = parse_num(s, &v, &p);
	if (ret)
		return ret;
	switch (*p) {
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	case 't':
	case 'T':
		shift = 40;
		break;
	}
	if (shift) {
		if (v > (U64_MAX >> shift))
			return -ERANGE;
		v <<= shift;
		p++;
	}
	if (end)
		*end = p;
	else if (*p)
		return -EINVAL;
	*val = v;
	return 0;
}

/**
 * cmm_mp_parse_devices() - parse the devices parameter.
 * @spec: a device count ("4"), or a comma-separated list of
 *	CHIP_ID:CAPACITY ("0x3c:256M,0xa1:256M"), chip ids decimal or hex,
 *	capacities as cmm_mp_parse_size() reads them.
 * @ann: room for @max announcements, filled in list order for a list.
 * @max: size of @ann.
 * @nr: the number of devices.
 * @msg: the reason of a failure, "offset N: expected ..." into @spec.
 * @len: size of @msg.
 *
 * Return: 1 for a count (@ann untouched: see cmm_mp_announce_count()), 0
 * for a list, -EINVAL when @spec is malformed, -E2BIG for more than @max
 * devices, -ERANGE when a number overflows.
 */
int cmm_mp_parse_devices(const char *spec, struct cmm_mp_announce *ann,
			 u32 max, u32 *nr, char *msg, size_t len)
{
	const char *p = spec, *q;
	u32 n = 0;
	u64 v;
	int ret;

	if (!strchr(spec, ':')) {
		ret = parse_num(p, &v, &q);
		if (ret || *q) {
			snprintf(msg, len,
				 "offset %d: expected a device count or CHIP_ID:CAPACITY,...",
				 ret ? 0 : (int)(q - spec));
			return ret == -ERANGE ? ret : -EINVAL;
		}
		if (!v || v > max) {
			snprintf(msg, len, "a device count must be 1 to %u, not %llu",
				 max, v);
			return v ? -E2BIG : -EINVAL;
		}
		*nr = v;
		return 1;
	}
	for (;;) {
		if (n == max) {
			snprintf(msg, len, "offset %d: more than %u devices",
				 (int)(p - spec), max);
			return -E2BIG;
		}
		ret = parse_num(p, &ann[n].chip_id, &q);
		if (ret || ann[n].chip_id > CMM_MP_CHIP_ID_MAX) {
			snprintf(msg, len, "offset %d: expected a chip id (0 to 0x%llx)",
				 (int)(p - spec), CMM_MP_CHIP_ID_MAX);
			return ret == -ERANGE ? ret : -EINVAL;
		}
		if (*q != ':') {
			snprintf(msg, len, "offset %d: expected ':' after the chip id",
				 (int)(q - spec));
			return -EINVAL;
		}
		p = q + 1;
		ret = cmm_mp_parse_size(p, &ann[n].capacity, &q);
		if (ret) {
			snprintf(msg, len, "offset %d: expected a capacity (such as 256M)",
				 (int)(p - spec));
			return ret;
		}
		n++;
		if (!*q)
			break;
		if (*q != ',') {
			snprintf(msg, len, "offset %d: expected ',' or the end after a capacity",
				 (int)(q - spec));
			return -EINVAL;
		}
		p = q + 1;
	}
	*nr = n;
	return 0;
}

static bool chip_id_taken(const struct cmm_mp_announce *ann, u32 nr, u64 id)
{
	u32 i;

	for (i = 0; i < nr; i++)
		if (ann[i].chip_id == id)
			return true;
	return false;
}

/**
 * cmm_mp_announce_count() - what @count emulated devices announce.
 * @count: number of devices, 1 to CMM_MP_MAX_DEVICES.
 * @pool_size: bytes of the pool.
 * @segment_size: bytes per segment.
 * @ann: @count announcements, filled.
 * @msg: the reason of a failure.
 * @len: size of @msg.
 *
 * The devices share the pool equally, in whole segments; their chip ids are
 * a fixed scramble of their announcement order (so that ranking visibly
 * reorders them) between 0x01 and 0xff.
 *
 * Return: 0 on success, -EINVAL when the pool has fewer segments than
 * @count.
 */
int cmm_mp_announce_count(u32 count, u64 pool_size, u64 segment_size,
			  struct cmm_mp_announce *ann, char *msg, size_t len)
{
	u64 per_device = pool_size / count / segment_size * segment_size;
	u32 i;

	if (!per_device) {
		snprintf(msg, len, "%u devices need %u segments of %llu MiB, the pool has %llu MiB",
			 count, count, segment_size >> 20, pool_size >> 20);
		return -EINVAL;
	}
	for (i = 0; i < count; i++) {
		/* Fibonacci hashing of the index onto one byte, never 0. */
		u64 id = (((u64)i + 1) * 0x9e3779b97f4a7c15ULL) >> 56;

		while (!id || chip_id_taken(ann, i, id))
			id = (id + 1) & 0xff;
		ann[i].chip_id = id;
		ann[i].capacity = per_device;
	}
	return 0;
}

/**
 * cmm_mp_compose() - rank the announced devices and lay them out.
 * @ann: the announcements, in the order they arrived.
 * @nr: how many, 1 to CMM_MP_MAX_DEVICES.
 * @pool_size: bytes of the pool (the reserved range).
 * @segment_size: bytes per segment.
 * @layout: @nr entries, filled in device id order.
 * @msg: the reason of a failure.
 * @len: size of @msg.
 *
 * Return: 0 on success; -EINVAL for no devices, a zero capacity or one that
 * is not a multiple of @segment_size; -EEXIST when two devices announce the
 * same chip id; -ENOSPC when the capacities add up to more than @pool_size.
 */
int cmm_mp_compose(const struct cmm_mp_announce *ann, u32 nr, u64 pool_size,
		   u64 segment_size, struct cmm_mp_layout *layout, char *msg,
		   size_t len)
{
	u32 order[CMM_MP_MAX_DEVICES];
	u64 nha = 0;
	u32 i, j;

	if (!nr || nr > CMM_MP_MAX_DEVICES) {
		snprintf(msg, len, "a pool has 1 to %u devices, not %u",
			 CMM_MP_MAX_DEVICES, nr);
		return -EINVAL;
	}
	for (i = 0; i < nr; i++) {
		if (!ann[i].capacity || ann[i].capacity % segment_size) {
			snprintf(msg, len,
				 "device 0x%llx: capacity %llu bytes is not a positive multiple of the segment size (%llu MiB)",
				 ann[i].chip_id, ann[i].capacity,
				 segment_size >> 20);
			return -EINVAL;
		}
	}
	/* Insertion sort by chip id: a pool has a few dozen devices at most. */
	for (i = 0; i < nr; i++) {
		for (j = i; j > 0 && ann[order[j - 1]].chip_id > ann[i].chip_id; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	for (i = 0; i < nr; i++) {
		const struct cmm_mp_announce *a = &ann[order[i]];

		if (i && a->chip_id == ann[order[i - 1]].chip_id) {
			snprintf(msg, len, "chip id 0x%llx is announced twice",
				 a->chip_id);
			return -EEXIST;
		}
		if (a->capacity > pool_size - nha) {
			snprintf(msg, len,
				 "the devices announce more than the pool's %llu MiB",
				 pool_size >> 20);
			return -ENOSPC;
		}
		layout[i].chip_id = a->chip_id;
		layout[i].capacity = a->capacity;
		layout[i].nha = nha;
		layout[i].announced = order[i];
		nha += a->capacity;
	}
	return 0;
}

/**
 * cmm_mp_pamt_nr_entries() - PAMT entries a pool needs.
 * @pool_size: bytes of the pool.
 *
 * Return: the number of granules, rounded up.
 */
u64 cmm_mp_pamt_nr_entries(u64 pool_size)
{
	return (pool_size + CMM_MP_GRANULE_BYTES - 1) >> CMM_MP_GRANULE_SHIFT;
}

/**
 * cmm_mp_pamt_fill() - build the PAMT of a composed pool.
 * @pamt: the table to set up.
 * @pool_size: bytes of the pool.
 * @entries: cmm_mp_pamt_nr_entries(@pool_size) entries, filled.
 * @layout: the devices, from cmm_mp_compose().
 * @nr: how many.
 *
 * Granules past the last device's capacity are invalid.
 */
void cmm_mp_pamt_fill(struct cmm_mp_pamt *pamt, u64 pool_size,
		      struct cmm_mp_pamt_entry *entries,
		      const struct cmm_mp_layout *layout, u32 nr)
{
	u64 g, nha;
	u32 d = 0;

	pamt->size = pool_size;
	pamt->nr_entries = cmm_mp_pamt_nr_entries(pool_size);
	pamt->entries = entries;
	for (g = 0; g < pamt->nr_entries; g++) {
		nha = g << CMM_MP_GRANULE_SHIFT;
		while (d < nr && nha >= layout[d].nha + layout[d].capacity)
			d++;
		if (d == nr) {
			entries[g] = (struct cmm_mp_pamt_entry){ 0 };
			continue;
		}
		entries[g].dev_offset = nha - layout[d].nha;
		entries[g].device = d;
		entries[g].valid = 1;
	}
}

/**
 * cmm_mp_pamt_lookup() - translate a pool offset, in O(1).
 * @pamt: the table.
 * @nha: the pool offset (host address - HDM base).
 * @x: the result.
 *
 * Return: 0 on success (@x->valid tells whether a device backs @nha),
 * -ERANGE when @nha is outside the pool.
 */
int cmm_mp_pamt_lookup(const struct cmm_mp_pamt *pamt, u64 nha,
		       struct cmm_mp_xlate *x)
{
	const struct cmm_mp_pamt_entry *e;

	if (nha >= pamt->size)
		return -ERANGE;
	e = &pamt->entries[nha >> CMM_MP_GRANULE_SHIFT];
	x->nha = nha;
	x->valid = e->valid;
	x->device = e->valid ? e->device : CMM_MP_NONE;
	x->dev_offset = e->valid ?
		e->dev_offset + (nha & (CMM_MP_GRANULE_BYTES - 1)) : 0;
	return 0;
}

/**
 * cmm_mp_adistance() - abstract distance of the pool's memory tier.
 * @local_ns: emulated latency of this host's own device, ns.
 * @remote_ns: emulated latency of the other devices, ns.
 * @local_bytes: capacity of this host's own device.
 * @total_bytes: capacity of all devices, more than 0.
 * @dram_adistance: the DRAM tier's abstract distance (MEMTIER_ADISTANCE_DRAM).
 *
 * The node mixes local and remote devices, so its latency is the mean over
 * its bytes; the kernel scales abstract distance linearly with latency, with
 * @dram_adistance standing for CMM_MP_DRAM_NS.
 *
 * Return: the abstract distance.
 */
int cmm_mp_adistance(u32 local_ns, u32 remote_ns, u64 local_bytes,
		     u64 total_bytes, int dram_adistance)
{
	/* In MiB, so that the products fit in 64 bits. */
	u64 local = local_bytes >> 20, total = total_bytes >> 20;
	u64 mean_ns;

	if (!total)
		return dram_adistance;
	mean_ns = (local * local_ns + (total - local) * remote_ns) / total;
	return (int)((u64)dram_adistance * mean_ns / CMM_MP_DRAM_NS);
}

/**
 * cmm_mp_seg_plan() - what an operation means for a segment in a state.
 * @state: the segment's state.
 * @op: the operation asked for.
 * @device_failed: the segment's device has failed.
 *
 * Return: an enum cmm_mp_seg_action, or -EBUSY (the segment is in use
 * the other way: shared when asked to online, online when asked to share),
 * -EIO (its device has failed), -EINVAL (no such state or operation).
 */
int cmm_mp_seg_plan(enum cmm_mp_seg_state state, enum cmm_mp_seg_op op,
		    bool device_failed)
{
	switch (op) {
	case CMM_MP_OP_ADD:
		if (state == CMM_MP_SEG_OFFLINE)
			return device_failed ? -EIO : CMM_MP_DO_HOTADD;
		if (state == CMM_MP_SEG_ADDED || state == CMM_MP_SEG_ONLINE)
			return CMM_MP_DO_NOTHING;
		return state == CMM_MP_SEG_SHARED ? -EBUSY : -EINVAL;
	case CMM_MP_OP_OFFLINE:
		if (state == CMM_MP_SEG_OFFLINE)
			return CMM_MP_DO_NOTHING;
		if (state == CMM_MP_SEG_ADDED || state == CMM_MP_SEG_ONLINE)
			return CMM_MP_DO_HOTREMOVE;
		return state == CMM_MP_SEG_SHARED ? CMM_MP_DO_REVOKE : -EINVAL;
	case CMM_MP_OP_SHARE:
		if (state == CMM_MP_SEG_OFFLINE)
			return device_failed ? -EIO : CMM_MP_DO_EXPORT;
		if (state == CMM_MP_SEG_SHARED)
			return CMM_MP_DO_NOTHING;
		if (state == CMM_MP_SEG_ADDED || state == CMM_MP_SEG_ONLINE)
			return -EBUSY;
		return -EINVAL;
	}
	return -EINVAL;
}

/**
 * cmm_mp_seg_state_of() - the state of a segment that is not shared.
 * @added: the segment is hot-added.
 * @online_blocks: how many of its memory blocks are online.
 * @nr_blocks: how many memory blocks it has.
 *
 * Return: CMM_MP_SEG_OFFLINE, CMM_MP_SEG_ADDED or CMM_MP_SEG_ONLINE.
 */
enum cmm_mp_seg_state cmm_mp_seg_state_of(bool added, u32 online_blocks,
					  u32 nr_blocks)
{
	if (!added)
		return CMM_MP_SEG_OFFLINE;
	return online_blocks >= nr_blocks ? CMM_MP_SEG_ONLINE : CMM_MP_SEG_ADDED;
}

/**
 * cmm_mp_seg_state_name() - the name of a segment state, as sysfs shows it.
 * @state: the state.
 *
 * Return: "offline", "added", "online", "shared", or "?" for no state.
 */
const char *cmm_mp_seg_state_name(enum cmm_mp_seg_state state)
{
	switch (state) {
	case CMM_MP_SEG_OFFLINE:
		return "offline";
	case CMM_MP_SEG_ADDED:
		return "added";
	case CMM_MP_SEG_ONLINE:
		return "online";
	case CMM_MP_SEG_SHARED:
		return "shared";
	}
	return "?";
}

/**
 * cmm_mp_find_run() - the first run of usable whole blocks in a range.
 * @start: first byte of the range.
 * @end: one past its last byte.
 * @block: block size in bytes, more than 0.
 * @usable: tells whether the block at an address can be used.
 * @arg: passed to @usable.
 * @run_start: the first block of the run.
 * @run_size: bytes in the run.
 *
 * Only blocks aligned to @block and wholly inside the range count; the run
 * ends at the first unusable block after a usable one.
 *
 * Return: 0 on success, -ENOENT when no block is usable.
 */
int cmm_mp_find_run(u64 start, u64 end, u64 block,
		    bool (*usable)(u64 addr, u64 size, void *arg), void *arg,
		    u64 *run_start, u64 *run_size)
{
	u64 addr = (start + block - 1) / block * block;
	u64 size = 0;

	for (; addr < end && end - addr >= block; addr += block) {
		if (usable(addr, block, arg)) {
			if (!size)
				*run_start = addr;
			size += block;
		} else if (size) {
			break;
		}
	}
	*run_size = size;
	return size ? 0 : -ENOENT;
}
