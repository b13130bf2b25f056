# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trace reports: every table equals mdkctl trace report --csv TABLE."""
import errno

import numpy as np
import pytest

import mdk
from conftest import mdkctl_csv


def fmt(v, g="%.10g"):
    if isinstance(v, (float, np.floating)):
        return g % v
    return "%d" % v


def rows_of(table):
    if isinstance(table, np.ndarray):
        return [list(r) for r in table.tolist()]
    return [list(r) for r in table.itertuples(index=False)]


@pytest.mark.parametrize("args", [[], ["--ranges", "7", "--columns", "9"]])
def test_report_tables_equal_mdkctl(mix, args):
    kw = {"ranges": int(args[1]), "columns": int(args[3])} if args else {}
    for as_frame in (True, False):
        r = mdk.report(mix, as_frame=as_frame, **kw)
        for name in ("windows", "reuse", "popularity", "top", "heatmap"):
            header, rows = mdkctl_csv("trace", "report", mix, "--csv", name,
                                      *args)
            t = getattr(r, name)
            names = list(t.columns if hasattr(t, "columns")
                         else t.dtype.names)
            assert names == header, name
            g = "%g" if name == "top" else "%.10g"
            got = [[fmt(v, g) for v in row] for row in rows_of(t)]
            assert got == rows, name
        header, rows = mdkctl_csv("trace", "report", mix, "--csv", "summary",
                                  *args)
        assert [[k, fmt(v)] for k, v in r.summary.items()] == rows
    assert r.heat.shape == (len(r.ranges), r.heatmap["column"].max() + 1)


def test_report_errors(tmp_path, mix):
    with pytest.raises(mdk.MdkError) as e:
        mdk.report(tmp_path / "none.mdkt")
    assert e.value.errno == errno.ENOENT
    with pytest.raises(mdk.MdkError) as e:
        mdk.report(mix, ranges=100000)
    assert e.value.errno == errno.EINVAL and str(e.value)
    data = open(mix, "rb").read()
    cut = tmp_path / "cut.mdkt"
    cut.write_bytes(data[:len(data) // 2])
    with pytest.raises(mdk.MdkError):
        mdk.report(cut)
