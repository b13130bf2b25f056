// SPDX-License-Identifier: GPL-2.0
/*
 * The target's processes across windows.  Each one met gets the next
 * process number (the proc field of its page ids), a /proc/PID/clear_refs
 * file to reset its Accessed bits with and, while the files last, the
 * iterator attached to its PID.  At every window boundary each member is
 * walked (walk.c), reported when its bits cover the whole window, and
 * reset; a reused PID or an exec gets a new number, a process gone from
 * the target is dropped.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "sampler_int.h"
#include "sampler.skel.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int open_clear_refs(struct mdk_sampler *s, pid_t pid)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%d/clear_refs", s->proc_root, pid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static void read_comm(struct mdk_sampler *s, pid_t pid, char comm[16])
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	comm[0] = '\0';
	snprintf(path, sizeof(path), "%s/%d/comm", s->proc_root, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, comm, 15);
	close(fd);
	if (n < 0)
		n = 0;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
}

/*
 * Reset the Accessed bits (1) and flush the TLB (4, which also clears the
 * soft-dirty bits): see Documentation/sampler.rst for why both.
 */
static int clear_bits(struct mdk_sampler *s, struct proc_ent *e)
{
	if (e->clear_fd < 0)
		return -ESRCH;
	if (write(e->clear_fd, "1", 1) != 1)
		return -errno;
	if (!(s->flags & MDK_SAMPLER_NO_FLUSH) &&
	    write(e->clear_fd, "4", 1) != 1)
		return -errno;
	return 0;
}

static int clear_timed(struct mdk_sampler *s, struct proc_ent *e)
{
	uint64_t t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	int err = clear_bits(s, e);

	s->cur.clear_ns += clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	return err;
}

/* A new process number for @pid (owning @fd); NULL when out of numbers. */
static struct proc_ent *new_proc(struct mdk_sampler *s, pid_t pid, int fd,
				 const struct ident *id, uint64_t valid_window)
{
	size_t cap = s->cap_procs;
	struct proc_ent *e;

	if (s->nr_procs >= MDK_SAMPLER_MAX_PROCS)
		return NULL;
	if (mdk_grow((void **)&s->procs, &cap, s->nr_procs + 1,
		     sizeof(*s->procs)))
		return NULL;
	s->cap_procs = cap;
	e = &s->procs[s->nr_procs];
	memset(e, 0, sizeof(*e));
	e->pub.id = s->nr_procs++;
	e->pub.pid = pid;
	e->pub.start_ns = id->start_ns;
	e->pub.first_window = UINT64_MAX;
	e->pub.last_window = UINT64_MAX;
	e->pub.alive = true;
	e->clear_fd = fd;
	e->mm = id->mm;
	e->valid_window = valid_window;
	read_comm(s, pid, e->pub.comm);
	if (!s->cgroup) {
		__u32 key = pid;
		__u8 one = 1;

		bpf_map__update_elem(s->skel->maps.target_pids, &key,
				     sizeof(key), &one, sizeof(one), BPF_ANY);
	}
	return e;
}

/* The process behind @e left the target (or exited). */
static void drop_proc(struct mdk_sampler *s, struct proc_ent *e)
{
	pid_t *p, pid = e->pub.pid;
	__u32 key = pid;

	if (e->clear_fd >= 0)
		close(e->clear_fd);
	e->clear_fd = -1;
	bpf_link__destroy(e->link);
	e->link = NULL;
	if (!e->pub.alive)
		return;
	e->pub.alive = false;
	s->cur.nr_left++;
	if (s->cgroup)
		return;
	bpf_map__delete_elem(s->skel->maps.target_pids, &key, sizeof(key), 0);
	p = bsearch(&pid, s->pids, s->nr_pids, sizeof(pid), cmp_pid);
	if (p) {
		memmove(p, p + 1, (s->pids + s->nr_pids - p - 1) * sizeof(pid));
		s->nr_pids--;
	}
}

static int cmp_live(const void *a, const void *b)
{
	const struct live *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static struct live *live_find(struct mdk_sampler *s, pid_t pid)
{
	struct live key = { .pid = pid };

	return bsearch(&key, s->live, s->nr_live, sizeof(*s->live), cmp_live);
}

static int live_add(struct mdk_sampler *s, size_t *n, struct proc_ent *e)
{
	if (mdk_grow((void **)&s->next_live, &s->cap_next_live, *n + 1,
		     sizeof(*s->next_live)))
		return -ENOMEM;
	s->next_live[*n].pid = e->pub.pid;
	s->next_live[*n].id = e->pub.id;
	(*n)++;
	e->seen = s->window + 1;
	return 0;
}

/*
 * @e is a member for the next window: reset its bits now, or with a
 * before_reset hook once every process is walked (reset_members()).
 */
static int keep_member(struct mdk_sampler *s, size_t *nl, struct proc_ent *e)
{
	if (!s->before_reset && clear_timed(s, e)) {
		/* Exited after the walk: reported for this window, gone. */
		drop_proc(s, e);
		return 0;
	}
	return live_add(s, nl, e);
}

/* The resets keep_member() left for after the hook; @nl as it says. */
static void reset_members(struct mdk_sampler *s, size_t *nl)
{
	size_t i, j;

	for (i = j = 0; i < *nl; i++) {
		struct proc_ent *e = &s->procs[s->next_live[i].id];

		if (clear_timed(s, e)) {
			drop_proc(s, e);
			continue;
		}
		s->next_live[j++] = s->next_live[i];
	}
	*nl = j;
}

static void mark_reported(struct mdk_sampler *s, struct proc_ent *e)
{
	if (e->pub.first_window == UINT64_MAX)
		e->pub.first_window = s->window;
	e->pub.last_window = s->window;
	s->cur.nr_procs++;
}

/*
 * A process not a member at the last window boundary (or, with @starting,
 * every process at window 0's start).  Its bits count for this window only
 * if it started after the window's start: a fork starts with every
 * Accessed bit clear, an exec with a fresh address space.  Otherwise they
 * may be older, so it is only reset now; with MDK_SAMPLER_MET_RESIDENT
 * its resident pages are reported instead (in window 0 at the start).
 */
static int sample_fresh(struct mdk_sampler *s, pid_t pid, size_t *nl,
			bool starting, char *msg, size_t len)
{
	struct proc_ent *e;
	struct walker wk;
	bool report, met;
	int fd, err;

	fd = open_clear_refs(s, pid);
	if (fd < 0) {
		if (fd == -ENOENT || fd == -ESRCH)
			return 0; /* exited already */
		set_msg(msg, len, "%s/%d/clear_refs: %s", s->proc_root, pid,
			strerror(-fd));
		return fd;
	}
	err = sampler__walk_begin(s, pid, NULL, !starting, &wk);
	if (err) {
		close(fd);
		set_msg(msg, len, "walking process %d: %s", pid,
			strerror(-err));
		return err;
	}
	if (!wk.id.tid) {
		/* Exited, or a zombie without an mm: try again next time. */
		sampler__walk_finish(s, &wk, 0, false);
		close(fd);
		return 0;
	}
	report = !starting && wk.id.start_ns >= s->window_start_ns;
	met = !report && (s->flags & MDK_SAMPLER_MET_RESIDENT);
	if (met) {
		/* Walk again, from the start, for the resident pages. */
		wk.resident = true;
		wk.resume = UINT64_MAX;
	}
	e = new_proc(s, pid, fd, &wk.id,
		     starting || report ? s->window : s->window + 1);
	if (!e) {
		sampler__walk_finish(s, &wk, 0, false);
		close(fd);
		set_msg(msg, len, "out of process numbers (%u) or memory",
			MDK_SAMPLER_MAX_PROCS);
		return -ENOSPC;
	}
	sampler__walk_keep(s, &wk, e);
	err = sampler__walk_finish(s, &wk, e->pub.id, report || met);
	if (err) {
		set_msg(msg, len, "walking process %d: %s", pid,
			strerror(-err));
		return err;
	}
	if (report || met)
		mark_reported(s, e);
	if (!starting) {
		s->cur.nr_joined++;
		if (!report)
			s->cur.nr_stale++;
	}
	return keep_member(s, nl, e);
}

/* A process that was a member at the last window boundary. */
static int sample_known(struct mdk_sampler *s, uint32_t id, size_t *nl,
			char *msg, size_t len)
{
	struct proc_ent *e = &s->procs[id], *n;
	pid_t pid = e->pub.pid;
	struct walker wk;
	bool report = e->valid_window <= s->window;
	int err;

	err = sampler__walk_begin(s, pid, &e->link, report, &wk);
	if (err) {
		set_msg(msg, len, "walking process %d: %s", pid,
			strerror(-err));
		return err;
	}
	if (!wk.id.tid) {
		sampler__walk_finish(s, &wk, 0, false);
		return keep_member(s, nl, e); /* a zombie: no pages */
	}
	if (wk.id.start_ns != e->pub.start_ns) {
		/* The PID names another process now. */
		sampler__walk_finish(s, &wk, 0, false);
		drop_proc(s, e);
		return sample_fresh(s, pid, nl, false, msg, len);
	}
	if (wk.id.mm != e->mm) {
		/*
		 * exec: a new address space, every bit of it younger than
		 * our last walk, under a new number; the clear_refs file
		 * goes with it.
		 */
		n = new_proc(s, pid, e->clear_fd, &wk.id, s->window);
		e = &s->procs[id]; /* new_proc() may move the table */
		if (!n) {
			sampler__walk_finish(s, &wk, 0, false);
			set_msg(msg, len, "out of process numbers or memory");
			return -ENOSPC;
		}
		e->clear_fd = -1;
		n->link = e->link; /* attached to the PID, not to the mm */
		e->link = NULL;
		e->pub.alive = false;
		s->cur.nr_left++;
		s->cur.nr_joined++;
		e = n;
		report = true;
	}
	err = sampler__walk_finish(s, &wk, e->pub.id, report);
	if (err) {
		set_msg(msg, len, "walking process %d: %s", pid,
			strerror(-err));
		return err;
	}
	if (report)
		mark_reported(s, e);
	return keep_member(s, nl, e);
}

/* Walk every member; called at window boundaries. */
int sampler__sample_all(struct mdk_sampler *s, bool starting, char *msg,
			size_t len)
{
	size_t i, nl = 0, nk = 0;
	struct live *l;
	uint32_t *known;
	int err;

	err = sampler__gather(s, msg, len);
	if (err)
		return err;
	err = mdk_grow((void **)&s->known, &s->cap_known, s->nr_members,
		       sizeof(*known));
	if (err)
		return err;
	known = s->known;
	/* Known processes first, by number, then the new ones by PID: ids
	 * come out sorted unless an exec or a reused PID renumbers one. */
	for (i = 0; i < s->nr_members; i++) {
		l = live_find(s, s->members[i]);
		if (l)
			known[nk++] = l->id;
	}
	qsort(known, nk, sizeof(*known), cmp_u32);
	for (i = 0; i < nk && !err; i++)
		err = sample_known(s, known[i], &nl, msg, len);
	for (i = 0; i < s->nr_members && !err; i++)
		if (!live_find(s, s->members[i]))
			err = sample_fresh(s, s->members[i], &nl, starting, msg,
					   len);
	if (err)
		return err;
	if (s->before_reset) {
		uint64_t t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);

		/* Window 0's start has nothing walked for the hook to see. */
		if (!starting)
			s->before_reset(s->before_reset_arg, &s->cur);
		s->cur.hook_ns += clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
		reset_members(s, &nl);
	}
	/* Members at the last boundary that are not any more. */
	for (i = 0; i < s->nr_live; i++) {
		struct proc_ent *e = &s->procs[s->live[i].id];

		if (e->seen != s->window + 1 && e->pub.alive)
			drop_proc(s, e);
	}
	qsort(s->next_live, nl, sizeof(*s->next_live), cmp_live);
	l = s->live;
	s->live = s->next_live;
	s->next_live = l;
	i = s->cap_live;
	s->cap_live = s->cap_next_live;
	s->cap_next_live = i;
	s->nr_live = nl;
	return 0;
}

const struct mdk_sampler_proc *mdk_sampler_proc(const struct mdk_sampler *s,
						uint32_t id)
{
	return id < s->nr_procs ? &s->procs[id].pub : NULL;
}

uint32_t mdk_sampler_nr_procs(const struct mdk_sampler *s)
{
	return s->nr_procs;
}

int mdk_sampler_write_procs(const struct mdk_sampler *s, const char *path)
{
	const struct mdk_sampler_proc *p;
	uint32_t id;
	FILE *f;

	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "proc,pid,comm,first_window,last_window\n");
	for (id = 0; id < s->nr_procs; id++) {
		p = &s->procs[id].pub;
		fprintf(f, "%u,%d,%s,", p->id, p->pid, p->comm);
		if (p->first_window == UINT64_MAX)
			fprintf(f, ",\n");
		else
			fprintf(f, "%" PRIu64 ",%" PRIu64 "\n", p->first_window,
				p->last_window);
	}
	return fclose(f) ? -errno : 0;
}
