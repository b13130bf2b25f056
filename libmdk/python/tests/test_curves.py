# SPDX-License-Identifier: LGPL-2.1-or-later
"""mpc, best, simulate and mrc against mdkctl's --csv output, field by
field, on the mix fixture."""
import json
import math
import os

import numpy as np
import pytest

import mdk
from conftest import TOP, mdkctl, mdkctl_csv

FRACTION = ("opp", "lopp")
# age's 39 settings take three passes of SIM_GROUP.
SIM_POLICIES = ("age:T=1-39,vmin:T=2/5,paw:P=2/6,wait=2,pace:P=3,A=2/4,"
                "opp:rho=0.01/0.05")


def mpc_fields(row):
    """A table row as mdkctl's report.c writes its CSV fields."""
    frac = row["policy"] in FRACTION
    p2 = row["p2"]
    return [row["policy"], ("%.10g" if frac else "%.0f") % row["p1"],
            "" if math.isnan(p2) else "none" if math.isinf(p2)
            else "%.0f" % p2,
            *("%.10g" % row[c] for c in ("max_rate", "mean_rate",
                                         "p99_rate", "savings")),
            "%d" % row["promotions"]]


def mrc_fields(row):
    return [row["policy"], "%d" % row["size"], "%d" % row["misses"],
            "%.10g" % row["miss_ratio"]]


def records(table):
    if isinstance(table, np.ndarray):
        return list(table)
    return [r for _, r in table.iterrows()]


def assert_same(table, header, rows, fields=mpc_fields):
    assert list(table.columns if hasattr(table, "columns")
                else table.dtype.names) == header
    got = [fields(r) for r in records(table)]
    assert len(got) == len(rows)
    for i, (g, want) in enumerate(zip(got, rows)):
        assert g == want, "row %d" % i


def test_mpc_default_policies(mix):
    header, rows = mdkctl_csv("mpc", "--csv", mix)
    df = mdk.mpc(mix)
    assert_same(df, header, rows)
    assert set(df["policy"]) == {"age", "vmin", "paw", "pace", "opp"}


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_mpc_threads(mix, threads):
    """Any thread count gives mdkctl's one-thread table."""
    header, rows = mdkctl_csv("mpc", "--csv", "--threads", 1, mix)
    assert_same(mdk.mpc(mix, threads=threads), header, rows)


def test_mpc_threads_refused(mix):
    for bad in (-1, 1025):
        with pytest.raises(ValueError):
            mdk.mpc(mix, threads=bad)


def test_mpc_structured_array(mix):
    header, rows = mdkctl_csv("mpc", "--csv", "--policy", "age,pace", mix)
    arr = mdk.mpc(mix, policies=["age", "pace"], as_frame=False)
    assert isinstance(arr, np.ndarray)
    assert tuple(arr.dtype.names) == mdk.MPC_COLUMNS
    assert_same(arr, header, rows)


@pytest.mark.parametrize("spec", ["age:T=2-9", "vmin", "paw:wait=3,P=1-20",
                                  "pace:P=2/4/8,A=1-6", "opp:rho=0-5%:0.5%"])
def test_mpc_each_policy_paper(mix, spec):
    header, rows = mdkctl_csv("mpc", "--csv", "--savings", "paper",
                              "--policy", spec, mix)
    assert_same(mdk.mpc(mix, spec, savings="paper"), header, rows)


@pytest.mark.parametrize("target", [0, 0.001, 0.01, 0.05, 0.2, 1])
def test_mpc_target_and_best(mix, target):
    header, rows = mdkctl_csv("mpc", "--csv", "--target", target, mix)
    assert_same(mdk.mpc(mix, target=target), header, rows)
    assert_same(mdk.best(mdk.mpc(mix), target), header, rows)
    assert_same(mdk.best(mdk.mpc(mix, as_frame=False), target,
                         as_frame=False), header, rows)


def test_simulate(mix):
    header, rows = mdkctl_csv("simulate", "--csv", "--policy", SIM_POLICIES,
                              mix)
    sim = mdk.simulate(mix, SIM_POLICIES)
    assert_same(sim, header, rows)
    # The exact simulation agrees with the curves where they meet.
    assert_same(mdk.mpc(mix, SIM_POLICIES), header, rows)


def test_simulate_cache_policies(mix):
    header, rows = mdkctl_csv("simulate", "--csv", "--policy",
                              "lru:k=10/100/1000,opt:k=50", mix)
    assert_same(mdk.simulate(mix, "lru:k=10/100/1000,opt:k=50"), header,
                rows, mrc_fields)
    with pytest.raises(ValueError):
        mdk.simulate(mix, "lru,age")


def test_mrc(mix):
    header, rows = mdkctl_csv("mrc", "--csv", "--policy", "lru,opt", mix)
    df = mdk.mrc(mix, "lru,opt")
    assert_same(df, header, rows, mrc_fields)
    arr = mdk.mrc(mix, "lru", as_frame=False)
    assert tuple(arr.dtype.names) == mdk.MRC_COLUMNS


def test_lopp_policy(mix, tmp_path):
    model, rep = mdk.train(mix, 0.01)
    path = tmp_path / "m.mdkm"
    model.write(path)
    spec = "lopp:model=%s,theta=0-1:0.1" % path
    header, rows = mdkctl_csv("mpc", "--csv", "--policy", spec, mix)
    assert_same(mdk.mpc(mix, spec), header, rows)
    # A model set from Python is the same policy as model=FILE.
    pol = mdk.Policy("lopp:theta=0-1:0.1").set_model(model)
    assert_same(mdk.mpc(mix, pol), header, rows)
    sim_spec = "lopp:model=%s,theta=0.2/0.5" % path
    header, rows = mdkctl_csv("simulate", "--csv", "--policy", sim_spec, mix)
    assert_same(mdk.simulate(mix, sim_spec), header, rows)


def test_honest_protocol(mix, tmp_path):
    """Trained on windows 0..19, scored on 20..39: as mdkctl train
    --train-until and mpc --score-from, byte for byte."""
    cli = tmp_path / "cli.mdkm"
    rep_cli = json.loads(mdkctl("train", mix, "--rho", "0.05",
                                "--train-until", 20, "-o", cli, "-j"))
    model, rep = mdk.train(mix, 0.05, until=20)
    assert rep["windows"] == rep_cli["windows"] == 20
    assert rep["split"] == rep_cli["split"] == 20
    assert rep["test"]["rows"] == rep_cli["test"]["rows"] > 0
    mine = tmp_path / "py.mdkm"
    model.write(mine)
    assert mine.read_bytes() == cli.read_bytes()
    spec = "age,pace,opp,lopp:model=%s" % mine
    header, rows = mdkctl_csv("mpc", "--csv", "--policy", spec,
                              "--score-from", 20, mix)
    assert_same(mdk.mpc(mix, spec, score_from=20), header, rows)
    # score_from 0 is the whole trace, as before
    assert_same(mdk.mpc(mix, spec, score_from=0), *mdkctl_csv(
        "mpc", "--csv", "--policy", spec, mix))
    with pytest.raises(ValueError):
        mdk.mpc(mix, "age", score_from=20, threads=2)
    with pytest.raises(mdk.MdkError):
        mdk.mpc(mix, "age", score_from=40)


@pytest.mark.parametrize("setting", ["age:T=3", "pace:P=4,A=2",
                                     "opp:rho=0.02"])
def test_simulate_windows(mix, setting):
    text = mdkctl("simulate", "--windows", "--policy", setting, mix)
    lines = text.splitlines()
    assert lines[1].split() == ["window", "accessed", "footprint",
                                "promoted", "rate", "reclaimed"]
    df = mdk.simulate_windows(mix, setting)
    assert len(df) == len(lines) - 2 == 40
    for (_, r), line in zip(df.iterrows(), lines[2:]):
        # mdkctl prints the rate as a percentage of 3 digits
        assert line.split() == ["%d" % r.window, "%d" % r.accessed,
                                "%d" % r.footprint, "%d" % r.promotions,
                                "%.3g%%" % (100 * r.rate),
                                "%d" % r.reclaimed]
    point = mdk.simulate(mix, setting).iloc[0]
    assert df.promotions.sum() == point.promotions
    with pytest.raises(ValueError):
        mdk.simulate_windows(mix, "age:T=3/4")


def test_mrc_of_csv():
    csv = os.path.join(TOP, "tests", "fixtures", "mdk", "example",
                       "trace.csv")
    header, rows = mdkctl_csv("mrc", "--csv", "--policy", "lru,opt", csv)
    assert_same(mdk.mrc(csv, "lru,opt"), header, rows, mrc_fields)


def test_without_pandas(mix, monkeypatch):
    monkeypatch.setattr(mdk.table, "_pd", None)
    arr = mdk.mpc(mix, "age")
    assert isinstance(arr, np.ndarray)
    header, rows = mdkctl_csv("mpc", "--csv", "--policy", "age", mix)
    assert_same(arr, header, rows)
    assert_same(mdk.best(arr, 0.05), header, mdkctl_csv(
        "mpc", "--csv", "--policy", "age", "--target", "0.05", mix)[1])
    with pytest.raises(ImportError):
        mdk.mpc(mix, "age", as_frame=True)
