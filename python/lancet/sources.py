"""Turning whatever a caller writes into a stream of batches for the C++ writer."""

import itertools

from . import _lancet
from .table import RecordBatch, RecordBatchReader, Table


def _is_pandas(data):
    module = type(data).__module__
    return module.startswith("pandas") and hasattr(data, "columns") and hasattr(data, "iloc")


def _one_batch(item, schema):
    """A _lancet.RecordBatch from one chunk: a batch, DataFrame, dict or list of rows."""
    if isinstance(item, RecordBatch):
        return item._batch
    if isinstance(item, _lancet.RecordBatch):
        return item
    if _is_pandas(item):
        return RecordBatch.from_pandas(item, schema)._batch
    if isinstance(item, dict):
        return RecordBatch.from_pydict(item, schema)._batch
    if isinstance(item, list) and (not item or isinstance(item[0], dict)):
        return RecordBatch.from_pylist(item, schema)._batch
    if hasattr(item, "__arrow_c_array__"):
        return RecordBatch.from_arrow(item)._batch
    raise TypeError(f"cannot write {type(item).__name__}: expected a pandas DataFrame, a dict of columns, "
                    "a list of row dicts, a lancet Table/RecordBatch, or an Arrow stream or array")


def to_reader(data, schema=None):
    """A _lancet.RecordBatchReader over `data`, streamed where `data` is a stream.

    Accepted: a pandas DataFrame, a dict of columns (numpy arrays, lists), a list of
    row dicts, a lancet Table, RecordBatch, RecordBatchReader, Dataset or Scanner, any
    object with ``__arrow_c_stream__`` (consumed batch by batch through the Arrow C
    stream interface) or ``__arrow_c_array__``, or an iterator of any of the chunk
    kinds (the first one fixes the schema unless `schema` is given).
    """
    from .dataset import Dataset, Scanner

    if isinstance(data, _lancet.RecordBatchReader):
        return data
    if isinstance(data, RecordBatchReader):
        return data._reader
    if isinstance(data, Table):
        return _lancet.reader_from_batches(data.schema, [b._batch for b in data.to_batches()])
    if isinstance(data, (Dataset, Scanner)):
        scanner = data.scanner() if isinstance(data, Dataset) else data
        return scanner.to_reader()._reader
    if _is_pandas(data) or isinstance(data, (dict, RecordBatch, _lancet.RecordBatch)) or (
            isinstance(data, list) and (not data or isinstance(data[0], dict))):
        batch = _one_batch(data, schema)
        return _lancet.reader_from_batches(batch.schema, [batch])
    if hasattr(data, "__arrow_c_stream__"):
        return _lancet.reader_from_stream_capsule(data.__arrow_c_stream__())
    if hasattr(data, "__arrow_c_array__"):
        batch = _one_batch(data, schema)
        return _lancet.reader_from_batches(batch.schema, [batch])
    if hasattr(data, "__iter__") or hasattr(data, "__next__"):
        it = iter(data)
        try:
            first = _one_batch(next(it), schema)
        except StopIteration:
            if schema is None:
                raise ValueError("an empty iterator needs a schema") from None
            return _lancet.reader_from_batches(schema, [])
        fixed = schema if schema is not None else first.schema
        rest = (_one_batch(item, fixed) for item in it)
        return _lancet.reader_from_iterator(first.schema, itertools.chain([first], rest))
    raise TypeError(f"cannot write {type(data).__name__}")
