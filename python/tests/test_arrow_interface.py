"""The Arrow PyCapsule interface in both directions."""

import ctypes

import numpy as np
import pytest

import lancet
from lancet import _lancet

_name = ctypes.pythonapi.PyCapsule_GetName
_name.restype = ctypes.c_char_p
_name.argtypes = [ctypes.py_object]


def capsule_name(c):
    return _name(c).decode()


class StreamOnly:
    """A foreign producer: exposes only __arrow_c_stream__, and counts batches pulled."""

    def __init__(self, reader):
        self.reader = reader

    def __arrow_c_stream__(self, requested_schema=None):
        return self.reader.__arrow_c_stream__(requested_schema)


class ArrayOnly:
    def __init__(self, batch):
        self.batch = batch

    def __arrow_c_array__(self, requested_schema=None):
        return self.batch.__arrow_c_array__(requested_schema)


def test_capsule_names_and_release():
    t = lancet.Table.from_pydict({"a": np.arange(3), "b": ["x", "y", None]})
    assert capsule_name(t.__arrow_c_stream__()) == "arrow_array_stream"
    assert capsule_name(t.__arrow_c_schema__()) == "arrow_schema"
    s, a = t.to_batches()[0].__arrow_c_array__()
    assert (capsule_name(s), capsule_name(a)) == ("arrow_schema", "arrow_array")
    del s, a  # released by their destructors, nothing consumed them
    schema = lancet.Schema._import_capsule(t.__arrow_c_schema__())
    assert schema == t.schema


def test_table_stream_round_trip():
    t = lancet.Table.from_pydict({"a": np.arange(5, dtype=np.int16), "l": [[1], [], None, [2, 3], [4]]})
    back = lancet.Table.from_arrow(t)
    assert back == t


def test_batch_array_round_trip():
    b = lancet.RecordBatch.from_pydict({"v": np.ones((4, 3), dtype=np.float64), "s": ["a", "b", "c", None]})
    back = lancet.RecordBatch.from_arrow(ArrayOnly(b))
    assert back.to_pydict() == b.to_pydict()
    # Zero-copy: the imported column views the exporter's memory.
    def address(batch):
        values = batch.column("v").children[0].buffers[1]
        return np.frombuffer(values, np.uint8).__array_interface__["data"][0]

    assert address(back) == address(b)


def test_array_capsules_of_one_column():
    arr = lancet.array(np.arange(4, dtype=np.uint8))
    field, back = _lancet._import_array_capsules(*_lancet._array_capsules(lancet.field("x", arr.type), arr))
    assert field.name == "x" and back.equals(arr)


def test_consumed_stream_cannot_be_used_twice():
    t = lancet.Table.from_pydict({"a": [1]})
    cap = t.__arrow_c_stream__()
    _lancet.reader_from_stream_capsule(cap)
    with pytest.raises(ValueError, match="consumed"):
        _lancet.reader_from_stream_capsule(cap)


def test_dataset_streams_into_write(tmp_path):
    src = lancet.write_dataset({"id": np.arange(300), "s": [str(i) for i in range(300)]}, str(tmp_path / "src"),
                               max_rows_per_file=100)
    reader = src.scanner(batch_size=50).to_reader()
    dst = lancet.write_dataset(StreamOnly(reader), str(tmp_path / "dst"), max_rows_per_file=120)
    assert dst.to_table().to_pydict() == src.to_table().to_pydict()
    assert [f["num_rows"] for f in dst.fragments()] == [120, 120, 60]
    # A lancet Dataset itself is an Arrow stream.
    again = lancet.write_dataset(StreamOnly(src), str(tmp_path / "again"))
    assert again.count_rows() == 300


def test_write_stream_is_not_materialised(tmp_path):
    pulled = []

    def gen():
        for i in range(5):
            pulled.append(i)
            yield lancet.RecordBatch.from_pydict({"i": np.full(10, i)})

    # An iterator becomes a C stream (through lancet's own export) that the writer pulls.
    reader = lancet.RecordBatchReader(_lancet.reader_from_iterator(
        lancet.RecordBatch.from_pydict({"i": np.zeros(1, dtype=np.int64)}).schema, (b._batch for b in gen())))
    first_pull = len(pulled)
    ds = lancet.write_dataset(StreamOnly(reader), str(tmp_path / "g"))
    assert first_pull == 0 and pulled == [0, 1, 2, 3, 4]
    assert ds.count_rows() == 50


def test_schema_and_types():
    schema = lancet.schema([("id", lancet.types.int64()), lancet.blob_field("b", inline_max=10)])
    assert schema.names == ["id", "b"]
    assert schema.field("id").type == lancet.types.int64()
    assert schema.field(-1).is_blob and schema.field(1).metadata["lance-encoding:blob-inline-size-threshold"] == b"10"
    with pytest.raises(KeyError):
        schema.field("nope")
    with pytest.raises(IndexError):
        schema.field(2)
    t = lancet.types.list_(lancet.types.fixed_size_list(lancet.types.float32(), 3))
    assert str(t) == "list<fixed_size_list<float32, 3>>"
    assert t.children[0].type.list_size == 3
    assert lancet.Field._import_capsule(t.__arrow_c_schema__()).type == t
