# SPDX-License-Identifier: LGPL-2.1-or-later
"""Tiered curves (mdk/tier.h) over a trace, as ``mdkctl mpc --tiers`` and
``mdkctl simulate --tiers`` compute them: libmdk's mdk_tier_run(),
mdk_tier_simulate() and mdk_tier_best(), in stall time over a tier list
(Documentation/mdk.rst, "Tiers")."""
import os
import re

import numpy as np

from ._mdk import ffi, lib
from . import table
from .error import call, cstr, pystr

DEFAULT_POLICIES = "tage,tpace"

# A tiered spec starts a new item of a list; its other commas separate
# its parameters ("tage:T1=1,T2=4,tpace").
_SPEC_START = re.compile(r"(tage|tpace|topp)(:|$)")


def _tiers(tiers):
    """@tiers as a struct mdk_tiers *: a tier file when one of that name
    exists (as mdkctl's --tiers), else a tier list."""
    t = ffi.new("struct mdk_tiers *")
    if isinstance(tiers, os.PathLike) or os.path.exists(tiers):
        call(lib.mdk_tiers_load, cstr(tiers), t)
    else:
        call(lib.mdk_tiers_parse, cstr(tiers), t)
    return t


def _format(t):
    n = 256
    while True:
        buf = ffi.new("char[]", n)
        need = lib.mdk_tiers_format(t, buf, n)
        if need < n:
            return pystr(buf)
        n = need + 1


def parse(spec):
    """The tier list @spec ("cxl:cost=2.1us,cap=64K;swap:cost=80us") or
    tier file, normalised: every tier with its cost in ns, its saving
    and its capacity, as mdk_tiers_format() writes it."""
    return _format(_tiers(spec))


def names(tiers):
    """The names of the tiers of @tiers, down the hierarchy."""
    t = _tiers(tiers)
    return [pystr(t.t[k].name) for k in range(t.n)]


def columns(tiers):
    """The columns of points() for @tiers, those of ``mdkctl mpc --tiers
    --csv`` (without ``best``)."""
    ns = names(tiers)
    return (("policy", "setting", "max_stall", "mean_stall", "max_rate",
             "savings") + tuple("promotions_" + k for k in ns) +
            tuple("peak_" + k for k in ns) + ("feasible",))


def _split(policies):
    """A list of tiered specs from a list string or an iterable."""
    if not isinstance(policies, str):
        return [s for p in policies for s in _split(p)]
    specs = []
    for item in policies.split(","):
        if specs and not _SPEC_START.match(item):
            specs[-1] += "," + item
        else:
            specs.append(item)
    return specs


def _opts(t, window, per_access):
    if window is not None and per_access:
        raise ValueError("window and per_access: give one D(w)")
    window_ns = 0
    if window is not None:
        window_ns = int(round(float(window) * 1e9))
        if window_ns <= 0:
            raise ValueError("window %r: expected a length in seconds > 0"
                             % (window,))
    return ffi.new("struct mdk_tier_opts *",
                   {"tiers": t, "window_ns": window_ns,
                    "per_access": bool(per_access)})


def _setting(p):
    """"T1=5,T2=none" of a point: its spec without the policy, as mdkctl's
    setting column."""
    n = 128
    while True:
        buf = ffi.new("char[]", n)
        need = lib.mdk_tier_point_format(p, buf, n)
        if need < n:
            break
        n = need + 1
    return pystr(buf).partition(":")[2]


def _dtype(t, settings):
    k = [pystr(t.t[i].name) for i in range(t.n)]
    width = max([len(s) for s in settings] + [1])
    return np.dtype([("policy", "U12"), ("setting", "U%d" % width),
                     ("max_stall", "f8"), ("mean_stall", "f8"),
                     ("max_rate", "f8"), ("savings", "f8")] +
                    [("promotions_" + x, "u8") for x in k] +
                    [("peak_" + x, "u8") for x in k] + [("feasible", "?")])


def _rows(t, ptr, n):
    """The @n struct mdk_tier_point at @ptr as a structured array with
    the columns of ``mdkctl mpc --tiers --csv``."""
    settings = [_setting(ptr + i) for i in range(n)]
    out = np.zeros(n, _dtype(t, settings))
    for i in range(n):
        p = ptr[i]
        row = out[i]
        row["policy"] = pystr(p.pt.policy)
        row["setting"] = settings[i]
        row["max_stall"] = p.max_stall
        row["mean_stall"] = p.mean_stall
        row["max_rate"] = p.pt.max_rate
        row["savings"] = p.pt.savings
        for k in range(t.n):
            name = pystr(t.t[k].name)
            row["promotions_" + name] = p.tier_promotions[k]
            row["peak_" + name] = p.peak[k]
        row["feasible"] = p.feasible
    return out


def _finish(rows, t, as_frame):
    if not rows:
        rows = [np.zeros(0, _dtype(t, []))]
    # Settings of several specs differ in width: widen to the longest.
    dt = max((r.dtype for r in rows), key=lambda d: d["setting"].itemsize)
    return table.finish([r.astype(dt) for r in rows], dt, as_frame)


def points(trace, tiers, policies=DEFAULT_POLICIES, window=None,
           per_access=False, target_stall=None, as_frame=None):
    """The tiered curves of @policies (tiered specs, "tage:T1=1-8,T2=none",
    joined by ',', or a list of them) over @trace with the tier list or
    tier file @tiers: one row per setting, mdkctl's order, the columns of
    ``mdkctl mpc --tiers --csv`` (columns(tiers)).  D(w) is @window
    seconds, else the trace's window; with @per_access (or a trace
    without a window) accessed pages x 1 ns.  With @target_stall, each
    spec's best row at that max stall share, by mdk_tier_best() (none if
    no setting qualifies).  A DataFrame when pandas imports (@as_frame
    None), else a numpy structured array."""
    t = _tiers(tiers)
    o = _opts(t, window, per_access)
    rows = []
    for spec in _split(policies):
        pts = ffi.new("struct mdk_tier_point **")
        n = ffi.new("size_t *")
        call(lib.mdk_tier_run, cstr(trace), cstr(spec), o, pts, n)
        try:
            r = _rows(t, pts[0], n[0])
            if target_stall is not None:
                b = lib.mdk_tier_best(pts[0], n[0], float(target_stall))
                r = r[b:b + 1] if b >= 0 else r[:0]
        finally:
            lib.free(pts[0])
        rows.append(r)
    return _finish(rows, t, as_frame)


def simulate(trace, tiers, setting, window=None, per_access=False,
             as_frame=None):
    """The exact simulation of the one tiered setting @setting
    ("tage:T1=4,T2=none", "tpace:P=2,A=4,T2=9", "topp:sigma=0.01") over
    @trace: one row of points()' columns, as ``mdkctl simulate --tiers
    --csv``."""
    t = _tiers(tiers)
    o = _opts(t, window, per_access)
    pt = ffi.new("struct mdk_tier_point *")
    call(lib.mdk_tier_simulate, cstr(trace), cstr(setting), o, pt)
    return _finish([_rows(t, pt, 1)], t, as_frame)


def _records(points):
    """A table of points() as a structured array."""
    if table.have_pandas() and not isinstance(points, np.ndarray):
        need = ("policy", "setting", "max_stall", "mean_stall", "savings",
                "feasible")
        missing = [c for c in need if c not in points.columns]
        if missing:
            raise ValueError("points lack the columns %s" % missing)
        width = max([len(s) for s in points["setting"]] + [1])
        return points.to_records(index=False, column_dtypes={
            "policy": "U12", "setting": "U%d" % width})
    return np.asarray(points)


def best(points, target_stall, as_frame=None):
    """Each policy's best row of @points (a table of points(), one trace
    and D(w)) at max stall share @target_stall, by mdk_tier_best(): the
    feasible row with the most savings and max_stall <= @target_stall
    (ties: lower max_stall, then less stall); a policy with none is left
    out."""
    arr = _records(points)
    out = []
    pol, first = np.unique(arr["policy"], return_index=True)
    for name in pol[np.argsort(first)]:
        r = arr[arr["policy"] == name]
        buf = ffi.new("struct mdk_tier_point[]", max(len(r), 1))
        for i in range(len(r)):
            buf[i].pt.savings = r["savings"][i]
            buf[i].max_stall = r["max_stall"][i]
            buf[i].feasible = bool(r["feasible"][i])
        # The table has no total stall: over one trace's windows (one
        # sum of D(w)) mean_stall orders as it, so its rank stands in.
        rank = np.unique(r["mean_stall"], return_inverse=True)[1]
        for i in range(len(r)):
            buf[i].stall_ns = int(rank[i])
        b = lib.mdk_tier_best(buf, len(r), float(target_stall))
        out.append(r[b:b + 1] if b >= 0 else r[:0])
    if not out:
        out = [arr[:0]]
    return table.finish(out, arr.dtype, as_frame)


__all__ = ["DEFAULT_POLICIES", "best", "columns", "names", "parse",
           "points", "simulate"]
