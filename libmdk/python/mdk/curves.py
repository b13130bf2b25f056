# SPDX-License-Identifier: LGPL-2.1-or-later
"""Curves over a trace, as mdkctl mpc and mrc compute them: libmdk's
mdk_mpc_run() and mdk_mrc_run(), and mdk_mpc_best() over their tables."""
import numpy as np

from ._mdk import ffi, lib
from . import policy as _policy
from . import table
from .error import call, cstr

DEFAULT_POLICIES = "age,vmin,paw,pace,opp"


def savings_flags(savings):
    """--savings occupancy|paper as libmdk's flags."""
    if savings == "occupancy":
        return 0
    if savings == "paper":
        return lib.MDK_SAVINGS_PAPER
    raise ValueError("savings %r: expected 'occupancy' or 'paper'" %
                     (savings,))


def _best_rows(rows, target):
    b = table.best_index(rows, target)
    return rows[b:b + 1] if b >= 0 else rows[:0]


def threads_arg(threads):
    """mpc()'s @threads as libmdk's count: None or 0 is every CPU."""
    n = 0 if threads is None else int(threads)
    if not 0 <= n <= lib.MDK_MPC_THREADS_MAX:
        raise ValueError("threads %r: expected 0 (every CPU) to %d" %
                         (threads, lib.MDK_MPC_THREADS_MAX))
    return n


def points(trace, policies=DEFAULT_POLICIES, savings="occupancy",
           threads=None, score_from=0):
    """mpc()'s rows as one structured array per policy, and the trace's
    footprint: the sum over windows of F(w), in page-windows (every
    point's denominator of savings), what a fleet weighs traces by."""
    pols = _policy.parse(policies)
    flags = savings_flags(savings)
    nthreads = threads_arg(threads)
    np_ = len(pols)
    pts = ffi.new("struct mdk_point *[]", max(np_, 1))
    npts = ffi.new("size_t[]", max(np_, 1))
    footprint = 0
    if score_from and threads is not None and nthreads != 1:
        raise ValueError("score_from %r: scored runs take one thread, "
                         "not threads=%r" % (score_from, threads))
    try:
        if score_from:
            o = ffi.new("struct mdk_run_opts *",
                        {"flags": flags, "score_from": score_from})
            call(lib.mdk_mpc_run_opts, cstr(trace), _policy.c_array(pols),
                 np_, o, pts, npts)
        else:
            call(lib.mdk_mpc_run_threads, cstr(trace),
                 _policy.c_array(pols), np_, flags, nthreads, pts, npts)
        rows = [table.mpc_rows(pts[i], npts[i]) for i in range(np_)]
        for i in range(np_):
            if npts[i]:
                footprint = pts[i][0].footprint
    finally:
        for i in range(np_):
            lib.free(pts[i])
    return rows, footprint


def mpc(trace, policies=DEFAULT_POLICIES, target=None, savings="occupancy",
        as_frame=None, threads=None, score_from=0):
    """The memory performance curves of @trace: one row per setting of
    each policy, the columns and rows of ``mdkctl mpc --csv`` (with
    @target, each policy's best setting at that max window rate, as
    ``--target``).  @policies: a libmdk list, spec, Policy or list of
    them.  A DataFrame when pandas imports (@as_frame None), else a
    numpy structured array.  @threads: as ``mdkctl mpc --threads``,
    None (every CPU) or a count; the result is the same for any.
    @score_from: as ``--score-from``, only windows from there on are
    scored (one thread)."""
    rows, _ = points(trace, policies, savings, threads, score_from)
    if target is not None:
        rows = [_best_rows(r, target) for r in rows]
    return table.finish(rows, table.MPC_DTYPE, as_frame)


def best(points, target, as_frame=None):
    """Each policy's best setting of @points (a table of mpc(), one
    trace) at max window promotion rate @target, by libmdk's
    mdk_mpc_best(): the most savings with max_rate <= @target (ties: lower
    max_rate, then fewer promotions); a policy with none is left out, as
    ``mdkctl mpc --csv --target``."""
    arr = table.to_records(points)
    rows = []
    names, first = np.unique(arr["policy"], return_index=True)
    for name in names[np.argsort(first)]:
        rows.append(_best_rows(arr[arr["policy"] == name], target))
    return table.finish(rows, table.MPC_DTYPE, as_frame)


def mrc(trace, policies="lru", as_frame=None):
    """Miss-ratio curves of the cache policies (lru, opt) over the
    reference string of @trace (.mdkt, or CSV of window,page rows): the
    columns of ``mdkctl mrc --csv``."""
    pols = _policy.parse(policies)
    pts = ffi.new("struct mdk_mrc_point **")
    n = ffi.new("size_t *")
    call(lib.mdk_mrc_run, cstr(trace), _policy.c_array(pols), len(pols),
         pts, n, ffi.NULL, ffi.NULL)
    try:
        rows = table.mrc_rows(pts[0], n[0])
    finally:
        lib.free(pts[0])
    return table.finish([rows], table.MRC_DTYPE, as_frame)


__all__ = ["mpc", "best", "mrc", "savings_flags"]
