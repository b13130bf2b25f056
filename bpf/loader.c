// SPDX-License-Identifier: GPL-2.0
/*
 * The loader of bpf/sampler.bpf.c: opens the skeleton for a target,
 * picks the fault counters' hooks for the running kernel, loads and
 * attaches it and maps its record and tier maps; and the windows around
 * it: mdk_sampler_start() and _next() read the promotion counters and
 * have every process walked (procs.c), its records turned into page ids
 * (ids.c).  bpf/sampler_int.h lists the other pieces;
 * Documentation/sampler.rst explains the design; bpf/loader.h the API.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "sampler_int.h"
#include "sampler.skel.h"

#define DEFAULT_MAX_RECS 16384

int mdk_sampler_start(struct mdk_sampler *s, char *msg, size_t len)
{
	int err;

	if (s->started) {
		set_msg(msg, len, "sampler already started");
		return -EALREADY;
	}
	memset(&s->cur, 0, sizeof(s->cur));
	s->window = 0;
	s->window_start_ns = clock_ns(CLOCK_BOOTTIME);
	sampler__ids_reset(s);
	err = sampler__tier_refresh(s, msg, len);
	if (!err)
		err = sampler__sample_all(s, true, msg, len);
	if (err)
		return err;
	s->last = s->skel->bss->counts;
	s->started = true;
	return 0;
}

int mdk_sampler_next(struct mdk_sampler *s, struct mdk_sampler_window *w,
		     char *msg, size_t len)
{
	uint64_t t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), now;
	struct sampler_counts c;
	int err;

	if (!s->started) {
		set_msg(msg, len, "sampler not started");
		return -EINVAL;
	}
	now = clock_ns(CLOCK_BOOTTIME);
	memset(&s->cur, 0, sizeof(s->cur));
	/* Window 0 keeps what start() met (MDK_SAMPLER_MET_RESIDENT). */
	if (s->window)
		sampler__ids_reset(s);
	/* The counters first: the before_reset hook sees them. */
	c = s->skel->bss->counts;
	s->cur.have_counters = s->have_counters;
	s->cur.swapin_pages = c.swapin_pages - s->last.swapin_pages;
	s->cur.file_refault_pages =
		c.file_refault_pages - s->last.file_refault_pages;
	s->cur.promote_pages = c.promote_pages - s->last.promote_pages;
	s->cur.promote_events = c.promote_events - s->last.promote_events;
	err = sampler__tier_refresh(s, msg, len);
	if (!err)
		err = sampler__sample_all(s, false, msg, len);
	if (err)
		return err; /* the counts go to the next window */
	s->last = c;
	sampler__ids_deliver(s);
	s->cur.index = s->window;
	s->cur.start_ns = s->window_start_ns;
	s->cur.end_ns = now;
	s->cur.cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0 - s->cur.hook_ns;
	*w = s->cur;
	s->window++;
	s->window_start_ns = now;
	return 0;
}

/*
 * The running kernel's BTF, parsed once per process (about a second under
 * TCG): every sampler picks its hooks from it.
 */
static struct btf *vmlinux_btf;
static pthread_once_t vmlinux_btf_once = PTHREAD_ONCE_INIT;

static void load_vmlinux_btf(void)
{
	vmlinux_btf = btf__load_vmlinux_btf();
	if (!vmlinux_btf)
		vmlinux_btf = NULL; /* libbpf_get_error() style: keep NULL */
}

static bool kernel_has_func(const struct btf *btf, const char *name)
{
	return btf && btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) >= 0;
}

/* Pick the fault counters' hooks for this kernel (core_fixes.bpf.h). */
static void choose_hooks(struct mdk_sampler *s, const struct btf *btf)
{
	struct sampler_bpf *k = s->skel;
	bool counters = !(s->flags & MDK_SAMPLER_NO_COUNTERS);
	bool nr = kernel_has_func(btf, "swap_free_nr");
	bool folio = kernel_has_func(btf, "migrate_misplaced_folio");
	bool promo = counters && s->tier_node >= 0;

	bpf_program__set_autoload(k->progs.swap_free_nr_enter, counters && nr);
	bpf_program__set_autoload(k->progs.swap_free_enter,
				  counters && !nr &&
					  kernel_has_func(btf, "swap_free"));
	bpf_program__set_autoload(
		k->progs.refault_enter,
		counters && kernel_has_func(btf, "workingset_refault"));
	bpf_program__set_autoload(k->progs.misplaced_folio_enter,
				  promo && folio);
	bpf_program__set_autoload(k->progs.misplaced_folio_exit,
				  promo && folio);
	bpf_program__set_autoload(
		k->progs.misplaced_page_enter,
		promo && !folio &&
			kernel_has_func(btf, "migrate_misplaced_page"));
	bpf_program__set_autoload(
		k->progs.misplaced_page_exit,
		bpf_program__autoload(k->progs.misplaced_page_enter));
	/* Without the swap-in hook (no BTF for it) there are no counters. */
	s->have_counters = bpf_program__autoload(k->progs.swap_free_nr_enter) ||
			   bpf_program__autoload(k->progs.swap_free_enter);
}

static void *map_mmap(struct bpf_map *map, size_t *bytes)
{
	size_t pg = sysconf(_SC_PAGESIZE);
	void *p;

	*bytes = (size_t)bpf_map__value_size(map) * bpf_map__max_entries(map);
	*bytes = (*bytes + pg - 1) / pg * pg;
	p = mmap(NULL, *bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
		 bpf_map__fd(map), 0);
	return p == MAP_FAILED ? NULL : p;
}

/* The target, validated before any side effect: a cgroup or PIDs. */
static int set_target(struct mdk_sampler *s,
		      const struct mdk_sampler_opts *opts, uint32_t *level,
		      uint64_t *cgroup_id, char *msg, size_t len)
{
	struct stat st;
	size_t i;
	int err;

	if (!opts->cgroup) {
		for (i = 0; i < opts->nr_pids; i++) {
			err = mdk_sampler_add_pid(s, opts->pids[i]);
			if (err) {
				set_msg(msg, len, "process %d: %s",
					opts->pids[i], strerror(-err));
				return err;
			}
		}
		return 0;
	}
	err = sampler__cgroup_level(opts->cgroup, level, msg, len);
	if (err)
		return err;
	if (stat(opts->cgroup, &st)) {
		err = -errno;
		set_msg(msg, len, "%s: %s", opts->cgroup, strerror(errno));
		return err;
	}
	*cgroup_id = st.st_ino;
	s->cgroup = strdup(opts->cgroup);
	if (!s->cgroup) {
		set_msg(msg, len, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* Open the skeleton and fill its knobs, as libbpf-tools do before load. */
static int open_skel(struct mdk_sampler *s, uint32_t level, uint64_t cgroup_id,
		     uint64_t block_bytes, char *msg, size_t len)
{
	s->skel = sampler_bpf__open();
	if (!s->skel) {
		set_msg(msg, len, "opening the BPF sampler: %s",
			strerror(errno));
		return errno ? -errno : -EINVAL;
	}
	s->skel->rodata->targ_max_recs = s->max_recs;
	bpf_map__set_max_entries(s->skel->maps.recs, s->max_recs);
	if (s->tier_node >= 0) {
		s->skel->rodata->targ_tier = true;
		s->skel->rodata->targ_block_shift =
			__builtin_ctzll(block_bytes) - 12;
		s->skel->rodata->targ_tier_words = s->tier_words;
		bpf_map__set_max_entries(s->skel->maps.tier_blocks,
					 s->tier_words);
	}
	if (s->cgroup) {
		s->skel->rodata->targ_cgroup_id = cgroup_id;
		s->skel->rodata->targ_cgroup_level = level;
	}
	/* Without BTF no fentry program loads either: the load says so. */
	pthread_once(&vmlinux_btf_once, load_vmlinux_btf);
	choose_hooks(s, vmlinux_btf);
	return 0;
}

/* Load and attach the opened skeleton and map its mmapable maps. */
static int start_skel(struct mdk_sampler *s, char *msg, size_t len)
{
	int err = sampler_bpf__load(s->skel);

	if (err) {
		set_msg(msg, len,
			"loading the BPF sampler: %s (needs root, BTF and "
			"x86-64; run with -v for libbpf's log)",
			strerror(-err));
		return err;
	}
	err = sampler_bpf__attach(s->skel);
	if (err) {
		set_msg(msg, len, "attaching the BPF sampler: %s",
			strerror(-err));
		return err;
	}
	s->recs = map_mmap(s->skel->maps.recs, &s->recs_bytes);
	if (!s->recs) {
		set_msg(msg, len, "mapping the record map: %s",
			strerror(errno));
		return errno ? -errno : -ENOMEM;
	}
	if (s->tier_node >= 0) {
		s->tier = map_mmap(s->skel->maps.tier_blocks, &s->tier_bytes);
		if (!s->tier) {
			err = -errno;
			set_msg(msg, len, "mapping the tier map: %s",
				strerror(errno));
			munmap(s->recs, s->recs_bytes);
			return err;
		}
	}
	return 0;
}

struct mdk_sampler *mdk_sampler_new(const struct mdk_sampler_opts *opts,
				    char *msg, size_t len)
{
	uint64_t block_bytes = 0, cgroup_id = 0;
	uint32_t level = 0;
	struct mdk_sampler *s;

	if (!opts->cgroup && !opts->nr_pids) {
		set_msg(msg, len, "no target: give a cgroup or PIDs");
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		set_msg(msg, len, "out of memory");
		return NULL;
	}
	s->flags = opts->flags;
	s->before_reset = opts->before_reset;
	s->before_reset_arg = opts->before_reset_arg;
	s->tier_node = opts->tier_node;
	s->max_recs = opts->max_recs ? opts->max_recs : DEFAULT_MAX_RECS;
	if (snprintf(s->proc_root, sizeof(s->proc_root), "%s",
		     opts->proc_root ? opts->proc_root : "/proc") >= ROOT_MAX ||
	    snprintf(s->sys_root, sizeof(s->sys_root), "%s",
		     opts->sys_root ? opts->sys_root : "/sys") >= ROOT_MAX) {
		set_msg(msg, len, "/proc or /sys root longer than %d bytes",
			ROOT_MAX - 1);
		goto err_free;
	}
	if (set_target(s, opts, &level, &cgroup_id, msg, len) ||
	    sampler__tier_init(s, &block_bytes, msg, len) ||
	    open_skel(s, level, cgroup_id, block_bytes, msg, len))
		goto err_free;
	if (start_skel(s, msg, len))
		goto err_destroy;
	return s;

err_destroy:
	sampler_bpf__destroy(s->skel);
err_free:
	free(s->tier_scratch);
	free(s->pids);
	free(s->cgroup);
	free(s);
	return NULL;
}

void mdk_sampler_free(struct mdk_sampler *s)
{
	uint32_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr_procs; i++) {
		if (s->procs[i].clear_fd >= 0)
			close(s->procs[i].clear_fd);
		bpf_link__destroy(s->procs[i].link);
	}
	if (s->tier)
		munmap(s->tier, s->tier_bytes);
	munmap(s->recs, s->recs_bytes);
	sampler_bpf__destroy(s->skel);
	free(s->procs);
	free(s->live);
	free(s->next_live);
	free(s->pids);
	free(s->members);
	free(s->known);
	free(s->ids);
	free(s->runs);
	free(s->tier_scratch);
	free(s->cgroup);
	free(s);
}
