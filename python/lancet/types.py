"""Arrow data types, fields and schemas (the classes come from the C++ core)."""

from . import _lancet

DataType = _lancet.DataType
Field = _lancet.Field
Schema = _lancet.Schema

BLOB_EXTENSION = "lance.blob.v2"


def _simple(name):
    def make():
        return DataType(name)

    make.__name__ = name
    make.__doc__ = f"The {name} type."
    return make


null = _simple("null")
bool_ = _simple("bool")
int8 = _simple("int8")
int16 = _simple("int16")
int32 = _simple("int32")
int64 = _simple("int64")
uint8 = _simple("uint8")
uint16 = _simple("uint16")
uint32 = _simple("uint32")
uint64 = _simple("uint64")
float16 = _simple("float16")
float32 = _simple("float32")
float64 = _simple("float64")
utf8 = _simple("utf8")
large_utf8 = _simple("large_utf8")
binary = _simple("binary")
large_binary = _simple("large_binary")
date32 = _simple("date32")
date64 = _simple("date64")
string = utf8
large_string = large_utf8


def field(name, type, nullable=True, metadata=None):
    """A named column of `type`."""
    return Field(name, type, nullable, metadata)


def schema(fields, metadata=None):
    """A schema from Fields or (name, type) pairs."""
    fields = [f if isinstance(f, Field) else Field(f[0], f[1]) for f in fields]
    return Schema(fields, metadata)


def list_(item, large=False):
    """A variable-length list of `item` (a DataType or a Field)."""
    if not isinstance(item, Field):
        item = Field("item", item)
    return DataType("large_list" if large else "list", children=[item])


def fixed_size_list(item, size):
    """A list of exactly `size` values of `item` (a DataType or a Field)."""
    if not isinstance(item, Field):
        item = Field("item", item)
    return DataType("fixed_size_list", list_size=size, children=[item])


def struct(fields):
    """A struct of Fields or (name, type) pairs."""
    return DataType("struct", children=[f if isinstance(f, Field) else Field(f[0], f[1]) for f in fields])


def fixed_size_binary(width):
    return DataType("fixed_size_binary", byte_width=width)


def timestamp(unit="us", tz=None):
    return DataType("timestamp", unit=unit, tz=tz)


def duration(unit="us"):
    return DataType("duration", unit=unit)


_THRESHOLD_KEYS = {
    "inline_max": "lance-encoding:blob-inline-size-threshold",
    "dedicated_min": "lance-encoding:blob-dedicated-size-threshold",
    "pack_file_max": "lance-encoding:blob-pack-file-size-threshold",
}


def blob_field(name, nullable=True, inline_max=None, dedicated_min=None, pack_file_max=None):
    """A Blob V2 input column: struct<data: large_binary, uri: utf8> marked lance.blob.v2.

    Each non-null row sets either ``data`` (the bytes) or ``uri`` (an external file);
    plain bytes values are taken as ``data``. Values of at most `inline_max` bytes
    (default 64 KiB) stay in the data file, larger ones go to sidecar files. Binary
    columns can be stored as blobs more simply with
    ``write_dataset(..., blob_columns=[name])``.
    """
    t = struct([Field("data", large_binary()), Field("uri", utf8())])
    metadata = {"ARROW:extension:name": BLOB_EXTENSION}
    given = {"inline_max": inline_max, "dedicated_min": dedicated_min, "pack_file_max": pack_file_max}
    for key, value in given.items():
        if value is not None:
            metadata[_THRESHOLD_KEYS[key]] = str(int(value))
    return Field(name, t, nullable, metadata)
