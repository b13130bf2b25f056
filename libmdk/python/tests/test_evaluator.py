# SPDX-License-Identifier: LGPL-2.1-or-later
"""The live evaluator fed windows from Python: its curves are mpc()'s
over the horizon's windows, its picks the pages idle long enough."""
import errno

import numpy as np
import pytest

import mdk

POLICIES = "age:T=1-10,paw:P=1-5,wait=2,pace:P=2/4,A=1-3,opp:rho=0.01/0.02"
# Curves that do not depend on reuse before the horizon.
HORIZON_ONLY = "age:T=1-10,vmin:T=1-5,opp:rho=0.01/0.02/0.1"


def same(a, b):
    a = a.reset_index(drop=True).fillna(-1)
    b = b.reset_index(drop=True).fillna(-1)
    return len(a) == len(b) and bool((a == b).all().all())


def test_whole_trace_horizon_equals_mpc(mix):
    e = mdk.Evaluator(horizon=64, policies=POLICIES)
    assert e.horizon is None
    for _, ids in mdk.read(mix):
        assert len(e.window(ids)) == 0
    assert e.windows == 40 and e.horizon == (0, 39)
    assert e.policies == ["age", "paw", "pace", "opp"]
    ref = mdk.mpc(mix, POLICIES)
    for name in e.policies:
        assert same(e.curve(name), ref[ref.policy == name]), name


def test_sliding_horizon_equals_mpc_of_its_windows(mix, tmp_path):
    e = mdk.Evaluator(horizon=16, policies=HORIZON_ONLY)
    wins = [ids for _, ids in mdk.read(mix)]
    for ids in wins:
        e.window(ids)
    assert e.horizon == (24, 39) and e.capacity == 16
    sub = tmp_path / "horizon.mdkt"
    mdk.write(sub, wins[24:])
    ref = mdk.mpc(sub, HORIZON_ONLY)
    for name in e.policies:
        assert same(e.curve(name), ref[ref.policy == name]), name
    sel, pt = e.tune("age", 0.2)
    best = mdk.best(ref[ref.policy == "age"], 0.2, as_frame=False)[0]
    assert repr(e.point(sel)) == repr(pt)
    assert pt["p1"] == best["p1"] and pt["savings"] == best["savings"]


def test_pick_mark_returned(mix):
    e = mdk.Evaluator(horizon=16, policies="age:T=3")
    last = {}
    wins = [ids for _, ids in mdk.read(mix)]
    for w, ids in enumerate(wins[:30]):
        e.window(ids)
        last.update(dict.fromkeys(ids.tolist(), w))
    sel = e.find("age:T=3")
    picked = e.pick(sel)
    want = sorted(p for p, a in last.items() if 29 - a >= 3)
    assert picked.tolist() == want and len(want) > 0
    assert e.idle_hist(64).sum() == len(last)
    e.mark(picked)
    assert len(e.pick(sel)) == 0
    assert e.idle_hist(64).sum() == len(last) - len(want)
    back = e.window(wins[30])
    assert back.tolist() == sorted(set(want) & set(wins[30].tolist()))
    assert e.rates()["acted"]["promotions"] == len(back)


def test_window_errors():
    e = mdk.Evaluator(horizon=8, policies="age")
    with pytest.raises(mdk.MdkError) as err:
        e.window(np.array([5, 3], np.uint64))
    assert err.value.errno == errno.EINVAL
    assert "not sorted and distinct" in str(err.value)
    # Refused input is lost: the evaluator takes the next window.
    e.window([1, 2])
    assert e.windows == 1


def test_bad_evaluator_options():
    with pytest.raises(mdk.MdkError) as e:
        mdk.Evaluator(horizon=1)
    assert "horizon" in str(e.value)
    with pytest.raises(mdk.MdkError) as e:
        mdk.Evaluator(policies="age:T=x")
    assert "T" in str(e.value)
    ev = mdk.Evaluator(horizon=8, policies="age")
    with pytest.raises(mdk.MdkError) as e:
        ev.tune("age", 0)
    assert e.value.errno == errno.ENODATA and "no window" in str(e.value)
    for w in range(4):
        ev.window([w])
    with pytest.raises(mdk.MdkError) as e:
        ev.tune("age", -1)
    assert e.value.errno == errno.ENOENT
    with pytest.raises(mdk.MdkError) as e:
        ev.curve("opp")
    assert e.value.errno == errno.ENOENT


def test_forget(mix):
    e = mdk.Evaluator(horizon=16, policies="age:T=3")
    wins = [ids for _, ids in mdk.read(mix)]
    for ids in wins[:10]:
        e.window(ids)
    pages = e.pages
    seen = set(np.concatenate(wins[:10]).tolist())
    assert pages == len(seen)
    gone = set(sorted(seen)[:100]) | {1, 2, 3}
    assert e.forget(gone) == 100
    assert e.pages == pages - 100
    assert e.forget(lambda page: page % 2 == 0) == \
        len([p for p in seen - gone if p % 2 == 0])


def test_lopp_learns_online(mix):
    e = mdk.Evaluator(horizon=32, policies="age,opp,lopp", lopp_rho=0.02)
    wins = [ids for _, ids in mdk.read(mix)]
    e.window(wins[0])
    assert e.lopp()["trainings"] == 0
    with pytest.raises(mdk.MdkError) as err:
        e.curve("lopp")
    assert err.value.errno == errno.ENOENT  # no model yet
    for ids in wins[1:]:
        e.window(ids)
    learnt = e.lopp()
    assert learnt["trainings"] > 0 and learnt["rows"] > 0
    assert 0 < learnt["auc"] <= 1
    curve = e.curve("lopp")
    assert len(curve) > 0 and set(curve.policy) == {"lopp"}
    assert mdk.Evaluator(policies="age").lopp() is None


def test_lopp_learns_trees_online(mix):
    e = mdk.Evaluator(horizon=32, policies="age,opp,lopp", lopp_rho=0.02,
                      lopp_model="trees")
    for _, ids in mdk.read(mix):
        e.window(ids)
    learnt = e.lopp()
    # Trees fit their own rows far better than the logistic model (0.76).
    assert learnt["trainings"] > 0 and 0.9 < learnt["auc"] <= 1
    assert len(e.curve("lopp")) > 0
    with pytest.raises(mdk.MdkError) as err:
        mdk.Evaluator(policies="lopp", lopp_model="forest")
    assert err.value.errno == errno.EINVAL
