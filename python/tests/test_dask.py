"""lancet.dask on a real distributed cluster: two worker processes over loopback.

Reads give the same answers as pandas over the whole data; a write of 8 partitions is
one version the reference reads; a worker killed mid-write leaves no version and no
data files behind.
"""

import json
import os

import numpy as np
import pandas as pd
import pytest

import lancet

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
import dask  # noqa: E402

import lancet.dask  # noqa: E402
from test_peer import _peer, _run  # noqa: E402


@pytest.fixture(scope="module")
def client():
    # Workers are separate processes: they import lancet through PYTHONPATH (run_pytest.sh).
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                           dashboard_address=None, silence_logs=40)
        with distributed.Client(cluster, timeout=60) as c:
            yield c
        cluster.close()


def _frame(n, start=0):
    i = np.arange(start, start + n, dtype=np.int64)
    return pd.DataFrame({"id": i, "key": [f"k{v % 7}" for v in i], "x": i * 0.5})


def test_groupby_equals_pandas(client, tmp_path):
    uri = str(tmp_path / "g.lance")
    whole = _frame(5000)
    lancet.write_dataset(whole, uri, max_rows_per_file=700)  # 8 fragments
    ddf = lancet.dask.read_lance(uri)
    assert ddf.npartitions == 8
    got = ddf.groupby("key")["x"].sum().compute().sort_index()
    want = whole.groupby("key")["x"].sum().sort_index()
    pd.testing.assert_series_equal(got, want)

    # The filter runs in each fragment's scan; columns are projected.
    f = lancet.dask.read_lance(uri, columns=["id", "x"], filter="id % 10 = 3", fragments_per_partition=3)
    assert f.npartitions == 3
    assert list(f.columns) == ["id", "x"]
    out = f.compute().sort_values("id").reset_index(drop=True)
    pd.testing.assert_frame_equal(out, whole[whole.id % 10 == 3][["id", "x"]].reset_index(drop=True))


def test_read_pins_the_version_it_planned(client, tmp_path):
    uri = str(tmp_path / "v.lance")
    ds = lancet.write_dataset(_frame(100), uri, max_rows_per_file=40)
    ddf = lancet.dask.read_lance(uri)
    ds.delete("id < 50")
    assert len(ddf.compute()) == 100
    assert len(lancet.dask.read_lance(uri).compute()) == 50
    with pytest.raises(ValueError):
        lancet.dask.read_lance(uri, fragments_per_partition=0)


def test_write_of_8_partitions_is_one_version_the_reference_reads(client, tmp_path):
    uri = str(tmp_path / "w.lance")
    ddf = dd.from_pandas(_frame(4000), npartitions=8)
    ds = lancet.dask.to_lance(ddf, uri)
    assert ds.version == 1
    assert ds.count_rows() == 4000
    assert len(ds.fragments()) == 8
    back = ds.to_pandas().sort_values("id").reset_index(drop=True)
    pd.testing.assert_frame_equal(back, _frame(4000))

    more = dd.from_pandas(_frame(800, start=4000), npartitions=4)
    ds = lancet.dask.to_lance(more, uri, mode="append")
    assert ds.version == 2 and ds.count_rows() == 4800

    harness = _peer()
    dump = json.loads(_run([os.path.join(harness, "dump.mjs"), uri, "--all-versions"]))
    assert dump["latest_version"] == 2
    assert [v["num_rows"] for v in dump["versions"]] == [4000, 4800]
    ids = sorted(int(r["id"]) for r in dump["snapshots"][-1]["rows"])
    assert ids == list(range(4800))


def _partition_or_die(i):
    if i == 5:
        os._exit(1)  # the worker process dies while the other partitions are written
    return _frame(100, start=i * 100)


def test_killed_worker_leaves_no_version(client, tmp_path):
    uri = str(tmp_path / "k.lance")
    lancet.write_dataset(_frame(10, start=10000), uri)
    parts = [dask.delayed(_partition_or_die)(i) for i in range(8)]
    ddf = dd.from_delayed(parts, meta=_frame(0))
    with pytest.raises(Exception):
        lancet.dask.to_lance(ddf, uri, mode="append")
    ds = lancet.dataset(uri)
    assert ds.version == 1 and ds.count_rows() == 10
    data = os.path.join(uri, "data")
    assert len(os.listdir(data)) == 1  # the others' files were removed; only version 1's is left


def test_bad_arguments(client, tmp_path):
    with pytest.raises(ValueError):
        lancet.dask.to_lance(dd.from_pandas(_frame(10), npartitions=2), str(tmp_path / "x.lance"), mode="upsert")
    with pytest.raises(FileNotFoundError):
        lancet.dask.read_lance(str(tmp_path / "missing.lance"))
