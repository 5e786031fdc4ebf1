"""Lancet datasets on Dask: read fragment by fragment, write partition by partition.

    import lancet.dask
    ddf = lancet.dask.read_lance("/data/t.lance", columns=["id", "x"], filter="x > 0")
    lancet.dask.to_lance(ddf, "/data/copy.lance")

Reads plan on the client (one partition per group of fragments, the filter pushed down
to every fragment's scan); writes run on the workers (each partition writes its data
files without committing) and the client commits all of them as one version, so a
failed or killed worker leaves no partial version behind.
"""

import os

import dask
import dask.dataframe as dd

from . import _lancet
from .dataset import _options, dataset
from .sources import to_reader


def _read_fragments(fragment_ids, uri, version, columns, filter, storage_options):
    ds = dataset(uri, version=version, storage_options=storage_options)
    return ds.scanner(columns=columns, filter=filter, fragment_ids=list(fragment_ids)).to_pandas()


def read_lance(uri, columns=None, filter=None, fragments_per_partition=1, version=None, storage_options=None):
    """A dask DataFrame of the dataset at `uri` (its latest version, or `version`).

    One partition per `fragments_per_partition` fragments; `columns` and `filter` (the
    SQL predicate of Dataset.scanner) are applied by each partition's scan. Every
    partition reads the version the call saw, whatever is committed meanwhile.
    """
    if not isinstance(fragments_per_partition, int) or fragments_per_partition < 1:
        raise ValueError(f"fragments_per_partition must be a positive integer, got {fragments_per_partition!r}")
    uri = os.fspath(uri)
    ds = dataset(uri, version=version, storage_options=storage_options)
    meta = ds.scanner(columns=columns, filter=filter, limit=0).to_pandas()
    ids = [f["id"] for f in ds.fragments()]
    if not ids:
        return dd.from_pandas(meta, npartitions=1)
    groups = [tuple(ids[i:i + fragments_per_partition]) for i in range(0, len(ids), fragments_per_partition)]
    return dd.from_map(_read_fragments, groups, uri=uri, version=ds.version, columns=columns, filter=filter,
                       storage_options=storage_options, meta=meta, label="read-lance", enforce_metadata=False)


def _write_partition(pdf, uri, mode, schema, max_rows_per_file, storage_options):
    if len(pdf) == 0:
        return None
    written, _, _ = _lancet.write_fragments(uri, to_reader(pdf, schema), mode=mode,
                                            max_rows_per_file=max_rows_per_file,
                                            storage_options=_options(storage_options) or {})
    return written


def _client():
    try:
        from distributed import get_client
        return get_client()
    except (ImportError, ValueError):
        return None


def to_lance(ddf, uri, mode="create", schema=None, max_rows_per_file=1024 * 1024, enable_stable_row_ids=False,
             storage_options=None):
    """Writes every partition of `ddf` to the dataset at `uri` as one new version.

    mode: "create", "append" or "overwrite". Each partition's rows become fragments on
    the worker that computed it; the client then commits them in one transaction and
    returns the new Dataset. If any partition fails, nothing is committed and the data
    files the others wrote are removed (where the scheduler reports which finished).
    `schema` (a lancet Schema) fixes the column types where partitions would infer
    different ones (e.g. a column that is all None in one partition).
    """
    if mode not in ("create", "append", "overwrite"):
        raise ValueError(f"mode {mode!r}: expected 'create', 'append' or 'overwrite'")
    uri = os.fspath(uri)
    options = _options(storage_options) or {}
    tasks = [dask.delayed(_write_partition)(part, uri, mode, schema, max_rows_per_file, storage_options)
             for part in ddf.to_delayed()]
    client = _client()
    if client is None:
        parts = dask.compute(*tasks)
    else:
        from distributed import wait
        futures = client.compute(tasks)
        wait(futures)
        failed = [f for f in futures if f.status != "finished"]
        if failed:
            done = [p for p in client.gather([f for f in futures if f.status == "finished"]) if p is not None]
            if done:
                _lancet.abort_fragments(uri, done, storage_options=options)
            raise failed[0].exception()
        parts = client.gather(futures)
    parts = [p for p in parts if p is not None]
    if not parts and mode != "append":
        raise ValueError(f"{uri}: every partition is empty; nothing to {mode}")
    if parts:
        _lancet.commit_fragments(uri, parts, mode=mode, enable_stable_row_ids=enable_stable_row_ids,
                                 storage_options=options)
    return dataset(uri, storage_options=storage_options)
