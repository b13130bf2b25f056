# SPDX-License-Identifier: LGPL-2.1-or-later
"""cffi builder of mdk._mdk, the C side of the Python package.

Out-of-line API mode: the C compiler checks every declaration below against
libmdk's own headers, so a cdef that drifts from them fails the build
instead of corrupting memory.  ``python3 mdk_build.py OUT.c`` writes the
extension's C source; the Makefile (libmdk/python/build.mk) compiles it
against libmdk/include and links libmdk.so (no rpath: installed, it loads
the system's libmdk.so.0).

The cdef is one block per libmdk header, in CDEF.  Binding a new libmdk
function is one line (or struct) in its header's block here and one thin
wrapper in the package module of that concept.
"""
import sys

import cffi

CDEF = {}

CDEF["version.h"] = """
const char *mdk_version(void);
"""

CDEF["trace.h"] = """
#define MDK_TRACE_F_PHYS ...
#define MDK_TRACE_MAX_WINDOW ...
#define MDK_TRACE_DENSE ...
#define MDK_TRACE_PARTIAL ...
#define MDK_TRACE_UNSORTED ...

struct mdk_trace_info {
    uint16_t version_major;
    uint16_t version_minor;
    uint64_t window_us;
    uint32_t page_size;
    uint32_t flags;
    uint64_t start_us;
    const char *desc;
    bool indexed;
    uint32_t windows;
    uint64_t records;
};

struct mdk_trace_writer_opts {
    uint64_t window_us;
    uint32_t page_size;
    uint32_t flags;
    uint64_t start_us;
    const char *desc;
};

struct mdk_trace_writer;
int mdk_trace_writer_open(const char *path,
                          const struct mdk_trace_writer_opts *opts,
                          struct mdk_trace_writer **out, char *err,
                          size_t errlen);
int mdk_trace_writer_put(struct mdk_trace_writer *w, uint32_t window,
                         const uint64_t *ids, size_t n, unsigned int flags,
                         char *err, size_t errlen);
int mdk_trace_writer_close(struct mdk_trace_writer *w, char *err,
                           size_t errlen);
void mdk_trace_writer_abort(struct mdk_trace_writer *w);

struct mdk_trace_chunk {
    uint32_t window;
    bool window_end;
    size_t n;
    const uint64_t *ids;
    const uint32_t *pages;
    uint64_t offset;
};

struct mdk_trace_reader;
int mdk_trace_reader_open(const char *path, unsigned int flags,
                          struct mdk_trace_reader **out, char *err,
                          size_t errlen);
const struct mdk_trace_info *
mdk_trace_reader_info(const struct mdk_trace_reader *r);
int mdk_trace_reader_next(struct mdk_trace_reader *r,
                          struct mdk_trace_chunk *c, char *err,
                          size_t errlen);
int mdk_trace_reader_seek(struct mdk_trace_reader *r, uint32_t window,
                          char *err, size_t errlen);
uint32_t mdk_trace_reader_windows(const struct mdk_trace_reader *r);
uint64_t mdk_trace_reader_records(const struct mdk_trace_reader *r);
void mdk_trace_reader_close(struct mdk_trace_reader *r);

int mdk_trace_import_csv(const char *csv, const char *out,
                         const struct mdk_trace_writer_opts *opts, char *err,
                         size_t errlen);

#define MDK_ORACLE_RECORD_BYTES 24
#define MDK_ORACLE_OFFSETS ...
int mdk_trace_import_oracle(const char *in, const char *out,
                            const struct mdk_trace_writer_opts *opts,
                            unsigned int flags, char *err, size_t errlen);
int mdk_trace_export_oracle(const char *trace, const char *out, char *err,
                            size_t errlen);
"""

CDEF["policy.h"] = """
struct mdk_policy;
struct mdk_setting {
    double p1;
    double p2;
    bool has_p2;
    uint64_t v[2];
};
enum mdk_policy_kind {
    MDK_POLICY_INTERVAL,
    MDK_POLICY_BUDGET,
    MDK_POLICY_CACHE,
};
int mdk_policy_new(const char *spec, struct mdk_policy **out, char *err,
                   size_t errlen);
int mdk_policy_parse_list(const char *list, struct mdk_policy ***out,
                          size_t *n, char *err, size_t errlen);
void mdk_policy_free(struct mdk_policy *p);
const char *mdk_policy_name(const struct mdk_policy *p);
enum mdk_policy_kind mdk_policy_kind(const struct mdk_policy *p);
int mdk_policy_resolve(struct mdk_policy *p, uint64_t n, char *err,
                       size_t errlen);
size_t mdk_policy_settings(const struct mdk_policy *p);
int mdk_policy_setting(const struct mdk_policy *p, size_t i,
                       struct mdk_setting *s);
int mdk_policy_format(const struct mdk_policy *p, size_t i, char *buf,
                      size_t len);
int mdk_policy_spec(const struct mdk_policy *p, char *buf, size_t len);
bool mdk_policy_online(const struct mdk_policy *p);
bool mdk_policy_keyed(const struct mdk_policy *p);
size_t mdk_policy_count(void);
const char *mdk_policy_name_at(size_t i);
const char *mdk_policy_help_at(size_t i);
struct mdk_keyer;
int mdk_keyer_new(const struct mdk_policy *p, struct mdk_keyer **out,
                  char *err, size_t errlen);
int mdk_keyer_keys(struct mdk_keyer *k, uint32_t window, const uint64_t *ids,
                   const uint32_t *pages, size_t n, uint32_t *keys, char *err,
                   size_t errlen);
void mdk_keyer_free(struct mdk_keyer *k);
"""

CDEF["mpc.h"] = """
#define MDK_SAVINGS_PAPER ...
struct mdk_point {
    const char *policy;
    double p1, p2;
    bool has_p2;
    double max_rate;
    double mean_rate;
    double p99_rate;
    double savings;
    uint64_t promotions;
    uint64_t saved;
    uint64_t footprint;
};
int mdk_mpc_run(const char *trace, struct mdk_policy *const *pols, size_t np,
                unsigned int flags, struct mdk_point **pts, size_t *npts,
                char *err, size_t errlen);
#define MDK_MPC_THREADS_MAX ...
int mdk_mpc_run_threads(const char *trace, struct mdk_policy *const *pols,
                        size_t np, unsigned int flags, unsigned int nthreads,
                        struct mdk_point **pts, size_t *npts, char *err,
                        size_t errlen);
unsigned int mdk_mpc_threads_online(void);
long mdk_mpc_best(const struct mdk_point *pts, size_t n, double target);
struct mdk_run_opts {
    unsigned int flags;
    uint32_t score_from;
};
int mdk_mpc_run_opts(const char *trace, struct mdk_policy *const *pols,
                     size_t np, const struct mdk_run_opts *o,
                     struct mdk_point **pts, size_t *npts, char *err,
                     size_t errlen);
"""

CDEF["sim.h"] = """
struct mdk_sim;
int mdk_sim_new(const struct mdk_policy *p, size_t setting, unsigned int flags,
                struct mdk_sim **out, char *err, size_t errlen);
int mdk_sim_add(struct mdk_sim *s, uint32_t window, const uint32_t *pages,
                size_t n, char *err, size_t errlen);
int mdk_sim_add_keys(struct mdk_sim *s, uint32_t window,
                     const uint32_t *pages, const uint32_t *keys, size_t n,
                     char *err, size_t errlen);
int mdk_sim_finish(struct mdk_sim *s, uint32_t windows, struct mdk_point *pt,
                   char *err, size_t errlen);
struct mdk_sim_window {
    uint64_t accessed;
    uint64_t footprint;
    uint64_t promotions;
    uint64_t reclaimed;
    double rate;
};
int mdk_sim_window(const struct mdk_sim *s, uint32_t w,
                   struct mdk_sim_window *out);
void mdk_sim_free(struct mdk_sim *s);
int mdk_simulate(const char *trace, struct mdk_policy *p, size_t setting,
                 unsigned int flags, struct mdk_point *pt, char *err,
                 size_t errlen);
"""

CDEF["mrc.h"] = """
struct mdk_mrc_point {
    const char *policy;
    uint64_t size;
    uint64_t misses;
    double miss_ratio;
};
int mdk_mrc_run(const char *path, struct mdk_policy *const *pols, size_t np,
                struct mdk_mrc_point **pts, size_t *n, uint64_t *refs,
                uint64_t *pages, char *err, size_t errlen);
"""

CDEF["synth.h"] = """
struct mdk_synth_opts {
    uint64_t pages;
    uint32_t windows;
    uint64_t seed;
    uint64_t base;
};
struct mdk_synth;
int mdk_synth_new(const struct mdk_synth_opts *opts, struct mdk_synth **out,
                  char *err, size_t errlen);
int mdk_synth_add(struct mdk_synth *s, const char *spec, char *err,
                  size_t errlen);
int mdk_synth_next(struct mdk_synth *s, uint32_t *window,
                   const uint64_t **ids, size_t *n, char *err, size_t errlen);
void mdk_synth_free(struct mdk_synth *s);
int mdk_synth_write(struct mdk_synth *s, const char *path,
                    const struct mdk_trace_writer_opts *wopts, char *err,
                    size_t errlen);
"""

CDEF["lopp.h"] = """
#define MDK_LOPP_FEATURES ...
struct mdk_lopp_model;
int mdk_lopp_model_read(const char *path, struct mdk_lopp_model **out,
                        char *err, size_t errlen);
int mdk_lopp_model_write(const struct mdk_lopp_model *m, const char *path,
                         char *err, size_t errlen);
void mdk_lopp_model_free(struct mdk_lopp_model *m);
double mdk_lopp_model_rho(const struct mdk_lopp_model *m);
double mdk_lopp_score(const struct mdk_lopp_model *m, const float *x);
const char *mdk_lopp_feature_name(unsigned int i);
int mdk_lopp_policy_set_model(struct mdk_policy *p,
                              const struct mdk_lopp_model *m, char *err,
                              size_t errlen);
const struct mdk_lopp_model *mdk_lopp_policy_model(const struct mdk_policy *p);

struct mdk_lopp_quality {
    uint64_t rows, positives;
    uint64_t tp, fp, fn;
    double precision, recall;
    double auc;
};
enum mdk_lopp_kind { MDK_LOPP_LOGISTIC = 0, MDK_LOPP_TREES = 1 };
enum mdk_lopp_kind mdk_lopp_model_kind(const struct mdk_lopp_model *m);
struct mdk_lopp_fit_opts {
    enum mdk_lopp_kind kind;
    double C;
    unsigned int trees;
    unsigned int depth;
    double eta;
    double pos_weight;
    const char *trace;
};
struct mdk_lopp_train_opts {
    double rho;
    double holdout;
    size_t max_samples;
    double C;
    double theta;
    struct mdk_lopp_fit_opts fit;
};
struct mdk_lopp_train_report {
    uint32_t windows, split;
    uint64_t intervals;
    double sample;
    struct mdk_lopp_quality train, test;
};
int mdk_lopp_train(const char *trace, const struct mdk_lopp_train_opts *o,
                   struct mdk_lopp_model **out,
                   struct mdk_lopp_train_report *rep, char *err,
                   size_t errlen);
int mdk_lopp_train_until(const char *trace,
                         const struct mdk_lopp_train_opts *o, uint32_t until,
                         struct mdk_lopp_model **out,
                         struct mdk_lopp_train_report *rep, char *err,
                         size_t errlen);
"""

CDEF["evaluator.h"] = """
#define MDK_EVAL_MAX_HORIZON ...
struct mdk_eval_opts {
    uint32_t horizon;
    const char *policies;
    unsigned int flags;
    double lopp_rho;
    uint32_t lopp_retrain;
    size_t lopp_rows;
    uint32_t lopp_model;
    uint32_t lopp_async;
};
struct mdk_eval_lopp {
    uint64_t trainings;
    size_t rows;
    double precision, recall;
    double auc;
    bool fitting;
    uint64_t failures;
    char error[256];
};
struct mdk_eval_sel {
    int policy;
    size_t setting;
};
struct mdk_eval_rates {
    uint32_t windows;
    uint64_t promotions, accessed;
    double max_rate, mean_rate, p99_rate;
};
struct mdk_eval;
struct mdk_eval *mdk_eval_new(const struct mdk_eval_opts *o, char *err,
                              size_t errlen);
void mdk_eval_free(struct mdk_eval *e);
int mdk_eval_window(struct mdk_eval *e, const uint64_t *ids, size_t n,
                    uint64_t measured, bool have_measured, char *err,
                    size_t errlen);
uint64_t mdk_eval_windows(const struct mdk_eval *e);
bool mdk_eval_horizon(const struct mdk_eval *e, uint32_t *lo, uint32_t *hi);
uint32_t mdk_eval_capacity(const struct mdk_eval *e);
size_t mdk_eval_npolicies(const struct mdk_eval *e);
const struct mdk_policy *mdk_eval_policy(const struct mdk_eval *e, size_t i);
long mdk_eval_curve(struct mdk_eval *e, size_t i, struct mdk_point **pts,
                    char *err, size_t errlen);
int mdk_eval_find(struct mdk_eval *e, const char *spec,
                  struct mdk_eval_sel *sel, char *err, size_t errlen);
int mdk_eval_tune(struct mdk_eval *e, const char *spec, double target,
                  struct mdk_eval_sel *sel, struct mdk_point *pt, char *err,
                  size_t errlen);
int mdk_eval_point(struct mdk_eval *e, const struct mdk_eval_sel *sel,
                   struct mdk_point *pt, char *err, size_t errlen);
int mdk_eval_pick(struct mdk_eval *e, const struct mdk_eval_sel *sel,
                  const uint64_t **ids, size_t *n);
void mdk_eval_mark(struct mdk_eval *e, const uint64_t *ids, size_t n);
uint64_t mdk_eval_idle_hist(const struct mdk_eval *e, uint64_t *hist,
                            size_t nbins);
const uint64_t *mdk_eval_returned(const struct mdk_eval *e, size_t *n);
size_t mdk_eval_forget(struct mdk_eval *e,
                       bool (*gone)(uint64_t id, void *arg), void *arg);
extern "Python" bool mdk_py_gone(uint64_t id, void *arg);
void mdk_eval_count_unacted(struct mdk_eval *e, bool on);
void mdk_eval_rates(const struct mdk_eval *e, struct mdk_eval_rates *measured,
                    struct mdk_eval_rates *acted);
bool mdk_eval_lopp(const struct mdk_eval *e, struct mdk_eval_lopp *out);
size_t mdk_eval_pages(const struct mdk_eval *e);
size_t mdk_eval_memory(const struct mdk_eval *e);
"""

CDEF["report.h"] = """
#define MDK_REPORT_TOPS ...
struct mdk_report_opts {
    uint32_t heat_ranges;
    uint32_t heat_columns;
    unsigned int flags;
};
struct mdk_report_top {
    uint32_t share_ppm;
    uint64_t pages;
    uint64_t accesses;
};
struct mdk_report {
    uint32_t windows;
    uint64_t pages;
    uint64_t accesses;
    uint64_t window_us;
    uint32_t page_size;
    uint64_t *accessed;
    uint64_t *footprint;
    uint32_t buckets;
    uint64_t *idle;
    uint64_t *reuse;
    uint64_t reuses;
    uint64_t never_reused;
    uint64_t *pages_by_windows;
    uint32_t per_page_min, per_page_p25, per_page_p50, per_page_p75,
        per_page_p90, per_page_p99, per_page_max;
    double per_page_mean;
    struct mdk_report_top top[...];
    uint32_t heat_rows, heat_cols;
    uint64_t *range_first;
    uint64_t *range_pages;
    uint64_t *range_id_min, *range_id_max;
    uint32_t *col_first;
    double *heat;
};
int mdk_trace_report_run(const char *path, const struct mdk_report_opts *opts,
                         struct mdk_report **out, char *err, size_t errlen);
void mdk_trace_report_free(struct mdk_report *r);
"""

# Array sizes as [...]: cffi takes no macro there; the compiler fills them in.
CDEF["tier.h"] = """
#define MDK_TIERS_MAX ...
#define MDK_TIER_NAME_MAX ...
#define MDK_PPM ...

struct mdk_tier {
    char name[...];
    uint64_t cost_ns;
    uint32_t save_ppm;
    uint64_t capacity;
};

struct mdk_tiers {
    unsigned int n;
    struct mdk_tier t[...];
};

int mdk_tiers_parse(const char *spec, struct mdk_tiers *out, char *err,
                    size_t errlen);
int mdk_tiers_load(const char *path, struct mdk_tiers *out, char *err,
                   size_t errlen);
int mdk_tiers_format(const struct mdk_tiers *t, char *buf, size_t len);

struct mdk_tier_point {
    struct mdk_point pt;
    unsigned int np;
    double p[...];
    double max_stall;
    double mean_stall;
    uint64_t stall_ns;
    uint64_t tier_promotions[...];
    uint64_t peak[...];
    bool feasible;
};

struct mdk_tier_opts {
    const struct mdk_tiers *tiers;
    uint64_t window_ns;
    bool per_access;
};

int mdk_tier_run(const char *trace, const char *spec,
                 const struct mdk_tier_opts *o, struct mdk_tier_point **pts,
                 size_t *n, char *err, size_t errlen);
int mdk_tier_simulate(const char *trace, const char *spec,
                      const struct mdk_tier_opts *o, struct mdk_tier_point *pt,
                      char *err, size_t errlen);
int mdk_tier_point_format(const struct mdk_tier_point *p, char *buf,
                          size_t len);
long mdk_tier_best(const struct mdk_tier_point *pts, size_t n, double target);
"""

# free() for the arrays libmdk mallocs and hands over (mdk_mpc_run()...).
CDEF["stdlib.h"] = """
void free(void *ptr);
"""

SOURCE = "#include <stdlib.h>\n" + "".join(
    f"#include <mdk/{h}>\n" for h in CDEF if h != "stdlib.h")

ffibuilder = cffi.FFI()
ffibuilder.cdef("".join(CDEF.values()))
ffibuilder.set_source("mdk._mdk", SOURCE)

if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: mdk_build.py OUT.c")
    ffibuilder.emit_c_code(sys.argv[1])
