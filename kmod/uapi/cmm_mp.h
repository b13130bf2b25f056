/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * cmm_mp: the user ABI of the emulated Samsung CMM-MP memory pool, the
 * character device /dev/cmm_mp.  This header is shared by the module and
 * by userspace (mdkctl, SWARM-KV); Documentation/cmm_mp.rst, section "The
 * /dev/cmm_mp ABI", describes it.
 *
 * Every ioctl takes a pointer to one struct and is declared _IOWR: the
 * caller fills the input fields (marked "in"), the module fills the rest.
 * Structs only ever grow at their end.  The module reads the size from
 * the ioctl number: a caller built against an older, shorter struct gets
 * the fields it knows; a caller with a newer, longer struct must leave the
 * fields the module does not know zero (or gets -E2BIG).  Sizes below
 * CMM_MP_*_SIZE_VER0 are refused with -EINVAL.  Unknown flags are refused
 * with -EINVAL, ids out of range with -ENOENT.
 *
 * Shared segments are mapped with mmap(2) on /dev/cmm_mp: MAP_SHARED,
 * offset = the segment's mmap_offset (always id * segment_bytes), length
 * at most segment_bytes; a mapping never spans two segments.  Accesses
 * after the segment's device failed, or after the segment stopped being
 * shared, get SIGBUS.  Aligned 64-bit atomics on the mapping work; the
 * emulated device guarantees their atomicity, not any ordering between
 * hosts.
 */
#ifndef _UAPI_CMM_MP_H
#define _UAPI_CMM_MP_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

/* 2: multi-host fields in cmm_mp_info and _segment_info, CMM_MP_IOC_HOSTS. */
#define CMM_MP_ABI_VERSION 2
#define CMM_MP_DEVICE_PATH "/dev/cmm_mp"

/* 0xCE is CXL's letter (uapi/linux/cxl_mem.h uses 0x01-0x02): ours is 0x40-0x4f. */
#define CMM_MP_IOC_MAGIC 0xCE

/* Segment states (cmm_mp_segment_info.state, sysfs segN/state). */
enum cmm_mp_seg_state {
	CMM_MP_SEG_OFFLINE = 0, /* reserved by the module, in nobody's use */
	CMM_MP_SEG_ADDED = 1,	/* hot-added to the node, some blocks offline */
	CMM_MP_SEG_ONLINE = 2,	/* all memory blocks online (ZONE_MOVABLE) */
	CMM_MP_SEG_SHARED = 3,	/* exported for mmap of /dev/cmm_mp */
};

/* Device states (cmm_mp_device_info.state, sysfs devN/state). */
enum cmm_mp_dev_state {
	CMM_MP_DEV_OK = 0,
	CMM_MP_DEV_FAILED = 1,	/* failed by CMM_MP_IOC_DEV_FAIL */
};

/* "No such segment", e.g. cmm_mp_fault.first_busy when none is busy. */
#define CMM_MP_NONE 0xffffffffU

/* cmm_mp_info.flags: how the module was built. */
#define CMM_MP_INFO_FAULT_INJECTION _BITUL(0)
#define CMM_MP_INFO_TRACEPOINTS _BITUL(1)

/**
 * struct cmm_mp_info - the pool (CMM_MP_IOC_INFO); every field is out.
 * @abi_version: CMM_MP_ABI_VERSION of the module.
 * @flags: CMM_MP_INFO_* build options.
 * @hdm_base: host physical address of pool offset (NHA) 0.
 * @pool_bytes: size of the pool in bytes.
 * @segment_bytes: size of a segment (MPS) in bytes.
 * @granule_bytes: bytes mapped by one PAMT entry.
 * @block_bytes: the kernel's memory block size in bytes.
 * @nr_devices: number of pool devices.
 * @nr_segments: number of segments.
 * @node: NUMA node the segments are onlined into.
 * @self: device id of this host's own device.
 * @local_ns: emulated load latency of this host's device, ns.
 * @remote_ns: emulated load latency of the other devices, ns.
 * @adistance: abstract distance of the node's memory tier.
 * @host: this host's id in the pool (0 with one host; ABI 2).
 * @nr_hosts: hosts sharing the pool (1, or 0 from a module of ABI 1).
 * @reserved: zero.
 */
struct cmm_mp_info {
	__u32 abi_version;
	__u32 flags;
	__u64 hdm_base;
	__u64 pool_bytes;
	__u64 segment_bytes;
	__u64 granule_bytes;
	__u64 block_bytes;
	__u32 nr_devices;
	__u32 nr_segments;
	__s32 node;
	__u32 self;
	__u32 local_ns;
	__u32 remote_ns;
	__s32 adistance;
	__u8 host;
	__u8 nr_hosts;
	__u16 reserved;
};

#define CMM_MP_INFO_SIZE_VER0 80

/* cmm_mp_device_info.flags */
#define CMM_MP_DEVICE_LOCAL _BITUL(0) /* this host's own device */

/**
 * struct cmm_mp_device_info - one pool device (CMM_MP_IOC_DEVICE).
 * @id: in: device id, 0 to nr_devices - 1 (the rank of its chip id).
 * @state: enum cmm_mp_dev_state.
 * @chip_id: the chip id the device announced at discovery.
 * @capacity_bytes: the capacity it announced.
 * @nha: pool offset of the device's first byte.
 * @first_segment: id of its first segment.
 * @nr_segments: number of its segments (consecutive ids).
 * @latency_ns: emulated load latency from this host, ns.
 * @flags: CMM_MP_DEVICE_*.
 * @lookups: PAMT lookups that resolved to this device.
 * @failures: times the device was failed.
 */
struct cmm_mp_device_info {
	__u32 id;
	__u32 state;
	__u64 chip_id;
	__u64 capacity_bytes;
	__u64 nha;
	__u32 first_segment;
	__u32 nr_segments;
	__u32 latency_ns;
	__u32 flags;
	__u64 lookups;
	__u64 failures;
};

#define CMM_MP_DEVICE_INFO_SIZE_VER0 64

/* cmm_mp_segment_info.flags */
#define CMM_MP_SEGMENT_LOCAL _BITUL(0)	    /* on this host's own device */
#define CMM_MP_SEGMENT_DEV_FAILED _BITUL(1) /* its device has failed */

/*
 * cmm_mp_segment_info.holding: how the segment is held in the pool, by
 * which hosts (holders).  With one host this follows the segment's state.
 */
enum cmm_mp_holding {
	CMM_MP_HOLD_NONE = 0,	   /* free */
	CMM_MP_HOLD_EXCLUSIVE = 1, /* onlined (pooled) by one host */
	CMM_MP_HOLD_SHARED = 2,	   /* shared by the holders */
	CMM_MP_HOLD_INVALID = 3,   /* its owner word is corrupt */
};

/**
 * struct cmm_mp_segment_info - one segment (CMM_MP_IOC_SEGMENT and the
 * segment operations, which return the segment as it is afterwards).
 * @id: in: segment id, 0 to nr_segments - 1.
 * @state: enum cmm_mp_seg_state.
 * @device: id of the device holding the segment.
 * @flags: CMM_MP_SEGMENT_*.
 * @phys: host physical address of its first byte.
 * @nha: its pool offset.
 * @dev_offset: its offset inside its device.
 * @bytes: its size (segment_bytes).
 * @mmap_offset: mmap(2) offset of the segment on /dev/cmm_mp.
 * @first_block: first memory block (/sys/devices/system/memory/memoryN).
 * @nr_blocks: number of its memory blocks.
 * @online_blocks: how many of them are online.
 * @mappings: live mappings (VMAs) of the shared segment.
 * @owner: thread group id of the process that onlined or shared it, 0 if
 *	offline.
 * @holders: hosts holding it, bit h for host h (ABI 2).  When an online
 *	or share gives -EBUSY because another live host holds the segment,
 *	they name that host.
 * @holding: enum cmm_mp_holding (ABI 2).
 * @reserved: zero.
 * @lookups: PAMT lookups that resolved into the segment.
 * @failures: operations and accesses refused on it: failed state changes
 *	and faults answered with SIGBUS.
 */
struct cmm_mp_segment_info {
	__u32 id;
	__u32 state;
	__u32 device;
	__u32 flags;
	__u64 phys;
	__u64 nha;
	__u64 dev_offset;
	__u64 bytes;
	__u64 mmap_offset;
	__u32 first_block;
	__u32 nr_blocks;
	__u32 online_blocks;
	__u32 mappings;
	__s32 owner;
	__u8 holders;
	__u8 holding;
	__u16 reserved;
	__u64 lookups;
	__u64 failures;
};

#define CMM_MP_SEGMENT_INFO_SIZE_VER0 96

/* cmm_mp_translate.flags (in) */
#define CMM_MP_XLATE_NHA _BITUL(0) /* addr is a pool offset, not a host address */
/* cmm_mp_translate.result (out) */
#define CMM_MP_XLATE_VALID _BITUL(0)	  /* the PAMT entry is valid */
#define CMM_MP_XLATE_LOCAL _BITUL(1)	  /* on this host's own device */
#define CMM_MP_XLATE_DEV_FAILED _BITUL(2) /* on a failed device */

/**
 * struct cmm_mp_translate - a PAMT lookup (CMM_MP_IOC_TRANSLATE).
 * @addr: in: host physical address (HA), or NHA with CMM_MP_XLATE_NHA.
 * @flags: in: CMM_MP_XLATE_NHA or 0.
 * @result: CMM_MP_XLATE_VALID, _LOCAL, _DEV_FAILED.
 * @nha: the pool offset, HA - hdm_base.
 * @device: device id of the entry.
 * @segment: segment holding the address.
 * @chip_id: chip id of the device.
 * @dev_offset: device pool offset of the address.
 * @latency_ns: emulated load latency of the address from this host, ns.
 * @reserved: zero.
 *
 * An address outside the pool gives -ERANGE.
 */
struct cmm_mp_translate {
	__u64 addr;
	__u32 flags;
	__u32 result;
	__u64 nha;
	__u32 device;
	__u32 segment;
	__u64 chip_id;
	__u64 dev_offset;
	__u32 latency_ns;
	__u32 reserved;
};

#define CMM_MP_TRANSLATE_SIZE_VER0 56

/* cmm_mp_fault.flags (in) */
#define CMM_MP_RECOVER_WIPE _BITUL(0) /* zero the device's shared segments */

/**
 * struct cmm_mp_fault - fail or recover a device (CMM_MP_IOC_DEV_FAIL,
 * CMM_MP_IOC_DEV_RECOVER).
 * @device: in: device id.
 * @flags: in: CMM_MP_RECOVER_WIPE (recover only) or 0.
 * @segments_offlined: online segments offlined (their pages migrated).
 * @segments_revoked: shared segments whose mappings were revoked.
 * @segments_busy: online segments whose pages could not be migrated;
 *	they stay online and the ioctl returns -EBUSY.
 * @first_busy: id of the first of them, or CMM_MP_NONE.
 */
struct cmm_mp_fault {
	__u32 device;
	__u32 flags;
	__u32 segments_offlined;
	__u32 segments_revoked;
	__u32 segments_busy;
	__u32 first_busy;
};

#define CMM_MP_FAULT_SIZE_VER0 24

/* Most hosts sharing a pool. */
#define CMM_MP_HOSTS_MAX 8

/* cmm_mp_hosts.state[]: a host's liveness as this host sees it. */
enum cmm_mp_host_state {
	CMM_MP_HOST_STATE_ABSENT = 0, /* never seen, or unloaded cleanly */
	CMM_MP_HOST_STATE_ALIVE = 1,  /* its heartbeat changed within a lease */
	CMM_MP_HOST_STATE_DEAD = 2,   /* unchanged for a lease: takeable */
};

/**
 * struct cmm_mp_hosts - the hosts sharing the pool (CMM_MP_IOC_HOSTS,
 * ABI 2); every field is out.
 * @host: this host's id.
 * @nr_hosts: hosts sharing the pool; 1: no control area, and only this
 *	host's entries mean anything.
 * @lease_ms: lease: a host whose heartbeat stays unchanged this long is dead.
 * @alive: hosts alive, bit h for host h (this host included).
 * @state: enum cmm_mp_host_state of each host.
 * @heartbeat: each host's heartbeat word as last read (0: absent).
 * @takeovers: segments this host took from dead hosts since load.
 */
struct cmm_mp_hosts {
	__u32 host;
	__u32 nr_hosts;
	__u32 lease_ms;
	__u32 alive;
	__u8 state[CMM_MP_HOSTS_MAX];
	__u64 heartbeat[CMM_MP_HOSTS_MAX];
	__u64 takeovers;
};

#define CMM_MP_HOSTS_SIZE_VER0 96

/* The pool, a device, a segment: all out except the id. */
#define CMM_MP_IOC_INFO _IOWR(CMM_MP_IOC_MAGIC, 0x40, struct cmm_mp_info)
#define CMM_MP_IOC_DEVICE _IOWR(CMM_MP_IOC_MAGIC, 0x41, struct cmm_mp_device_info)
#define CMM_MP_IOC_SEGMENT _IOWR(CMM_MP_IOC_MAGIC, 0x42, struct cmm_mp_segment_info)
/* A PAMT lookup; traced as cmm_mp:pamt_lookup. */
#define CMM_MP_IOC_TRANSLATE _IOWR(CMM_MP_IOC_MAGIC, 0x43, struct cmm_mp_translate)
/*
 * Hot-add an offline segment into the node.  Its memory blocks are then
 * online if the kernel's auto_online_blocks is online_movable, otherwise
 * offline until userspace writes "online_movable" to each
 * /sys/devices/system/memory/memoryN/state (first_block .. first_block +
 * nr_blocks - 1); the module refuses to let them online into any zone but
 * ZONE_MOVABLE.  A segment already added is returned as it is; a shared
 * one gives -EBUSY, one on a failed device -EIO.  In a multi-host pool, a
 * segment another live host holds gives -EBUSY with holders naming it and
 * nothing changed; one a dead host held is taken over.
 */
#define CMM_MP_IOC_SEG_ADD _IOWR(CMM_MP_IOC_MAGIC, 0x44, struct cmm_mp_segment_info)
/*
 * Offline a segment: an added or online one is offlined, its pages migrated
 * to other memory, and removed (offline_and_remove_memory()); this waits for
 * migration until it succeeds or the caller gets a signal, and then gives
 * -EBUSY with the segment still online and its data intact.  A shared one
 * stops being shared: its mappings are revoked.
 */
#define CMM_MP_IOC_SEG_OFFLINE _IOWR(CMM_MP_IOC_MAGIC, 0x45, struct cmm_mp_segment_info)
/*
 * Export an offline segment for mmap; it is zeroed first, unless other
 * live hosts share it already (multi-host pools).  A segment already
 * shared is returned as it is; an added or online one gives -EBUSY, one on
 * a failed device -EIO; in a multi-host pool, one another live host has
 * onlined gives -EBUSY with holders naming it.
 */
#define CMM_MP_IOC_SEG_SHARE _IOWR(CMM_MP_IOC_MAGIC, 0x46, struct cmm_mp_segment_info)
/*
 * Fail a device: its shared segments' mappings are revoked (accesses get
 * SIGBUS until it recovers), its added and online segments offlined with
 * migration; -EBUSY when some could not be.  Failing a failed device does
 * it again for what is left.  -EOPNOTSUPP without fault injection.
 */
#define CMM_MP_IOC_DEV_FAIL _IOWR(CMM_MP_IOC_MAGIC, 0x47, struct cmm_mp_fault)
/*
 * Recover a failed device: its segments can be onlined and shared again;
 * existing mappings of its shared segments work again (the emulation keeps
 * their contents unless CMM_MP_RECOVER_WIPE).
 */
#define CMM_MP_IOC_DEV_RECOVER _IOWR(CMM_MP_IOC_MAGIC, 0x48, struct cmm_mp_fault)
/* The hosts sharing the pool and their liveness (ABI 2). */
#define CMM_MP_IOC_HOSTS _IOWR(CMM_MP_IOC_MAGIC, 0x49, struct cmm_mp_hosts)

#endif /* _UAPI_CMM_MP_H */
