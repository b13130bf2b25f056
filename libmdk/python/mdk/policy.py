# SPDX-License-Identifier: LGPL-2.1-or-later
"""Policies and their settings: libmdk's spec syntax (mdk/policy.h),
"age:T=4", "pace:P=1-8,A=2/4/8", "opp:rho=0-0.05:0.005",
"lopp:model=m.mdkm,theta=0-1:0.05", parsed by libmdk only."""
from ._mdk import ffi, lib
from .error import call, cstr, pystr


class Policy:
    """One policy with a grid of settings, from a spec.

    ``settings`` and ``setting(i)`` need the grid resolved: for a trace of
    W windows, ``resolve(W)`` (mpc() and simulate() resolve for the trace
    they read)."""

    def __init__(self, spec):
        out = ffi.new("struct mdk_policy **")
        call(lib.mdk_policy_new, cstr(spec), out)
        self._p = ffi.gc(out[0], lib.mdk_policy_free)
        self._model = None

    @classmethod
    def _adopt(cls, p):
        self = cls.__new__(cls)
        self._p = ffi.gc(p, lib.mdk_policy_free)
        self._model = None
        return self

    @property
    def name(self):
        return pystr(lib.mdk_policy_name(self._p))

    @property
    def kind(self):
        """"interval", "budget" (opp) or "cache" (lru, opt)."""
        return {lib.MDK_POLICY_INTERVAL: "interval",
                lib.MDK_POLICY_BUDGET: "budget",
                lib.MDK_POLICY_CACHE: "cache"}[lib.mdk_policy_kind(self._p)]

    @property
    def online(self):
        return bool(lib.mdk_policy_online(self._p))

    @property
    def keyed(self):
        return bool(lib.mdk_policy_keyed(self._p))

    def resolve(self, n):
        """Give left-out parameters their defaults for @n windows (cache
        policies: @n distinct pages)."""
        call(lib.mdk_policy_resolve, self._p, n)
        return self

    @property
    def settings(self):
        return lib.mdk_policy_settings(self._p)

    def setting(self, i):
        """Setting @i as its spec, "age:T=4"."""
        return _snprintf(lambda buf, n: lib.mdk_policy_format(self._p, i,
                                                              buf, n))

    @property
    def spec(self):
        """The whole grid as a spec that parses back to the same settings."""
        return _snprintf(lambda buf, n: lib.mdk_policy_spec(self._p, buf, n))

    def set_model(self, model):
        """Make @model (mdk.Model) this lopp policy's model."""
        call(lib.mdk_lopp_policy_set_model, self._p, model._m)
        self._model = model
        return self

    def __repr__(self):
        return "Policy(%r)" % self.spec


def _snprintf(fn):
    n = 256
    while True:
        buf = ffi.new("char[]", n)
        need = fn(buf, n)
        if need < n:
            return pystr(buf)
        n = need + 1


def parse(policies):
    """A list of Policy from a libmdk list ("age,paw:wait=3,P=2,opp"), one
    spec, a Policy, or an iterable of specs and Policy objects."""
    if isinstance(policies, Policy):
        return [policies]
    if isinstance(policies, str):
        out = ffi.new("struct mdk_policy ***")
        n = ffi.new("size_t *")
        call(lib.mdk_policy_parse_list, cstr(policies), out, n)
        arr = out[0]
        pols = [Policy._adopt(arr[i]) for i in range(n[0])]
        lib.free(arr)
        return pols
    pols = []
    for p in policies:
        pols.extend(parse(p))
    return pols


def policies():
    """The registry: {name: help} of every policy libmdk knows."""
    return {pystr(lib.mdk_policy_name_at(i)): pystr(lib.mdk_policy_help_at(i))
            for i in range(lib.mdk_policy_count())}


def c_array(pols):
    """A struct mdk_policy *[] of @pols (which must outlive it)."""
    return ffi.new("struct mdk_policy *[]", [p._p for p in pols] or 1)
