# SPDX-License-Identifier: LGPL-2.1-or-later
"""Traces: written from numpy arrays a window at a time, read back a
window at a time, and the same windows as mdkctl trace export."""
import errno

import numpy as np
import pytest

import mdk
from conftest import mdkctl


def test_read_equals_mdkctl_export(mix):
    rows = mdkctl("trace", "export", mix).split("\n")[1:-1]
    pairs = [tuple(map(int, r.split(","))) for r in rows]
    got = [(w, int(p)) for w, ids in mdk.read(mix) for p in ids]
    assert got == pairs
    with mdk.TraceReader(mix) as r:
        info = r.info
        assert info["windows"] == 40 and info["records"] == len(pairs)
        assert info["window_seconds"] == 30.0 and info["page_size"] == 4096
        assert [w for w, _ in r] == list(range(40))


def test_write_read_round_trip(tmp_path):
    rng = np.random.default_rng(5)
    wins = {0: rng.choice(1 << 40, 5000, replace=False),
            3: np.array([7, 3, 3, 9], dtype=np.int64),
            4: np.array([], dtype=np.uint64),
            9: np.arange(40000, dtype=np.uint64) * 3}
    path = tmp_path / "t.mdkt"
    with mdk.TraceWriter(path, window_seconds=2.5, desc="round trip") as w:
        for win, ids in wins.items():
            w.put(win, ids, sorted=False)
    back = list(mdk.read(path))
    assert [w for w, _ in back] == list(range(10))
    for win, ids in back:
        want = np.unique(wins.get(win, np.zeros(0, np.uint64)))
        assert ids.dtype == np.uint64
        assert np.array_equal(ids, want.astype(np.uint64))
    with mdk.TraceReader(path) as r:
        assert r.info["desc"] == "round trip"
        assert r.info["window_seconds"] == 2.5
        r.seek(9)
        assert r.read_window()[0] == 9
        assert r.read_window() is None
    # mdkctl reads what the package wrote.
    info = mdkctl("trace", "info", path)
    assert "round trip" in info
    assert "records      45003 page accesses" in info


def test_write_iterable(tmp_path):
    path = tmp_path / "w.mdkt"
    mdk.write(path, [np.array([1, 2]), np.array([2, 5])])
    assert [list(ids) for _, ids in mdk.read(path)] == [[1, 2], [2, 5]]


def test_writer_errors_carry_libmdk_messages(tmp_path):
    path = tmp_path / "bad.mdkt"
    with mdk.TraceWriter(path) as w:
        with pytest.raises(mdk.MdkError) as e:
            w.put(0, [5, 3])
        assert e.value.errno == errno.EINVAL
        assert "increas" in str(e.value)
        w.put(1, [1])
        with pytest.raises(mdk.MdkError) as e:
            w.put(1, [2])
        assert e.value.errno == errno.EINVAL and str(e.value)
    with pytest.raises(mdk.MdkError) as e:
        mdk.TraceWriter(tmp_path / "no" / "such" / "dir.mdkt")
    assert e.value.errno == errno.ENOENT
    assert "no/such/dir.mdkt" in str(e.value)


def test_missing_trace():
    with pytest.raises(mdk.MdkError) as e:
        mdk.mpc("/nonexistent/t.mdkt")
    assert isinstance(e.value, OSError)
    assert e.value.errno == errno.ENOENT
    assert "/nonexistent/t.mdkt" in str(e.value)
    with pytest.raises(mdk.MdkError):
        list(mdk.read("/nonexistent/t.mdkt"))


def test_not_a_trace(tmp_path):
    path = tmp_path / "text.mdkt"
    path.write_text("window,page\n0,1\n")
    with pytest.raises(mdk.MdkError) as e:
        mdk.TraceReader(path)
    assert e.value.errno == errno.EINVAL
    p = mdkctl("mpc", "--csv", path, check=False)
    assert p.returncode != 0
    assert str(e.value) in p.stderr


def test_corrupt_trace(tmp_path, mix):
    data = bytearray(open(mix, "rb").read())
    data[len(data) // 2] ^= 0xff  # inside a block: its checksum fails
    path = tmp_path / "corrupt.mdkt"
    path.write_bytes(bytes(data))
    with pytest.raises(mdk.MdkError) as e:
        list(mdk.read(path))
    assert e.value.errno == errno.EBADMSG
    assert "corrupt.mdkt" in str(e.value)
    with pytest.raises(mdk.MdkError) as e2:
        mdk.mpc(path)
    p = mdkctl("mpc", "--csv", path, check=False)
    assert p.returncode != 0 and p.stderr == "mdkctl: %s\n" % e2.value


def test_truncated_trace(tmp_path, mix):
    data = open(mix, "rb").read()
    path = tmp_path / "short.mdkt"
    path.write_bytes(data[:len(data) // 2])
    with pytest.raises(mdk.MdkError) as e:
        mdk.TraceReader(path)
    assert e.value.errno in (errno.EBADMSG, errno.EINVAL)
    # Without the index, what was written reads as a partial trace.
    with mdk.TraceReader(path, partial=True) as r:
        with pytest.raises(mdk.MdkError) as e:
            for _ in r:
                pass
        assert e.value.errno == errno.EBADMSG


def test_import_csv(tmp_path):
    csv = tmp_path / "a.csv"
    csv.write_text("window,page\n0,5\n0,2\n2,7\n")
    out = tmp_path / "a.mdkt"
    mdk.import_csv(csv, out)
    assert [(w, list(ids)) for w, ids in mdk.read(out)] == \
        [(0, [2, 5]), (1, []), (2, [7])]
    csv.write_text("window,page\n1,5\n0,2\n")
    with pytest.raises(mdk.MdkError) as e:
        mdk.import_csv(csv, out)
    assert "a.csv:3" in str(e.value)


def test_arrays_reach_libmdk_without_copies():
    a = np.arange(10, dtype=np.uint64)
    assert mdk.trace.ids_array(a) is a
    b = np.arange(10, dtype=np.int64)
    assert mdk.trace.ids_array(b).dtype == np.uint64
    assert mdk.trace.ids_array(a[::2]).flags.c_contiguous


def test_oracle_round_trip(mix, tmp_path):
    """mdk.export_oracle writes mdkctl's bytes (zstd too), and
    mdk.import_oracle windows them back into the same trace."""
    ours, theirs = tmp_path / "a.oracleGeneral", tmp_path / "b.oracleGeneral"
    mdk.export_oracle(mix, ours)
    mdkctl("trace", "export", mix, theirs, "--format", "oracleGeneral")
    assert ours.read_bytes() == theirs.read_bytes()
    rec = np.frombuffer(ours.read_bytes(), dtype=np.dtype(
        [("t", "<u4"), ("id", "<u8"), ("size", "<u4"), ("next", "<i8")]))
    assert len(rec) == 12118
    nxt = rec["next"][0]
    assert nxt == -1 or rec["id"][nxt] == rec["id"][0]
    mdk.export_oracle(mix, tmp_path / "c.oracleGeneral.zst")
    back = mdk.import_oracle(tmp_path / "c.oracleGeneral.zst",
                             tmp_path / "back.mdkt", window_seconds=30)
    assert [(w, list(i)) for w, i in mdk.read(back)] == \
        [(w, list(i)) for w, i in mdk.read(mix)]
    with pytest.raises(mdk.MdkError) as e:
        (tmp_path / "bad.oracleGeneral").write_bytes(ours.read_bytes()[:30])
        mdk.import_oracle(tmp_path / "bad.oracleGeneral",
                          tmp_path / "x.mdkt", window_seconds=30)
    assert "offset 24" in str(e.value)
    assert not (tmp_path / "x.mdkt").exists()
