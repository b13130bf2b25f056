/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmm_mp.h: what the files of cmm_mp.ko share.
 *
 * One pool per module instance (struct cmm_mp_pool), its devices and its
 * segments.  Locking, outermost first:
 *
 *   pool->lock        mutex; serialises every state change (segment
 *                     operations, device fail and recover).  Readers
 *                     (ioctl queries, sysfs) do not take it.
 *   device_hotplug    taken by the kernel inside add_memory_driver_managed()
 *                     and offline_and_remove_memory(), and around sysfs
 *                     onlining; the memory notifier runs under it, so the
 *                     notifier never takes pool->lock.
 *   pool->map_lock    rw_semaphore; a fault reads a shared segment's state
 *                     and inserts its PTE under it (read), revocation
 *                     flips the state under it (write) and then zaps.
 *   pool->files_lock  mutex; the list of open files, whose mappings
 *                     revocation zaps.
 *   pool->state_lock  spinlock; a segment's added/shared/online_pages,
 *                     from which its state is derived.
 *   pool->lease_lock  spinlock; what this host saw of the other hosts'
 *                     heartbeats (multi-host pools only).
 *
 * With hosts > 1 the owner words in the control area (cmm_mp_hosts.c) are
 * shared with the other hosts: they are changed by compare-and-exchange
 * only, under pool->lock for this host's part.
 */
#ifndef CMM_MP_H
#define CMM_MP_H

#include <linux/atomic.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include <linux/workqueue.h>

#include "cmm_mp_owner.h"
#include "cmm_mp_pamt.h"
#include "uapi/cmm_mp.h"

#define CMM_MP_VERSION "0.1.0"
/* Resource name of hot-added segments in /proc/iomem. */
#define CMM_MP_RAM_NAME "System RAM (cmm_mp)"
/* Resource name of the whole pool in /proc/iomem. */
#define CMM_MP_POOL_NAME "CMM-MP pool"
/* Bounds of lease_ms. */
#define CMM_MP_LEASE_MIN_MS 100
#define CMM_MP_LEASE_MAX_MS 60000

struct cmm_mp_pool;

/**
 * struct cmm_mp_device - a pool device.
 * @pool: the pool.
 * @id: device id, the rank of @chip_id.
 * @chip_id: the chip id it announced.
 * @capacity: bytes it announced.
 * @nha: pool offset of its first byte.
 * @announced: its position in the announcement order.
 * @first_seg: its first segment.
 * @nr_segs: its number of segments.
 * @latency_ns: emulated latency from this host.
 * @failed: failed by fault injection; written under pool->lock and
 *	pool->map_lock (write), read under either.
 * @lookups: PAMT lookups that resolved to it.
 * @failures: times it was failed.
 * @kobj: /sys/kernel/cmm_mp/devices/devN.
 */
struct cmm_mp_device {
	struct cmm_mp_pool *pool;
	u32 id;
	u64 chip_id;
	u64 capacity;
	u64 nha;
	u32 announced;
	u32 first_seg;
	u32 nr_segs;
	u32 latency_ns;
	bool failed;
	atomic64_t lookups;
	atomic64_t failures;
	struct kobject *kobj;
};

/**
 * struct cmm_mp_segment - a pool segment (MPS).
 * @pool: the pool.
 * @id: segment id.
 * @device: the device holding it.
 * @phys: host physical address of its first byte.
 * @nha: its pool offset.
 * @dev_offset: its offset inside @device.
 * @added: hot-added into the node (under pool->state_lock).
 * @shared: exported for mmap (under pool->state_lock, changed under
 *	pool->map_lock write too).
 * @online_pages: pages of it online (under pool->state_lock).
 * @hotadding: a hot-add by the module is under way (the kernel's own
 *	attempt to online the new blocks is then refused quietly).
 * @gen: generation of the shared export; mappings made for an older one
 *	are revoked (under pool->map_lock).
 * @vaddr: kernel mapping of the segment while shared.
 * @owner: tgid of the process that onlined or shared it, 0 if offline.
 * @mappings: live VMAs mapping it.
 * @lookups: PAMT lookups that resolved into it.
 * @failures: refused state changes and faults answered with SIGBUS.
 * @kobj: /sys/kernel/cmm_mp/segments/segN.
 */
struct cmm_mp_segment {
	struct cmm_mp_pool *pool;
	u32 id;
	struct cmm_mp_device *device;
	u64 phys;
	u64 nha;
	u64 dev_offset;
	bool added;
	bool shared;
	unsigned long online_pages;
	bool hotadding;
	unsigned long gen;
	void *vaddr;
	pid_t owner;
	atomic_t mappings;
	atomic64_t lookups;
	atomic64_t failures;
	struct kobject *kobj;
};

/**
 * struct cmm_mp_pool - the pool: parameters, composition, kernel objects.
 * @base: host physical address of NHA 0 (the HDM base).
 * @size: bytes of the reserved range the pool spans.
 * @segment_size: bytes per segment.
 * @block_size: the kernel's memory block size.
 * @node: NUMA node segments are onlined into.
 * @self: device id of this host's device.
 * @local_ns: emulated latency of @self.
 * @remote_ns: emulated latency of the other devices.
 * @adistance: abstract distance of the node's memory tier.
 * @pamt: the Pool Address Map Table.
 * @nr_devices: number of devices.
 * @devices: the devices, by id.
 * @nr_segments: number of segments.
 * @segments: the segments, by id.
 * @lock: serialises state changes.
 * @state_lock: protects segments' added, shared, online_pages.
 * @map_lock: orders faults against revocation.
 * @files_lock: protects @files.
 * @files: open files of /dev/cmm_mp.
 * @mtype: the node's memory type (its tier).
 * @res: the pool's resource in /proc/iomem.
 * @mgid: the memory group of the segments.
 * @memory_nb: memory hotplug notifier.
 * @kobj: /sys/kernel/cmm_mp.
 * @devices_kobj: /sys/kernel/cmm_mp/devices.
 * @segments_kobj: /sys/kernel/cmm_mp/segments.
 * @misc: /dev/cmm_mp.
 * @host: this host's id in the pool (host).
 * @nr_hosts: hosts sharing the pool (hosts); 1: no control area.
 * @lease_ms: a host whose heartbeat stays unchanged this long is dead.
 * @ctl_phys: host physical address of the control area.
 * @ctl: the control area, memremap()ed; NULL with one host.
 * @ctl_reset: overwrite a foreign control area at load (ctl_reset).
 * @heartbeat: this host's heartbeat count, as last written.
 * @heartbeat_work: bumps it every @lease_ms / 4.
 * @lease_lock: protects @leases and @liveness.
 * @leases: what this host saw of each host's heartbeat.
 * @liveness: each host's enum cmm_mp_liveness, as last decided.
 * @takeovers: segments taken from dead hosts since load.
 */
struct cmm_mp_pool {
	u64 base;
	u64 size;
	u64 segment_size;
	u64 block_size;
	int node;
	u32 self;
	u32 local_ns;
	u32 remote_ns;
	int adistance;

	struct cmm_mp_pamt pamt;
	u32 nr_devices;
	struct cmm_mp_device *devices;
	u32 nr_segments;
	struct cmm_mp_segment *segments;

	struct mutex lock;		/* state changes */
	spinlock_t state_lock;		/* segments' added, shared, online_pages */
	struct rw_semaphore map_lock;	/* faults against revocation */
	struct mutex files_lock;	/* files */
	struct list_head files;

	struct memory_dev_type *mtype;
	struct resource *res;
	int mgid;
	struct notifier_block memory_nb;

	struct kobject *kobj;
	struct kobject *devices_kobj;
	struct kobject *segments_kobj;
	struct miscdevice misc;

	u32 host;
	u32 nr_hosts;
	u32 lease_ms;
	u64 ctl_phys;
	u64 *ctl;
	bool ctl_reset;
	u64 heartbeat;
	struct delayed_work heartbeat_work;
	spinlock_t lease_lock;		/* leases, liveness */
	struct cmm_mp_lease leases[CMM_MP_MAX_HOSTS];
	u8 liveness[CMM_MP_MAX_HOSTS];
	atomic64_t takeovers;
};

/**
 * struct cmm_mp_params - the module parameters, parsed and validated.
 * @base: pool_base, or the start of the range found.
 * @size: pool_size, or the size of the range found.
 * @segment_size: segment_size in bytes.
 * @node: node.
 * @self: self.
 * @local_ns: local_ns.
 * @remote_ns: remote_ns.
 * @adistance: the tier's abstract distance, from the latencies.
 * @nr_devices: number of devices.
 * @ann: what they announce, in order.
 * @layout: the devices composed into the pool, by device id.
 * @nr_segments: segments, none overlapping the control area.
 * @host: host.
 * @nr_hosts: hosts.
 * @lease_ms: lease_ms.
 */
struct cmm_mp_params {
	u64 base;
	u64 size;
	u64 segment_size;
	int node;
	u32 self;
	u32 local_ns;
	u32 remote_ns;
	int adistance;
	u32 nr_devices;
	struct cmm_mp_announce ann[CMM_MP_MAX_DEVICES];
	struct cmm_mp_layout layout[CMM_MP_MAX_DEVICES];
	u32 nr_segments;
	u32 host;
	u32 nr_hosts;
	u32 lease_ms;
};

#if IS_ENABLED(CONFIG_CMM_MP_TRACEPOINTS)
#include "cmm_mp_trace.h"
#else
static inline void trace_discovery(u32 device, u64 chip_id, u64 capacity,
				   u64 nha, u32 announced)
{
}

static inline void trace_segment_state(u32 segment, u32 device,
				       int old_state, int new_state)
{
}

static inline void trace_pamt_lookup(u64 ha, u64 nha, bool valid, u32 device,
				     u64 dev_offset)
{
}

static inline void trace_device_fail(u32 device, u64 chip_id, bool failed,
				     u32 offlined, u32 revoked, u32 busy)
{
}

static inline void trace_takeover(u32 segment, u32 from_host, u32 to_host,
				  u64 old_word, u64 new_word)
{
}
#endif

/*
 * The acquisitions of module init, in order.  With fault injection, the
 * inject_init_fault parameter fails one of them, so that a VM test can
 * walk every unwinding path (STYLE rule 7).
 */
enum cmm_mp_step {
	CMM_MP_STEP_NONE,
	CMM_MP_STEP_PAMT,		/* cmm_mp_pool_compose() */
	CMM_MP_STEP_DEVICES,
	CMM_MP_STEP_SEGMENTS,
	CMM_MP_STEP_MEMORY_TYPE,	/* cmm_mp_segments_init() */
	CMM_MP_STEP_REGION,
	CMM_MP_STEP_MEMORY_GROUP,
	CMM_MP_STEP_NOTIFIER,
	CMM_MP_STEP_CONTROL_AREA,	/* cmm_mp_hosts_init(), hosts > 1 */
	CMM_MP_STEP_SYSFS_POOL,		/* cmm_mp_sysfs_add() */
	CMM_MP_STEP_SYSFS_DEVICES,
	CMM_MP_STEP_SYSFS_SEGMENTS,
	CMM_MP_STEP_SYSFS_DEVICE,	/* the first device's directory */
	CMM_MP_STEP_SYSFS_SEGMENT,	/* the last segment's directory */
	CMM_MP_STEP_MISC,		/* misc_register() */
	CMM_MP_NR_STEPS,
};

/* cmm_mp_main.c */
#if IS_ENABLED(CONFIG_CMM_MP_FAULT_INJECTION)
bool cmm_mp_inject(enum cmm_mp_step step);
#else
static inline bool cmm_mp_inject(enum cmm_mp_step step)
{
	return false;
}
#endif

/* cmm_mp_pool.c */
bool cmm_mp_node_usable(int nid);
int cmm_mp_find_pool_range(u64 block_size, u64 *base, u64 *size, int *node);
int cmm_mp_check_pool_range(u64 base, u64 size, u64 block_size);
int cmm_mp_pool_compose(struct cmm_mp_pool *pool,
			const struct cmm_mp_params *p);
void cmm_mp_pool_decompose(struct cmm_mp_pool *pool);
int cmm_mp_translate(struct cmm_mp_pool *pool, struct cmm_mp_translate *t);
void cmm_mp_announce(struct cmm_mp_device *dev);
void cmm_mp_fill_info(struct cmm_mp_pool *pool, struct cmm_mp_info *info);
void cmm_mp_fill_device(struct cmm_mp_device *dev,
			struct cmm_mp_device_info *info);

/* cmm_mp_segment.c */
int cmm_mp_segments_init(struct cmm_mp_pool *pool);
void cmm_mp_segments_exit(struct cmm_mp_pool *pool);
enum cmm_mp_seg_state cmm_mp_seg_state(struct cmm_mp_segment *seg);
u32 cmm_mp_seg_online_blocks(struct cmm_mp_segment *seg);
void cmm_mp_fill_segment(struct cmm_mp_segment *seg,
			 struct cmm_mp_segment_info *info);
enum cmm_mp_holding cmm_mp_seg_holding(struct cmm_mp_segment *seg,
				       u32 *holders);
int cmm_mp_seg_hotadd(struct cmm_mp_segment *seg);
int cmm_mp_seg_hotremove(struct cmm_mp_segment *seg);
int cmm_mp_seg_op(struct cmm_mp_pool *pool, enum cmm_mp_seg_op op,
		  struct cmm_mp_segment_info *info);

/* cmm_mp_shared.c */
int cmm_mp_seg_export(struct cmm_mp_segment *seg);
void cmm_mp_seg_revoke(struct cmm_mp_segment *seg);
void cmm_mp_seg_zap(struct cmm_mp_segment *seg);
void cmm_mp_shared_exit(struct cmm_mp_pool *pool);
int cmm_mp_open(struct inode *inode, struct file *file);
int cmm_mp_release(struct inode *inode, struct file *file);
int cmm_mp_mmap(struct file *file, struct vm_area_struct *vma);
struct cmm_mp_pool *cmm_mp_file_pool(struct file *file);

/* cmm_mp_fault.c */
#if IS_ENABLED(CONFIG_CMM_MP_FAULT_INJECTION)
int cmm_mp_device_fail(struct cmm_mp_pool *pool, struct cmm_mp_fault *f);
int cmm_mp_device_recover(struct cmm_mp_pool *pool, struct cmm_mp_fault *f);
#else
static inline int cmm_mp_device_fail(struct cmm_mp_pool *pool,
				     struct cmm_mp_fault *f)
{
	return -EOPNOTSUPP;
}

static inline int cmm_mp_device_recover(struct cmm_mp_pool *pool,
					struct cmm_mp_fault *f)
{
	return -EOPNOTSUPP;
}
#endif

/* cmm_mp_hosts.c */
int cmm_mp_hosts_init(struct cmm_mp_pool *pool);
void cmm_mp_hosts_exit(struct cmm_mp_pool *pool);
u32 cmm_mp_hosts_alive(struct cmm_mp_pool *pool);
int cmm_mp_seg_own(struct cmm_mp_segment *seg, enum cmm_mp_owner_op op,
		   bool *fresh);
u64 cmm_mp_seg_owner_word(struct cmm_mp_segment *seg);
void cmm_mp_fill_hosts(struct cmm_mp_pool *pool, struct cmm_mp_hosts *h);

/* cmm_mp_fault.c */
#if IS_ENABLED(CONFIG_CMM_MP_FAULT_INJECTION)
int cmm_mp_inject_peer(struct cmm_mp_pool *pool, const char *cmd);
#endif

/* cmm_mp_sysfs.c */
int cmm_mp_sysfs_add(struct cmm_mp_pool *pool);
void cmm_mp_sysfs_del(struct cmm_mp_pool *pool);

#endif /* CMM_MP_H */
