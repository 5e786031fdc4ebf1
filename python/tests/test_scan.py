"""Scanner options, streaming and early stops."""

import gc

import numpy as np
import pytest

import lancet


@pytest.fixture
def multi(uri):
    """1000 rows in 4 fragments of 250."""
    n = 1000
    data = {"id": np.arange(n, dtype=np.int64), "half": np.arange(n) % 2 == 0,
            "name": [f"row-{i}" for i in range(n)], "val": np.arange(n, dtype=np.float64) / 4}
    return lancet.write_dataset(data, uri, max_rows_per_file=250)


def test_filter_limit_offset_columns(multi):
    t = multi.to_table(columns=["id", "name"], filter="id >= 100 AND id < 200", limit=10, offset=5)
    assert t.column_names == ["id", "name"]
    assert t.column("id").tolist() == list(range(105, 115))
    assert t.column("name").tolist() == [f"row-{i}" for i in range(105, 115)]
    assert multi.count_rows("half = true AND id < 10") == 5
    assert multi.scanner(filter="name = 'row-7'").count_rows() == 1
    df = multi.to_pandas(filter="val > 249.0")
    assert df["id"].tolist() == list(range(997, 1000))
    assert multi.head(3).column("id").tolist() == [0, 1, 2]


def test_to_batches_streams_several_batches(multi):
    batches = multi.to_batches(batch_size=100)
    first = next(batches)
    assert isinstance(first, lancet.RecordBatch) and first.num_rows == 100
    rest = list(batches)
    assert len(rest) + 1 >= 10  # a batch never spans two fragments
    assert sum(b.num_rows for b in rest) + 100 == 1000
    ids = np.concatenate([first.to_numpy("id")] + [b.to_numpy("id") for b in rest])
    np.testing.assert_array_equal(ids, np.arange(1000))


def test_stopping_early_is_clean(multi):
    for _ in range(20):
        it = multi.to_batches(batch_size=10)
        next(it)
        it.close()
    reader = multi.scanner(batch_size=10).to_reader()
    with reader:
        next(reader)
    with pytest.raises(StopIteration):
        next(reader)  # closed: the stream is over
    for _ in range(10):
        it = multi.to_batches(batch_size=5)
        next(it)
        del it
        gc.collect()
    assert multi.count_rows() == 1000


def test_row_ids_and_addresses(multi):
    t = multi.to_table(columns=["id"], with_row_id=True, with_row_address=True, filter="id IN (0, 250, 999)")
    d = t.to_pydict()
    assert d["id"] == [0, 250, 999]
    assert d["_rowaddr"] == [0, 1 << 32, (3 << 32) | 249]
    assert d["_rowid"] == d["_rowaddr"]


def test_scanner_schema_and_fragments(multi):
    s = multi.scanner(columns=["val", "id"])
    assert s.projected_schema.names == ["val", "id"]
    t = multi.to_table(fragment_ids=[2])
    assert t.column("id").tolist() == list(range(500, 750))


def test_bad_scan_arguments(multi):
    with pytest.raises(ValueError, match="nope"):
        multi.to_table(columns=["nope"])
    with pytest.raises(ValueError):
        multi.to_table(filter="id >>> 3")
    with pytest.raises(ValueError, match="missing_col"):
        multi.count_rows("missing_col = 1")
    with pytest.raises(ValueError):
        multi.scanner(limit=-1)
    with pytest.raises(lancet.LancetError):
        multi.to_table(columns=["nope"])
