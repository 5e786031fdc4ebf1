"""Datasets: open, scan, take, blobs, frames, and the writes that make new versions."""

import datetime
import os
import re

import numpy as np

from . import _lancet
from .blob import BlobFile
from .frame import to_dataframe
from .media import frames_from_rows
from .sources import to_reader
from .table import RecordBatch, RecordBatchReader, Table


def dataset(uri, version=None, tag=None, storage_options=None):
    """Opens the Lance dataset at `uri` (a directory, file:// or s3:// URI).

    `version` (a number) or `tag` (a name) opens that version instead of the latest.
    Raises lancet.NotFoundError (a FileNotFoundError) if there is no dataset there.
    """
    if version is not None and tag is not None:
        raise ValueError("give version or tag, not both")
    if isinstance(version, str):
        tag, version = version, None
    handle = _lancet.Dataset.open(os.fspath(uri), version, tag, _options(storage_options))
    return Dataset(handle)


def _options(storage_options):
    return {str(k): str(v) for k, v in storage_options.items()} if storage_options else None


class Dataset:
    """One version of a Lance dataset. Writes through it move it to the version they make."""

    def __init__(self, handle):
        self._handle = handle
        self._addresses = {}

    # ---- what the version holds ---------------------------------------------------

    @property
    def uri(self):
        return self._handle.uri

    @property
    def version(self):
        return self._handle.version

    @property
    def latest_version(self):
        return self._handle.latest().version

    @property
    def schema(self):
        """The logical schema (blob columns as struct<data, uri> with lance.blob.v2)."""
        return self._handle.schema

    @property
    def stable_row_ids(self):
        return self._handle.stable_row_ids

    def versions(self):
        """Every version: dicts of version, timestamp (UTC datetime) and num_rows."""
        out = []
        for v in self._handle.versions():
            ts = datetime.datetime.fromtimestamp(v["timestamp_ms"] / 1000, tz=datetime.timezone.utc)
            out.append({"version": v["version"], "timestamp": ts, "num_rows": v["num_rows"]})
        return out

    def checkout_version(self, version):
        """Another version of the same dataset: a number or a tag name."""
        if isinstance(version, str):
            return Dataset(self._handle.checkout_tag(version))
        return Dataset(self._handle.checkout(int(version)))

    @property
    def tags(self):
        """The dataset's tags, as pylance's ``ds.tags``: list(), create(), delete()."""
        return Tags(self)

    @property
    def data_storage_version(self):
        """The data file format version, e.g. "2.2"."""
        return self._handle.describe().get("data_format", "").replace("lance ", "")

    def restore(self, version=None):
        """Makes this version (or `version`) the latest again, as a new version."""
        v = _lancet.restore(self._handle, self.version if version is None else int(version))
        self._moved_to(v)

    def fragments(self):
        """The version's fragments: dicts of id, physical_rows, deleted_rows, num_rows, files."""
        return self._handle.fragments()

    def describe(self):
        return self._handle.describe()

    def count_rows(self, filter=None):
        return self._handle.count_rows(filter)

    def __len__(self):
        return self.count_rows()

    def __repr__(self):
        return f"lancet.Dataset({self.uri!r}, version={self.version})\n{self.schema}"

    # ---- reading ----------------------------------------------------------------

    def scanner(self, columns=None, filter=None, limit=None, offset=None, batch_size=None, with_row_id=False,
                with_row_address=False, fragment_ids=None, batch_readahead=None, io_parallelism=None, nearest=None,
                full_text_query=None):
        """A Scanner over the rows that pass `filter` (SQL-like, see docs/filters.md).

        nearest: {"column": .., "q": vector (or a list of them), "k": 10, "metric": "l2",
          "nprobes": .., "refine_factor": .., "ef": .., "use_index": True,
          "prefilter": True}: the k nearest rows (through a vector index where one
          exists), with a ``_distance`` column.
        full_text_query: a string, or {"query": .., "column": ..}: the best BM25 matches
          (limit of them, default 10), with a ``_score`` column.
        """
        return Scanner(self, columns=columns, filter=filter, limit=limit, offset=offset, batch_size=batch_size,
                       with_row_id=with_row_id, with_row_address=with_row_address, fragment_ids=fragment_ids,
                       batch_readahead=batch_readahead, io_parallelism=io_parallelism, nearest=nearest,
                       full_text_query=full_text_query)

    def create_index(self, column, index_type, name=None, metric=None, replace=True, **params):
        """Builds an index on `column` and commits it (a new version), as pylance does:
        index_type "BTREE", "BITMAP", "LABEL_LIST", "ZONEMAP", "BLOOMFILTER", "NGRAM",
        "IVF_FLAT", "IVF_PQ", "IVF_SQ", "IVF_HNSW_SQ", ... or "INVERTED"/"FTS"; params
        are the type's (num_partitions=, num_sub_vectors=, with_position=, ...)."""
        name = _lancet.create_index(self._handle, column, str(index_type).lower(), name=name or "", replace=replace,
                                    params={k: _param(v) for k, v in params.items()}, metric=(metric or "").lower())
        self._moved_to(self.latest_version)
        return name

    def create_scalar_index(self, column, index_type="BTREE", name=None, replace=True, **params):
        return self.create_index(column, index_type, name=name, replace=replace, **params)

    def list_indices(self):
        """Dicts of name, type, column, num_segments, num_indexed_rows, num_unindexed_rows."""
        return _lancet.list_indices(self._handle)

    def to_batches(self, **scan_args):
        return self.scanner(**scan_args).to_batches()

    def to_table(self, **scan_args):
        return self.scanner(**scan_args).to_table()

    def to_pandas(self, **scan_args):
        return self.scanner(**scan_args).to_pandas()

    def head(self, n=5, **scan_args):
        return self.scanner(limit=n, **scan_args).to_table()

    def __arrow_c_stream__(self, requested_schema=None):
        return self.scanner().__arrow_c_stream__(requested_schema)

    def take(self, indices, columns=None):
        """Rows by position (0 .. count_rows() - 1, in scan order), in the order given."""
        return self._take(self._indices_to_addresses(indices), columns, by_address=True)

    def _take_rows(self, row_ids, columns=None):
        """Rows by row id (the ``_rowid`` a scan with with_row_id=True gives)."""
        return self._take(np.asarray(row_ids, dtype=np.uint64), columns, by_address=False)

    def _take(self, keys, columns, by_address):
        columns = [columns] if isinstance(columns, str) else columns
        return Table([RecordBatch(self._handle.take(keys, columns, by_address))])

    def _indices_to_addresses(self, indices):
        """Row positions → row addresses ((fragment id << 32) | offset in the fragment).

        A fragment without deletions maps by arithmetic; one with deletions reads its
        row addresses once per dataset version.
        """
        idx = np.asarray(indices, dtype=np.int64).reshape(-1)
        frags = self._handle.fragments()
        counts = np.array([f["num_rows"] for f in frags], dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(counts)])
        total = int(starts[-1])
        if idx.size and (idx.min() < 0 or idx.max() >= total):
            bad = int(idx[(idx < 0) | (idx >= total)][0])
            raise IndexError(f"row index {bad} out of range: the dataset has {total} rows")
        which = np.searchsorted(starts, idx, side="right") - 1
        local = (idx - starts[which]).astype(np.uint64)
        ids = np.array([f["id"] for f in frags], dtype=np.uint64)
        out = (ids[which] << np.uint64(32)) | local if idx.size else np.empty(0, dtype=np.uint64)
        for k in np.unique(which) if idx.size else []:
            if frags[k]["deleted_rows"]:
                sel = which == k
                out[sel] = self._fragment_addresses(int(frags[k]["id"]))[local[sel].astype(np.int64)]
        return out

    def _fragment_addresses(self, fragment_id):
        key = (self.version, fragment_id)
        if key not in self._addresses:
            scan = self._handle.scan(columns=["_rowaddr"], fragment_ids=[fragment_id])
            parts = [np.array(RecordBatch(b).to_numpy(0), dtype=np.uint64) for b in scan]
            self._addresses[key] = np.concatenate(parts) if parts else np.empty(0, dtype=np.uint64)
        return self._addresses[key]

    def _blob_keys(self, ids, addresses, indices):
        given = [x is not None for x in (ids, addresses, indices)]
        if sum(given) != 1:
            raise ValueError("give exactly one of ids, addresses or indices")
        if ids is not None:
            return np.asarray(ids, dtype=np.uint64).reshape(-1), False
        if addresses is not None:
            return np.asarray(addresses, dtype=np.uint64).reshape(-1), True
        return self._indices_to_addresses(indices), True

    def take_blobs(self, column, ids=None, addresses=None, indices=None):
        """The bytes of blob column `column` at the rows given by row id, position or
        address: a list of bytes (None for a null blob)."""
        keys, by_address = self._blob_keys(ids, addresses, indices)
        return self._handle.take_blobs(column, keys, by_address)

    def blob_files(self, column, ids=None, addresses=None, indices=None):
        """File-like objects (io.RawIOBase) over blobs, read lazily by ranges: a list
        with None for a null blob. Usable wherever a binary file is (av.open, PIL)."""
        keys, by_address = self._blob_keys(ids, addresses, indices)
        out = []
        for key in keys.tolist():
            try:
                out.append(BlobFile(_lancet.open_blob(self._handle, column, key, by_address)))
            except FileNotFoundError:
                raise
            except ValueError as e:
                if "is null" in str(e):
                    out.append(None)
                else:
                    raise
        return out

    def video_info(self, column, ids=None, addresses=None, indices=None):
        """Per row of a video column (ingested through the video plugin), a dict of
        frame_count, fps, duration, width, height, codec and gop_count read from its
        blob_info, without decoding; None for a null video."""
        keys, by_address = self._blob_keys(ids, addresses, indices)
        return _lancet.video_info(self._handle, column, keys.tolist(), by_address)

    def extract_frames(self, column, rows, window=None, frames=None, timestamps=None, keyframes_only=False,
                       pixel_format="rgb24", width=0, height=0, plugin=None, rows_are="ids", exact=True):
        """Decodes video frames of rows of a column ingested through the video plugin.

        Select frames with exactly one of window=(t0, t1) (seconds, [t0, t1)),
        frames=[i, ...] (indices in presentation order) or timestamps=[t, ...] (the
        frame shown at each time). Returns one entry per row: None for a null video,
        else a FrameList of numpy uint8 arrays (height, width, channels) with .indices,
        .pts and .times. `rows` are row ids (rows_are="ids") or positions ("indices").
        The plugin is the one the column was ingested with, or `plugin` (a path).
        exact=False converts with libswscale's fast path (PyAV's default): about 3x
        cheaper, pixels within a few levels of the bit-exact default's.
        """
        chosen = [x is not None for x in (window, frames, timestamps)]
        if sum(chosen) != 1:
            raise ValueError("give exactly one of window, frames or timestamps")
        if rows_are == "ids":
            keys, by_address = np.asarray(rows, dtype=np.uint64).reshape(-1), False
        elif rows_are == "indices":
            keys, by_address = self._indices_to_addresses(rows), True
        else:
            raise ValueError("rows_are must be 'ids' or 'indices'")
        library = plugin if plugin is not None else _column_plugin(self.schema, column)
        args = dict(keyframes_only=keyframes_only, pixel_format=pixel_format, width=width, height=height,
                    by_address=by_address, exact=bool(exact))
        if window is not None:
            t0, t1 = window
            got = _lancet.extract_frames(self._handle, column, keys.tolist(), library, "window", t0=float(t0),
                                         t1=float(t1), **args)
        elif frames is not None:
            got = _lancet.extract_frames(self._handle, column, keys.tolist(), library, "frames",
                                         frames=[int(f) for f in frames], **args)
        else:
            got = _lancet.extract_frames(self._handle, column, keys.tolist(), library, "timestamps",
                                         timestamps=[float(t) for t in timestamps], **args)
        return frames_from_rows(got)

    # ---- writing ----------------------------------------------------------------

    def _moved_to(self, version):
        self._handle = self._handle.checkout(version) if version != self.version else self._handle

    def insert(self, data, mode="append", schema=None, **write_args):
        """Appends `data` (anything write_dataset takes), or overwrites with mode="overwrite".

        Writes with the storage_options the dataset was opened with unless given others."""
        from .write import write_dataset

        write_args.setdefault("storage_options", self._handle.storage_options)
        ds = write_dataset(data, self.uri, schema=schema, mode=mode, **write_args)
        self._handle = ds._handle

    def delete(self, predicate):
        """Deletes the rows where `predicate` (SQL-like) is true; a new version."""
        self._moved_to(_lancet.delete_where(self._handle, predicate))

    def update(self, updates, where=None):
        """Sets columns on the rows where `where` is true (every row without it).

        `updates` maps column names to SQL expressions over the old values
        ("price * 2", "'text'"; a str is always an expression) or to Python values
        (numbers, bool, None).
        Returns {"num_rows_updated": n}.
        """
        pairs = [(name, _sql_value(v)) for name, v in updates.items()]
        version, rows = _lancet.update(self._handle, where or "", pairs)
        self._moved_to(version)
        return {"num_rows_updated": rows}

    def merge_insert(self, on):
        """A MergeInsertBuilder keyed on column(s) `on`, as in pylance:
        ``ds.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(data)``."""
        return MergeInsertBuilder(self, [on] if isinstance(on, str) else list(on))


class Tags:
    """Named versions of a dataset (shared by all its versions and handles)."""

    def __init__(self, dataset):
        self._dataset = dataset

    def list(self):
        """Tag name → {"version": version}."""
        return {name: {"version": v} for name, v in self._dataset._handle.tags().items()}

    def create(self, tag, version=None):
        """Tags `version` (default: the dataset's). FileExistsError if the tag exists."""
        v = self._dataset.version if version is None else int(version)
        _lancet.create_tag(self._dataset._handle, tag, v)

    def delete(self, tag):
        _lancet.delete_tag(self._dataset._handle, tag)

    def __repr__(self):
        return f"lancet.Tags({self.list()})"


def _param(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _sql_value(v):
    """Update values: strings are SQL expressions (as in pylance); other values literals."""
    if isinstance(v, str):
        return v
    if v is None:
        return "NULL"
    if isinstance(v, (bool, np.bool_)):
        return "TRUE" if v else "FALSE"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    raise TypeError(f"cannot write {type(v).__name__} as an SQL literal; pass an SQL expression string")


_PLUGIN_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def _column_plugin(schema, column):
    """The library of the plugin `column` was ingested with, looked up (by its untrusted
    name) only in LANCET_PLUGIN_DIR and this build's or this install's plugin directory."""
    i = schema.field_index(column)
    if i < 0:
        raise ValueError(f"no column '{column}' (columns: {', '.join(schema.names)})")
    raw = schema.fields[i].metadata.get("lancet:media-plugin")
    if raw is None:
        raise ValueError(f"column '{column}' records no media plugin (it was not ingested through one); "
                         "pass plugin=PATH")
    name = raw.decode("utf-8", "replace")
    if not _PLUGIN_NAME.match(name):
        raise ValueError(f"the dataset names its plugin {name!r}, which is not a plugin name; pass plugin=PATH")
    dirs = [d for d in os.environ.get("LANCET_PLUGIN_DIR", "").split(os.pathsep) if d]
    package = os.path.dirname(os.path.realpath(_lancet.__file__))
    dirs += [os.path.normpath(os.path.join(package, d)) for d in _lancet._plugin_dirs]
    for d in dirs:
        path = os.path.join(d, f"liblancet_{name}.so")
        if d and os.path.isfile(path):
            return path
    raise FileNotFoundError(f"plugin '{name}' (liblancet_{name}.so) is in none of {[d for d in dirs if d]}; "
                            "set LANCET_PLUGIN_DIR or pass plugin=PATH")


class Scanner:
    """A planned scan. Each to_* call reads the dataset anew (streaming)."""

    def __init__(self, dataset, **options):
        self._dataset = dataset
        columns = options.get("columns")
        self._options = dict(
            columns=[columns] if isinstance(columns, str) else (list(columns) if columns is not None else None),
            filter=options.get("filter") or None,
            limit=options.get("limit"),
            offset=options.get("offset"),
            batch_size=options.get("batch_size"),
            with_row_id=bool(options.get("with_row_id")),
            with_row_addr=bool(options.get("with_row_address")),
            fragment_ids=options.get("fragment_ids"),
            io_parallelism=options.get("io_parallelism"),
            batch_readahead=options.get("batch_readahead"),
        )
        self._nearest = options.get("nearest")
        self._text = options.get("full_text_query")
        if self._nearest is not None and self._text is not None:
            raise ValueError("give nearest or full_text_query, not both")
        if self._nearest is not None and not isinstance(self._nearest, dict):
            raise ValueError("nearest must be a dict with at least 'q'")
        for key in ("limit", "offset", "batch_size"):
            value = self._options[key]
            if value is not None and (not isinstance(value, (int, np.integer)) or value < 0):
                raise ValueError(f"{key} must be a non-negative integer, got {value!r}")

    def to_reader(self):
        """A RecordBatchReader: batches are read and decoded as it is iterated."""
        return RecordBatchReader(self._open())

    def to_batches(self):
        """An iterator of RecordBatch, streamed; stopping early ends the scan."""
        return _batches(self._open())

    def to_table(self):
        reader = self._open()
        return Table([RecordBatch(b) for b in reader], reader.schema)

    def to_pandas(self):
        """A pandas DataFrame. Without a filter the row count is known up front, and
        batches are converted (copied into pandas' blocks) as the scan streams them."""
        reader = self._open()
        try:
            return to_dataframe(reader.schema, (RecordBatch(b) for b in reader), self._known_rows())
        finally:
            reader.close()

    def _open(self):
        o = self._options
        if self._nearest is None and self._text is None:
            return self._dataset._handle.scan(**o)
        common = dict(columns=o["columns"], filter=o["filter"], offset=o["offset"] or 0, with_row_id=o["with_row_id"])
        if self._nearest is not None:
            n = dict(self._nearest)
            q = np.asarray(n.pop("q"), dtype=np.float32)
            vectors = q.reshape(1, -1) if q.ndim == 1 else q
            prefilter = n.pop("prefilter", True)
            unknown = set(n) - {"column", "k", "metric", "nprobes", "refine_factor", "ef", "use_index"}
            if unknown:
                raise ValueError(f"nearest: unknown keys {sorted(unknown)}")
            return _lancet.vector_search(self._dataset._handle, column=n.get("column") or "",
                                         vectors=vectors.tolist(), k=int(n.get("k", o["limit"] or 10)),
                                         metric=(n.get("metric") or "").lower(), nprobes=int(n.get("nprobes") or 0),
                                         refine_factor=n.get("refine_factor"), ef=int(n.get("ef") or 0),
                                         use_index=bool(n.get("use_index", True)), postfilter=not prefilter,
                                         **common)
        text, column = (self._text, "") if isinstance(self._text, str) else (self._text["query"],
                                                                              self._text.get("column", ""))
        return _lancet.text_search(self._dataset._handle, column=column, text=text, k=int(o["limit"] or 10), **common)

    def _known_rows(self):
        """The rows the scan will give, when the manifest alone says (no filter)."""
        o = self._options
        if o["filter"] or self._nearest is not None or self._text is not None:
            return None
        fragments = self._dataset.fragments()
        if o["fragment_ids"] is not None:
            wanted = set(o["fragment_ids"])
            fragments = [f for f in fragments if f["id"] in wanted]
        rows = max(0, sum(f["num_rows"] for f in fragments) - (o["offset"] or 0))
        return rows if o["limit"] is None else min(rows, o["limit"])

    def count_rows(self):
        if self._nearest is not None or self._text is not None:
            return sum(b.num_rows for b in self._open())
        reader = self._dataset._handle.scan(**dict(self._options, columns=["_rowaddr"]))
        return sum(b.num_rows for b in reader)

    @property
    def projected_schema(self):
        reader = self._dataset._handle.scan(**dict(self._options, limit=0))
        schema = reader.schema
        reader.close()
        return schema

    def __arrow_c_stream__(self, requested_schema=None):
        return self._open().__arrow_c_stream__(requested_schema)


def _batches(reader):
    try:
        for b in reader:
            yield RecordBatch(b)
    finally:
        reader.close()


class MergeInsertBuilder:
    """Upserts rows by key, as pylance's merge_insert. Unmatched source rows are
    inserted and matched ones left alone unless the calls below say otherwise."""

    def __init__(self, dataset, on):
        self._dataset = dataset
        self._on = on
        self._matched = "do_nothing"
        self._update_columns = []
        self._matched_condition = ""
        self._not_matched = "insert"
        self._by_source = "keep"
        self._by_source_condition = ""

    def when_matched_update_all(self, condition=None):
        self._matched = "update_all"
        self._matched_condition = condition or ""
        return self

    def when_matched_update_columns(self, columns, condition=None):
        self._matched = "update_columns"
        self._update_columns = list(columns)
        self._matched_condition = condition or ""
        return self

    def when_not_matched_insert_all(self):
        self._not_matched = "insert"
        return self

    def when_not_matched_skip(self):
        self._not_matched = "skip"
        return self

    def when_not_matched_by_source_delete(self, expr=None):
        self._by_source = "delete"
        self._by_source_condition = expr or ""
        return self

    def execute(self, data, schema=None):
        """Merges `data` (anything write_dataset takes, streamed) and commits one version.

        Returns num_inserted_rows, num_updated_rows and num_deleted_rows."""
        source = to_reader(data, schema)
        stats = _lancet.merge_insert(self._dataset._handle, source, self._on, self._matched, self._update_columns,
                                     self._matched_condition, self._not_matched, self._by_source,
                                     self._by_source_condition)
        self._dataset._moved_to(stats.pop("version"))
        return stats
