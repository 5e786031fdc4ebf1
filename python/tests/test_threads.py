"""Reads and writes release the GIL: threads scan one dataset in parallel."""

import threading
import time

import numpy as np

import lancet


def test_concurrent_scans_and_takes(uri):
    ds = lancet.write_dataset({"id": np.arange(20000), "v": np.arange(20000) * 0.5}, uri, max_rows_per_file=5000)
    results, errors = [], []

    def work(k):
        try:
            for _ in range(5):
                total = sum(int(b.to_numpy("id").sum()) for b in ds.to_batches(batch_size=1000))
                taken = ds.take([k, 19999 - k]).column("id").tolist()
                results.append((total, taken, k))
        except Exception as e:  # surfaced below, with the thread's error
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 20
    assert all(total == 20000 * 19999 // 2 and taken == [k, 19999 - k] for total, taken, k in results)


def test_python_runs_while_a_write_decodes(uri):
    """A thread of pure Python keeps running while another thread writes: the writer
    does not hold the GIL."""
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    data = {"x": np.random.default_rng(0).random(3_000_000)}
    t = threading.Thread(target=ticker)
    t.start()
    start = time.perf_counter()
    lancet.write_dataset(data, uri)
    lancet.dataset(uri).to_table()
    end = time.perf_counter()
    stop.set()
    t.join()
    during = [x for x in ticks if start <= x <= end]
    # Lenient (a loaded machine oversleeps): a writer holding the GIL would allow none.
    assert len(during) >= 3


def test_threads_sharing_one_reader(uri):
    ds = lancet.write_dataset({"id": np.arange(10000)}, uri, max_rows_per_file=1000)
    reader = ds.scanner(batch_size=100).to_reader()
    seen, lock = [], threading.Lock()

    def drain():
        for batch in reader:
            with lock:
                seen.extend(batch.to_numpy("id").tolist())

    threads = [threading.Thread(target=drain) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(seen) == list(range(10000))
