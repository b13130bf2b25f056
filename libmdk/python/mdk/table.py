# SPDX-License-Identifier: LGPL-2.1-or-later
"""Tables of operating points: exactly the columns of ``mdkctl mpc --csv``
(policy,p1,p2,max_rate,mean_rate,p99_rate,savings,promotions; p2 is NaN
where the policy has no second parameter) and of ``mdkctl mrc --csv``
(policy,size,misses,miss_ratio), as a numpy structured array or, when
pandas imports, a DataFrame."""
import numpy as np

from ._mdk import ffi, lib
from .error import pystr

try:
    import pandas as _pd
except ImportError:  # pandas is optional
    _pd = None

MPC_COLUMNS = ("policy", "p1", "p2", "max_rate", "mean_rate", "p99_rate",
               "savings", "promotions")
MRC_COLUMNS = ("policy", "size", "misses", "miss_ratio")

MPC_DTYPE = np.dtype([("policy", "U8"), ("p1", "f8"), ("p2", "f8"),
                      ("max_rate", "f8"), ("mean_rate", "f8"),
                      ("p99_rate", "f8"), ("savings", "f8"),
                      ("promotions", "u8")])
MRC_DTYPE = np.dtype([("policy", "U8"), ("size", "u8"), ("misses", "u8"),
                      ("miss_ratio", "f8")])


def c_dtype(ctype, fields):
    """A numpy view of an array of C struct @ctype: @fields as (name,
    format), at cffi's offsets."""
    names = [f for f, _ in fields]
    return np.dtype({"names": names, "formats": [t for _, t in fields],
                     "offsets": [ffi.offsetof(ctype, f) for f in names],
                     "itemsize": ffi.sizeof(ctype)})


POINT_C = c_dtype("struct mdk_point", [
    ("p1", "f8"), ("p2", "f8"), ("has_p2", "?"), ("max_rate", "f8"),
    ("mean_rate", "f8"), ("p99_rate", "f8"), ("savings", "f8"),
    ("promotions", "u8"), ("saved", "u8"), ("footprint", "u8")])
MRC_POINT_C = c_dtype("struct mdk_mrc_point", [
    ("size", "u8"), ("misses", "u8"), ("miss_ratio", "f8")])


def have_pandas():
    return _pd is not None


def frame_default(as_frame):
    """as_frame=None: a DataFrame when pandas imports."""
    if as_frame is None:
        return _pd is not None
    if as_frame and _pd is None:
        raise ImportError("as_frame=True needs pandas")
    return as_frame


def c_view(ptr, n, dtype):
    """The @n C structs at @ptr as a numpy array (no copy: valid while
    the C memory is)."""
    if n == 0:
        return np.zeros(0, dtype)
    return np.frombuffer(ffi.buffer(ptr, n * dtype.itemsize), dtype)


def mpc_rows(ptr, n):
    """The @n struct mdk_point at @ptr as rows of MPC_DTYPE (a copy)."""
    v = c_view(ptr, n, POINT_C)
    out = np.zeros(n, MPC_DTYPE)
    if n:
        out["policy"] = pystr(ptr[0].policy)
    for f in MPC_COLUMNS[1:]:
        out[f] = v[f]
    out["p2"] = np.where(v["has_p2"], v["p2"], np.nan)
    # lopp's A = none (never reclaimed; mdkctl's CSV "none"): infinity.
    if n and out["policy"][0] == "lopp":
        out["p2"][out["p2"] >= lib.MDK_TRACE_MAX_WINDOW] = np.inf
    return out


def mrc_rows(ptr, n):
    """The @n struct mdk_mrc_point at @ptr as rows of MRC_DTYPE (a copy);
    the policy names are read per point (a run holds lru and opt)."""
    v = c_view(ptr, n, MRC_POINT_C)
    out = np.zeros(n, MRC_DTYPE)
    out["policy"] = [pystr(ptr[i].policy) for i in range(n)]
    for f in MRC_COLUMNS[1:]:
        out[f] = v[f]
    return out


def finish(rows, dtype, as_frame):
    """Concatenated @rows as a structured array or a DataFrame."""
    arr = np.concatenate(rows) if rows else np.zeros(0, dtype)
    if not frame_default(as_frame):
        return arr
    df = _pd.DataFrame(arr)
    if "policy" in df.columns:
        df["policy"] = df["policy"].astype(object)
    return df


def to_records(points):
    """A DataFrame or structured array of MPC columns as a structured
    array."""
    if _pd is not None and isinstance(points, _pd.DataFrame):
        missing = [c for c in MPC_COLUMNS if c not in points.columns]
        if missing:
            raise ValueError("points lack the columns %s" % missing)
        arr = np.zeros(len(points), MPC_DTYPE)
        for c in MPC_COLUMNS:
            arr[c] = points[c].to_numpy()
        return arr
    return np.asarray(points)


def best_index(rows, target):
    """Index in @rows (one policy's points of one trace) of the best point
    at max window rate @target, by libmdk's mdk_mpc_best(), or -1.

    The table keeps savings, not the saved page-windows mdk_mpc_best()
    compares; for one trace (one footprint) they order alike, and the bits
    of a non-negative double order as the double does."""
    n = len(rows)
    if n == 0:
        return -1
    buf = ffi.new("struct mdk_point[]", n)
    v = c_view(buf, n, POINT_C)
    for f in ("p1", "max_rate", "mean_rate", "p99_rate", "savings",
              "promotions"):
        v[f] = rows[f]
    v["p2"] = np.nan_to_num(rows["p2"])
    v["has_p2"] = ~np.isnan(rows["p2"])
    v["saved"] = np.ascontiguousarray(rows["savings"],
                                      dtype="f8").view("u8")
    return lib.mdk_mpc_best(buf, n, float(target))
