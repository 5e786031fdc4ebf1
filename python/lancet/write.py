"""write_dataset: new datasets, appends and overwrites."""

import os

from . import _lancet
from .dataset import Dataset, _options
from .sources import to_reader


def write_dataset(data, uri, schema=None, mode="create", max_rows_per_file=1024 * 1024, blob_columns=None,
                  data_storage_version=None, enable_stable_row_ids=False, storage_options=None, media=None,
                  max_commit_attempts=20):
    """Writes `data` as a new version of the dataset at `uri` and returns the Dataset.

    data: a pandas DataFrame, a dict of columns, a list of row dicts, a lancet Table,
      RecordBatch, RecordBatchReader or Dataset, any object with ``__arrow_c_stream__``
      (streamed batch by batch, never held whole) or an iterator of chunks.
    mode: "create" (the dataset must not exist), "append" or "overwrite".
    blob_columns: binary columns to store as Blob V2 columns: a list of names, or a
      dict name → {"inline_max": .., "dedicated_min": .., "pack_file_max": ..} bytes.
    data_storage_version: "2.2" (default) or "2.3" (needed by `media`).
    media: {column: plugin library path}: blob values go through that media plugin
      (e.g. liblancet_video_ffmpeg.so), which makes extract_frames possible.
    """
    if mode not in ("create", "append", "overwrite"):
        raise ValueError(f"mode {mode!r}: expected 'create', 'append' or 'overwrite'")
    blobs = {}
    if blob_columns:
        items = blob_columns.items() if isinstance(blob_columns, dict) else ((c, None) for c in blob_columns)
        for column, t in items:
            t = t or {}
            blobs[column] = (t.get("inline_max"), t.get("dedicated_min"), t.get("pack_file_max"))
    version = data_storage_version or ("2.3" if media else "2.2")
    source = to_reader(data, schema)
    uri = os.fspath(uri)
    _lancet.write_dataset(uri, source, mode=mode, max_rows_per_file=max_rows_per_file,
                          enable_stable_row_ids=enable_stable_row_ids, storage_version=str(version),
                          blob_columns=blobs, storage_options=_options(storage_options) or {},
                          media={str(k): os.fspath(v) for k, v in (media or {}).items()},
                          max_commit_attempts=max_commit_attempts)
    return Dataset(_lancet.Dataset.open(uri, None, None, _options(storage_options)))
