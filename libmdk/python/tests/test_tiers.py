# SPDX-License-Identifier: LGPL-2.1-or-later
"""mdk.tiers on the mix fixture: against the classic curves with one unit
tier, against the exact simulator setting by setting, and against
``mdkctl mpc --tiers --csv``."""
import errno

import numpy as np
import pytest

import mdk
from conftest import mdkctl_csv

UNIT = "t:cost=1ns"
# A small CMM-MP node (its capacity binds on mix) over a half-saving swap.
TWO = "cxl:cost=100ns,cap=64;swap:cost=1us,save=50%"
# A node large enough for some settings: best() has feasible rows to pick.
ROOMY = "cxl:cost=100ns,cap=800;swap:cost=1us,save=50%"
SPECS = "tage:T1=1/2/4,T2=2/8/none,tpace:P=0/2,A=2/4,T2=9/none"


def rows(table):
    arr = table if isinstance(table, np.ndarray) else table.to_records(
        index=False)
    return [tuple(r) for r in arr]


def test_parse_normalises():
    got = mdk.tiers.parse("cxl:cost=2.1us,cap=64K;zswap:cost=9us,ratio=3.2")
    assert got == ("cxl:cost=2100ns,save=1.000000,cap=65536;"
                   "zswap:cost=9000ns,save=0.687500")
    assert mdk.tiers.parse(got) == got


@pytest.mark.parametrize("spec,words", [
    ("cxl:cost=fast", ["tier cxl", "cost 'fast'"]),
    ("cxl:cost=1us,size=3", ["size"]),
    ("swap:cost=9us;cxl:cost=1us", ["cost"]),
])
def test_bad_spec_raises(spec, words):
    with pytest.raises(mdk.MdkError) as e:
        mdk.tiers.parse(spec)
    assert e.value.errno == errno.EINVAL
    for w in words:
        assert w in str(e.value)


def test_tier_file(mix, tmp_path):
    """A path names a tier file, read as mdkctl's --tiers reads it."""
    path = tmp_path / "host.tiers"
    path.write_text("# measured\ncxl:cost=100ns,cap=64\n\n"
                    "swap:cost=1us,save=50%\n")
    assert mdk.tiers.parse(str(path)) == mdk.tiers.parse(TWO)
    assert mdk.tiers.names(path) == ["cxl", "swap"]
    assert rows(mdk.tiers.points(mix, path, SPECS)) == \
        rows(mdk.tiers.points(mix, TWO, SPECS))


def test_tier_file_error_names_line(tmp_path):
    path = tmp_path / "bad.tiers"
    path.write_text("cxl:cost=100ns\nswap:cost=soon\n")
    with pytest.raises(mdk.MdkError) as e:
        mdk.tiers.parse(path)
    assert "%s:2" % path in str(e.value)


def test_one_unit_tier_is_age(mix):
    """One tier of 1 ns with D(w) = U(w) x 1 ns: tage is age, its stall
    share the promotion rate (Documentation/mdk.rst, "Tiers")."""
    tage = mdk.tiers.points(mix, UNIT, "tage:T1=1-39", per_access=True,
                            as_frame=False)
    age = mdk.mpc(mix, "age:T=1-39", as_frame=False)
    assert len(tage) == len(age) == 39
    for t, a in zip(tage, age):
        assert t["setting"] == "T1=%d" % a["p1"]
        assert t["savings"] == a["savings"]
        assert t["max_rate"] == a["max_rate"]
        assert t["promotions_t"] == a["promotions"]
        assert t["max_stall"] == pytest.approx(a["max_rate"], rel=1e-12)
        assert t["feasible"]


@pytest.mark.parametrize("setting", ["tage:T1=1,T2=2", "tage:T1=4,T2=none",
                                     "tpace:P=2,A=4,T2=9",
                                     "tpace:P=0,A=2,T2=none"])
def test_points_equal_simulate(mix, setting):
    pts = rows(mdk.tiers.points(mix, TWO, SPECS))
    sim = rows(mdk.tiers.simulate(mix, TWO, setting))
    assert len(sim) == 1
    assert sim[0] in pts
    assert (sim[0][0] + ":" + sim[0][1]) == setting


def mdkctl_fields(row):
    """A row as tier_curve.c writes it in --csv."""
    r = list(row)
    return ([r[0], r[1]] + ["%.9g" % x for x in r[2:6]] +
            ["%d" % x for x in r[6:-1]] + ["%d" % r[-1]])


@pytest.mark.parametrize("as_frame", [None, False])
def test_points_match_mdkctl(mix, as_frame):
    spec = "tage:T1=1/2/4,T2=2/8/none"
    header, want = mdkctl_csv("mpc", mix, "--tiers", TWO, "--csv", spec)
    got = mdk.tiers.points(mix, TWO, spec, as_frame=as_frame)
    assert list(mdk.tiers.columns(TWO)) == header
    names = (got.dtype.names if isinstance(got, np.ndarray)
             else tuple(got.columns))
    assert list(names) == header
    assert [mdkctl_fields(r) for r in rows(got)] == want


def test_window_and_topp(mix):
    """D(w) of a given window; topp gives its schedule and bound."""
    header, want = mdkctl_csv("mpc", mix, "--tiers", TWO, "--window", "1s",
                              "--csv", "topp:sigma=0.001/0.01")
    got = mdk.tiers.points(mix, TWO, "topp:sigma=0.001/0.01", window=1)
    assert [mdkctl_fields(r) for r in rows(got)] == want
    assert list(got["policy"]) == ["topp"] * 2 + ["topp-bound"] * 2
    with pytest.raises(ValueError):
        mdk.tiers.points(mix, TWO, "tage", window=1, per_access=True)


@pytest.mark.parametrize("as_frame", [None, False])
def test_best(mix, as_frame):
    """best() of a table is what mdk_tier_best() picks from the run, and
    what mdkctl marks best."""
    pts = mdk.tiers.points(mix, ROOMY, SPECS, as_frame=as_frame)
    picked = 0
    for target in (5e-7, 1e-6, 2e-6, 1e-5):
        got = rows(mdk.tiers.best(pts, target, as_frame=False))
        assert got == rows(mdk.tiers.points(mix, ROOMY, SPECS,
                                            target_stall=target))
        for r in got:
            assert r[-1] and r[2] <= target
        picked += len(got)
    assert picked >= 4
    _, want = mdkctl_csv("mpc", mix, "--tiers", ROOMY, "--csv",
                         "--target-stall", "2e-6", "tpace:P=0/2,A=2/4,"
                         "T2=9/none")
    marked = [w[1] for w in want if w[-1] == "1"]
    got = mdk.tiers.best(pts, 2e-6, as_frame=False)
    assert marked == ["P=2,A=4,T2=9"]
    assert list(got[got["policy"] == "tpace"]["setting"]) == marked


def test_best_skips_infeasible(mix):
    """Over the small node every setting breaks its capacity."""
    pts = mdk.tiers.points(mix, TWO, SPECS, as_frame=False)
    assert not pts["feasible"].any()
    assert len(mdk.tiers.best(pts, 1, as_frame=False)) == 0


def test_best_none_qualifies(mix):
    pts = mdk.tiers.points(mix, TWO, SPECS, as_frame=False)
    assert len(mdk.tiers.best(pts, 0, as_frame=False)) == 0
    assert len(mdk.tiers.points(mix, TWO, SPECS, target_stall=0)) == 0


def test_bad_setting_raises(mix):
    with pytest.raises(mdk.MdkError) as e:
        mdk.tiers.points(mix, TWO, "tage:T3=4")
    assert "T3" in str(e.value)
    with pytest.raises(mdk.MdkError):
        mdk.tiers.simulate(mix, TWO, "tage:T1=1-4")
