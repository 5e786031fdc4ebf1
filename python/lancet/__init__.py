"""lancet: read and write Lance datasets from Python (the C++ Lancet core).

    import lancet
    ds = lancet.write_dataset({"id": [1, 2, 3], "name": ["a", "b", None]}, "/tmp/t.lance")
    ds.to_table(filter="id > 1").to_pandas()

See docs/python.md.
"""

from . import _lancet
from .errors import (
    ERROR_CLASSES,
    AlreadyExistsError,
    CommitConflict,
    CorruptionError,
    InvalidArgumentError,
    LancetError,
    NotFoundError,
    NotSupportedError,
    OutOfRangeError,
    StorageError,
)

_lancet._set_error_classes(ERROR_CLASSES)

from . import types  # noqa: E402
from .blob import BlobFile  # noqa: E402
from .convert import array_from as array  # noqa: E402
from .dataset import Dataset, MergeInsertBuilder, Scanner, dataset  # noqa: E402
from .media import FrameList  # noqa: E402
from .table import RecordBatch, RecordBatchReader, Table  # noqa: E402
from .types import DataType, Field, Schema, blob_field, field, schema  # noqa: E402
from .write import write_dataset  # noqa: E402

__all__ = [
    "AlreadyExistsError",
    "BlobFile",
    "CommitConflict",
    "CorruptionError",
    "DataType",
    "Dataset",
    "Field",
    "FrameList",
    "InvalidArgumentError",
    "LancetError",
    "MergeInsertBuilder",
    "NotFoundError",
    "NotSupportedError",
    "OutOfRangeError",
    "RecordBatch",
    "RecordBatchReader",
    "Scanner",
    "Schema",
    "StorageError",
    "Table",
    "array",
    "blob_field",
    "dataset",
    "field",
    "schema",
    "types",
    "write_dataset",
]
