# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trace reports (mdk/report.h): per-window accessed pages, footprint and
idle ages, reuse distances, popularity and an access heatmap, in one pass
by libmdk; the tables of ``mdkctl trace report --csv TABLE``."""
import numpy as np

from ._mdk import ffi, lib
from . import table
from .error import call, cstr


def _array(ptr, n, dtype):
    """A copy of the @n values at @ptr (the report is freed after)."""
    if n == 0:
        return np.zeros(0, dtype)
    size = np.dtype(dtype).itemsize
    return np.frombuffer(ffi.buffer(ptr, n * size), dtype).copy()


def _table(columns, as_frame):
    """Columns (name -> array, in order) as a structured array or a
    DataFrame."""
    dtype = np.dtype([(k, v.dtype) for k, v in columns.items()])
    n = len(next(iter(columns.values()))) if columns else 0
    arr = np.zeros(n, dtype)
    for k, v in columns.items():
        arr[k] = v
    return table.finish([arr], dtype, as_frame)


class TraceReport:
    """The report of a trace: ``summary`` (a dict, the keys of --csv
    summary), the tables ``windows``, ``reuse``, ``popularity``, ``top``
    and ``heatmap`` (the columns of --csv TABLE), and ``heat``, the
    heatmap as a ranges x columns array (the fraction of each range's
    page-windows accessed) for plotting."""

    def __init__(self, r, as_frame):
        W, K = r.windows, r.buckets
        every = _array(r.pages_by_windows, W + 1, np.uint64)[W] if W else 0
        self.summary = {
            "windows": W, "window_seconds": r.window_us / 1e6,
            "page_size": r.page_size, "pages": r.pages,
            "accesses": r.accesses, "reuses": r.reuses,
            "never_reused_pages": r.never_reused,
            "every_window_pages": int(every)}
        for q in ("min", "p25", "p50", "p75", "p90", "p99", "max", "mean"):
            self.summary["per_page_" + q] = getattr(r, "per_page_" + q)
        idle = _array(r.idle, W * K, np.uint64).reshape(W, K)
        cols = {"window": np.arange(W, dtype=np.uint32),
                "accessed": _array(r.accessed, W, np.uint64),
                "footprint": _array(r.footprint, W, np.uint64)}
        for k in range(K):
            cols["idle_ge_%d" % (1 << k)] = idle[:, k]
        self.windows = _table(cols, as_frame)
        lo = np.uint64(1) << np.arange(K, dtype=np.uint64)
        self.reuse = _table({"min_windows": lo,
                             "max_windows": 2 * lo - np.uint64(1),
                             "reuses": _array(r.reuse, K, np.uint64)},
                            as_frame)
        byw = _array(r.pages_by_windows, W + 1, np.uint64)
        c = np.nonzero(byw)[0]
        c = c[c > 0]
        self.popularity = _table({"windows_accessed": c.astype(np.uint32),
                                  "pages": byw[c]}, as_frame)
        tops = [r.top[i] for i in range(lib.MDK_REPORT_TOPS)]
        self.top = _table({
            "share": np.array([t.share_ppm / 1e6 for t in tops]),
            "pages": np.array([t.pages for t in tops], np.uint64),
            "accesses": np.array([t.accesses for t in tops], np.uint64)},
            as_frame)
        self._heatmap(r, as_frame)

    def _heatmap(self, r, as_frame):
        R, C = r.heat_rows, r.heat_cols
        first = _array(r.range_first, R + 1, np.uint64)
        cfirst = _array(r.col_first, C + 1, np.uint32)
        self.heat = _array(r.heat, R * C, np.float64).reshape(R, C)
        self.ranges = _table({
            "first_index": first[:-1], "last_index": first[1:] - 1,
            "pages": _array(r.range_pages, R, np.uint64),
            "id_min": _array(r.range_id_min, R, np.uint64),
            "id_max": _array(r.range_id_max, R, np.uint64)}, as_frame)
        rr, cc = np.divmod(np.arange(R * C), C) if C else (np.zeros(0),) * 2
        rr, cc = rr.astype(np.uint32), cc.astype(np.uint32)
        pages = _array(r.range_pages, R, np.uint64)
        self.heatmap = _table({
            "range": rr, "first_index": first[:-1][rr],
            "last_index": first[1:][rr] - 1, "pages": pages[rr],
            "column": cc, "first_window": cfirst[:-1][cc],
            "last_window": cfirst[1:][cc] - 1,
            "fraction": self.heat.reshape(-1)}, as_frame)


def report(trace, ranges=0, columns=0, partial=False, as_frame=None):
    """The report of the trace @trace (mdk_trace_report_run()), as
    ``mdkctl trace report [--ranges N] [--columns N] [--partial]``."""
    o = ffi.new("struct mdk_report_opts *", {
        "heat_ranges": ranges, "heat_columns": columns,
        "flags": lib.MDK_TRACE_PARTIAL if partial else 0})
    out = ffi.new("struct mdk_report **")
    call(lib.mdk_trace_report_run, cstr(trace), o, out)
    r = ffi.gc(out[0], lib.mdk_trace_report_free)
    try:
        return TraceReport(r, as_frame)
    finally:
        ffi.release(r)
