"""Interop with the reference implementation (LanceDB through node; tests/peer).

Skipped when node or the peer install is missing; run_pytest.sh installs the peer.
"""

import json
import os
import shutil
import subprocess

import numpy as np
import pytest

import lancet
from conftest import REPO

HERE = os.path.dirname(os.path.abspath(__file__))


def _peer():
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    harness = os.environ.get("LANCET_PEER_HARNESS", os.path.join(REPO, "tests", "peer"))
    if not os.path.isfile(os.path.join(harness, "dump.mjs")):
        pytest.skip(f"no peer harness in {harness}")
    return harness


def _run(args):
    r = subprocess.run(["node"] + args, capture_output=True, text=True)
    if r.returncode == 3:
        pytest.skip("the reference peer is not installed (tests/peer/setup.sh)")
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_reference_reads_what_python_wrote(tmp_path):
    harness = _peer()
    uri = str(tmp_path / "py.lance")
    n = 40
    data = {
        "id": np.arange(n, dtype=np.int64),
        "name": [None if i % 6 == 0 else f"name-{i}" for i in range(n)],
        "score": [None if i % 7 == 0 else i / 4 for i in range(n)],
        "vec": np.arange(n * 4, dtype=np.float32).reshape(n, 4),
        "tags": [[i, i + 1] if i % 3 else [] for i in range(n)],
    }
    ds = lancet.write_dataset(data, uri, max_rows_per_file=15)
    ds.delete("id = 3")
    ds.insert({"id": [100], "name": ["late"], "score": [1.0], "vec": np.ones((1, 4), np.float32), "tags": [[9]]})
    dump = json.loads(_run([os.path.join(harness, "dump.mjs"), uri, "--all-versions"]))
    assert dump["latest_version"] == 3
    assert [v["num_rows"] for v in dump["versions"]] == [40, 39, 40]
    latest = dump["snapshots"][-1]
    fields = {f["name"]: f for f in latest["schema"]["fields"]}
    assert fields["vec"]["type"] == "fixed_size_list" and fields["vec"]["list_size"] == 4
    rows = {int(r["id"]): r for r in latest["rows"]}
    assert sorted(rows) == [i for i in range(n) if i != 3] + [100]
    for i in (0, 1, 7, 39):
        r = rows[i]
        assert r["name"] == (None if i % 6 == 0 else f"name-{i}")
        assert r["score"] == (None if i % 7 == 0 else i / 4)
        assert r["vec"] == [float(x) for x in range(i * 4, i * 4 + 4)]
        assert [int(t) for t in r["tags"]] == ([i, i + 1] if i % 3 else [])
    assert rows[100]["name"] == "late"


def test_python_reads_what_the_reference_wrote(tmp_path):
    harness = _peer()
    _run([os.path.join(HERE, "peer_write.mjs"), harness, str(tmp_path)])
    uri = str(tmp_path / "peer.lance")
    ds = lancet.dataset(uri)
    assert ds.version == 3
    assert [v["num_rows"] for v in ds.versions()] == [20, 30, 29]
    d = ds.to_table().to_pydict()
    ids = [i for i in range(30) if i != 5]
    assert d["id"] == ids
    assert d["name"] == [None if i % 4 == 3 else f"peer-{i}" for i in ids]
    assert d["score"] == [None if i % 5 == 0 else i / 8 for i in ids]
    vec = ds.to_table().column("vec")
    np.testing.assert_array_equal(vec, np.array([[i, i + 0.5, -i] for i in ids], dtype=np.float32))
    assert lancet.dataset(uri, version=1).count_rows() == 20
    assert ds.count_rows("name IS NULL") == sum(1 for i in ids if i % 4 == 3)
    # And the reference reads Python's changes to its table.
    ds.update({"score": "score * 2"}, where="id = 8")
    dump = json.loads(_run([os.path.join(harness, "dump.mjs"), uri]))
    rows = {int(r["id"]): r for r in dump["snapshots"][-1]["rows"]}
    assert rows[8]["score"] == 2.0 and len(rows) == 29
