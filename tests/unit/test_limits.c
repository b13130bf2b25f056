// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the host's readings (meminfo of both kernels, vmstat, a
 * node's meminfo, a fake /proc and /sys read twice for the swap-out rate)
 * and the operator's limits: the swap valve closes at swap_max_used (swap
 * or the zswap pool) and at swapout_max_rate and reopens with hysteresis,
 * an action takes no more than the swap room, memory.reclaim goes on
 * file-only where the kernel takes swappiness=, the rate caps hold over
 * time per cgroup and host-wide, the CPU cap puts work off until the
 * budget is back, activation follows active_below, and the counters add
 * up.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "daemon/host.h"
#include "daemon/limits.h"
#include "fakecg.h"
#include "unit.h"

#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

static void read_fixture(const char *kernel, struct mdkd_host *h)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/daemon/%s/meminfo",
		 getenv("MDK_FIXTURES") ? getenv("MDK_FIXTURES") :
					  "tests/fixtures",
		 kernel);
	ck_assert_int_eq(mdkd_host_parse_meminfo(h, fake_read(path)), 0);
}

START_TEST(test_host_meminfo_both_kernels)
{
	static const char *const kernels[] = { "kernel-6.1", "kernel-6.12" };
	size_t i;

	for (i = 0; i < 2; i++) {
		struct mdkd_host h = { 0 };

		read_fixture(kernels[i], &h);
		ck_assert_uint_gt(h.mem_total, h.mem_free);
		ck_assert_uint_gt(h.mem_free, 0);
		ck_assert_uint_gt(h.mem_available, 0);
		ck_assert_msg(h.has_zswap_pool, "%s: no Zswap line",
			      kernels[i]);
	}
}
END_TEST

START_TEST(test_host_meminfo_values)
{
	struct mdkd_host h = { 0 };

	ck_assert_int_eq(mdkd_host_parse_meminfo(
				 &h, "MemTotal: 4096 kB\nMemFree: 1024 kB\n"
				     "SwapTotal: 2048 kB\nSwapFree: 512 kB\n"),
			 0);
	ck_assert_uint_eq(h.mem_total, 4 * MiB);
	ck_assert_uint_eq(h.mem_available, 1 * MiB); /* MemFree instead */
	ck_assert(!h.has_zswap_pool);
	ck_assert_double_eq_tol(mdkd_host_swap_used(&h), 0.75, 1e-9);
	ck_assert_double_eq_tol(mdkd_host_free_share(&h), 0.25, 1e-9);
	ck_assert_int_eq(mdkd_host_parse_meminfo(&h, "MemTotal: 1 kB\n"),
			 -EINVAL);
	ck_assert_int_eq(mdkd_host_parse_meminfo(
				 &h, "MemTotal: 1 kB\nMemFree: 1 kB\n"
				     "SwapTotal: x kB\nSwapFree: 1 kB\n"),
			 -EINVAL);
}
END_TEST

START_TEST(test_host_vmstat_and_node)
{
	uint64_t v = 0, total = 0, free = 0;

	ck_assert_int_eq(
		mdkd_host_vmstat("pswpin 3\npswpout 42\n", "pswpout", &v), 0);
	ck_assert_uint_eq(v, 42);
	/* A prefix of another counter is not the counter. */
	ck_assert_int_eq(mdkd_host_vmstat("pswpoutx 1\n", "pswpout", &v),
			 -ENOENT);
	ck_assert_int_eq(
		mdkd_host_parse_node_meminfo("Node 1 MemTotal:  131072 kB\n"
					     "Node 1 MemFree:    65536 kB\n"
					     "Node 1 MemUsed:    65536 kB\n",
					     &total, &free),
		0);
	ck_assert_uint_eq(total, 128 * MiB);
	ck_assert_uint_eq(free, 64 * MiB);
	ck_assert_int_eq(mdkd_host_parse_node_meminfo("Node 1 MemTotal: 1 kB\n",
						      &total, &free),
			 -EINVAL);
}
END_TEST

/* A fake /proc and /sys: two readings a second apart give the rate. */
START_TEST(test_host_read_rate_and_nodes)
{
	struct mdkd_host h = { 0 };
	struct fakecg f;
	char path[PATH_MAX * 2], sys[PATH_MAX], err[256];

	fake_setup(&f, NULL);
	snprintf(sys, sizeof(sys), "%s/sys", f.top);
	snprintf(path, sizeof(path), "%s/devices/system/node/node0", sys);
	fake_mkdirs(path);
	snprintf(path, sizeof(path), "%s/devices/system/node/node0/meminfo",
		 sys);
	fake_write(path, "Node 0 MemTotal: 1048576 kB\n"
			 "Node 0 MemFree: 262144 kB\n");
	snprintf(path, sizeof(path), "%s/vmstat", f.proc);
	fake_write(path, "pswpout 1000\n");
	ck_assert_int_eq(mdkd_host_read(&h, f.proc, sys, 5000000, false, err,
					sizeof(err)),
			 0);
	ck_assert_double_eq(h.swapout_rate, 0);
	ck_assert_uint_eq(h.dram_total, 1 * GiB);
	ck_assert_double_eq_tol(mdkd_host_dram_free_share(&h), 0.25, 1e-9);
	ck_assert_int_eq(h.tier_node, -1);
	fake_write(path, "pswpout 1256\n");
	/* Within the period: not read again. */
	ck_assert_int_eq(mdkd_host_read(&h, f.proc, sys, 5500000, false, err,
					sizeof(err)),
			 0);
	ck_assert_uint_eq(h.pswpout, 1000);
	ck_assert_int_eq(mdkd_host_read(&h, f.proc, sys, 7000000, false, err,
					sizeof(err)),
			 0);
	/* 256 pages in 2 s. */
	ck_assert_double_eq_tol(h.swapout_rate, 256.0 * 4096 / 2, 1e-6);
	/* Inactive readings take meminfo only; the rate spans full ones. */
	fake_write(path, "pswpout 2024\n");
	h.mem_total = 0;
	ck_assert_int_eq(mdkd_host_read_mem(&h, f.proc, 8000000, false, err,
					    sizeof(err)),
			 0);
	ck_assert_uint_eq(h.read_us, 8000000);
	ck_assert_uint_eq(h.pswpout, 1256);
	ck_assert_uint_eq(h.mem_total, 4 * GiB);
	ck_assert_int_eq(mdkd_host_read(&h, f.proc, sys, 9000000, false, err,
					sizeof(err)),
			 0);
	/* 768 pages in 2 s (7 s to 9 s), not in 1 s. */
	ck_assert_double_eq_tol(h.swapout_rate, 768.0 * 4096 / 2, 1e-6);
	ck_assert_int_eq(mdkd_host_read(&h, "/nonexistent", sys, 11000000,
					false, err, sizeof(err)),
			 -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/meminfo"));
	ck_assert_int_eq(mdkd_host_read_mem(&h, "/nonexistent", 13000000, false,
					    err, sizeof(err)),
			 -ENOENT);
	fake_teardown(&f);
}
END_TEST

static struct mdkd_host host_swap(uint64_t total, uint64_t used)
{
	struct mdkd_host h = { 0 };

	h.mem_total = 4 * GiB;
	h.mem_free = 1 * GiB;
	h.swap_total = total;
	h.swap_free = total - used;
	return h;
}

static struct mdkd_limits_conf conf80(void)
{
	struct mdkd_limits_conf c = { 0 };

	c.swap_max_used = 0.8;
	c.active_below = 1;
	return c;
}

static uint64_t ask(struct mdkd_limits *l, struct mdkd_limits_cg *cg,
		    enum mdkd_action action, uint64_t want, uint64_t now,
		    bool *file_only)
{
	struct mdkd_limits_ask a = {
		.action = action,
		.swap_backed = action == MDKD_ACT_RECLAIM ||
			       action == MDKD_ACT_PAGEOUT,
		.takes_swappiness = action == MDKD_ACT_RECLAIM,
		.swappiness = -1,
		.want = want,
		.interval_us = 1000000,
		.now = now,
	};

	return mdkd_limits_gate(l, cg, &a, file_only);
}

START_TEST(test_valve_closes_and_reopens)
{
	struct mdkd_limits l;
	struct mdkd_limits_cg cg = { 0 };
	struct mdkd_limits_conf c = conf80();
	struct mdkd_host h;
	bool fo;

	mdkd_limits_init(&l);
	l.swap_overshoot = 1; /* the kernel takes what it is asked */
	h = host_swap(100 * MiB, 50 * MiB);
	mdkd_limits_update(&l, &c, &h);
	ck_assert_int_eq(mdkd_limits_valve_reason(&l), MDKD_R_RECLAIM);
	/* Room: 80 - 50 MiB; an action takes half of what is left. */
	ck_assert_uint_eq(l.swap_room, 30 * MiB);
	ck_assert_uint_eq(ask(&l, &cg, MDKD_ACT_PAGEOUT, 64 * MiB, 1, &fo),
			  15 * MiB);
	ck_assert_int_eq(cg.held, MDKD_R_SWAP_FULL);
	ck_assert_uint_eq(ask(&l, &cg, MDKD_ACT_PAGEOUT, 64 * MiB, 2, &fo),
			  15 * MiB / 2);
	ck_assert_uint_eq(ask(&l, &cg, MDKD_ACT_PAGEOUT, 4 * MiB, 2, &fo),
			  15 * MiB / 4);
	ck_assert_uint_eq(l.swap_room, 15 * MiB / 4);
	l.swap_room = MDKD_PAGE_SIZE; /* half a page: none */
	ck_assert_uint_eq(ask(&l, &cg, MDKD_ACT_PAGEOUT, 4 * MiB, 2, &fo), 0);
	/* Migration is not swap-backed. */
	ck_assert_uint_eq(ask(&l, &cg, MDKD_ACT_DEMOTE, 64 * MiB, 3, &fo),
			  64 * MiB);
	ck_assert_int_eq(cg.held, MDKD_R_RECLAIM);

	h = host_swap(100 * MiB, 80 * MiB);
	mdkd_limits_update(&l, &c, &h);
	ck_assert_int_eq(mdkd_limits_valve_reason(&l), MDKD_R_SWAP_FULL);
	ck_assert_uint_eq(l.valve_closures, 1);
	ck_assert_uint_eq(ask(&l, &cg, MDKD_ACT_RECLAIM, 4 * MiB, 4, &fo), 0);
	ck_assert(!fo);
	/* Hysteresis: 76% keeps it closed, 74% opens it. */
	h = host_swap(100 * MiB, 76 * MiB);
	mdkd_limits_update(&l, &c, &h);
	ck_assert_int_eq(mdkd_limits_valve_reason(&l), MDKD_R_SWAP_FULL);
	h = host_swap(100 * MiB, 74 * MiB);
	mdkd_limits_update(&l, &c, &h);
	ck_assert_int_eq(mdkd_limits_valve_reason(&l), MDKD_R_RECLAIM);
	ck_assert_uint_eq(l.valve_closures, 1);
}
END_TEST

START_TEST(test_valve_zswap_pool_and_rate)
{
	struct mdkd_limits l;
	struct mdkd_limits_conf c = conf80();
	struct mdkd_host h = host_swap(GiB, 0);

	mdkd_limits_init(&l);
	/* zswap's pool: 20% of 4 GiB; 700 MiB of it is over 80%. */
	h.zswap_enabled = true;
	h.zswap_max_pool_percent = 20;
	h.zswap_pool = 700 * MiB;
	mdkd_limits_update(&l, &c, &h);
	ck_assert_int_eq(mdkd_limits_valve_reason(&l), MDKD_R_SWAP_FULL);
	h.zswap_enabled = false;
	mdkd_limits_update(&l, &c, &h);
	ck_assert_int_eq(mdkd_limits_valve_reason(&l), MDKD_R_RECLAIM);

	c.swapout_max_rate = 10 * MiB;
	h.swapout_rate = 11.0 * MiB;
	mdkd_limits_update(&l, &c, &h);
	ck_assert_int_eq(mdkd_limits_valve_reason(&l), MDKD_R_SWAPOUT_RATE);
	h.swapout_rate = 6.0 * MiB; /* above half: stays closed */
	mdkd_limits_update(&l, &c, &h);
	ck_assert_int_eq(mdkd_limits_valve_reason(&l), MDKD_R_SWAPOUT_RATE);
	h.swapout_rate = 4.0 * MiB;
	mdkd_limits_update(&l, &c, &h);
	ck_assert_int_eq(mdkd_limits_valve_reason(&l), MDKD_R_RECLAIM);
}
END_TEST

START_TEST(test_valve_file_only_with_swappiness)
{
	struct mdkd_limits l;
	struct mdkd_limits_cg cg = { 0 };
	struct mdkd_limits_conf c = conf80();
	struct mdkd_host h = host_swap(100 * MiB, 90 * MiB);
	bool fo;

	mdkd_limits_init(&l);
	l.swappiness_ok = true;
	mdkd_limits_update(&l, &c, &h);
	/* memory.reclaim goes on with swappiness=0; pageout does not. */
	ck_assert_uint_eq(ask(&l, &cg, MDKD_ACT_RECLAIM, 8 * MiB, 1, &fo),
			  8 * MiB);
	ck_assert(fo);
	ck_assert(cg.file_only);
	ck_assert_uint_eq(cg.file_only_decisions, 1);
	ck_assert_uint_eq(ask(&l, &cg, MDKD_ACT_PAGEOUT, 8 * MiB, 2, &fo), 0);
	ck_assert(!fo);
	ck_assert(!cg.file_only);
	ck_assert_uint_eq(cg.file_only_decisions, 1);
	ck_assert_int_eq(cg.held, MDKD_R_SWAP_FULL);
}
END_TEST

/* The valve closes a point short of the limit, or with no room to act. */
START_TEST(test_valve_closes_short_of_limit)
{
	struct mdkd_limits l;
	struct mdkd_limits_conf c = conf80();
	struct mdkd_host h = host_swap(1000 * MiB, 785 * MiB);

	mdkd_limits_init(&l);
	mdkd_limits_update(&l, &c, &h);
	ck_assert_int_eq(mdkd_limits_valve_reason(&l), MDKD_R_RECLAIM);
	h = host_swap(1000 * MiB, 795 * MiB);
	mdkd_limits_update(&l, &c, &h);
	ck_assert_int_eq(mdkd_limits_valve_reason(&l), MDKD_R_SWAP_FULL);
	/* A small swap closes when no action fits in the room: 2 MiB left
	 * is half a MiB at the first overshoot of 2. */
	h = host_swap(100 * MiB, 70 * MiB);
	mdkd_limits_update(&l, &c, &h);
	ck_assert_int_eq(mdkd_limits_valve_reason(&l), MDKD_R_RECLAIM);
	h = host_swap(100 * MiB, 78 * MiB);
	mdkd_limits_update(&l, &c, &h);
	ck_assert_int_eq(mdkd_limits_valve_reason(&l), MDKD_R_SWAP_FULL);
}
END_TEST

/* The swap the kernel took per byte asked divides the room. */
START_TEST(test_valve_learns_overshoot)
{
	struct mdkd_limits l;
	struct mdkd_limits_cg cg = { 0 };
	struct mdkd_limits_conf c = conf80();
	struct mdkd_host h = host_swap(100 * MiB, 50 * MiB);
	bool fo;

	mdkd_limits_init(&l);
	mdkd_limits_update(&l, &c, &h);
	ck_assert_double_eq(l.swap_overshoot, 2);
	/* Half of the 30 MiB room over 2; twice that charged to it. */
	ck_assert_uint_eq(ask(&l, &cg, MDKD_ACT_RECLAIM, 64 * MiB, 1, &fo),
			  15 * MiB / 2);
	ck_assert_uint_eq(l.swap_room, 15 * MiB);
	ck_assert_uint_eq(cg.swap_before, 50 * MiB);
	ck_assert_uint_eq(cg.swap_asked, 15 * MiB / 2);
	/* It took 30 MiB: 4 times. */
	mdkd_limits_swap_taken(&l, cg.swap_asked, 30 * MiB);
	ck_assert_double_eq_tol(l.swap_overshoot, 4, 1e-9);
	ck_assert_uint_eq(ask(&l, &cg, MDKD_ACT_RECLAIM, 64 * MiB, 2, &fo),
			  15 * MiB / 8);
	/* Measures below it decay it by a tenth of its excess; tiny asks
	 * and demotions teach nothing. */
	mdkd_limits_swap_taken(&l, 8 * MiB, 8 * MiB);
	ck_assert_double_eq_tol(l.swap_overshoot, 3.7, 1e-9);
	mdkd_limits_swap_taken(&l, 4096, 64 * MiB);
	ck_assert_double_eq_tol(l.swap_overshoot, 3.7, 1e-9);
	ask(&l, &cg, MDKD_ACT_DEMOTE, 64 * MiB, 3, &fo);
	ck_assert_uint_eq(cg.swap_asked, 0);
	/* Room for less than 1 MiB: none; a small want with room is fine. */
	l.swap_overshoot = 1;
	l.swap_room = 2 * MiB - MDKD_PAGE_SIZE;
	ck_assert_uint_eq(ask(&l, &cg, MDKD_ACT_RECLAIM, 64 * MiB, 4, &fo), 0);
	ck_assert_int_eq(cg.held, MDKD_R_SWAP_FULL);
	l.swap_room = 64 * MiB;
	ck_assert_uint_eq(ask(&l, &cg, MDKD_ACT_RECLAIM, 64 * 1024, 5, &fo),
			  64 * 1024);
	/* Far from the limit nothing is measured; near it, it is. */
	ck_assert_uint_eq(cg.swap_asked, 0);
	ck_assert_uint_eq(ask(&l, &cg, MDKD_ACT_RECLAIM, 8 * MiB, 5, &fo),
			  8 * MiB);
	ck_assert_uint_eq(cg.swap_asked, 8 * MiB);
}
END_TEST

/* memory.high pulses take no swappiness=; swappiness=0 takes no swap. */
START_TEST(test_valve_swappiness_writes)
{
	struct mdkd_limits l;
	struct mdkd_limits_cg cg = { 0 };
	struct mdkd_limits_conf c = conf80();
	struct mdkd_host h = host_swap(100 * MiB, 90 * MiB);
	struct mdkd_limits_ask a = {
		.action = MDKD_ACT_RECLAIM,
		.swap_backed = true,
		.swappiness = -1,
		.want = 8 * MiB,
		.interval_us = 1000000,
		.now = 1,
	};
	bool fo;

	mdkd_limits_init(&l);
	l.swappiness_ok = true;
	l.swap_overshoot = 1;
	mdkd_limits_update(&l, &c, &h);
	/* The high-pulse actuator cannot go on file-only: held. */
	ck_assert_uint_eq(mdkd_limits_gate(&l, &cg, &a, &fo), 0);
	ck_assert(!fo);
	ck_assert_int_eq(cg.held, MDKD_R_SWAP_FULL);
	/* reclaim_swappiness=0: file pages only, whatever the valve. */
	a.takes_swappiness = true;
	a.swappiness = 0;
	ck_assert_uint_eq(mdkd_limits_gate(&l, &cg, &a, &fo), 8 * MiB);
	ck_assert(!fo);
	ck_assert_int_eq(cg.held, MDKD_R_RECLAIM);
	/* Open, it leaves the swap room to the others. */
	h = host_swap(100 * MiB, 50 * MiB);
	mdkd_limits_update(&l, &c, &h);
	a.want = 64 * MiB;
	ck_assert_uint_eq(mdkd_limits_gate(&l, &cg, &a, &fo), 64 * MiB);
	ck_assert_uint_eq(l.swap_room, 30 * MiB);
	/* Without swappiness= on the kernel, it is swap-backed again. */
	l.swappiness_ok = false;
	ck_assert_uint_eq(mdkd_limits_gate(&l, &cg, &a, &fo), 15 * MiB);
	ck_assert_uint_eq(l.swap_room, 15 * MiB);
}
END_TEST

START_TEST(test_rate_caps)
{
	struct mdkd_limits l;
	struct mdkd_limits_cg a = { 0 }, b = { 0 };
	struct mdkd_limits_conf c = conf80();
	struct mdkd_host h = host_swap(0, 0);
	struct mdkd_limits_ask q = {
		.action = MDKD_ACT_DEMOTE,
		.want = 100 * MiB,
		.max_rate = 10 * MiB,
		.interval_us = 2000000,
	};
	uint64_t sum = 0, t;
	bool fo;

	mdkd_limits_init(&l);
	mdkd_limits_update(&l, &c, &h);
	/* Per cgroup: a burst of one interval, then the rate. */
	q.now = 1000000;
	ck_assert_uint_eq(mdkd_limits_gate(&l, &a, &q, &fo), 20 * MiB);
	ck_assert_int_eq(a.held, MDKD_R_RATE_CAP);
	for (t = 2; t <= 11; t++) {
		q.now = t * 1000000;
		sum += mdkd_limits_gate(&l, &a, &q, &fo);
	}
	ck_assert_uint_eq(sum, 100 * MiB); /* 10 s at 10 MiB/s */
	ck_assert_uint_eq(a.act[MDKD_ACT_DEMOTE].limit_hits, 11);

	/* Host-wide: two cgroups share host_max_rate. */
	c.host_max_rate = 8 * MiB;
	mdkd_limits_update(&l, &c, &h);
	q.max_rate = 0;
	q.now = 20000000;
	sum = mdkd_limits_gate(&l, &b, &q, &fo);
	ck_assert_uint_eq(sum, 16 * MiB);
	q.now = 21000000;
	sum += mdkd_limits_gate(&l, &b, &q, &fo);
	sum += mdkd_limits_gate(&l, &a, &q, &fo);
	ck_assert_uint_eq(sum, 24 * MiB);
	ck_assert_int_eq(a.held, MDKD_R_RATE_CAP);
	ck_assert_uint_eq(l.held[MDKD_R_RATE_CAP], 11 + 3);
}
END_TEST

START_TEST(test_cpu_cap_defers)
{
	struct mdkd_limits l;
	struct mdkd_limits_conf c = conf80();
	struct mdkd_host h = host_swap(0, 0);
	uint64_t wake;

	mdkd_limits_init(&l);
	ck_assert_uint_eq(mdkd_limits_cpu(&l, 1000000, 0), 0); /* off */
	c.max_cpu = 0.1;
	mdkd_limits_update(&l, &c, &h);
	/* Budget: 100 ms of CPU; 150 ms spent puts work off 500 ms. */
	ck_assert_uint_eq(mdkd_limits_cpu(&l, 1000000, 0), 0);
	wake = mdkd_limits_cpu(&l, 1000000, 150000);
	ck_assert_uint_eq(wake, 1500000);
	ck_assert_uint_ne(mdkd_limits_cpu(&l, 1400000, 150000), 0);
	ck_assert_uint_eq(mdkd_limits_cpu(&l, 1500000, 150000), 0);
	/* Idle time refills no more than one period's budget. */
	ck_assert_uint_eq(mdkd_limits_cpu(&l, 100000000, 150000), 0);
	ck_assert_double_eq_tol(l.cpu_tokens_us, 100000, 1e-6);
}
END_TEST

START_TEST(test_active_below)
{
	struct mdkd_limits l;
	struct mdkd_limits_conf c = conf80();
	struct mdkd_host h = host_swap(0, 0);

	mdkd_limits_init(&l);
	c.active_below = 0.30;
	h.mem_free = h.mem_total / 2; /* 50% free */
	mdkd_limits_update(&l, &c, &h);
	ck_assert(!l.active);
	h.mem_free = h.mem_total / 100 * 29;
	mdkd_limits_update(&l, &c, &h);
	ck_assert(l.active);
	/* Hysteresis: 30.5% stays active, 32% deactivates. */
	h.mem_free = h.mem_total / 1000 * 305;
	mdkd_limits_update(&l, &c, &h);
	ck_assert(l.active);
	h.mem_free = h.mem_total / 100 * 32;
	mdkd_limits_update(&l, &c, &h);
	ck_assert(!l.active);
	c.active_below = 1;
	mdkd_limits_update(&l, &c, &h);
	ck_assert(l.active);
}
END_TEST

START_TEST(test_account_adds_up)
{
	struct mdkd_limits l;
	struct mdkd_limits_cg a = { 0 }, b = { 0 };

	mdkd_limits_init(&l);
	mdkd_limits_account(&l, &a, MDKD_ACT_PAGEOUT, 8 * MiB, 6 * MiB);
	mdkd_limits_account(&l, &b, MDKD_ACT_PAGEOUT, 4 * MiB, 4 * MiB);
	mdkd_limits_account(&l, &b, MDKD_ACT_PROMOTE, MiB, 0);
	ck_assert_uint_eq(a.act[MDKD_ACT_PAGEOUT].applied_bytes, 6 * MiB);
	ck_assert_uint_eq(l.act[MDKD_ACT_PAGEOUT].tried_bytes, 12 * MiB);
	ck_assert_uint_eq(l.act[MDKD_ACT_PAGEOUT].applied_bytes, 10 * MiB);
	ck_assert_uint_eq(l.act[MDKD_ACT_PROMOTE].tried_bytes, MiB);
	ck_assert_str_eq(mdkd_action_names[MDKD_ACT_PROMOTE], "promote");
}
END_TEST

static Suite *limits_suite(void)
{
	Suite *s = suite_create("limits");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_host_meminfo_both_kernels);
	tcase_add_test(tc, test_host_meminfo_values);
	tcase_add_test(tc, test_host_vmstat_and_node);
	tcase_add_test(tc, test_host_read_rate_and_nodes);
	tcase_add_test(tc, test_valve_closes_and_reopens);
	tcase_add_test(tc, test_valve_zswap_pool_and_rate);
	tcase_add_test(tc, test_valve_file_only_with_swappiness);
	tcase_add_test(tc, test_valve_swappiness_writes);
	tcase_add_test(tc, test_valve_closes_short_of_limit);
	tcase_add_test(tc, test_valve_learns_overshoot);
	tcase_add_test(tc, test_rate_caps);
	tcase_add_test(tc, test_cpu_cap_defers);
	tcase_add_test(tc, test_active_below);
	tcase_add_test(tc, test_account_adds_up);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(limits_suite)
