# SPDX-License-Identifier: LGPL-2.1-or-later
"""mdk.fleet: the curves of many traces on Dask's distributed scheduler,
one task per trace, and the fleet's table: each trace's best setting at
each target and the DRAM the fleet saves, each trace weighed by its
footprint.  ``mdkctl mpc`` stays the one-trace, one-machine path;
Documentation/python.rst says when to use which.

    python3 -m mdk.fleet TRACE... [--target 1%,5%] [--scheduler ADDR]
"""
import argparse
import sys

import numpy as np
import pandas as pd

from . import curves
from . import table
from .error import MdkError
from .trace import TraceReader

# The targets of mdkctl mpc's table.
DEFAULT_TARGETS = (0.001, 0.005, 0.01, 0.02, 0.05, 0.1)
# The policies a host can run (OPP and VMIN know the future: add them for
# the bound).
DEFAULT_POLICIES = "age,paw,pace"

TABLE_COLUMNS = ("trace", "target", "policy", "p1", "p2", "max_rate",
                 "mean_rate", "savings", "promotions", "footprint_pages",
                 "page_size", "saved_pages")
TOTAL_COLUMNS = ("target", "traces", "placed", "footprint_pages",
                 "footprint_bytes", "saved_pages", "saved_bytes",
                 "savings")


def trace_curves(path, policies=DEFAULT_POLICIES,
                 savings="occupancy"):
    """One fleet task: the curves of the trace at @path (mdk.mpc()'s
    rows, all policies) and what weighs it: its windows, page size and
    mean footprint F(w) in pages.  Runs on a worker; returns plain data."""
    with TraceReader(path) as r:
        info = r.info
    # One thread: the cluster runs a task a core.
    rows, footprint = curves.points(path, policies, savings, threads=1)
    pts = np.concatenate(rows) if rows else np.zeros(0, table.MPC_DTYPE)
    windows = info["windows"]
    return {"trace": str(path), "points": pts, "windows": windows,
            "page_size": info["page_size"],
            "footprint_pages": footprint / windows if windows else 0.0}


def best_rows(result, targets):
    """The trace's best setting, over all its policies, at each target:
    libmdk's rule (mdk_mpc_best(): the most savings within the target).
    A target no setting meets keeps the pages in DRAM: policy "none"."""
    out = []
    pts = result["points"]
    for target in targets:
        b = table.best_index(pts, target)
        row = {"trace": result["trace"], "target": float(target),
               "footprint_pages": result["footprint_pages"],
               "page_size": result["page_size"]}
        if b < 0:
            row.update(policy="none", p1=np.nan, p2=np.nan, max_rate=0.0,
                       mean_rate=0.0, savings=0.0, promotions=0)
        else:
            p = pts[b]
            row.update(policy=str(p["policy"]), p1=float(p["p1"]),
                       p2=float(p["p2"]), max_rate=float(p["max_rate"]),
                       mean_rate=float(p["mean_rate"]),
                       savings=float(p["savings"]),
                       promotions=int(p["promotions"]))
        row["saved_pages"] = row["savings"] * row["footprint_pages"]
        out.append(row)
    return out


def totals(tbl):
    """Per target, the fleet's footprint and DRAM saved: the traces'
    savings weighed by their mean footprints.  Bytes need every page size
    (NaN otherwise); the share is of pages when sizes are unknown."""
    rows = []
    for target, g in tbl.groupby("target", sort=True):
        fp = g["footprint_pages"].sum()
        saved = g["saved_pages"].sum()
        known = bool((g["page_size"] > 0).all())
        fpb = (g["footprint_pages"] * g["page_size"]).sum() if known else np.nan
        svb = (g["saved_pages"] * g["page_size"]).sum() if known else np.nan
        if known:
            share = svb / fpb if fpb else 0.0
        else:
            share = saved / fp if fp else 0.0
        rows.append({"target": target, "traces": len(g),
                     "placed": int((g["policy"] != "none").sum()),
                     "footprint_pages": fp, "footprint_bytes": fpb,
                     "saved_pages": saved, "saved_bytes": svb,
                     "savings": share})
    return pd.DataFrame(rows, columns=TOTAL_COLUMNS)


class Fleet:
    """The result of run(): .table (one row per trace and target, in the
    order of the traces given) and .totals (one row per target)."""

    def __init__(self, results, targets):
        rows = [r for res in results for r in best_rows(res, targets)]
        self.table = pd.DataFrame(rows, columns=TABLE_COLUMNS)
        self.totals = totals(self.table)
        self.curves = {res["trace"]: res["points"] for res in results}

    def to_csv(self, path_or_buf=None, totals=False):
        """The table (or the totals) as CSV, as pandas writes it."""
        df = self.totals if totals else self.table
        return df.to_csv(path_or_buf, index=False)


def _sequential(traces, policies, savings):
    return [trace_curves(t, policies, savings) for t in traces]


def _on_client(client, traces, policies, savings):
    futs = client.map(trace_curves, traces, policies=policies,
                      savings=savings, pure=False)
    try:
        return client.gather(futs)
    finally:
        client.cancel(futs)


def _local_cluster(n_workers):
    """A LocalCluster of worker processes, one thread each (libmdk's
    curves are single-threaded per trace), no dashboard."""
    from distributed import LocalCluster

    return LocalCluster(n_workers=n_workers, threads_per_worker=1,
                        processes=True, dashboard_address=None)


def run(traces, policies=DEFAULT_POLICIES, targets=DEFAULT_TARGETS,
        savings="occupancy", scheduler=None, n_workers=None):
    """The curves of every trace in @traces, one Dask task each, and the
    fleet's table at @targets (max window promotion rates).

    @scheduler: None runs a LocalCluster of @n_workers processes (default:
    one per core) for this call; a string is the address of a running
    scheduler ("tcp://host:8786"); a distributed.Client is used as it is;
    "sequential" runs in this process without Dask (the reference the
    tests compare with).  The workers must import mdk and read the traces
    at the paths given.  libmdk's errors come back as MdkError naming the
    trace."""
    traces = [str(t) for t in traces]
    targets = [float(t) for t in targets]
    if scheduler == "sequential":
        return Fleet(_sequential(traces, policies, savings), targets)
    from distributed import Client

    if isinstance(scheduler, Client):
        return Fleet(_on_client(scheduler, traces, policies, savings),
                     targets)
    if scheduler is None:
        with _local_cluster(n_workers) as cluster, Client(cluster) as c:
            results = _on_client(c, traces, policies, savings)
        return Fleet(results, targets)
    if not isinstance(scheduler, str):
        raise TypeError("scheduler: expected None, 'sequential', an "
                        "address or a distributed.Client, not %r" %
                        (scheduler,))
    with Client(scheduler) as c:
        return Fleet(_on_client(c, traces, policies, savings), targets)


def _rate(text):
    """A rate as mdkctl takes it: 0.01 or 1%."""
    t = text.strip()
    try:
        v = float(t[:-1]) / 100 if t.endswith("%") else float(t)
    except ValueError:
        raise argparse.ArgumentTypeError(
            "%r: expected a rate such as 0.01 or 1%%" % text) from None
    if not 0 <= v <= 1:
        raise argparse.ArgumentTypeError("%r: a rate is in [0, 1]" % text)
    return v


def _rates(text):
    return [_rate(t) for t in text.split(",") if t.strip()]


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python3 -m mdk.fleet",
        description="Best settings of many traces' curves on Dask.")
    ap.add_argument("traces", nargs="+", metavar="TRACE")
    ap.add_argument("--policy", default=DEFAULT_POLICIES,
                    help="policies and settings, as mdkctl mpc --policy")
    ap.add_argument("--target", type=_rates, default=list(DEFAULT_TARGETS),
                    help="max window promotion rates (default: %(default)s)")
    ap.add_argument("--savings", choices=("occupancy", "paper"),
                    default="occupancy")
    ap.add_argument("--scheduler", default=None,
                    help="a Dask scheduler's address, or 'sequential' "
                    "(default: a LocalCluster for this run)")
    ap.add_argument("--workers", type=int, default=None,
                    help="LocalCluster worker processes (default: cores)")
    ap.add_argument("--csv", metavar="FILE",
                    help="write the fleet table as CSV ('-': stdout)")
    ap.add_argument("--totals-csv", metavar="FILE",
                    help="write the per-target totals as CSV")
    a = ap.parse_args(argv)
    if a.workers is not None and a.workers < 1:
        ap.error("--workers %d: expected at least 1" % a.workers)
    try:
        fleet = run(a.traces, a.policy, a.target, a.savings, a.scheduler,
                    a.workers)
    except (MdkError, ValueError, OSError) as e:
        print("mdk.fleet: %s" % e, file=sys.stderr)
        return 1
    if a.csv:
        fleet.to_csv(sys.stdout if a.csv == "-" else a.csv)
    if a.totals_csv:
        fleet.to_csv(sys.stdout if a.totals_csv == "-" else a.totals_csv,
                     totals=True)
    if not a.csv and not a.totals_csv:
        _print(fleet)
    return 0


def _print(fleet):
    t = fleet.totals
    print("%d traces; fleet DRAM saved at each target (savings weighed "
          "by footprint):" % (t["traces"].iloc[0] if len(t) else 0))
    print("%8s %7s %14s %14s %8s" % ("target", "placed", "footprint",
                                     "saved", "savings"))
    for _, r in t.iterrows():
        print("%7.3g%% %7d %14s %14s %7.3g%%" % (
            r["target"] * 100, r["placed"], _size(r["footprint_bytes"],
                                                  r["footprint_pages"]),
            _size(r["saved_bytes"], r["saved_pages"]), r["savings"] * 100))


def _size(nbytes, pages):
    if np.isnan(nbytes):
        return "%.0f pages" % pages
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if nbytes < 1024 or unit == "TiB":
            return "%.1f %s" % (nbytes, unit)
        nbytes /= 1024
    return ""


if __name__ == "__main__":
    sys.exit(main())
