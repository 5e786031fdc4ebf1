"""Conversions between lancet arrays and numpy / Python values.

Arrays come out of the C++ core as Arrow buffers; numeric data is viewed with
numpy without copying and without a per-value Python loop. Strings, structs and
other object values are built one value at a time.
"""

import datetime
import decimal
import itertools
import operator

import numpy as np

from . import _lancet
from .types import DataType, Field

_NUMERIC = {
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "uint8": np.uint8,
    "uint16": np.uint16,
    "uint32": np.uint32,
    "uint64": np.uint64,
    "float16": np.float16,
    "float32": np.float32,
    "float64": np.float64,
    "time32": np.int32,
    "time64": np.int64,
}
_STRINGS = {"utf8": np.int32, "large_utf8": np.int64, "binary": np.int32, "large_binary": np.int64}
_TEXT = ("utf8", "large_utf8")
_LISTS = {"list": np.int32, "large_list": np.int64, "map": np.int32}
_INT32_MAX = 2**31 - 1


# ---- lancet → numpy / Python -------------------------------------------------------


def _bits(buf, offset, length):
    raw = np.frombuffer(buf, dtype=np.uint8)
    first = offset // 8
    bits = np.unpackbits(raw[first : (offset + length + 7) // 8], bitorder="little")
    skip = offset - first * 8
    return bits[skip : skip + length].astype(bool)


def validity(arr):
    """A bool array, True where the value is valid; None when every value is."""
    if arr.type.name == "null":
        return np.zeros(arr.length, dtype=bool)
    buffers = arr.buffers
    if arr.null_count == 0 or not buffers or buffers[0] is None:
        return None
    return _bits(buffers[0], arr.offset, arr.length)


def _primitive(arr, dtype, slot=1):
    dtype = np.dtype(dtype)
    if arr.length == 0:
        return np.empty(0, dtype=dtype)
    return np.frombuffer(arr.buffers[slot], dtype=dtype, count=arr.length, offset=arr.offset * dtype.itemsize)


def _offsets(arr, dtype):
    dtype = np.dtype(dtype)
    return np.frombuffer(arr.buffers[1], dtype=dtype, count=arr.length + 1, offset=arr.offset * dtype.itemsize)


def _temporal(arr):
    t = arr.type
    if t.name == "date32":
        return _primitive(arr, np.int32).astype("datetime64[D]")
    if t.name == "date64":
        return _primitive(arr, np.int64).view("datetime64[ms]")
    kind = "M8" if t.name == "timestamp" else "m8"
    return _primitive(arr, np.int64).view(f"{kind}[{t.unit}]")


def _string_values(arr):
    """str (or bytes) per value, None for nulls."""
    return _lancet._string_values(arr)


def _fixed_binary_values(arr):
    w = arr.type.byte_width
    raw = bytes(memoryview(arr.buffers[1])) if arr.length else b""
    start = arr.offset * w
    return [raw[start + i * w : start + (i + 1) * w] for i in range(arr.length)]


def _decimal_values(arr):
    width = arr.type.bit_width // 8
    raw = bytes(memoryview(arr.buffers[1])) if arr.length else b""
    scale = arr.type.scale
    out = []
    for i in range(arr.offset, arr.offset + arr.length):
        unscaled = int.from_bytes(raw[i * width : (i + 1) * width], "little", signed=True)
        out.append(decimal.Decimal(unscaled).scaleb(-scale))
    return out


def _child_range(arr):
    """The list's child sliced to the rows' values, and offsets relative to it."""
    offsets = _offsets(arr, _LISTS[arr.type.name]).astype(np.int64)
    first = int(offsets[0]) if len(offsets) else 0
    child = arr.children[0].slice(first, int(offsets[-1]) - first) if len(offsets) else arr.children[0]
    return child, offsets - first


def to_pylist(arr):
    """The values of a lancet Array as Python objects (None for nulls)."""
    name = arr.type.name
    n = arr.length
    if name == "null":
        return [None] * n
    if name in _NUMERIC:
        values = _primitive(arr, _NUMERIC[name]).tolist()
    elif name == "bool":
        values = _bits(arr.buffers[1], arr.offset, n).tolist() if n else []
    elif name in ("date32", "date64", "timestamp", "duration"):
        values = _temporal(arr).tolist()
    elif name in _STRINGS:
        values = _string_values(arr)
    elif name == "fixed_size_binary":
        values = _fixed_binary_values(arr)
    elif name in ("decimal128", "decimal256"):
        values = _decimal_values(arr)
    elif name in ("list", "large_list"):
        child, offsets = _child_range(arr)
        flat = to_pylist(child)
        values = [flat[a:b] for a, b in zip(offsets.tolist(), offsets[1:].tolist())]
    elif name == "map":
        child, offsets = _child_range(arr)
        keys = to_pylist(child.children[0])
        items = to_pylist(child.children[1])
        pairs = list(zip(keys, items))
        values = [pairs[a:b] for a, b in zip(offsets.tolist(), offsets[1:].tolist())]
    elif name == "fixed_size_list":
        size = arr.type.list_size
        flat = to_pylist(arr.children[0].slice(arr.offset * size, n * size))
        values = [flat[i * size : (i + 1) * size] for i in range(n)]
    elif name == "struct":
        names = [f.name for f in arr.type.children]
        columns = [to_pylist(c.slice(arr.offset, n)) for c in arr.children]
        values = [dict(zip(names, row)) for row in zip(*columns)] if columns else [{} for _ in range(n)]
    elif name == "dictionary":
        dictionary = to_pylist(arr.dictionary)
        index_type = arr.type.index_type.name
        values = [dictionary[i] for i in _primitive(arr, _NUMERIC[index_type]).tolist()]
    else:
        raise NotImplementedError(f"no Python conversion for {arr.type}")
    valid = validity(arr)
    if valid is not None:
        values = [v if ok else None for v, ok in zip(values, valid.tolist())]
    return values


def _object_array(values):
    out = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        out[i] = v
    return out


def to_numpy(arr):
    """A lancet Array as a numpy array, zero-copy where the layout allows.

    Numbers without nulls are views of the Arrow buffer; with nulls, integers become
    float64 with NaN (as pandas does) and floats get NaN. Fixed-size lists of numbers
    are 2-D arrays (rows x size). Timestamps, dates and durations are datetime64 /
    timedelta64 (NaT for nulls). Everything else is an object array: str, bytes,
    lists as numpy arrays, structs as dicts, None for nulls.
    """
    name = arr.type.name
    valid = validity(arr)
    if name in _NUMERIC:
        values = _primitive(arr, _NUMERIC[name])
        if valid is None:
            return values
        out = values.astype(np.float64 if values.dtype.kind in "iu" else values.dtype)
        out[~valid] = np.nan
        return out
    if name == "bool":
        values = _bits(arr.buffers[1], arr.offset, arr.length) if arr.length else np.empty(0, dtype=bool)
        if valid is None:
            return values
        out = values.astype(object)
        out[~valid] = None
        return out
    if name in ("date32", "date64", "timestamp", "duration"):
        values = _temporal(arr)
        if valid is not None:
            values = values.copy()
            values[~valid] = np.datetime64("NaT") if values.dtype.kind == "M" else np.timedelta64("NaT")
        return values
    if name == "fixed_size_list":
        size = arr.type.list_size
        child = to_numpy(arr.children[0].slice(arr.offset * size, arr.length * size))
        if child.dtype != object and child.ndim == 1:
            matrix = child.reshape(arr.length, size)
            if valid is None:
                return matrix
            matrix = matrix.astype(np.float64 if matrix.dtype.kind in "iub" else matrix.dtype)
            matrix[~valid] = np.nan
            return matrix
        rows = [child[i * size : (i + 1) * size] for i in range(arr.length)]
        return _with_nulls(_object_array(rows), valid)
    if name in ("list", "large_list"):
        child, offsets = _child_range(arr)
        flat = to_numpy(child)
        bounds = offsets.tolist()
        rows = [flat[a:b] for a, b in zip(bounds, bounds[1:])]
        return _with_nulls(_object_array(rows), valid)
    if name in _STRINGS:
        out = np.empty(arr.length, dtype=object)
        out[:] = _string_values(arr)  # str, bytes and None are scalars to numpy
        return out
    return _object_array(to_pylist(arr))


def _with_nulls(out, valid):
    if valid is not None:
        out[~valid] = None
    return out


def empty_numpy(t):
    """The numpy array to_numpy gives for zero values of type `t`."""
    dtype = _numpy_dtype(t)
    if dtype is not None:
        return np.empty(0, dtype=dtype)
    if t.name == "fixed_size_list" and _numpy_dtype(t.children[0].type) is not None:
        return np.empty((0, t.list_size), dtype=_numpy_dtype(t.children[0].type))
    return np.empty(0, dtype=object)


def rows_as_objects(matrix):
    """An object array holding each row of a 2-D array as a view (a DataFrame column
    holds one object per row)."""
    return np.fromiter(iter(matrix), dtype=object, count=len(matrix))


# ---- numpy / Python → lancet -------------------------------------------------------


def _validity_buffer(valid):
    """(bitmap, null count) for a bool mask of valid rows; (None, 0) when all are."""
    if valid is None or valid.all():
        return None, 0
    return np.packbits(valid, bitorder="little"), int(len(valid) - np.count_nonzero(valid))


def _primitive_array(values, dtype, valid=None):
    bitmap, nulls = _validity_buffer(valid)
    data = np.ascontiguousarray(values)
    if data.dtype.kind in "mM":
        data = data.view(np.int64)
    return _lancet.Array(dtype, len(data), nulls, 0, [bitmap, data])


def _bool_array(values, valid=None):
    bitmap, nulls = _validity_buffer(valid)
    bits = np.packbits(np.ascontiguousarray(values, dtype=bool), bitorder="little")
    return _lancet.Array(DataType("bool"), len(values), nulls, 0, [bitmap, bits])


def _numpy_type(dtype):
    """The lancet type of a numpy dtype of numbers, bools or datetimes."""
    kind = dtype.kind
    if kind == "b":
        return DataType("bool")
    if kind in "iuf":
        return DataType(dtype.name)
    if kind in "mM":
        unit, _ = np.datetime_data(dtype)
        if kind == "M" and unit == "D":
            return DataType("date32")
        if unit not in ("s", "ms", "us", "ns"):
            raise ValueError(f"datetime unit '{unit}' has no Arrow type (use s, ms, us, ns or D)")
        return DataType("timestamp" if kind == "M" else "duration", unit=unit)
    return None


def _from_numpy(values, valid, type_hint):
    """A 1-D or 2-D numpy array of numbers, bools or datetimes."""
    if values.ndim == 2:
        rows, size = values.shape
        item = type_hint.children[0] if type_hint is not None and type_hint.name == "fixed_size_list" else None
        child = array_from(values.reshape(-1), item.type if item is not None else None)
        item = item if item is not None else Field("item", child.type)
        bitmap, nulls = _validity_buffer(valid)
        t = DataType("fixed_size_list", list_size=size, children=[item])
        return _lancet.Array(t, rows, nulls, 0, [bitmap], [child])
    if values.ndim != 1:
        raise ValueError(f"cannot store a {values.ndim}-D array as a column (1-D or 2-D only)")
    if type_hint is not None and _numpy_dtype(type_hint) is not None:
        target = _numpy_dtype(type_hint)
        if values.dtype != target:
            values = values.astype(target)
    t = type_hint if type_hint is not None else _numpy_type(values.dtype)
    if t is None:
        return None
    if values.dtype.kind in "mM":
        nat = np.isnat(values)
        if nat.any():
            valid = ~nat if valid is None else (valid & ~nat)
        if t.name == "date32":
            values = values.astype("datetime64[D]").view(np.int64).astype(np.int32)
        elif t.name == "date64":
            values = values.astype("datetime64[ms]")
    if t.name == "bool":
        return _bool_array(values, valid)
    return _primitive_array(values, t, valid)


def _numpy_dtype(t):
    name = t.name
    if name in _NUMERIC:
        return np.dtype(_NUMERIC[name])
    if name == "bool":
        return np.dtype(bool)
    if name == "timestamp":
        return np.dtype(f"datetime64[{t.unit}]")
    if name == "duration":
        return np.dtype(f"timedelta64[{t.unit}]")
    if name in ("date32", "date64"):
        return np.dtype("datetime64[D]" if name == "date32" else "datetime64[ms]")
    return None


def _not_none(values):
    """A bool array, True where the value is not None (no Python-level loop)."""
    return np.fromiter(map(operator.is_not, values, itertools.repeat(None)), dtype=bool, count=len(values))


def _all_instances(values, types):
    return all(map(isinstance, values, itertools.repeat(types)))


def _infer(values):
    """The lancet type for a sequence of Python objects (None allowed)."""
    present = list(itertools.compress(values, _not_none(values)))
    if not present:
        return DataType("null")
    first = present[0]
    if isinstance(first, (bool, np.bool_)):
        return DataType("bool")
    if isinstance(first, (int, np.integer)):
        if not _all_instances(present, (int, np.integer)):
            return DataType("float64")
        return DataType("int64") if isinstance(first, int) else DataType(np.asarray(first).dtype.name)
    if isinstance(first, (float, np.floating)):
        return DataType("float64") if isinstance(first, float) else DataType(np.asarray(first).dtype.name)
    if isinstance(first, str):
        total = sum(map(len, present))
        return DataType("large_utf8" if total > _INT32_MAX else "utf8")
    if isinstance(first, (bytes, bytearray, memoryview)):
        total = sum(map(len, present))
        return DataType("large_binary" if total > _INT32_MAX else "binary")
    if isinstance(first, datetime.datetime):
        return DataType("timestamp", unit="us")
    if isinstance(first, datetime.date):
        return DataType("date32")
    if isinstance(first, datetime.timedelta):
        return DataType("duration", unit="us")
    if isinstance(first, np.datetime64) or isinstance(first, np.timedelta64):
        return _numpy_type(np.asarray(present).dtype)
    if isinstance(first, dict):
        names = list(dict.fromkeys(k for v in present for k in v))
        return DataType("struct", children=[Field(k, _infer([v.get(k) for v in present])) for k in names])
    if isinstance(first, (list, tuple, np.ndarray)):
        item = _infer(list(itertools.chain.from_iterable(_as_list(v) for v in present)))
        return DataType("list", children=[Field("item", item)])
    raise ValueError(f"cannot infer an Arrow type for values like {first!r} ({type(first).__name__})")


def _as_list(v):
    return v.tolist() if isinstance(v, np.ndarray) else v


def _with_fill(values, valid, fill):
    """`values` as a list with `fill` where `valid` is False (a loop over the nulls only)."""
    if valid is None:
        return values
    out = list(values)
    for i in np.flatnonzero(~valid).tolist():
        out[i] = fill
    return out


def _encoded(values, valid, text):
    """(bytes per value joined, byte length per value) with b"" for nulls."""
    present = _with_fill(values, valid, "" if text else b"")
    if text:
        if not _all_instances(present, str):
            bad = next(v for v in present if not isinstance(v, str))
            raise TypeError(f"expected str values for a string column, got {type(bad).__name__}")
        joined = "".join(present)
        if joined.isascii():
            # One encode for the whole column: byte lengths are character lengths.
            lengths = np.fromiter(map(len, present), dtype=np.int64, count=len(present))
            return joined.encode("ascii"), lengths
        encoded = [v.encode("utf-8") for v in present]
    elif _all_instances(present, bytes):
        encoded = present
    else:
        encoded = [bytes(v) for v in present]
    return b"".join(encoded), np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))


def _string_array(values, valid, t):
    data, lengths = _encoded(values, valid, t.name in _TEXT)
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    if t.name in ("utf8", "binary") and offsets[-1] > _INT32_MAX:
        raise ValueError(f"{offsets[-1]} bytes do not fit a {t} column; use large_{t.name}")
    offsets = offsets.astype(_STRINGS[t.name])
    bitmap, nulls = _validity_buffer(valid)
    return _lancet.Array(t, len(lengths), nulls, 0, [bitmap, offsets, data])


def _list_array(values, valid, t):
    pieces = [_as_list(v) if ok else [] for v, ok in zip(values, _valid_iter(valid, len(values)))]
    lengths = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))
    item = t.children[0] if t is not None else None
    if t is not None and t.name == "fixed_size_list":
        size = t.list_size
        if np.any(lengths[valid if valid is not None else slice(None)] != size):
            raise ValueError(f"every row of a {t} column needs {size} values")
        pieces = [p if ok else [None] * size for p, ok in zip(pieces, _valid_iter(valid, len(pieces)))]
        child = array_from(list(itertools.chain.from_iterable(pieces)), item.type)
        bitmap, nulls = _validity_buffer(valid)
        return _lancet.Array(t, len(pieces), nulls, 0, [bitmap], [child])
    child = array_from(list(itertools.chain.from_iterable(pieces)), item.type if item is not None else None)
    if t is None:
        t = DataType("list", children=[Field("item", child.type)])
    offsets = np.zeros(len(pieces) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    offsets = offsets.astype(_LISTS.get(t.name, np.int32))
    bitmap, nulls = _validity_buffer(valid)
    return _lancet.Array(t, len(pieces), nulls, 0, [bitmap, offsets], [child])


def _struct_array(values, valid, t):
    rows = [v if ok else {} for v, ok in zip(values, _valid_iter(valid, len(values)))]
    for r in rows:
        if not isinstance(r, dict):
            raise TypeError(f"expected dicts for a struct column, got {type(r).__name__}")
    if t is None:
        t = _infer(rows)
    children = [array_from([r.get(f.name) for r in rows], f.type) for f in t.children]
    fields = [Field(f.name, c.type, f.nullable, f.metadata) for f, c in zip(t.children, children)]
    t = DataType("struct", children=fields)
    bitmap, nulls = _validity_buffer(valid)
    return _lancet.Array(t, len(rows), nulls, 0, [bitmap], children)


def _valid_iter(valid, n):
    return valid.tolist() if valid is not None else itertools.repeat(True, n)


def _objects_to_numpy(values, valid, t):
    dtype = _numpy_dtype(t)
    filler = {"M": np.datetime64("NaT"), "m": np.timedelta64("NaT")}.get(dtype.kind, 0)
    return np.asarray(_with_fill(values, valid, filler), dtype=dtype)


def array_from(values, type=None, nan_as_null=False):
    """A lancet Array from a numpy array, a list or any Arrow array (__arrow_c_array__).

    `type` (a DataType) fixes the result type; without it the type is inferred. None is
    null; NaN is null too when `nan_as_null` (as pandas means it).
    """
    if isinstance(values, _lancet.Array):
        return values
    if hasattr(values, "__arrow_c_array__"):
        field, arr = _lancet._import_array_capsules(*values.__arrow_c_array__())
        return arr
    if isinstance(values, np.ndarray) and values.dtype.kind in "biufmM":
        valid = None
        if nan_as_null and values.dtype.kind == "f" and values.ndim == 1:
            nan = np.isnan(values)
            valid = ~nan if nan.any() else None
        out = _from_numpy(values, valid, type)
        if out is not None:
            return out
    if isinstance(values, np.ndarray) and values.dtype.kind in "US":
        values = values.tolist()
    values = list(values)
    present = _not_none(values)
    if nan_as_null:
        present &= np.fromiter((not (isinstance(v, float) and v != v) for v in values), dtype=bool, count=len(values))
    valid = None if present.all() else present
    t = type if type is not None else _infer(values if valid is None else list(itertools.compress(values, present)))
    name = t.name
    if name == "null":
        return _lancet.Array.nulls(t, len(values))
    if _numpy_dtype(t) is not None:
        return _from_numpy(_objects_to_numpy(values, valid, t), valid, t)
    if name in _STRINGS:
        return _string_array(values, valid, t)
    if name in ("list", "large_list", "fixed_size_list"):
        return _list_array(values, valid, t)
    if name == "struct":
        return _struct_array(values, valid, t)
    raise NotImplementedError(f"cannot build a {t} column from Python values")


def column_from_pandas(series, field=None):
    """A lancet Array of a pandas Series, with pandas' missing values as nulls."""
    import pandas as pd

    hint = field.type if field is not None else None
    dtype = series.dtype
    if isinstance(dtype, pd.DatetimeTZDtype):
        values = series.dt.tz_convert("UTC").dt.tz_localize(None).to_numpy()
        arr = array_from(values, hint)
        unit, _ = np.datetime_data(values.dtype)
        t = DataType("timestamp", unit=unit, tz=str(dtype.tz))
        return _lancet.Array(t, arr.length, arr.null_count, 0, arr.buffers, [])
    if isinstance(dtype, np.dtype) and dtype.kind in "biufmM":
        return array_from(series.to_numpy(), hint, nan_as_null=True)
    if isinstance(dtype, pd.CategoricalDtype):
        series = series.astype(object)
    missing = series.isna().to_numpy()
    numeric = getattr(dtype, "numpy_dtype", None)
    if numeric is not None and numeric.kind in "biuf":
        # Nullable extension dtypes (Int64, boolean, Float64): values plus a mask.
        values = series.to_numpy(dtype=numeric, na_value=0)
        out = _from_numpy(values, ~missing if missing.any() else None, hint)
        if out is not None:
            return out
    values = series.to_numpy(dtype=object)
    if missing.any():
        values = values.copy()
        values[missing] = None  # NaN, NaT and pd.NA are all null
    return array_from(values, hint)
