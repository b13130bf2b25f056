// SPDX-License-Identifier: GPL-2.0
/*
 * cmm_mp: sysfs, the observability ABI (Documentation/ABI/testing/
 * sysfs-kernel-cmm_mp).  All files are outputs (0400):
 *
 *   /sys/kernel/cmm_mp/             the pool, and the hosts sharing it
 *   /sys/kernel/cmm_mp/devices/devN the pool's devices, by id
 *   /sys/kernel/cmm_mp/segments/segN its segments, by id
 *
 * Each directory is a small kobject that points at its object and frees
 * only itself on release: the pool's arrays outlive every sysfs file,
 * because kobject removal waits for the show() calls running.
 */
#define pr_fmt(fmt) "cmm_mp: " fmt

#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "cmm_mp.h"

/**
 * struct cmm_mp_kobj - a sysfs directory of the pool, a device or a segment.
 * @kobj: the kobject.
 * @obj: the struct cmm_mp_pool, _device or _segment it shows.
 */
struct cmm_mp_kobj {
	struct kobject kobj;
	void *obj;
};

static void *cmm_mp_obj(struct kobject *kobj)
{
	return container_of(kobj, struct cmm_mp_kobj, kobj)->obj;
}

static void cmm_mp_kobj_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct cmm_mp_kobj, kobj));
}

#define CMM_MP_ATTR(prefix, name)					\
	static struct kobj_attribute prefix##_##name##_attr =		\
		__ATTR_RO_MODE(name, 0400)
/* The pool. */

static ssize_t version_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", CMM_MP_VERSION);
}

static ssize_t hdm_base_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	struct cmm_mp_pool *pool = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "0x%llx\n", pool->base);
}

static ssize_t pool_bytes_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	struct cmm_mp_pool *pool = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%llu\n", pool->size);
}

static ssize_t segment_bytes_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	struct cmm_mp_pool *pool = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%llu\n", pool->segment_size);
}

static ssize_t granule_bytes_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", CMM_MP_GRANULE_BYTES);
}

static ssize_t block_bytes_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	struct cmm_mp_pool *pool = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%llu\n", pool->block_size);
}

static ssize_t node_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	struct cmm_mp_pool *pool = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%d\n", pool->node);
}

static ssize_t self_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	struct cmm_mp_pool *pool = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%u\n", pool->self);
}

static ssize_t local_ns_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	struct cmm_mp_pool *pool = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%u\n", pool->local_ns);
}

static ssize_t remote_ns_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	struct cmm_mp_pool *pool = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%u\n", pool->remote_ns);
}

static ssize_t adistance_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	struct cmm_mp_pool *pool = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%d\n", pool->adistance);
}

static ssize_t nr_devices_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	struct cmm_mp_pool *pool = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%u\n", pool->nr_devices);
}

static ssize_t nr_segments_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	struct cmm_mp_pool *pool = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%u\n", pool->nr_segments);
}

static ssize_t host_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	struct cmm_mp_pool *pool = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%u\n", pool->host);
}

static ssize_t hosts_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	struct cmm_mp_pool *pool = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%u\n", pool->nr_hosts);
}

static ssize_t lease_ms_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	struct cmm_mp_pool *pool = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%u\n", pool->lease_ms);
}

/* "0,1": the hosts alive as this host sees them, itself included. */
static ssize_t hosts_alive_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	struct cmm_mp_pool *pool = cmm_mp_obj(kobj);
	u32 alive = cmm_mp_hosts_alive(pool), h;
	int n = 0;

	for (h = 0; h < pool->nr_hosts; h++)
		if (alive & BIT(h))
			n += sysfs_emit_at(buf, n, "%s%u", n ? "," : "", h);
	return n + sysfs_emit_at(buf, n, "\n");
}

static ssize_t takeovers_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	struct cmm_mp_pool *pool = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%lld\n", atomic64_read(&pool->takeovers));
}

CMM_MP_ATTR(pool, version);
CMM_MP_ATTR(pool, hdm_base);
CMM_MP_ATTR(pool, pool_bytes);
CMM_MP_ATTR(pool, segment_bytes);
CMM_MP_ATTR(pool, granule_bytes);
CMM_MP_ATTR(pool, block_bytes);
CMM_MP_ATTR(pool, node);
CMM_MP_ATTR(pool, self);
CMM_MP_ATTR(pool, local_ns);
CMM_MP_ATTR(pool, remote_ns);
CMM_MP_ATTR(pool, adistance);
CMM_MP_ATTR(pool, nr_devices);
CMM_MP_ATTR(pool, nr_segments);
CMM_MP_ATTR(pool, host);
CMM_MP_ATTR(pool, hosts);
CMM_MP_ATTR(pool, lease_ms);
CMM_MP_ATTR(pool, hosts_alive);
CMM_MP_ATTR(pool, takeovers);

static struct attribute *cmm_mp_pool_attrs[] = {
	&pool_version_attr.attr,
	&pool_hdm_base_attr.attr,
	&pool_pool_bytes_attr.attr,
	&pool_segment_bytes_attr.attr,
	&pool_granule_bytes_attr.attr,
	&pool_block_bytes_attr.attr,
	&pool_node_attr.attr,
	&pool_self_attr.attr,
	&pool_local_ns_attr.attr,
	&pool_remote_ns_attr.attr,
	&pool_adistance_attr.attr,
	&pool_nr_devices_attr.attr,
	&pool_nr_segments_attr.attr,
	&pool_host_attr.attr,
	&pool_hosts_attr.attr,
	&pool_lease_ms_attr.attr,
	&pool_hosts_alive_attr.attr,
	&pool_takeovers_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(cmm_mp_pool);

static const struct kobj_type cmm_mp_pool_ktype = {
	.release = cmm_mp_kobj_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = cmm_mp_pool_groups,
};

/* A device. */

static ssize_t chip_id_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	struct cmm_mp_device *dev = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "0x%llx\n", dev->chip_id);
}

static ssize_t dev_state_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	struct cmm_mp_device *dev = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%s\n", READ_ONCE(dev->failed) ? "failed" : "ok");
}

static ssize_t dev_bytes_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	struct cmm_mp_device *dev = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%llu\n", dev->capacity);
}

static ssize_t dev_nha_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	struct cmm_mp_device *dev = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "0x%llx\n", dev->nha);
}

static ssize_t local_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	struct cmm_mp_device *dev = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%d\n", dev->id == dev->pool->self);
}

static ssize_t latency_ns_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	struct cmm_mp_device *dev = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%u\n", dev->latency_ns);
}

static ssize_t segments_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	struct cmm_mp_device *dev = cmm_mp_obj(kobj);

	/* The control area may have taken a device's only segment. */
	if (!dev->nr_segs)
		return sysfs_emit(buf, "none\n");
	return sysfs_emit(buf, "%u-%u\n", dev->first_seg,
			  dev->first_seg + dev->nr_segs - 1);
}

static ssize_t dev_lookups_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	struct cmm_mp_device *dev = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%lld\n", atomic64_read(&dev->lookups));
}

static ssize_t dev_failures_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	struct cmm_mp_device *dev = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%lld\n", atomic64_read(&dev->failures));
}

static struct kobj_attribute dev_state_attr =
	__ATTR(state, 0400, dev_state_show, NULL);
static struct kobj_attribute dev_bytes_attr =
	__ATTR(bytes, 0400, dev_bytes_show, NULL);
static struct kobj_attribute dev_nha_attr =
	__ATTR(nha, 0400, dev_nha_show, NULL);
static struct kobj_attribute dev_lookups_attr =
	__ATTR(lookups, 0400, dev_lookups_show, NULL);
static struct kobj_attribute dev_failures_attr =
	__ATTR(failures, 0400, dev_failures_show, NULL);
CMM_MP_ATTR(dev, chip_id);
CMM_MP_ATTR(dev, local);
CMM_MP_ATTR(dev, latency_ns);
CMM_MP_ATTR(dev, segments);

static struct attribute *cmm_mp_dev_attrs[] = {
	&dev_chip_id_attr.attr,
	&dev_state_attr.attr,
	&dev_bytes_attr.attr,
	&dev_nha_attr.attr,
	&dev_local_attr.attr,
	&dev_latency_ns_attr.attr,
	&dev_segments_attr.attr,
	&dev_lookups_attr.attr,
	&dev_failures_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(cmm_mp_dev);

static const struct kobj_type cmm_mp_dev_ktype = {
	.release = cmm_mp_kobj_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = cmm_mp_dev_groups,
};

/* A segment. */

static ssize_t seg_state_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	struct cmm_mp_segment *seg = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%s\n",
			  cmm_mp_seg_state_name(cmm_mp_seg_state(seg)));
}

static ssize_t device_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	struct cmm_mp_segment *seg = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%u\n", seg->device->id);
}

/* "none", "host 1", "shared 0,1": who holds it in the pool. */
static ssize_t holder_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	struct cmm_mp_segment *seg = cmm_mp_obj(kobj);
	struct cmm_mp_pool *pool = seg->pool;
	u64 word;
	u32 holders;
	int n;

	if (pool->ctl) {
		word = cmm_mp_seg_owner_word(seg);
	} else {
		/* One host: the word it would have. */
		word = cmm_mp_owner_encode(cmm_mp_seg_holding(seg, &holders) ==
					   CMM_MP_HOLD_SHARED ?
					   CMM_MP_OWNER_SHARE : CMM_MP_OWNER_EXCL,
					   holders, 0);
	}
	n = cmm_mp_owner_name(word, pool->nr_hosts, buf, PAGE_SIZE - 1);
	return n + sysfs_emit_at(buf, n, "\n");
}

static ssize_t owner_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	struct cmm_mp_segment *seg = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%d\n", READ_ONCE(seg->owner));
}

static ssize_t seg_bytes_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	struct cmm_mp_segment *seg = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%llu\n", seg->pool->segment_size);
}

static ssize_t phys_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	struct cmm_mp_segment *seg = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "0x%llx\n", seg->phys);
}

static ssize_t seg_nha_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	struct cmm_mp_segment *seg = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "0x%llx\n", seg->nha);
}

static ssize_t dev_offset_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	struct cmm_mp_segment *seg = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "0x%llx\n", seg->dev_offset);
}

static ssize_t memory_blocks_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	struct cmm_mp_segment *seg = cmm_mp_obj(kobj);
	u64 first = div64_u64(seg->phys, seg->pool->block_size);
	u64 nr = div64_u64(seg->pool->segment_size, seg->pool->block_size);

	return sysfs_emit(buf, "%llu-%llu\n", first, first + nr - 1);
}

static ssize_t online_blocks_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	struct cmm_mp_segment *seg = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%u\n", cmm_mp_seg_online_blocks(seg));
}

static ssize_t mappings_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	struct cmm_mp_segment *seg = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%d\n", atomic_read(&seg->mappings));
}

static ssize_t seg_lookups_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	struct cmm_mp_segment *seg = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%lld\n", atomic64_read(&seg->lookups));
}

static ssize_t seg_failures_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	struct cmm_mp_segment *seg = cmm_mp_obj(kobj);

	return sysfs_emit(buf, "%lld\n", atomic64_read(&seg->failures));
}

static struct kobj_attribute seg_state_attr =
	__ATTR(state, 0400, seg_state_show, NULL);
static struct kobj_attribute seg_bytes_attr =
	__ATTR(bytes, 0400, seg_bytes_show, NULL);
static struct kobj_attribute seg_nha_attr =
	__ATTR(nha, 0400, seg_nha_show, NULL);
static struct kobj_attribute seg_lookups_attr =
	__ATTR(lookups, 0400, seg_lookups_show, NULL);
static struct kobj_attribute seg_failures_attr =
	__ATTR(failures, 0400, seg_failures_show, NULL);
CMM_MP_ATTR(seg, device);
CMM_MP_ATTR(seg, owner);
CMM_MP_ATTR(seg, holder);
CMM_MP_ATTR(seg, phys);
CMM_MP_ATTR(seg, dev_offset);
CMM_MP_ATTR(seg, memory_blocks);
CMM_MP_ATTR(seg, online_blocks);
CMM_MP_ATTR(seg, mappings);

static struct attribute *cmm_mp_seg_attrs[] = {
	&seg_state_attr.attr,
	&seg_device_attr.attr,
	&seg_owner_attr.attr,
	&seg_holder_attr.attr,
	&seg_bytes_attr.attr,
	&seg_phys_attr.attr,
	&seg_nha_attr.attr,
	&seg_dev_offset_attr.attr,
	&seg_memory_blocks_attr.attr,
	&seg_online_blocks_attr.attr,
	&seg_mappings_attr.attr,
	&seg_lookups_attr.attr,
	&seg_failures_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(cmm_mp_seg);

static const struct kobj_type cmm_mp_seg_ktype = {
	.release = cmm_mp_kobj_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = cmm_mp_seg_groups,
};

static struct kobject *cmm_mp_kobj_add(void *obj,
				       const struct kobj_type *ktype,
				       struct kobject *parent,
				       const char *prefix, u32 id)
{
	struct cmm_mp_kobj *k;
	int ret;

	k = kzalloc(sizeof(*k), GFP_KERNEL);
	if (!k)
		return NULL;
	k->obj = obj;
	if (prefix)
		ret = kobject_init_and_add(&k->kobj, ktype, parent, "%s%u",
					   prefix, id);
	else
		ret = kobject_init_and_add(&k->kobj, ktype, parent, "cmm_mp");
	if (ret) {
		/* The release frees k. */
		kobject_put(&k->kobj);
		return NULL;
	}
	return &k->kobj;
}

static void cmm_mp_kobj_del(struct kobject **kobj)
{
	kobject_put(*kobj);
	*kobj = NULL;
}

/**
 * cmm_mp_sysfs_add() - create /sys/kernel/cmm_mp.
 * @pool: the pool, composed.
 *
 * Return: 0 on success, -ENOMEM.
 */
int cmm_mp_sysfs_add(struct cmm_mp_pool *pool)
{
	u32 i;

	pool->kobj = cmm_mp_inject(CMM_MP_STEP_SYSFS_POOL) ? NULL :
		cmm_mp_kobj_add(pool, &cmm_mp_pool_ktype, kernel_kobj, NULL, 0);
	if (!pool->kobj)
		return -ENOMEM;
	pool->devices_kobj = cmm_mp_inject(CMM_MP_STEP_SYSFS_DEVICES) ? NULL :
		kobject_create_and_add("devices", pool->kobj);
	if (!pool->devices_kobj)
		goto err_del_pool;
	pool->segments_kobj = cmm_mp_inject(CMM_MP_STEP_SYSFS_SEGMENTS) ? NULL :
		kobject_create_and_add("segments", pool->kobj);
	if (!pool->segments_kobj)
		goto err_del_devices;
	for (i = 0; i < pool->nr_devices; i++) {
		struct cmm_mp_device *dev = &pool->devices[i];

		dev->kobj = !i && cmm_mp_inject(CMM_MP_STEP_SYSFS_DEVICE) ? NULL :
			cmm_mp_kobj_add(dev, &cmm_mp_dev_ktype,
					pool->devices_kobj, "dev", i);
		if (!dev->kobj)
			goto err_del_objects;
	}
	for (i = 0; i < pool->nr_segments; i++) {
		struct cmm_mp_segment *seg = &pool->segments[i];

		seg->kobj = i == pool->nr_segments - 1 &&
			cmm_mp_inject(CMM_MP_STEP_SYSFS_SEGMENT) ? NULL :
			cmm_mp_kobj_add(seg, &cmm_mp_seg_ktype,
					pool->segments_kobj, "seg", i);
		if (!seg->kobj)
			goto err_del_objects;
	}
	return 0;

err_del_objects:
	/* Unset kobjects are NULL: the arrays were zeroed. */
	for (i = 0; i < pool->nr_segments; i++)
		if (pool->segments[i].kobj)
			cmm_mp_kobj_del(&pool->segments[i].kobj);
	for (i = 0; i < pool->nr_devices; i++)
		if (pool->devices[i].kobj)
			cmm_mp_kobj_del(&pool->devices[i].kobj);
	cmm_mp_kobj_del(&pool->segments_kobj);
err_del_devices:
	cmm_mp_kobj_del(&pool->devices_kobj);
err_del_pool:
	cmm_mp_kobj_del(&pool->kobj);
	return -ENOMEM;
}

/**
 * cmm_mp_sysfs_del() - remove /sys/kernel/cmm_mp.
 * @pool: the pool.
 */
void cmm_mp_sysfs_del(struct cmm_mp_pool *pool)
{
	u32 i;

	for (i = 0; i < pool->nr_segments; i++)
		cmm_mp_kobj_del(&pool->segments[i].kobj);
	for (i = 0; i < pool->nr_devices; i++)
		cmm_mp_kobj_del(&pool->devices[i].kobj);
	cmm_mp_kobj_del(&pool->segments_kobj);
	cmm_mp_kobj_del(&pool->devices_kobj);
	cmm_mp_kobj_del(&pool->kobj);
}
