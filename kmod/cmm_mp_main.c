// SPDX-License-Identifier: GPL-2.0
/*
 * cmm_mp: an emulation of Samsung's CMM-MP CXL Type 3 memory-pooling device.
 *
 * This file holds the module parameters, init and exit, and /dev/cmm_mp's
 * ioctl dispatch.  Documentation/cmm_mp.rst is the admin guide; the user
 * ABI is kmod/uapi/cmm_mp.h.
 *
 * Init validates every parameter before it touches anything, then acquires
 * in a fixed order (the pool's composition, the node's memory type, the
 * range, the memory group and notifier, sysfs, the device) and exit
 * releases in reverse.
 */
#define pr_fmt(fmt) "cmm_mp: " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/memory.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "cmm_mp.h"
#include "cmm_mp_compat.h"

#if IS_ENABLED(CONFIG_CMM_MP_TRACEPOINTS)
#define CREATE_TRACE_POINTS
#include "cmm_mp_trace.h"
#endif

/*
 * pool_base: host physical address of the pool, the HDM base (NHA 0): bytes,
 * decimal or 0x hex, K/M/G/T suffixes; aligned to the memory block size.
 * Given together with pool_size.  Default: unset, the module finds the
 * first memmap= reserved range on a possible, memoryless node itself.
 */
static char *pool_base;
module_param(pool_base, charp, 0444);
MODULE_PARM_DESC(pool_base,
		 "Host physical address of the pool (HDM base), with pool_size; default: found (a memmap= range on a memoryless node)");

/* pool_size: bytes of the pool, a multiple of the memory block size. */
static char *pool_size;
module_param(pool_size, charp, 0444);
MODULE_PARM_DESC(pool_size, "Bytes of the pool (K/M/G suffixes), with pool_base");

/*
 * devices: the pool's devices, a count ("2", each an equal share of the
 * pool, chip ids made up) or CHIP_ID:CAPACITY,... ("0x3c:256M,0xa1:256M").
 * Default "2".
 */
static char *devices = "2";
module_param(devices, charp, 0444);
MODULE_PARM_DESC(devices,
		 "Devices: a count, or CHIP_ID:CAPACITY,... (default 2)");

/*
 * segment_size: bytes per segment (MPS), a multiple of the memory block
 * size; device capacities are multiples of it.  Default: one memory block.
 */
static char *segment_size;
module_param(segment_size, charp, 0444);
MODULE_PARM_DESC(segment_size,
		 "Bytes per segment, a multiple of the memory block size (default: the block size)");

/*
 * self: device id of this host's own device.  Default: host modulo the
 * number of devices (0 with one host), so that hosts sharing a pool each
 * see a different local device.
 */
static unsigned int self;
static bool self_given;

static int cmm_mp_set_self(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_uint(val, kp);

	if (!ret)
		self_given = true;
	return ret;
}

static const struct kernel_param_ops cmm_mp_self_ops = {
	.set = cmm_mp_set_self,
	.get = param_get_uint,
};
module_param_cb(self, &cmm_mp_self_ops, &self, 0444);
MODULE_PARM_DESC(self,
		 "Device id of this host's own device (default: host modulo the number of devices)");

/*
 * hosts: how many hosts share the pool, 1 to 8.  Default 1: the pool is
 * this host's alone and there is no control area.  With more, the pool's
 * last 2 MiB hold the control area (segment owners, host heartbeats), and
 * every host must load with the same pool_size, segment_size and devices.
 */
static unsigned int hosts = 1;
module_param(hosts, uint, 0444);
MODULE_PARM_DESC(hosts, "Hosts sharing the pool, 1 to 8 (default 1)");

/* host: this host's id in the pool, 0 to hosts - 1.  Default 0. */
static unsigned int host;
module_param(host, uint, 0444);
MODULE_PARM_DESC(host, "This host's id in the pool, 0 to hosts - 1 (default 0)");

/*
 * lease_ms: a host whose heartbeat another host sees unchanged for this
 * long, in ms, is dead and loses its segments; each host beats every
 * lease_ms / 4.  100 to 60000, default 3000.  Hosts may differ.
 */
static unsigned int lease_ms = 3000;
module_param(lease_ms, uint, 0444);
MODULE_PARM_DESC(lease_ms,
		 "Lease of a host's segments, ms: unchanged heartbeat this long means dead (100-60000, default 3000)");

/*
 * node: NUMA node segments are onlined into; it must be possible and have
 * no memory at load.  Default -1: phys_to_target_node(pool_base).
 */
static int node = NUMA_NO_NODE;
module_param(node, int, 0444);
MODULE_PARM_DESC(node, "NUMA node for the segments (default -1: the pool's own)");

/* local_ns: emulated load latency of this host's device, ns.  Default 530. */
static unsigned int local_ns = 530;
module_param(local_ns, uint, 0444);
MODULE_PARM_DESC(local_ns, "Emulated latency of this host's device, ns (default 530)");

/* remote_ns: emulated latency of the other devices, ns.  Default 2725. */
static unsigned int remote_ns = 2725;
module_param(remote_ns, uint, 0444);
MODULE_PARM_DESC(remote_ns, "Emulated latency of the other devices, ns (default 2725)");

/*
 * ctl_reset: with hosts > 1, overwrite a control area that holds something
 * else (a pool whose last 2 MiB were a segment of a one-host load, or one
 * set up for another geometry) instead of refusing to load.  Only for the
 * first host, while no other host uses the pool.  Default N.
 */
static bool ctl_reset;
module_param(ctl_reset, bool, 0444);
MODULE_PARM_DESC(ctl_reset,
		 "Overwrite a foreign control area at load (first host only; default N)");

#if IS_ENABLED(CONFIG_CMM_MP_FAULT_INJECTION)
/*
 * inject_init_fault: for testing the module's unwinding, fail step N of
 * init (1 to CMM_MP_NR_STEPS - 1, enum cmm_mp_step): the load fails as if
 * that allocation or registration had.  Default 0, none.
 */
static unsigned int inject_init_fault;
module_param(inject_init_fault, uint, 0444);
MODULE_PARM_DESC(inject_init_fault,
		 "Testing: fail step N of init to exercise its unwinding (default 0: none)");

static const char *const cmm_mp_step_names[CMM_MP_NR_STEPS] = {
	[CMM_MP_STEP_PAMT] = "PAMT allocation",
	[CMM_MP_STEP_DEVICES] = "device allocation",
	[CMM_MP_STEP_SEGMENTS] = "segment allocation",
	[CMM_MP_STEP_MEMORY_TYPE] = "memory type",
	[CMM_MP_STEP_REGION] = "iomem region",
	[CMM_MP_STEP_MEMORY_GROUP] = "memory group",
	[CMM_MP_STEP_NOTIFIER] = "memory notifier",
	[CMM_MP_STEP_CONTROL_AREA] = "control area mapping",
	[CMM_MP_STEP_SYSFS_POOL] = "sysfs pool directory",
	[CMM_MP_STEP_SYSFS_DEVICES] = "sysfs devices directory",
	[CMM_MP_STEP_SYSFS_SEGMENTS] = "sysfs segments directory",
	[CMM_MP_STEP_SYSFS_DEVICE] = "sysfs directory of device 0",
	[CMM_MP_STEP_SYSFS_SEGMENT] = "sysfs directory of the last segment",
	[CMM_MP_STEP_MISC] = "misc device",
};

/**
 * cmm_mp_inject() - whether init step @step is to fail (inject_init_fault).
 * @step: the step about to be taken.
 *
 * Return: true, after a log line, when it is the step to fail.
 */
bool cmm_mp_inject(enum cmm_mp_step step)
{
	if (inject_init_fault != step)
		return false;
	pr_err("inject_init_fault=%u: failing the %s\n", step,
	       cmm_mp_step_names[step]);
	return true;
}

static int cmm_mp_check_inject(void)
{
	if (inject_init_fault < CMM_MP_NR_STEPS)
		return 0;
	pr_err("inject_init_fault=%u: steps are 1 to %u\n", inject_init_fault,
	       CMM_MP_NR_STEPS - 1);
	return -EINVAL;
}

static struct cmm_mp_pool cmm_mp_pool;
/*
 * Parameter files exist before init and after exit: inject_peer may use
 * the pool (its lock) only in between.
 */
static bool cmm_mp_live;

static int cmm_mp_set_inject_peer(const char *val,
				  const struct kernel_param *kp)
{
	/* Pairs with the release at the end of init: the pool is set up. */
	if (!smp_load_acquire(&cmm_mp_live))
		return -ENODEV;
	return cmm_mp_inject_peer(&cmm_mp_pool, val);
}

static const struct kernel_param_ops cmm_mp_inject_peer_ops = {
	.set = cmm_mp_set_inject_peer,
};

/*
 * inject_peer: for testing a multi-host pool with one host, act as
 * another host in the control area (write-only, at runtime):
 * "H beat" bumps host H's heartbeat; "H own S" makes host H the owner of
 * free segment S; "H share S" adds host H to its sharers.  Not a load
 * parameter.
 */
module_param_cb(inject_peer, &cmm_mp_inject_peer_ops, NULL, 0200);
MODULE_PARM_DESC(inject_peer,
		 "Testing: act as another host: \"H beat\", \"H own S\", \"H share S\"");
#else
static int cmm_mp_check_inject(void)
{
	return 0;
}

static struct cmm_mp_pool cmm_mp_pool;
static bool cmm_mp_live;
#endif

static int cmm_mp_parse_size_param(const char *name, const char *val, u64 *out)
{
	int ret = cmm_mp_parse_size(val, out, NULL);

	if (ret)
		pr_err("%s=%s: expected a size in bytes (such as 1G or 0x40000000)\n",
		       name, val);
	return ret ? -EINVAL : 0;
}

/*
 * The segments: every segment_size slice of the devices' capacity, but
 * with several hosts none may overlap the control area, the pool's last
 * 2 MiB.
 */
static int cmm_mp_count_segments(struct cmm_mp_params *p)
{
	u64 total = 0, usable;
	u32 i;

	for (i = 0; i < p->nr_devices; i++)
		total += p->layout[i].capacity;
	p->nr_segments = div64_u64(total, p->segment_size);
	if (p->nr_hosts == 1)
		return 0;
	usable = div64_u64(p->size - CMM_MP_CTL_BYTES, p->segment_size);
	if (!usable) {
		pr_err("hosts=%u: the pool has no room for a segment beside the control area (its last 2 MiB)\n",
		       p->nr_hosts);
		return -EINVAL;
	}
	if (usable < p->nr_segments) {
		pr_info("hosts=%u: the control area takes the pool's last 2 MiB: %u of %u segments are left\n",
			p->nr_hosts, (u32)usable, p->nr_segments);
		p->nr_segments = usable;
	}
	if (p->nr_segments > CMM_MP_CTL_MAX_SEGMENTS) {
		pr_err("hosts=%u: %u segments do not fit the control area (at most %u)\n",
		       p->nr_hosts, p->nr_segments, CMM_MP_CTL_MAX_SEGMENTS);
		return -EINVAL;
	}
	return 0;
}

/* segment_size, the pool's range (pool_base, pool_size, or memmap=) and node. */
static int cmm_mp_parse_range(struct cmm_mp_params *p, u64 block)
{
	int ret;

	p->segment_size = block;
	if (segment_size) {
		ret = cmm_mp_parse_size_param("segment_size", segment_size,
					      &p->segment_size);
		if (ret)
			return ret;
		if (!p->segment_size || p->segment_size % block) {
			pr_err("segment_size=%s: not a multiple of the memory block size (%llu MiB)\n",
			       segment_size, block >> 20);
			return -EINVAL;
		}
	}

	if (!pool_base != !pool_size) {
		pr_err("pool_base and pool_size must be given together\n");
		return -EINVAL;
	}
	if (pool_base) {
		ret = cmm_mp_parse_size_param("pool_base", pool_base, &p->base);
		if (ret)
			return ret;
		ret = cmm_mp_parse_size_param("pool_size", pool_size, &p->size);
		if (ret)
			return ret;
		if (p->base % block || !p->size || p->size % block ||
		    p->base + p->size < p->base) {
			pr_err("pool_base=%s pool_size=%s: not whole memory blocks (%llu MiB)\n",
			       pool_base, pool_size, block >> 20);
			return -EINVAL;
		}
		ret = cmm_mp_check_pool_range(p->base, p->size, block);
		if (ret)
			return ret;
		p->node = phys_to_target_node(p->base);
	} else {
		ret = cmm_mp_find_pool_range(block, &p->base, &p->size, &p->node);
		if (ret) {
			pr_err("no pool: no memmap= reserved range on a possible, memoryless node (boot with memmap=SIZE$BASE, or give pool_base and pool_size)\n");
			return ret;
		}
	}
	if (p->segment_size > p->size) {
		pr_err("segment_size=%s: larger than the pool (%llu MiB)\n",
		       segment_size, p->size >> 20);
		return -EINVAL;
	}

	if (node != NUMA_NO_NODE)
		p->node = node;
	if (!cmm_mp_node_usable(p->node)) {
		pr_err("node=%d: not a possible NUMA node without memory (its tier must be set before it has memory)\n",
		       p->node);
		return -EINVAL;
	}
	return 0;
}

/* hosts, host, lease_ms and self, then the segments each host gets. */
static int cmm_mp_parse_hosts(struct cmm_mp_params *p)
{
	if (!hosts || hosts > CMM_MP_MAX_HOSTS) {
		pr_err("hosts=%u: expected 1 to %u\n", hosts, CMM_MP_MAX_HOSTS);
		return -EINVAL;
	}
	if (host >= hosts) {
		pr_err("host=%u: the pool's hosts are 0 to %u (hosts=%u)\n",
		       host, hosts - 1, hosts);
		return -EINVAL;
	}
	if (lease_ms < CMM_MP_LEASE_MIN_MS || lease_ms > CMM_MP_LEASE_MAX_MS) {
		pr_err("lease_ms=%u: expected %u to %u\n", lease_ms,
		       CMM_MP_LEASE_MIN_MS, CMM_MP_LEASE_MAX_MS);
		return -EINVAL;
	}
	p->host = host;
	p->nr_hosts = hosts;
	p->lease_ms = lease_ms;

	if (self_given && self >= p->nr_devices) {
		pr_err("self=%u: the pool has devices 0 to %u\n", self,
		       p->nr_devices - 1);
		return -EINVAL;
	}
	p->self = self_given ? self : host % p->nr_devices;
	return cmm_mp_count_segments(p);
}

/* local_ns and remote_ns, and the abstract distance they give the node. */
static int cmm_mp_parse_latency(struct cmm_mp_params *p)
{
	u64 local_bytes, total_bytes = 0;
	int adist;
	u32 i;

	if (!local_ns || local_ns > CMM_MP_LATENCY_MAX_NS ||
	    remote_ns < local_ns || remote_ns > CMM_MP_LATENCY_MAX_NS) {
		pr_err("local_ns=%u remote_ns=%u: expected 1 <= local_ns <= remote_ns <= %u\n",
		       local_ns, remote_ns, CMM_MP_LATENCY_MAX_NS);
		return -EINVAL;
	}
	p->local_ns = local_ns;
	p->remote_ns = remote_ns;
	for (i = 0; i < p->nr_devices; i++)
		total_bytes += p->layout[i].capacity;
	local_bytes = p->layout[p->self].capacity;
	adist = cmm_mp_adistance(local_ns, remote_ns, local_bytes, total_bytes,
				 CMM_MP_ADISTANCE_DRAM);
	if (adist < CMM_MP_ADISTANCE_MIN) {
		pr_err("local_ns=%u remote_ns=%u: abstract distance %d would put the node in the DRAM tier (%u ns); the mean latency must be at least %u ns\n",
		       local_ns, remote_ns, adist, CMM_MP_DRAM_NS,
		       DIV_ROUND_UP(CMM_MP_ADISTANCE_MIN * CMM_MP_DRAM_NS,
				    CMM_MP_ADISTANCE_DRAM));
		return -EINVAL;
	}
	p->adistance = adist;
	return 0;
}

/* Every check of the parameters, before any side effect. */
static int cmm_mp_parse_params(struct cmm_mp_params *p, u64 block)
{
	char msg[160];
	int ret;

	ret = cmm_mp_check_inject();
	if (ret)
		return ret;
	ret = cmm_mp_parse_range(p, block);
	if (ret)
		return ret;
	ret = cmm_mp_parse_devices(devices, p->ann, CMM_MP_MAX_DEVICES,
				   &p->nr_devices, msg, sizeof(msg));
	if (ret == 1)
		ret = cmm_mp_announce_count(p->nr_devices, p->size,
					    p->segment_size, p->ann, msg,
					    sizeof(msg));
	if (!ret)
		ret = cmm_mp_compose(p->ann, p->nr_devices, p->size,
				     p->segment_size, p->layout, msg,
				     sizeof(msg));
	if (ret) {
		pr_err("devices=%s: %s\n", devices, msg);
		return -EINVAL;
	}
	ret = cmm_mp_parse_hosts(p);
	if (ret)
		return ret;
	return cmm_mp_parse_latency(p);
}

/* The ioctls: _IOC_NR - 0x40 indexes the table. */
struct cmm_mp_ioctl {
	int (*fn)(struct cmm_mp_pool *pool, void *arg);
	u32 ksize;
	u32 min_size;
	bool admin;
};

static int cmm_mp_ioc_info(struct cmm_mp_pool *pool, void *arg)
{
	cmm_mp_fill_info(pool, arg);
	return 0;
}

static int cmm_mp_ioc_device(struct cmm_mp_pool *pool, void *arg)
{
	struct cmm_mp_device_info *info = arg;

	if (info->id >= pool->nr_devices)
		return -ENOENT;
	cmm_mp_fill_device(&pool->devices[info->id], info);
	return 0;
}

static int cmm_mp_ioc_segment(struct cmm_mp_pool *pool, void *arg)
{
	struct cmm_mp_segment_info *info = arg;

	if (info->id >= pool->nr_segments)
		return -ENOENT;
	cmm_mp_fill_segment(&pool->segments[info->id], info);
	return 0;
}

static int cmm_mp_ioc_translate(struct cmm_mp_pool *pool, void *arg)
{
	return cmm_mp_translate(pool, arg);
}

static int cmm_mp_ioc_seg_add(struct cmm_mp_pool *pool, void *arg)
{
	return cmm_mp_seg_op(pool, CMM_MP_OP_ADD, arg);
}

static int cmm_mp_ioc_seg_offline(struct cmm_mp_pool *pool, void *arg)
{
	return cmm_mp_seg_op(pool, CMM_MP_OP_OFFLINE, arg);
}

static int cmm_mp_ioc_seg_share(struct cmm_mp_pool *pool, void *arg)
{
	return cmm_mp_seg_op(pool, CMM_MP_OP_SHARE, arg);
}

static int cmm_mp_ioc_dev_fail(struct cmm_mp_pool *pool, void *arg)
{
	return cmm_mp_device_fail(pool, arg);
}

static int cmm_mp_ioc_dev_recover(struct cmm_mp_pool *pool, void *arg)
{
	return cmm_mp_device_recover(pool, arg);
}

static int cmm_mp_ioc_hosts(struct cmm_mp_pool *pool, void *arg)
{
	cmm_mp_fill_hosts(pool, arg);
	return 0;
}

#define CMM_MP_IOCTL(fn_, type_, ver0_, admin_)				\
	{ .fn = fn_, .ksize = sizeof(struct type_), .min_size = ver0_,	\
	  .admin = admin_ }

static const struct cmm_mp_ioctl cmm_mp_ioctls[] = {
	CMM_MP_IOCTL(cmm_mp_ioc_info, cmm_mp_info, CMM_MP_INFO_SIZE_VER0,
		     false),
	CMM_MP_IOCTL(cmm_mp_ioc_device, cmm_mp_device_info,
		     CMM_MP_DEVICE_INFO_SIZE_VER0, false),
	CMM_MP_IOCTL(cmm_mp_ioc_segment, cmm_mp_segment_info,
		     CMM_MP_SEGMENT_INFO_SIZE_VER0, false),
	CMM_MP_IOCTL(cmm_mp_ioc_translate, cmm_mp_translate,
		     CMM_MP_TRANSLATE_SIZE_VER0, false),
	CMM_MP_IOCTL(cmm_mp_ioc_seg_add, cmm_mp_segment_info,
		     CMM_MP_SEGMENT_INFO_SIZE_VER0, true),
	CMM_MP_IOCTL(cmm_mp_ioc_seg_offline, cmm_mp_segment_info,
		     CMM_MP_SEGMENT_INFO_SIZE_VER0, true),
	CMM_MP_IOCTL(cmm_mp_ioc_seg_share, cmm_mp_segment_info,
		     CMM_MP_SEGMENT_INFO_SIZE_VER0, true),
	CMM_MP_IOCTL(cmm_mp_ioc_dev_fail, cmm_mp_fault, CMM_MP_FAULT_SIZE_VER0,
		     true),
	CMM_MP_IOCTL(cmm_mp_ioc_dev_recover, cmm_mp_fault,
		     CMM_MP_FAULT_SIZE_VER0, true),
	CMM_MP_IOCTL(cmm_mp_ioc_hosts, cmm_mp_hosts, CMM_MP_HOSTS_SIZE_VER0,
		     false),
};

union cmm_mp_ioctl_arg {
	struct cmm_mp_info info;
	struct cmm_mp_device_info device;
	struct cmm_mp_segment_info segment;
	struct cmm_mp_translate translate;
	struct cmm_mp_fault fault;
	struct cmm_mp_hosts hosts;
};

static long cmm_mp_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	struct cmm_mp_pool *pool = cmm_mp_file_pool(file);
	void __user *uarg = (void __user *)arg;
	const struct cmm_mp_ioctl *d;
	union cmm_mp_ioctl_arg buf;
	unsigned int nr = _IOC_NR(cmd);
	u32 usize = _IOC_SIZE(cmd);
	int ret;

	if (_IOC_TYPE(cmd) != CMM_MP_IOC_MAGIC || nr < 0x40 ||
	    nr >= 0x40 + ARRAY_SIZE(cmm_mp_ioctls) ||
	    _IOC_DIR(cmd) != (_IOC_READ | _IOC_WRITE))
		return -ENOTTY;
	d = &cmm_mp_ioctls[nr - 0x40];
	if (usize < d->min_size)
		return -EINVAL;
	if (d->admin && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	/* Zero-fills a shorter struct, refuses nonzero bytes past ours. */
	ret = copy_struct_from_user(&buf, d->ksize, uarg, usize);
	if (ret)
		return ret;
	ret = d->fn(pool, &buf);
	/* Operations describe the object also when it is busy. */
	if (ret && ret != -EBUSY)
		return ret;
	if (copy_to_user(uarg, &buf, min(usize, d->ksize)))
		return -EFAULT;
	return ret;
}

static const struct file_operations cmm_mp_fops = {
	.owner = THIS_MODULE,
	.open = cmm_mp_open,
	.release = cmm_mp_release,
	.unlocked_ioctl = cmm_mp_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = cmm_mp_mmap,
	.llseek = noop_llseek,
};

static int __init cmm_mp_init(void)
{
	struct cmm_mp_pool *pool = &cmm_mp_pool;
	struct cmm_mp_params *p;
	u64 block = memory_block_size_bytes();
	int ret;
	u32 i;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	ret = cmm_mp_parse_params(p, block);
	if (ret)
		goto err_free_params;
	pool->adistance = p->adistance;
	pool->base = p->base;
	pool->size = p->size;
	pool->segment_size = p->segment_size;
	pool->block_size = block;
	pool->node = p->node;
	pool->self = p->self;
	pool->local_ns = p->local_ns;
	pool->remote_ns = p->remote_ns;
	pool->host = p->host;
	pool->nr_hosts = p->nr_hosts;
	pool->lease_ms = p->lease_ms;
	pool->ctl_phys = p->base + p->size - CMM_MP_CTL_BYTES;
	pool->ctl_reset = ctl_reset;
	mutex_init(&pool->lock);
	spin_lock_init(&pool->state_lock);
	init_rwsem(&pool->map_lock);
	mutex_init(&pool->files_lock);
	INIT_LIST_HEAD(&pool->files);

	ret = cmm_mp_pool_compose(pool, p);
	if (ret)
		goto err_free_params;
	ret = cmm_mp_segments_init(pool);
	if (ret)
		goto err_decompose;
	ret = cmm_mp_hosts_init(pool);
	if (ret)
		goto err_segments_exit;
	ret = cmm_mp_sysfs_add(pool);
	if (ret)
		goto err_hosts_exit;
	pool->misc.minor = MISC_DYNAMIC_MINOR;
	pool->misc.name = "cmm_mp";
	pool->misc.fops = &cmm_mp_fops;
	pool->misc.mode = 0600;
	ret = cmm_mp_inject(CMM_MP_STEP_MISC) ? -ENOMEM :
		misc_register(&pool->misc);
	if (ret)
		goto err_sysfs_del;

	for (i = 0; i < pool->nr_devices; i++) {
		struct cmm_mp_device *dev = &pool->devices[i];

		cmm_mp_announce(dev);
		pr_info("device %u: chip 0x%llx, %llu MiB at pool offset 0x%llx, %s (%u ns)\n",
			dev->id, dev->chip_id, dev->capacity >> 20, dev->nha,
			dev->id == pool->self ? "local" : "remote",
			dev->latency_ns);
	}
	pr_info("pool 0x%llx-0x%llx (%llu MiB) on node %d: %u segments of %llu MiB, tier adistance %d\n",
		pool->base, pool->base + pool->size - 1, pool->size >> 20,
		pool->node, pool->nr_segments, pool->segment_size >> 20,
		pool->adistance);
	if (pool->nr_hosts > 1)
		pr_info("host %u of %u sharing the pool, local device %u\n",
			pool->host, pool->nr_hosts, pool->self);
	pr_info("loaded, version " CMM_MP_VERSION "\n");
	kfree(p);
	/* Pairs with the acquire in cmm_mp_set_inject_peer(). */
	smp_store_release(&cmm_mp_live, true);
	return 0;

err_sysfs_del:
	cmm_mp_sysfs_del(pool);
err_hosts_exit:
	cmm_mp_hosts_exit(pool);
err_segments_exit:
	cmm_mp_segments_exit(pool);
err_decompose:
	cmm_mp_pool_decompose(pool);
err_free_params:
	kfree(p);
	return ret;
}

static void __exit cmm_mp_exit(void)
{
	struct cmm_mp_pool *pool = &cmm_mp_pool;

	WRITE_ONCE(cmm_mp_live, false);
	misc_deregister(&pool->misc);
	cmm_mp_sysfs_del(pool);
	cmm_mp_shared_exit(pool);
	cmm_mp_hosts_exit(pool);
	cmm_mp_segments_exit(pool);
	cmm_mp_pool_decompose(pool);
	pr_info("unloaded\n");
}

module_init(cmm_mp_init);
module_exit(cmm_mp_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Emulated Samsung CMM-MP CXL memory-pooling device");
MODULE_AUTHOR("The mdk developers");
MODULE_VERSION(CMM_MP_VERSION);
