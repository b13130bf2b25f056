# SPDX-License-Identifier: LGPL-2.1-or-later
"""The live evaluator (mdk/evaluator.h): the curves of a stream of
windows fed from Python, over a sliding horizon, as mdkd keeps them."""
import errno

import numpy as np

from ._mdk import ffi, lib
from . import table
from .curves import savings_flags
from .error import MdkError, call, cstr, errbuf, error, pystr
from .trace import ids_array


def _rates(r):
    return {"windows": r.windows, "promotions": r.promotions,
            "accessed": r.accessed, "max_rate": r.max_rate,
            "mean_rate": r.mean_rate, "p99_rate": r.p99_rate}


class Evaluator:
    """An evaluator over a horizon of @horizon windows of the policies
    @policies (a libmdk list of policies with single-pass curves).

    Feed windows with window(ids); curve(name) is a table of mpc()'s
    columns over the horizon; find(spec)/tune(spec, target) give a
    selection (policy index, setting) for point(), pick() and mark()."""

    def __init__(self, horizon=64, policies="age,paw,pace,opp",
                 savings="occupancy", lopp_rho=0.0, lopp_retrain=0,
                 lopp_rows=0, lopp_model="logistic"):
        self._policies = ffi.new("char[]", cstr(policies))
        o = ffi.new("struct mdk_eval_opts *", {
            "horizon": horizon, "policies": self._policies,
            "flags": savings_flags(savings), "lopp_rho": lopp_rho,
            "lopp_retrain": lopp_retrain, "lopp_rows": lopp_rows,
            "lopp_model": {"logistic": 0, "trees": 1}.get(lopp_model, 99)})
        err = errbuf()
        e = lib.mdk_eval_new(o, err, len(err))
        if e == ffi.NULL:
            raise error(-errno.EINVAL, err)
        self._e = ffi.gc(e, lib.mdk_eval_free)

    def window(self, ids, measured=None):
        """Feed the next window: sorted, distinct page ids (no copy for a
        contiguous uint64 array), and the promotions counted outside
        during it (None: no count).  Returns the pages of the window
        that were marked reclaimed (its acted promotions)."""
        a = ids_array(ids)
        call(lib.mdk_eval_window, self._e, ffi.from_buffer("uint64_t[]", a),
             len(a), measured or 0, measured is not None)
        n = ffi.new("size_t *")
        p = lib.mdk_eval_returned(self._e, n)
        return _copy_ids(p, n[0])

    @property
    def windows(self):
        """Windows fed so far."""
        return lib.mdk_eval_windows(self._e)

    @property
    def horizon(self):
        """(lo, hi), the windows the curves cover; None before any."""
        lo = ffi.new("uint32_t *")
        hi = ffi.new("uint32_t *")
        if not lib.mdk_eval_horizon(self._e, lo, hi):
            return None
        return lo[0], hi[0]

    @property
    def capacity(self):
        return lib.mdk_eval_capacity(self._e)

    @property
    def policies(self):
        """The evaluated policies' names, in index order."""
        return [pystr(lib.mdk_policy_name(lib.mdk_eval_policy(self._e, i)))
                for i in range(lib.mdk_eval_npolicies(self._e))]

    def _index(self, policy):
        if isinstance(policy, str):
            names = self.policies
            if policy not in names:
                raise MdkError(errno.ENOENT, "policy %s is not evaluated "
                               "(evaluated: %s)" % (policy,
                                                    ",".join(names)))
            return names.index(policy)
        return policy

    def curve(self, policy, as_frame=None):
        """The points of every setting of @policy (name or index) over
        the horizon: mpc()'s columns."""
        pts = ffi.new("struct mdk_point **")
        n = call(lib.mdk_eval_curve, self._e, self._index(policy), pts)
        try:
            rows = table.mpc_rows(pts[0], n)
        finally:
            lib.free(pts[0])
        return table.finish([rows], table.MPC_DTYPE, as_frame)

    def find(self, spec):
        """The selection of the single setting @spec ("age:T=4"), added
        to the curves when it is not there yet."""
        sel = ffi.new("struct mdk_eval_sel *")
        call(lib.mdk_eval_find, self._e, cstr(spec), sel)
        return sel.policy, sel.setting

    def _point(self, pt):
        """A point as a dict of mpc()'s columns."""
        row = table.mpc_rows(pt, 1)[0]
        return dict(zip(table.MPC_COLUMNS, row.tolist()))

    def tune(self, spec, target):
        """Auto-tune: ((policy, setting), point) of the setting of @spec
        with the most savings at max window rate @target, the point a
        dict of mpc()'s columns; MdkError (ENOENT) when none is within
        it."""
        sel = ffi.new("struct mdk_eval_sel *")
        pt = ffi.new("struct mdk_point[1]")
        call(lib.mdk_eval_tune, self._e, cstr(spec), float(target), sel, pt)
        return (sel.policy, sel.setting), self._point(pt)

    def point(self, sel):
        """The point of selection @sel: a dict of mpc()'s columns."""
        s = ffi.new("struct mdk_eval_sel *", {"policy": sel[0],
                                              "setting": sel[1]})
        pt = ffi.new("struct mdk_point[1]")
        call(lib.mdk_eval_point, self._e, s, pt)
        return self._point(pt)

    def pick(self, sel):
        """The pages the online setting @sel reclaims now (sorted)."""
        s = ffi.new("struct mdk_eval_sel *", {"policy": sel[0],
                                              "setting": sel[1]})
        ids = ffi.new("const uint64_t **")
        n = ffi.new("size_t *")
        ret = lib.mdk_eval_pick(self._e, s, ids, n)
        if ret < 0:
            raise error(ret, None, "pick: setting (%d, %d) is not an online "
                        "policy's" % sel)
        return _copy_ids(ids[0], n[0])

    def mark(self, ids):
        """Pages @ids were reclaimed: not picked again until accessed."""
        a = ids_array(ids)
        lib.mdk_eval_mark(self._e, ffi.from_buffer("uint64_t[]", a), len(a))

    def forget(self, gone):
        """Drop the pages that are gone: @gone is a collection of page ids
        (any ``in``-able: a set, a range) or a function of a page id.
        Their open intervals stay in the curves as tails.  Returns the
        number of pages dropped."""
        test = gone if callable(gone) else gone.__contains__
        h = ffi.new_handle(test)
        return lib.mdk_eval_forget(self._e, lib.mdk_py_gone, h)

    def idle_hist(self, nbins=16):
        """Pages not marked reclaimed by idle age (last bin: older)."""
        h = np.zeros(nbins, np.uint64)
        lib.mdk_eval_idle_hist(self._e, ffi.from_buffer("uint64_t[]", h),
                               nbins)
        return h

    def count_unacted(self, on=True):
        lib.mdk_eval_count_unacted(self._e, on)

    def rates(self):
        """{"measured": ..., "acted": ...}: promotion rates over the
        horizon."""
        m = ffi.new("struct mdk_eval_rates *")
        a = ffi.new("struct mdk_eval_rates *")
        lib.mdk_eval_rates(self._e, m, a)
        return {"measured": _rates(m), "acted": _rates(a)}

    def lopp(self):
        """L-OPP's learning so far, or None when lopp is not evaluated."""
        out = ffi.new("struct mdk_eval_lopp *")
        if not lib.mdk_eval_lopp(self._e, out):
            return None
        return {"trainings": out.trainings, "rows": out.rows,
                "precision": out.precision, "recall": out.recall,
                "auc": out.auc}

    @property
    def pages(self):
        return lib.mdk_eval_pages(self._e)

    @property
    def memory(self):
        return lib.mdk_eval_memory(self._e)


@ffi.def_extern()
def mdk_py_gone(id, arg):
    """mdk_eval_forget()'s callback: the test forget() was given."""
    return bool(ffi.from_handle(arg)(id))


def _copy_ids(p, n):
    if n == 0:
        return np.zeros(0, np.uint64)
    return np.frombuffer(ffi.buffer(p, n * 8), np.uint64).copy()
