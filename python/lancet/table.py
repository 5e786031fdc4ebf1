"""RecordBatch, Table and RecordBatchReader: columnar data in Arrow layout.

All three speak the Arrow PyCapsule interface (``__arrow_c_array__``,
``__arrow_c_stream__``, ``__arrow_c_schema__``), so any Arrow library can take
them without a copy, and lancet takes any object that speaks it in return.
"""

import numpy as np

from . import _lancet
from .convert import array_from, column_from_pandas, empty_numpy, to_numpy, to_pylist
from .frame import to_dataframe
from .types import Field, Schema


def _column_index(schema, key):
    if isinstance(key, int):
        if not -len(schema) <= key < len(schema):
            raise IndexError(f"column {key} out of range ({len(schema)} columns)")
        return key % len(schema)
    i = schema.field_index(key)
    if i < 0:
        raise KeyError(f"no column '{key}' (columns: {', '.join(schema.names)})")
    return i


def _blob_values(values):
    """Bytes (or None) per row as the {data, uri} structs a Blob V2 input field holds."""
    out = []
    for v in values:
        if v is None or isinstance(v, dict):
            out.append(v)
        else:
            out.append({"data": bytes(v), "uri": None})
    return out


def _hint(schema, name):
    if schema is None:
        return None
    i = schema.field_index(name)
    if i < 0:
        raise ValueError(f"column '{name}' is not in the schema given")
    return schema.fields[i]


def _field_for(name, arr, hint):
    if hint is None:
        return Field(name, arr.type)
    return Field(name, arr.type, hint.nullable, hint.metadata)


class RecordBatch:
    """Equal-length columns with a schema."""

    def __init__(self, batch):
        self._batch = batch

    @staticmethod
    def from_arrays(arrays, names=None, schema=None):
        if schema is None:
            schema = Schema([Field(n, a.type) for n, a in zip(names, arrays)])
        return RecordBatch(_lancet.RecordBatch(schema, list(arrays)))

    @staticmethod
    def from_pydict(mapping, schema=None):
        """Columns from a dict of name → numpy array, list, or Arrow array."""
        names = list(mapping) if schema is None else schema.names
        arrays, fields = [], []
        for name in names:
            if name not in mapping:
                raise ValueError(f"column '{name}' of the schema is missing from the data")
            hint = _hint(schema, name)
            values = mapping[name]
            if hint is not None and hint.is_blob and not isinstance(values, _lancet.Array):
                values = _blob_values(values)
            arr = array_from(values, hint.type if hint is not None else None)
            arrays.append(arr)
            fields.append(_field_for(name, arr, hint))
        return RecordBatch(_lancet.RecordBatch(Schema(fields), arrays, arrays[0].length if arrays else 0))

    @staticmethod
    def from_pylist(rows, schema=None):
        """Columns from a list of dicts (one per row)."""
        names = list(dict.fromkeys(k for r in rows for k in r)) if schema is None else schema.names
        return RecordBatch.from_pydict({n: [r.get(n) for r in rows] for n in names}, schema)

    @staticmethod
    def from_pandas(df, schema=None):
        """Columns from a pandas DataFrame (its index is not stored)."""
        names = [str(c) for c in df.columns] if schema is None else schema.names
        arrays, fields = [], []
        for name in names:
            hint = _hint(schema, name)
            if hint is not None and hint.is_blob:
                arr = array_from(_blob_values(df[name].to_list()), hint.type)
            else:
                arr = column_from_pandas(df[name], hint)
            arrays.append(arr)
            fields.append(_field_for(name, arr, hint))
        return RecordBatch(_lancet.RecordBatch(Schema(fields), arrays, len(df)))

    @property
    def schema(self):
        return self._batch.schema

    @property
    def num_rows(self):
        return self._batch.num_rows

    @property
    def num_columns(self):
        return len(self._batch.columns)

    @property
    def column_names(self):
        return self._batch.schema.names

    @property
    def columns(self):
        return list(self._batch.columns)

    def __len__(self):
        return self.num_rows

    def column(self, key):
        """The lancet Array of a column, by name or position."""
        return self._batch.columns[_column_index(self.schema, key)]

    def to_numpy(self, key):
        """A column as numpy (see lancet.convert.to_numpy for the mapping)."""
        return to_numpy(self.column(key))

    def slice(self, offset=0, length=None):
        length = self.num_rows - offset if length is None else length
        return RecordBatch(self._batch.slice(offset, length))

    def to_pydict(self):
        return {f.name: to_pylist(c) for f, c in zip(self.schema.fields, self._batch.columns)}

    def to_pylist(self):
        d = self.to_pydict()
        return [dict(zip(d, row)) for row in zip(*d.values())] if d else []

    def to_pandas(self):
        return Table([self]).to_pandas()

    def __arrow_c_array__(self, requested_schema=None):
        return self._batch.__arrow_c_array__(requested_schema)

    def __arrow_c_schema__(self):
        return self._batch.__arrow_c_schema__()

    @staticmethod
    def from_arrow(obj):
        """Imports any object with ``__arrow_c_array__`` holding a struct array."""
        return RecordBatch(_lancet.RecordBatch._import_capsules(*obj.__arrow_c_array__()))

    def __repr__(self):
        return f"lancet.RecordBatch({self.num_rows} rows)\n{self.schema}"


class Table:
    """A schema and a list of record batches (a table is never copied into one piece)."""

    def __init__(self, batches, schema=None):
        self._batches = [b if isinstance(b, RecordBatch) else RecordBatch(b) for b in batches]
        if schema is None:
            if not self._batches:
                raise ValueError("an empty Table needs a schema")
            schema = self._batches[0].schema
        self._schema = schema

    @staticmethod
    def from_batches(batches, schema=None):
        return Table(list(batches), schema)

    @staticmethod
    def from_pydict(mapping, schema=None):
        return Table([RecordBatch.from_pydict(mapping, schema)])

    @staticmethod
    def from_pylist(rows, schema=None):
        return Table([RecordBatch.from_pylist(rows, schema)])

    @staticmethod
    def from_pandas(df, schema=None):
        return Table([RecordBatch.from_pandas(df, schema)])

    @staticmethod
    def from_arrow(obj):
        """Reads any object with ``__arrow_c_stream__`` (all of it) into a Table."""
        reader = _lancet.reader_from_stream_capsule(obj.__arrow_c_stream__())
        return Table([RecordBatch(b) for b in reader], reader.schema)

    @property
    def schema(self):
        return self._schema

    @property
    def num_rows(self):
        return sum(b.num_rows for b in self._batches)

    @property
    def num_columns(self):
        return len(self._schema)

    @property
    def column_names(self):
        return self._schema.names

    def __len__(self):
        return self.num_rows

    def to_batches(self):
        return list(self._batches)

    def column(self, key):
        """A column as one numpy array (the batches' values concatenated)."""
        i = _column_index(self._schema, key)
        parts = [to_numpy(b._batch.columns[i]) for b in self._batches]
        if not parts:
            return empty_numpy(self._schema.fields[i].type)
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def to_pydict(self):
        out = {name: [] for name in self._schema.names}
        for b in self._batches:
            for name, values in b.to_pydict().items():
                out[name].extend(values)
        return out

    def to_pylist(self):
        return [row for b in self._batches for row in b.to_pylist()]

    def to_pandas(self):
        """A pandas DataFrame. Numeric columns are converted without per-value loops and
        copied once, straight into pandas' blocks; fixed-size lists become one numpy row
        view per row."""
        return to_dataframe(self._schema, self._batches)

    def slice(self, offset=0, length=None):
        length = self.num_rows - offset if length is None else length
        out, skip = [], offset
        for b in self._batches:
            if length <= 0:
                break
            if skip >= b.num_rows:
                skip -= b.num_rows
                continue
            take = min(length, b.num_rows - skip)
            out.append(b.slice(skip, take))
            length -= take
            skip = 0
        return Table(out, self._schema)

    def __arrow_c_stream__(self, requested_schema=None):
        reader = _lancet.reader_from_batches(self._schema, [b._batch for b in self._batches])
        return reader.__arrow_c_stream__(requested_schema)

    def __arrow_c_schema__(self):
        return self._schema.__arrow_c_schema__()

    def __eq__(self, other):
        return isinstance(other, Table) and self._schema == other._schema and self.to_pydict() == other.to_pydict()

    def __repr__(self):
        return f"lancet.Table({self.num_rows} rows)\n{self._schema}"


class RecordBatchReader:
    """A stream of record batches read as it is iterated (never all in memory).

    Iterating releases the GIL while each batch is read and decoded. ``close()`` (or
    leaving a ``with`` block, or dropping the reader) stops the stream early.
    """

    def __init__(self, reader):
        self._reader = reader

    @property
    def schema(self):
        return self._reader.schema

    def __iter__(self):
        return self

    def __next__(self):
        return RecordBatch(next(self._reader))

    def read_next_batch(self):
        return next(self)

    def read_all(self):
        return Table([RecordBatch(b) for b in self._reader], self.schema)

    def close(self):
        self._reader.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __arrow_c_stream__(self, requested_schema=None):
        return self._reader.__arrow_c_stream__(requested_schema)

    def __arrow_c_schema__(self):
        return self._reader.__arrow_c_schema__()

    @staticmethod
    def from_arrow(obj):
        """Wraps any object with ``__arrow_c_stream__``; batches are imported as read."""
        return RecordBatchReader(_lancet.reader_from_stream_capsule(obj.__arrow_c_stream__()))
