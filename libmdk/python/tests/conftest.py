# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fixtures of the mdk package's tests, and their TAP report.

The tests compare the package's figures with mdkctl's on the tree's
fixtures.  tests/run sets PYTHONPATH to build/python, LD_LIBRARY_PATH to
build/lib and MDK_TOP to the tree; with MDK_PYTEST_TAP=FILE, every test's
result is also written to FILE as TAP lines for make check's count."""
import csv
import io
import os
import subprocess

import pytest

TOP = os.environ.get("MDK_TOP") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", "..", ".."))
MDKCTL = os.path.join(TOP, "build", "bin", "mdkctl")
MIX = os.path.join(TOP, "tests", "fixtures", "mdk", "mix", "trace.mdkt")


def mdkctl(*args, check=True):
    """mdkctl's stdout for @args (a CompletedProcess with check=False)."""
    p = subprocess.run([MDKCTL, *map(str, args)], capture_output=True,
                       text=True)
    if not check:
        return p
    assert p.returncode == 0, p.stderr
    return p.stdout


def mdkctl_csv(*args):
    """mdkctl's --csv output: (header, rows as lists of strings)."""
    rows = list(csv.reader(io.StringIO(mdkctl(*args))))
    return rows[0], rows[1:]


@pytest.fixture
def mix():
    return MIX


# The TAP report: one line per test, "not ok" when any phase failed.
_results = {}


def pytest_runtest_logreport(report):
    prev = _results.get(report.nodeid)
    if prev == "not ok":
        return
    if report.failed:
        _results[report.nodeid] = "not ok"
    elif report.skipped:
        _results[report.nodeid] = "ok # SKIP"
    elif report.when == "call":
        _results[report.nodeid] = "ok"


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("MDK_PYTEST_TAP")
    if not path:
        return
    with open(path, "w") as f:
        f.write("1..%d\n" % len(_results))
        for i, (node, res) in enumerate(_results.items(), 1):
            # "tests/test_x.py::name[params]"; '#' would start a directive
            path, _, test = node.partition("::")
            name = (os.path.basename(path) + "::" + test).replace("#", "_")
            if res == "ok # SKIP":
                f.write("ok %d - %s # SKIP\n" % (i, name))
            else:
                f.write("%s %d - %s\n" % (res, i, name))
