"""Write → read round trips of every column kind, from dicts, pandas and row lists."""

import datetime

import numpy as np
import pandas as pd
import pytest

import lancet


def test_numbers_strings_nulls_lists(uri):
    data = {
        "i64": np.arange(6, dtype=np.int64),
        "i8": np.array([1, -2, 3, -4, 5, -6], dtype=np.int8),
        "u32": np.arange(6, dtype=np.uint32) * 7,
        "f32": np.linspace(0, 1, 6, dtype=np.float32),
        "f64": [0.5, None, 2.5, None, 4.5, 5.5],
        "flag": [True, False, None, True, True, False],
        "name": ["a", "bb", None, "dddd", "", "ééé"],
        "raw": [b"\x00\x01", None, b"", b"xyz", b"q", b"r"],
        "tags": [[1, 2], [], None, [3], [4, 5, 6], [7]],
        "words": [["x"], ["y", None], None, [], ["z"], ["w"]],
        "opt_int": [1, None, 3, None, 5, None],
    }
    ds = lancet.write_dataset(data, uri)
    assert ds.version == 1
    assert ds.count_rows() == 6
    t = ds.to_table()
    d = t.to_pydict()
    assert d["i64"] == list(range(6))
    assert d["i8"] == [1, -2, 3, -4, 5, -6]
    assert d["u32"] == [0, 7, 14, 21, 28, 35]
    assert d["f64"] == [0.5, None, 2.5, None, 4.5, 5.5]
    assert d["flag"] == [True, False, None, True, True, False]
    assert d["name"] == ["a", "bb", None, "dddd", "", "ééé"]
    assert d["raw"] == [b"\x00\x01", None, b"", b"xyz", b"q", b"r"]
    assert d["tags"] == [[1, 2], [], None, [3], [4, 5, 6], [7]]
    assert d["words"] == [["x"], ["y", None], None, [], ["z"], ["w"]]
    assert d["opt_int"] == [1, None, 3, None, 5, None]
    np.testing.assert_allclose(t.column("f32"), np.linspace(0, 1, 6, dtype=np.float32))
    assert str(ds.schema.fields[0].type) == "int64"
    assert [f.name for f in ds.schema.fields] == list(data)


def test_numeric_columns_are_zero_copy_views(uri):
    lancet.write_dataset({"x": np.arange(1000, dtype=np.int32)}, uri)
    batch = next(iter(lancet.dataset(uri).to_batches()))
    col = batch.to_numpy("x")
    assert col.dtype == np.int32
    assert not col.flags.owndata  # a view of the Arrow buffer
    assert not col.flags.writeable
    np.testing.assert_array_equal(col, np.arange(1000, dtype=np.int32))


def test_fixed_size_list_is_2d(uri):
    vectors = np.random.default_rng(1).random((50, 8), dtype=np.float32)
    ds = lancet.write_dataset({"id": np.arange(50), "vec": vectors}, uri)
    vec_type = ds.schema.fields[1].type
    assert vec_type.name == "fixed_size_list" and vec_type.list_size == 8
    got = ds.to_table().column("vec")
    assert got.shape == (50, 8) and got.dtype == np.float32
    np.testing.assert_array_equal(got, vectors)
    df = ds.to_pandas()
    np.testing.assert_array_equal(np.stack(df["vec"].to_numpy()), vectors)


def test_pandas_round_trip(uri):
    df = pd.DataFrame({
        "id": np.arange(5, dtype=np.int64),
        "score": [1.5, np.nan, 3.0, 4.25, np.nan],
        "label": ["a", None, "c", "d", "e"],
        "ok": [True, False, True, True, False],
        "nullable_int": pd.array([1, None, 3, None, 5], dtype="Int64"),
        "when": pd.to_datetime(["2024-01-01", "2024-01-02", None, "2024-01-04", "2024-01-05"]),
        "cat": pd.Categorical(["x", "y", "x", None, "y"]),
    })
    ds = lancet.write_dataset(df, uri)
    types = {f.name: str(f.type) for f in ds.schema.fields}
    assert types["nullable_int"] == "int64"
    assert types["when"].startswith("timestamp[ns")
    assert types["cat"] == "utf8"
    out = ds.to_pandas()
    assert list(out.columns) == list(df.columns)
    np.testing.assert_array_equal(out["id"].to_numpy(), df["id"].to_numpy())
    # NaN in a float column is a null, and comes back as NaN.
    assert ds.count_rows("score IS NULL") == 2
    np.testing.assert_array_equal(out["score"].isna().to_numpy(), df["score"].isna().to_numpy())
    assert out["label"].tolist() == ["a", None, "c", "d", "e"]
    assert out["ok"].tolist() == [True, False, True, True, False]
    assert out["nullable_int"].isna().tolist() == [False, True, False, True, False]
    assert out["nullable_int"][2] == 3
    assert out["when"].isna().tolist() == [False, False, True, False, False]
    assert out["when"][3] == pd.Timestamp("2024-01-04")
    assert out["cat"].tolist() == ["x", "y", "x", None, "y"]


def test_rows_and_nested_structs(uri):
    rows = [{"id": 1, "meta": {"k": "a", "n": 1}}, {"id": 2, "meta": None}, {"id": 3, "meta": {"k": "c", "n": None}}]
    ds = lancet.write_dataset(rows, uri)
    assert ds.to_table().to_pylist() == rows


def test_explicit_schema_and_timestamps(uri):
    schema = lancet.schema([
        lancet.field("id", lancet.types.int32(), nullable=False),
        lancet.field("ts", lancet.types.timestamp("us", "UTC")),
        lancet.field("day", lancet.types.date32()),
        lancet.field("emb", lancet.types.fixed_size_list(lancet.types.float32(), 2)),
        lancet.field("big", lancet.types.large_utf8()),
    ])
    ts = datetime.datetime(2024, 5, 6, 7, 8, 9)
    data = {"id": [1, 2], "ts": [ts, None], "day": [datetime.date(2020, 1, 2), None], "emb": [[1, 2], [3, 4]],
            "big": ["x", None]}
    ds = lancet.write_dataset(data, uri, schema=schema)
    assert ds.schema == schema
    d = ds.to_table().to_pydict()
    assert d["id"] == [1, 2]
    assert d["ts"] == [ts, None]
    assert d["day"] == [datetime.date(2020, 1, 2), None]
    assert d["emb"] == [[1.0, 2.0], [3.0, 4.0]]
    assert d["big"] == ["x", None]
    df = ds.to_pandas()
    assert str(df["ts"].dt.tz) == "UTC"


def test_modes(uri):
    lancet.write_dataset({"a": [1, 2]}, uri)
    with pytest.raises(FileExistsError):
        lancet.write_dataset({"a": [3]}, uri)
    ds = lancet.write_dataset({"a": [3]}, uri, mode="append")
    assert ds.version == 2 and ds.to_table().to_pydict() == {"a": [1, 2, 3]}
    ds = lancet.write_dataset({"b": ["x"]}, uri, mode="overwrite")
    assert ds.version == 3 and ds.to_table().to_pydict() == {"b": ["x"]}
    with pytest.raises(ValueError):
        lancet.write_dataset({"c": [1.5]}, uri, mode="append")  # schema differs
    ds.insert({"b": ["y"]})
    assert ds.version == 4 and ds.count_rows() == 2


def test_write_from_iterator_of_chunks(uri):
    chunks = (pd.DataFrame({"id": np.arange(i * 10, i * 10 + 10), "sq": np.arange(10) ** 2}) for i in range(4))
    ds = lancet.write_dataset(chunks, uri, max_rows_per_file=15)
    assert ds.count_rows() == 40
    assert len(ds.fragments()) == 3
    assert ds.to_table().column("id").tolist() == list(range(40))


def test_iterator_errors_surface_as_themselves(uri):
    def chunks():
        yield {"id": [1, 2]}
        raise KeyError("boom from the source")

    with pytest.raises(KeyError, match="boom"):
        lancet.write_dataset(chunks(), uri)
    with pytest.raises(FileNotFoundError):
        lancet.dataset(uri)  # nothing was committed


def test_pandas_extension_dtypes(uri):
    df = pd.DataFrame({
        "s": pd.array(["a", None, "c"], dtype="string"),
        "b": pd.array([True, None, False], dtype="boolean"),
        "f": pd.array([1.5, None, 2.5], dtype="Float64"),
        "tz": pd.to_datetime(["2024-01-01 10:00", None, "2024-06-01 12:00"]).tz_localize("Europe/Paris"),
        "u": np.array(["x", "yy", "zzz"]),
        "lst": [np.array([1, 2]), None, np.array([3])],
    })
    ds = lancet.write_dataset(df, uri)
    assert [str(f.type) for f in ds.schema.fields] == [
        "utf8", "bool", "float64", "timestamp[ns, Europe/Paris]", "utf8", "list<int64>"]
    out = ds.to_pandas()
    assert out["s"].tolist() == ["a", None, "c"]
    assert out["b"].tolist() == [True, None, False]
    assert out["f"].isna().tolist() == [False, True, False]
    assert out["tz"][0] == df["tz"][0] and pd.isna(out["tz"][1])
    assert out["u"].tolist() == ["x", "yy", "zzz"]
    assert [None if v is None else v.tolist() for v in out["lst"]] == [[1, 2], None, [3]]
