# SPDX-License-Identifier: LGPL-2.1-or-later
"""train and models as mdkctl train makes them."""
import errno
import json

import numpy as np
import pytest

import mdk
from conftest import mdkctl


def test_train_equals_mdkctl(tmp_path, mix):
    out = tmp_path / "cli.mdkm"
    rep_cli = json.loads(mdkctl("train", mix, "--rho", "0.02", "--holdout",
                                "0.25", "--model", "logistic", "-o", out,
                                "-j"))
    model, rep = mdk.train(mix, 0.02, holdout=0.25)
    for k in ("windows", "split", "intervals"):
        assert rep[k] == rep_cli[k], k
    for part in ("train", "test"):
        for k, v in rep[part].items():
            # mdkctl's JSON doubles have 10 significant digits
            assert float("%.10g" % v) == rep_cli[part][k], (part, k)
    mine = tmp_path / "py.mdkm"
    model.write(mine)
    assert mine.read_bytes() == out.read_bytes()
    back = mdk.Model.read(out)
    assert back.rho == pytest.approx(0.02)


def test_score(mix):
    model, _ = mdk.train(mix, 0.01)
    assert len(mdk.feature_names()) == 12
    x = np.zeros((3, 12), np.float32)
    x[1, :] = 5
    s = model.score(x)
    assert s.shape == (3,) and np.all((s >= 0) & (s <= 1))
    assert s[0] == s[0] and s[0] != s[1]
    with pytest.raises(ValueError):
        model.score(np.zeros((2, 3)))


def test_bad_model_file(tmp_path):
    path = tmp_path / "bad.mdkm"
    path.write_text("not a model\n")
    with pytest.raises(mdk.MdkError) as e:
        mdk.Model.read(path)
    assert e.value.errno == errno.EINVAL
    assert "bad.mdkm:1" in str(e.value)


def test_train_bad_options(mix):
    with pytest.raises(mdk.MdkError) as e:
        mdk.train(mix, 0.01, holdout=2)
    assert e.value.errno == errno.EINVAL and "holdout" in str(e.value)


def test_trees_equal_mdkctl(tmp_path, mix):
    out = tmp_path / "cli.mdkm"
    rep_cli = json.loads(mdkctl("train", mix, "--rho", "0.01", "--model",
                                "trees", "--trees",
                                "20", "-o", out, "-j"))
    model, rep = mdk.train(mix, 0.01, model="trees", trees=20)
    assert model.kind == "trees" and rep_cli["kind"] == "trees"
    assert float("%.10g" % rep["test"]["auc"]) == rep_cli["test"]["auc"]
    mine = tmp_path / "py.mdkm"
    model.write(mine)
    assert mine.read_bytes() == out.read_bytes()
    back = mdk.Model.read(out)
    x = np.arange(36, dtype=np.float32).reshape(3, 12) / 7
    assert np.array_equal(back.score(x), model.score(x))
    with pytest.raises(ValueError):
        mdk.train(mix, 0.01, model="forest")
