#!/usr/bin/env python3
"""Peak RSS of a scan from Python over a dataset larger than the scan should ever hold.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_scan_memory.py [--gb 10] [--dir DIR]

Writes GB gigabytes (float64 columns, streamed from a generator, so the write holds one
chunk), then drains ds.to_batches() and ds.scanner().to_reader() summing one column.
Prints the peak RSS of each phase (VmHWM, reset between phases through
/proc/self/clear_refs; it counts the data files' pages mapped by the reads, kept within
the resident budget of src/io/mapped_pages.h) and the largest anonymous memory (RssAnon,
sampled after every batch): bounded means both stay flat whatever GB is.
"""

import argparse
import os
import shutil
import tempfile
import time

import numpy as np

import lancet

CHUNK_ROWS = 1 << 17
COLUMNS = 8  # float64: 64 bytes a row


def peak_mib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def rss_anon_mib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def reset_peak():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def chunks(rows):
    rng = np.random.default_rng(1)
    done = 0
    while done < rows:
        n = min(CHUNK_ROWS, rows - done)
        yield {f"c{i}": rng.random(n) for i in range(COLUMNS)}
        done += n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gb", type=float, default=10.0)
    ap.add_argument("--dir", default=None, help="where to write (default: a temp dir, removed after)")
    args = ap.parse_args()
    rows = int(args.gb * (1 << 30) / (8 * COLUMNS))
    base = args.dir or tempfile.mkdtemp(prefix="lancet-scan-memory-")
    uri = os.path.join(base, "big.lance")
    try:
        t0 = time.perf_counter()
        reset_peak()
        ds = lancet.write_dataset(chunks(rows), uri, max_rows_per_file=1 << 20)
        print(f"write {args.gb:.1f} GB ({rows} rows): {time.perf_counter() - t0:.1f} s, peak RSS {peak_mib():.0f} MiB")
        for name, batches in (("to_batches", lambda: ds.to_batches(columns=["c0", "c1"])),
                              ("all columns", lambda: ds.scanner().to_reader())):
            reset_peak()
            t0 = time.perf_counter()
            total, seen, anon = 0.0, 0, 0.0
            for b in batches():
                total += float(b.to_numpy("c0").sum())
                seen += b.num_rows
                anon = max(anon, rss_anon_mib())
            assert seen == rows
            print(f"scan {name}: {time.perf_counter() - t0:.1f} s, peak RSS {peak_mib():.0f} MiB, "
                  f"largest RssAnon {anon:.0f} MiB")
    finally:
        if args.dir is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
