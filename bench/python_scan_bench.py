#!/usr/bin/env python3
"""to_pandas() against the C++ scan of the same data: the cost of the Python layer.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_scan_bench.py [DATASET] [--rows N] [--reps R]

Without DATASET, writes a dataset of N rows to a temp dir: numeric columns (ints,
floats with some nulls) and a 16-wide float32 vector column. The C++ scan is the same
scan drained batch by batch without converting anything (decoding with the GIL released,
as in to_pandas). Prints the medians and their ratio for the numeric columns (the target
is to_pandas <= 1.5x the scan) and, for information, for the vector column alone: pandas
holds one numpy row view per row there, which no columnar layout avoids.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np

import lancet


def make_dataset(path, rows):
    rng = np.random.default_rng(7)
    value = rng.random(rows)
    value[::97] = np.nan
    data = {
        "id": np.arange(rows, dtype=np.int64),
        "category": rng.integers(0, 16, rows, dtype=np.int32),
        "value": value,
        "count": rng.integers(0, 1 << 40, rows, dtype=np.int64),
        "embedding": rng.random((rows, 16), dtype=np.float32),
    }
    return lancet.write_dataset(data, path, max_rows_per_file=256 * 1024)


def median_seconds(fn, reps):
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(ds, columns, rows, reps):
    def cpp_scan():
        n = 0
        for batch in ds._handle.scan(columns=columns):
            n += batch.num_rows
        assert n == rows

    def to_pandas():
        assert len(ds.to_pandas(columns=columns)) == rows

    cpp_scan()  # warm the page cache and the allocator for both
    to_pandas()
    return median_seconds(cpp_scan, reps), median_seconds(to_pandas, reps)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dataset", nargs="?")
    p.add_argument("--rows", type=int, default=2_000_000)
    p.add_argument("--reps", type=int, default=5)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ds = lancet.dataset(args.dataset) if args.dataset else make_dataset(os.path.join(tmp, "bench.lance"),
                                                                            args.rows)
        rows = ds.count_rows()
        vectors = [f.name for f in ds.schema.fields if f.type.name == "fixed_size_list"]
        numeric = [f.name for f in ds.schema.fields if f.name not in vectors]
        groups = [("numeric", numeric)] + ([("vector", vectors)] if vectors else [])
        for label, columns in groups:
            scan_s, pandas_s = measure(ds, columns, rows, args.reps)
            print(f"{label} columns {columns}: rows={rows} C++ scan {scan_s * 1e3:.1f} ms, to_pandas "
                  f"{pandas_s * 1e3:.1f} ms, ratio {pandas_s / scan_s:.2f}x" +
                  (" (target <= 1.5x)" if label == "numeric" else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
