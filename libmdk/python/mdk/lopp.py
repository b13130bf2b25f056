# SPDX-License-Identifier: LGPL-2.1-or-later
"""L-OPP (mdk/lopp.h): train a model on OPP's decisions over a trace, as
``mdkctl train``, read and write model files, score feature rows; the
policy itself is Policy("lopp:model=FILE,theta=...") or
Policy("lopp").set_model(model)."""
import numpy as np

from ._mdk import ffi, lib
from .error import call, cstr

FEATURES = lib.MDK_LOPP_FEATURES


def feature_names():
    """The feature columns, "page_reuse1" .. "region_recent"."""
    return [ffi.string(lib.mdk_lopp_feature_name(i)).decode()
            for i in range(FEATURES)]


class Model:
    """An L-OPP model: Model.read(path), train(), write(path), score(x)."""

    def __init__(self, m):
        self._m = ffi.gc(m, lib.mdk_lopp_model_free)

    @classmethod
    def read(cls, path):
        out = ffi.new("struct mdk_lopp_model **")
        call(lib.mdk_lopp_model_read, cstr(path), out)
        return cls(out[0])

    def write(self, path):
        """Write the model file @path (replaced atomically)."""
        call(lib.mdk_lopp_model_write, self._m, cstr(path))

    @property
    def rho(self):
        """The rate limit of the OPP labels it learnt."""
        return lib.mdk_lopp_model_rho(self._m)

    @property
    def kind(self):
        """"logistic" or "trees"."""
        return "trees" if lib.mdk_lopp_model_kind(self._m) == 1 \
            else "logistic"

    def score(self, x):
        """Scores in [0, 1] of feature rows @x (n x FEATURES)."""
        x = np.ascontiguousarray(x, dtype=np.float32)
        if x.ndim != 2 or x.shape[1] != FEATURES:
            raise ValueError("expected rows of %d features" % FEATURES)
        buf = ffi.from_buffer("float[]", x)
        return np.array([lib.mdk_lopp_score(self._m, buf + i * FEATURES)
                         for i in range(x.shape[0])])


def _bad(model):
    raise ValueError("model %r: expected 'logistic' or 'trees'" % (model,))


def _quality(q):
    return {f: getattr(q, f) for f in ("rows", "positives", "tp", "fp", "fn",
                                       "precision", "recall", "auc")}


_KINDS = {"logistic": 0, "trees": 1}


def train(trace, rho, holdout=0.2, samples=0, cost=0.0, theta=0.5,
          model="logistic", trees=0, depth=0, eta=0.0, pos_weight=0.0,
          until=0):
    """Fit an L-OPP model to OPP(@rho)'s decisions over @trace, holding
    out the last @holdout of the windows, as ``mdkctl train`` (samples 0:
    libmdk's 512K rows; cost 0: 1).  @model: "logistic" or "trees"
    (XGBoost: @trees rounds, 0: 100; @depth, 0: 6; @eta, 0: 0.3);
    @pos_weight: a positive row's weight, 0: 1, < 0: negatives/positives.  Returns (Model, report), the report a
    dict of what mdkctl train -j prints: windows, split, intervals,
    sample, and train and test (rows, positives, tp, fp, fn, precision,
    recall, auc at @theta).  @until: train on windows 0..until-1 and hold
    out the later ones, as ``--train-until`` (0: every window)."""
    o = ffi.new("struct mdk_lopp_train_opts *", {
        "rho": rho, "holdout": holdout, "max_samples": samples, "C": cost,
        "theta": theta,
        "fit": {"kind": _KINDS[model] if model in _KINDS else _bad(model),
                "trees": trees, "depth": depth, "eta": eta,
                "pos_weight": pos_weight}})
    out = ffi.new("struct mdk_lopp_model **")
    rep = ffi.new("struct mdk_lopp_train_report *")
    call(lib.mdk_lopp_train_until, cstr(trace), o, until, out, rep)
    report = {"windows": rep.windows, "split": rep.split,
              "intervals": rep.intervals, "sample": rep.sample,
              "train": _quality(rep.train), "test": _quality(rep.test)}
    return Model(out[0]), report
