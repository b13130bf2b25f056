// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the controller, driven by sequences of samples: the TMO law
 * (current * ratio * (1 - psi / threshold)), the bounds it respects (the
 * floor of memory.min or min_bytes plus unreclaimable memory, max_bytes,
 * whole pages), the IO-pressure guard, the back-off after EAGAIN/EBUSY,
 * senpai.py's integral controller, and observe-only mode.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/controller.h"
#include "daemon/registry.h"
#include "unit.h"

#define MiB (1ULL << 20)
#define GiB (1ULL << 30)
#define S 1000000ULL /* one second in microseconds */

/* Floating point: the integral controller's byte counts agree to one. */
#define ck_assert_near(a, b) \
	ck_assert_uint_le((a) > (b) ? (a) - (b) : (b) - (a), 1)

/* The shipped defaults of the keys the core and its modes read. */
static struct mdkd_settings defaults(void)
{
	struct mdkd_settings s;

	memset(&s, 0, sizeof(s));
	s.interval_us = 6 * S;
	s.psi_threshold = 0.001;
	s.reclaim_ratio = 0.0005;
	s.io_psi_threshold = 0.1;
	s.backoff_max = 8;
	s.max_probe = 0.01;
	s.max_backoff = 1.0;
	s.coeff_probe = 10;
	s.coeff_backoff = 20;
	s.mode = &mdkd_mode_senpai;
	return s;
}

/* A cgroup of @current bytes, all of it reclaimable (swap available). */
static struct mdkd_sample sample(uint64_t t_us, uint64_t current,
				 uint64_t some_us, uint64_t io_us)
{
	struct mdkd_sample s;

	memset(&s, 0, sizeof(s));
	s.time_us = t_us;
	s.current_bytes = current;
	s.stat.anon = current / 2;
	s.stat.active_anon = current / 4;
	s.stat.inactive_anon = current / 2 - current / 4;
	s.stat.file = current - current / 2;
	s.stat.active_file = s.stat.file / 2;
	s.stat.inactive_file = s.stat.file - s.stat.file / 2;
	s.mem.some.total_us = some_us;
	s.mem.full.total_us = some_us / 2;
	s.mem.has_full = true;
	s.io.some.total_us = io_us;
	s.has_io = true;
	s.has_swap = true;
	s.swap_max_bytes = UINT64_MAX;
	s.host_swap_total_bytes = GiB;
	s.host_swap_free_bytes = GiB;
	return s;
}

struct run {
	struct mdkd_ctl ctl;
	struct mdkd_settings set;
	struct mdkd_interval iv;
	struct mdkd_decision d;
};

static void run_init(struct run *r, const struct mdkd_mode_ops *mode)
{
	memset(r, 0, sizeof(*r));
	r->set = defaults();
	r->set.mode = mode;
	ck_assert_int_eq(mdkd_ctl_init(&r->ctl, mode), 0);
}

static uint64_t step(struct run *r, struct mdkd_sample s)
{
	mdkd_ctl_step(&r->ctl, &r->set, &s, &r->iv, &r->d);
	return r->d.reclaim_bytes;
}

START_TEST(test_senpai_first_sample_is_baseline)
{
	struct run r;

	run_init(&r, &mdkd_mode_senpai);
	ck_assert_uint_eq(step(&r, sample(0, GiB, 0, 0)), 0);
	ck_assert_int_eq(r.d.reason, MDKD_R_BASELINE);
	mdkd_ctl_destroy(&r.ctl);
}
END_TEST

START_TEST(test_senpai_law_at_zero_pressure)
{
	struct run r;
	uint64_t want = (uint64_t)(GiB * 0.0005);

	run_init(&r, &mdkd_mode_senpai);
	step(&r, sample(0, GiB, 0, 0));
	ck_assert_uint_eq(step(&r, sample(6 * S, GiB, 0, 0)), want & ~4095ULL);
	ck_assert_int_eq(r.d.reason, MDKD_R_RECLAIM);
	ck_assert_uint_eq(r.d.want_bytes, want);
	ck_assert_uint_eq(r.iv.dt_us, 6 * S);
	mdkd_ctl_destroy(&r.ctl);
}
END_TEST

/* psi at half the threshold halves the step; at the threshold it stops. */
START_TEST(test_senpai_law_scales_with_pressure)
{
	struct run r;
	uint64_t full = (uint64_t)(GiB * 0.0005);

	run_init(&r, &mdkd_mode_senpai);
	step(&r, sample(0, GiB, 0, 0));
	/* 0.1% of 6 s is 6000 us: 3000 us of stall is half of it. */
	step(&r, sample(6 * S, GiB, 3000, 0));
	ck_assert_double_eq_tol(r.iv.mem_some, 0.0005, 1e-12);
	ck_assert_uint_eq(r.d.want_bytes, full / 2);
	ck_assert_uint_eq(r.d.reclaim_bytes, (full / 2) & ~4095ULL);
	step(&r, sample(12 * S, GiB, 9000, 0)); /* exactly the threshold */
	ck_assert_int_eq(r.d.reason, MDKD_R_PRESSURE);
	ck_assert_uint_eq(r.d.reclaim_bytes, 0);
	step(&r, sample(18 * S, GiB, 9000 + 60000, 0)); /* 1% */
	ck_assert_int_eq(r.d.reason, MDKD_R_PRESSURE);
	step(&r, sample(24 * S, GiB, 69000, 0)); /* quiet again */
	ck_assert_int_eq(r.d.reason, MDKD_R_RECLAIM);
	ck_assert_uint_eq(r.d.want_bytes, full);
	mdkd_ctl_destroy(&r.ctl);
}
END_TEST

/* Never below max(memory.min, min_bytes) + what cannot be reclaimed. */
START_TEST(test_senpai_respects_floor)
{
	struct mdkd_sample s;
	struct run r;
	uint64_t t = 0, cur = GiB;
	int i;

	run_init(&r, &mdkd_mode_senpai);
	r.set.reclaim_ratio = 0.5;
	r.set.min_bytes = 600 * MiB;
	step(&r, sample(t, cur, 0, 0));
	for (i = 0; i < 10; i++) {
		t += 6 * S;
		s = sample(t, cur, 0, 0);
		s.min_bytes = 700 * MiB; /* memory.min above min_bytes */
		cur -= step(&r, s);
		ck_assert_uint_ge(cur, 700 * MiB);
	}
	ck_assert_uint_eq(cur, 700 * MiB);
	ck_assert_int_eq(r.d.reason, MDKD_R_FLOOR);

	/* Without swap the anonymous half is unreclaimable. */
	s = sample(t += 6 * S, GiB, 0, 0);
	s.min_bytes = 0;
	s.host_swap_free_bytes = 0;
	r.set.min_bytes = 0;
	step(&r, s);
	ck_assert_uint_eq(r.iv.floor_bytes, GiB / 2);
	ck_assert_uint_eq(r.d.reclaim_bytes, GiB / 2);
	/* memory.min = max protects everything. */
	s = sample(t += 6 * S, GiB, 0, 0);
	s.min_bytes = UINT64_MAX;
	step(&r, s);
	ck_assert_uint_eq(r.d.reclaim_bytes, 0);
	ck_assert_int_eq(r.d.reason, MDKD_R_FLOOR);
	mdkd_ctl_destroy(&r.ctl);
}
END_TEST

START_TEST(test_senpai_caps_and_rounds)
{
	struct run r;

	run_init(&r, &mdkd_mode_senpai);
	r.set.reclaim_ratio = 0.25;
	r.set.max_bytes = 10 * MiB + 123;
	step(&r, sample(0, GiB, 0, 0));
	ck_assert_uint_eq(step(&r, sample(S, GiB, 0, 0)), 10 * MiB);
	/* Less than a page to take: nothing. */
	r.set.max_bytes = 0;
	r.set.reclaim_ratio = 0.0005;
	step(&r, sample(2 * S, 4 * MiB, 0, 0));
	ck_assert_int_eq(r.d.reason, MDKD_R_SMALL);
	ck_assert_uint_eq(r.d.reclaim_bytes, 0);
	mdkd_ctl_destroy(&r.ctl);
}
END_TEST

START_TEST(test_senpai_io_pressure_guard)
{
	struct run r;

	run_init(&r, &mdkd_mode_senpai);
	step(&r, sample(0, GiB, 0, 0));
	/* 20% of 6 s stalled on IO: above the 10% default. */
	ck_assert_uint_eq(step(&r, sample(6 * S, GiB, 0, 1200000)), 0);
	ck_assert_int_eq(r.d.reason, MDKD_R_IO_PRESSURE);
	ck_assert_uint_gt(step(&r, sample(12 * S, GiB, 0, 1200000)), 0);
	mdkd_ctl_destroy(&r.ctl);
}
END_TEST

/* EAGAIN/EBUSY: skip 1, 2, 4 ... up to backoff_max intervals. */
START_TEST(test_backoff_after_eagain)
{
	static const unsigned int skips[] = { 1, 2, 4, 5, 5 };
	struct run r;
	uint64_t t = 0;
	unsigned int i, k;

	run_init(&r, &mdkd_mode_senpai);
	r.set.backoff_max = 5;
	step(&r, sample(t, GiB, 0, 0));
	for (i = 0; i < sizeof(skips) / sizeof(skips[0]); i++) {
		ck_assert_uint_gt(step(&r, sample(t += S, GiB, 0, 0)), 0);
		mdkd_ctl_result(&r.ctl, &r.set, r.d.reclaim_bytes,
				i % 2 ? -EBUSY : -EAGAIN);
		for (k = 0; k < skips[i]; k++) {
			ck_assert_uint_eq(step(&r, sample(t += S, GiB, 0, 0)),
					  0);
			ck_assert_int_eq(r.d.reason, MDKD_R_BACKOFF);
		}
	}
	ck_assert_uint_gt(step(&r, sample(t += S, GiB, 0, 0)), 0);
	mdkd_ctl_result(&r.ctl, &r.set, r.d.reclaim_bytes, 0);
	ck_assert_uint_eq(r.ctl.backoff_level, 0);
	ck_assert_uint_gt(step(&r, sample(t += S, GiB, 0, 0)), 0);
	/* Other errors do not back off. */
	mdkd_ctl_result(&r.ctl, &r.set, r.d.reclaim_bytes, -EIO);
	ck_assert_uint_gt(step(&r, sample(t += S, GiB, 0, 0)), 0);
	mdkd_ctl_destroy(&r.ctl);
}
END_TEST

START_TEST(test_off_observes_only)
{
	struct run r;

	run_init(&r, &mdkd_mode_off);
	step(&r, sample(0, GiB, 0, 0));
	ck_assert_uint_eq(step(&r, sample(6 * S, GiB, 0, 0)), 0);
	ck_assert_int_eq(r.d.reason, MDKD_R_OBSERVE);
	ck_assert_uint_eq(r.iv.dt_us, 6 * S);
	mdkd_ctl_destroy(&r.ctl);
}
END_TEST

/* Quiet intervals lower the virtual limit by max_probe each. */
START_TEST(test_integral_probes_down)
{
	struct run r;
	uint64_t t = 0, cur = GiB, got;
	double limit = (double)GiB;
	int i;

	run_init(&r, &mdkd_mode_senpai_integral);
	step(&r, sample(t, cur, 0, 0));
	for (i = 0; i < 5; i++) {
		limit -= limit * 0.01;
		got = step(&r, sample(t += 6 * S, cur, 0, 0));
		ck_assert_int_eq(r.d.reason, MDKD_R_RECLAIM);
		ck_assert_near(r.d.want_bytes, cur - (uint64_t)limit);
		ck_assert_uint_eq(got, r.d.want_bytes & ~4095ULL);
		cur -= got;
	}
	mdkd_ctl_destroy(&r.ctl);
}
END_TEST

/*
 * senpai.py's gains: stall = target / 2 probes by (2/10)^2 * 1%; stall =
 * 2 * target backs off by (2/20)^2 * 100%.
 */
START_TEST(test_integral_gains)
{
	struct run r;
	uint64_t t = 0, cur = GiB;
	double target = 0.001 * 6 * S, limit = (double)GiB;

	run_init(&r, &mdkd_mode_senpai_integral);
	step(&r, sample(t, cur, 0, 0));
	step(&r, sample(t += 6 * S, cur, (uint64_t)(target / 2), 0));
	limit -= limit * 0.04 * 0.01;
	ck_assert_near(r.d.want_bytes, cur - (uint64_t)limit);
	/* The kernel took it all: usage now equals the limit. */
	cur = (uint64_t)limit;
	step(&r, sample(t += 6 * S, cur,
			(uint64_t)(target / 2) + (uint64_t)(2 * target), 0));
	ck_assert_int_eq(r.d.reason, MDKD_R_PRESSURE);
	ck_assert_uint_eq(r.d.reclaim_bytes, 0);
	/* Backed off above usage, it is clamped to usage: a probe is 1%. */
	step(&r, sample(t += 6 * S, cur,
			(uint64_t)(target / 2) + (uint64_t)(2 * target), 0));
	ck_assert_near(r.d.want_bytes, cur - (uint64_t)((double)cur * 0.99));
	mdkd_ctl_destroy(&r.ctl);
}
END_TEST

START_TEST(test_integral_resyncs_after_eagain)
{
	struct run r;
	uint64_t t = 0;

	run_init(&r, &mdkd_mode_senpai_integral);
	step(&r, sample(t, GiB, 0, 0));
	step(&r, sample(t += 6 * S, GiB, 0, 0));
	mdkd_ctl_result(&r.ctl, &r.set, r.d.reclaim_bytes, -EAGAIN);
	step(&r, sample(t += 6 * S, GiB, 0, 0)); /* backoff */
	ck_assert_int_eq(r.d.reason, MDKD_R_BACKOFF);
	/*
	 * The limit restarted from usage in the back-off interval: two probe
	 * steps since then, not three.
	 */
	step(&r, sample(t += 6 * S, GiB, 0, 0));
	ck_assert_near(r.d.want_bytes,
		       GiB - (uint64_t)((double)GiB * 0.99 * 0.99));
	mdkd_ctl_destroy(&r.ctl);
}
END_TEST

START_TEST(test_mode_switch_restarts_from_baseline)
{
	struct run r;

	run_init(&r, &mdkd_mode_senpai);
	step(&r, sample(0, GiB, 0, 0));
	step(&r, sample(S, GiB, 0, 0));
	ck_assert_int_eq(mdkd_ctl_set_mode(&r.ctl, &mdkd_mode_senpai_integral),
			 0);
	r.set.mode = &mdkd_mode_senpai_integral;
	step(&r, sample(2 * S, GiB, 0, 0));
	ck_assert_int_eq(r.d.reason, MDKD_R_BASELINE);
	ck_assert_ptr_nonnull(r.ctl.mode_state);
	mdkd_ctl_destroy(&r.ctl);
}
END_TEST

START_TEST(test_interval_metrics)
{
	struct mdkd_sample a = sample(0, GiB, 1000, 0),
			   b = sample(S, GiB, 0, 0);
	struct mdkd_settings set = defaults();
	struct mdkd_interval iv;

	/* A recreated cgroup's counters go backwards: no stall, no swap. */
	a.swap_current_bytes = 10 * MiB;
	b.swap_current_bytes = 4 * MiB;
	mdkd_interval_derive(&a, &b, &set, &iv);
	ck_assert_double_eq(iv.mem_some, 0);
	ck_assert_uint_eq(iv.swapout_bytes, 0);

	/* Without pswpin/pswpout: swap.current growth, anon refaults. */
	b = sample(S, GiB, 501000, 0);
	b.swap_current_bytes = 14 * MiB;
	b.stat.workingset_refault_anon = 10;
	b.stat.workingset_refault_file = 5;
	mdkd_interval_derive(&a, &b, &set, &iv);
	ck_assert_double_eq(iv.mem_some, 0.5);
	ck_assert_uint_eq(iv.mem_some_us, 500000);
	ck_assert_uint_eq(iv.swapout_bytes, 4 * MiB);
	ck_assert_uint_eq(iv.swapin_bytes, 10 * 4096);
	ck_assert_uint_eq(iv.refaults, 15);

	/* With them (newer kernels): the kernel's counts. */
	a.stat.has_pswp = b.stat.has_pswp = true;
	a.stat.pswpin = 1;
	b.stat.pswpin = 4;
	b.stat.pswpout = 7;
	mdkd_interval_derive(&a, &b, &set, &iv);
	ck_assert_uint_eq(iv.swapin_bytes, 3 * 4096);
	ck_assert_uint_eq(iv.swapout_bytes, 7 * 4096);
}
END_TEST

static Suite *controller_suite(void)
{
	Suite *s = suite_create("controller");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_senpai_first_sample_is_baseline);
	tcase_add_test(tc, test_senpai_law_at_zero_pressure);
	tcase_add_test(tc, test_senpai_law_scales_with_pressure);
	tcase_add_test(tc, test_senpai_respects_floor);
	tcase_add_test(tc, test_senpai_caps_and_rounds);
	tcase_add_test(tc, test_senpai_io_pressure_guard);
	tcase_add_test(tc, test_backoff_after_eagain);
	tcase_add_test(tc, test_off_observes_only);
	tcase_add_test(tc, test_integral_probes_down);
	tcase_add_test(tc, test_integral_gains);
	tcase_add_test(tc, test_integral_resyncs_after_eagain);
	tcase_add_test(tc, test_mode_switch_restarts_from_baseline);
	tcase_add_test(tc, test_interval_metrics);
	suite_add_tcase(s, tc);
	return s;
}

MDK_UNIT_MAIN(controller_suite)
