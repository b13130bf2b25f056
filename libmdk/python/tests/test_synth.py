# SPDX-License-Identifier: LGPL-2.1-or-later
"""synth writes the bytes mdkctl synth writes with the same options."""
import errno

import numpy as np
import pytest

import mdk
from conftest import mdkctl

GENS = ["zipf:share=0.6,s=1.1", "scan:rate=32", "phase:len=5"]


@pytest.mark.parametrize("seed,gens", [(1, []), (7, GENS)])
def test_synth_same_bytes_as_mdkctl(tmp_path, seed, gens):
    a, b = tmp_path / "a.mdkt", tmp_path / "b.mdkt"
    args = ["synth", a, "--pages", 3000, "--windows", 50, "--seed", seed,
            "--window-seconds", 10, "--desc", "same bytes"]
    for g in gens:
        args += ["--gen", g]
    mdkctl(*args)
    mdk.synth(b, pages=3000, windows=50, seed=seed, gens=gens,
              window_seconds=10, desc="same bytes")
    assert a.read_bytes() == b.read_bytes()
    # Iterating the generator gives the windows written.
    it = list(mdk.Synth(pages=3000, windows=50, seed=seed, gens=gens))
    back = list(mdk.read(b))
    assert len(it) == len(back) == 50
    for (w1, i1), (w2, i2) in zip(it, back):
        assert w1 == w2 and np.array_equal(i1, i2)


def test_synth_seed_matters(tmp_path):
    a = list(mdk.Synth(pages=1000, windows=5, seed=1))
    b = list(mdk.Synth(pages=1000, windows=5, seed=2))
    assert any(not np.array_equal(x[1], y[1]) for x, y in zip(a, b))


def test_synth_bad_generator():
    with pytest.raises(mdk.MdkError) as e:
        mdk.Synth(gens=["zipf:s=-1"])
    assert e.value.errno == errno.EINVAL
    assert "zipf" in str(e.value)
    with pytest.raises(mdk.MdkError) as e:
        mdk.Synth(gens=["nosuch"])
    assert "nosuch" in str(e.value)
