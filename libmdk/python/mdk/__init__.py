# SPDX-License-Identifier: LGPL-2.1-or-later
"""mdk: Python bindings of libmdk, the Memory Designer's Kit.

Traces are read and written a window at a time as numpy arrays of page
ids; curves (mpc, simulate, mrc) come as tables with the columns of
mdkctl's --csv output, a pandas DataFrame when pandas imports, else a
numpy structured array.  Every failure of libmdk raises MdkError (an
OSError) with libmdk's message and errno.  Documentation/python.rst.
"""
from ._mdk import lib as _lib
from .curves import DEFAULT_POLICIES, best, mpc, mrc
from .error import MdkError
from .evaluator import Evaluator
from .lopp import Model, feature_names, train
from .policy import Policy, policies
from .report import TraceReport, report
from .sim import simulate, simulate_windows
from .synth import Synth, synth
from .table import MPC_COLUMNS, MRC_COLUMNS
from . import tiers
from .trace import (TraceReader, TraceWriter, export_oracle, import_csv,
                    import_oracle, read, write)


def version():
    """The version of the libmdk actually loaded."""
    from ._mdk import ffi

    return ffi.string(_lib.mdk_version()).decode()


__version__ = version()

__all__ = ["DEFAULT_POLICIES", "Evaluator", "MPC_COLUMNS", "MRC_COLUMNS",
           "MdkError", "Model", "Policy", "Synth", "TraceReader",
           "TraceReport", "TraceWriter", "best", "export_oracle",
           "feature_names", "import_oracle",
           "import_csv", "mpc", "mrc", "policies", "read", "report",
           "simulate", "simulate_windows", "synth", "tiers", "train",
           "version", "write"]
