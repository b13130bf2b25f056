# SPDX-License-Identifier: LGPL-2.1-or-later
"""The exact simulator (mdk/sim.h) over a trace, as mdkctl simulate runs
it: SIM_GROUP settings of a policy a pass, the trace's chunks handed from
libmdk's reader to its simulations without a copy."""
import numpy as np

from ._mdk import ffi, lib
from . import policy as _policy
from . import table
from .curves import mrc, savings_flags
from .error import call, cstr, errbuf, error

# Settings simulated in one pass over the trace (mdkctl's SIM_GROUP).
SIM_GROUP = 16


def _open_dense(trace):
    out = ffi.new("struct mdk_trace_reader **")
    call(lib.mdk_trace_reader_open, cstr(trace), lib.MDK_TRACE_DENSE, out)
    return ffi.gc(out[0], lib.mdk_trace_reader_close)


def _feed(r, sims, keyer):
    """Every chunk of reader @r into @sims, keyed by @keyer when not
    None."""
    c = ffi.new("struct mdk_trace_chunk *")
    keys = np.zeros(0, np.uint32)
    err = errbuf()
    while True:
        ret = lib.mdk_trace_reader_next(r, c, err, len(err))
        if ret < 0:
            raise error(ret, err)
        if ret == 0:
            return
        if keyer is None:
            for s in sims:
                call(lib.mdk_sim_add, s, c.window, c.pages, c.n)
            continue
        if len(keys) < c.n:
            keys = np.zeros(c.n, np.uint32)
        kp = ffi.from_buffer("uint32_t[]", keys)
        call(lib.mdk_keyer_keys, keyer, c.window, c.ids, c.pages, c.n, kp)
        for s in sims:
            call(lib.mdk_sim_add_keys, s, c.window, c.pages, kp, c.n)


def _run(trace, p, first, n, flags, W):
    """Settings first..first+n-1 of @p in one pass: their finished
    simulations and points."""
    sims = []
    for i in range(first, first + n):
        out = ffi.new("struct mdk_sim **")
        call(lib.mdk_sim_new, p._p, i, flags, out)
        sims.append(ffi.gc(out[0], lib.mdk_sim_free))
    keyer = None
    if p.keyed:
        out = ffi.new("struct mdk_keyer **")
        call(lib.mdk_keyer_new, p._p, out)
        keyer = ffi.gc(out[0], lib.mdk_keyer_free)
    _feed(_open_dense(trace), sims, keyer)
    pts = ffi.new("struct mdk_point[]", n)
    for k, s in enumerate(sims):
        call(lib.mdk_sim_finish, s, W, pts + k)
    return sims, pts


def _windows(trace):
    r = _open_dense(trace)
    return lib.mdk_trace_reader_info(r).windows


def simulate(trace, policies, savings="occupancy", as_frame=None):
    """The exact simulation of every setting of @policies over @trace:
    the rows of ``mdkctl simulate --csv`` (mpc()'s columns).  Cache
    policies (lru, opt) give mrc()'s columns, and cannot be mixed with
    window policies (their columns differ)."""
    pols = _policy.parse(policies)
    flags = savings_flags(savings)
    cache = [p.kind == "cache" for p in pols]
    if any(cache):
        if not all(cache):
            raise ValueError("simulate lru/opt apart from window policies "
                             "(their columns differ; see mrc())")
        return table.finish([mrc(trace, p, as_frame=False) for p in pols],
                            table.MRC_DTYPE, as_frame)
    rows = []
    W = _windows(trace) if pols else 0
    for p in pols:
        p.resolve(W)
        ns = p.settings
        for first in range(0, ns, SIM_GROUP):
            n = min(SIM_GROUP, ns - first)
            _, pts = _run(trace, p, first, n, flags, W)
            rows.append(table.mpc_rows(pts, n))
    return table.finish(rows, table.MPC_DTYPE, as_frame)


WINDOW_DTYPE = np.dtype([("window", "u4"), ("accessed", "u8"),
                         ("footprint", "u8"), ("promotions", "u8"),
                         ("reclaimed", "u8"), ("rate", "f8")])
SIM_WINDOW_C = table.c_dtype("struct mdk_sim_window", [
    ("accessed", "u8"), ("footprint", "u8"), ("promotions", "u8"),
    ("reclaimed", "u8"), ("rate", "f8")])


def simulate_windows(trace, setting, savings="occupancy", as_frame=None):
    """Each window of the exact simulation of the one setting @setting
    ("pace:P=4,A=2"), as ``mdkctl simulate --windows`` prints them:
    window, accessed (U), footprint (F), promotions, reclaimed (pages of
    F not resident) and rate (promotions / U, 0 when U is 0)."""
    p = _policy.Policy(setting)
    if p.kind == "cache":
        raise ValueError("%s: a cache policy has no windows (see mrc())" %
                         setting)
    W = _windows(trace)
    p.resolve(W)
    if p.settings != 1:
        raise ValueError("%s: %d settings, expected one" %
                         (setting, p.settings))
    sims, _ = _run(trace, p, 0, 1, savings_flags(savings), W)
    buf = ffi.new("struct mdk_sim_window[]", max(W, 1))
    for w in range(W):
        ret = lib.mdk_sim_window(sims[0], w, buf + w)
        if ret < 0:
            raise error(ret, None, "%s: no window %d" % (trace, w))
    out = np.zeros(W, WINDOW_DTYPE)
    out["window"] = np.arange(W)
    v = table.c_view(buf, W, SIM_WINDOW_C)
    for f in SIM_WINDOW_C.names:
        out[f] = v[f]
    return table.finish([out], WINDOW_DTYPE, as_frame)
