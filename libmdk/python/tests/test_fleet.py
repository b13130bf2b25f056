# SPDX-License-Identifier: LGPL-2.1-or-later
"""mdk.fleet: 20 synthetic traces on a two-worker LocalCluster give
exactly the sequential result; each best setting is mdkctl mpc
--target's; the totals weigh savings by footprint; errors name the
trace."""
import io
import os

import numpy as np
import pandas as pd
import pytest

import mdk
from mdk import fleet

from conftest import mdkctl_csv

GENS = (["zipf:s=0.9,frac=0.4"], ["periodic:period=6,skip=0.2"],
        ["scan:rate=40"], ["phase:len=8,frac=0.3"],
        ["zipf", "scan:rate=20,share=0.3"])
TARGETS = (0.005, 0.01, 0.05, 0.1)
POLICIES = "age,paw,pace,opp"


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    """20 traces of different shapes, sizes and page sizes."""
    d = tmp_path_factory.mktemp("fleet")
    out = []
    for i in range(20):
        p = str(d / ("t%02d.mdkt" % i))
        mdk.synth(p, pages=300 + 97 * i, windows=16 + i % 5, seed=i + 1,
                  gens=GENS[i % len(GENS)],
                  page_size=4096 if i % 4 else 2 << 20)
        out.append(p)
    return out


@pytest.fixture(scope="module")
def sequential(traces):
    return fleet.run(traces, POLICIES, TARGETS, scheduler="sequential")


def test_local_cluster_equals_sequential(traces, sequential):
    f = fleet.run(traces, POLICIES, TARGETS, n_workers=2)
    pd.testing.assert_frame_equal(f.table, sequential.table,
                                  check_exact=True)
    pd.testing.assert_frame_equal(f.totals, sequential.totals,
                                  check_exact=True)
    assert list(f.table["trace"].unique()) == traces


def test_best_is_mdkctl_target(traces, sequential):
    """Each row is the best of mdkctl mpc --target over all policies."""
    for t in traces[:5]:
        for target in TARGETS:
            hdr, rows = mdkctl_csv("mpc", t, "--policy", POLICIES, "--csv",
                                   "--target", target)
            sv = hdr.index("savings")
            want = max((float(r[sv]) for r in rows), default=0.0)
            got = sequential.table[(sequential.table["trace"] == t) &
                                   (sequential.table["target"] == target)]
            assert len(got) == 1
            assert got["savings"].iloc[0] == pytest.approx(want, abs=1e-9)


def test_totals_weigh_by_footprint(traces, sequential):
    tbl = sequential.table
    for target in TARGETS:
        g = tbl[tbl["target"] == target]
        fp = [_mean_footprint(t) for t in g["trace"]]
        np.testing.assert_allclose(g["footprint_pages"], fp)
        ps = g["page_size"].to_numpy()
        want = (g["savings"] * g["footprint_pages"] * ps).sum() / \
            (g["footprint_pages"] * ps).sum()
        tot = sequential.totals[sequential.totals["target"] == target]
        assert tot["savings"].iloc[0] == pytest.approx(want, rel=1e-12)
        assert tot["traces"].iloc[0] == 20
        # Not the plain mean: traces differ in size and page size.
        assert want != pytest.approx(g["savings"].mean(), rel=1e-3)


def _mean_footprint(path):
    """Mean over windows of F(w): pages accessed at or before w."""
    seen, total, w = set(), 0, 0
    for w, ids in mdk.TraceReader(path):
        seen.update(ids.tolist())
        total += len(seen)
    return total / (w + 1)


def test_csv_and_cli(traces, sequential, capsys):
    buf = io.StringIO()
    sequential.to_csv(buf)
    back = pd.read_csv(io.StringIO(buf.getvalue()))
    assert tuple(back.columns) == fleet.TABLE_COLUMNS
    assert len(back) == 20 * len(TARGETS)
    assert fleet.main([*traces[:3], "--scheduler", "sequential",
                       "--target", "1%,5%", "--policy", POLICIES,
                       "--totals-csv", "-"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ",".join(fleet.TOTAL_COLUMNS)
    assert [r.split(",")[0] for r in out[1:]] == ["0.01", "0.05"]


def test_errors_name_the_trace(traces, tmp_path, capsys):
    missing = str(tmp_path / "gone.mdkt")
    with pytest.raises(mdk.MdkError) as e:
        fleet.run([traces[0], missing], scheduler="sequential")
    assert "gone.mdkt" in str(e.value)
    with pytest.raises(mdk.MdkError) as e:
        fleet.run([missing], n_workers=1)
    assert "gone.mdkt" in str(e.value)
    assert fleet.main([missing, "--scheduler", "sequential"]) == 1
    assert "gone.mdkt" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        fleet.main([traces[0], "--target", "5"])
    with pytest.raises(TypeError):
        fleet.run([traces[0]], scheduler=3)


def test_task_weight(traces):
    """A task's weight is the trace's mean F(w), over all its windows."""
    for t in traces[:3]:
        res = fleet.trace_curves(t, "age")
        assert res["footprint_pages"] == pytest.approx(_mean_footprint(t))
        assert os.path.basename(res["trace"]) == os.path.basename(t)
