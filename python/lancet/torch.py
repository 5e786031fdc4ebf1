"""PyTorch datasets over Lancet: video clips decoded through extract_frames, row batches.

    from torch.utils.data import DataLoader
    import lancet.torch
    clips = lancet.torch.FrameClips(ds, "video", clip_len=8, stride=4, size=(112, 112))
    for batch in DataLoader(clips, batch_size=4, num_workers=2):
        ...  # uint8 tensor (4, 8, 112, 112, 3)

A batch of clips (DataLoader with batch_size, through __getitems__) decodes its clips in
parallel over the cores, so even DataLoader(num_workers=0) uses the whole machine.

Both are safe with DataLoader(num_workers > 0): each worker process opens its own
dataset (the version the object was made from) on first use.
"""

import os
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import torch
from torch.utils.data import Dataset as _TorchDataset
from torch.utils.data import IterableDataset, get_worker_info

from .dataset import dataset as _open


class _Pinned:
    """A dataset version reopened once per process."""

    def __init__(self, ds, storage_options):
        self.uri, self.version, self.storage_options = ds.uri, ds.version, storage_options
        self._pid, self._ds = os.getpid(), ds

    def get(self):
        if self._pid != os.getpid() or self._ds is None:
            self._ds = _open(self.uri, version=self.version, storage_options=self.storage_options)
            self._pid = os.getpid()
        return self._ds

    def __getstate__(self):
        return {"uri": self.uri, "version": self.version, "storage_options": self.storage_options}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._pid, self._ds = None, None


class FrameClips(_TorchDataset):
    """Map-style dataset of clips: item i is a uint8 tensor (clip_len, H, W, C) of
    consecutive frames of one row's video, clips starting every `stride` frames.

    size: (height, width) to scale to, or None for the video's own size.
    rows: row ids to take clips from (default: every row with a video).
    exact: convert pixels bit-exactly (the same on every CPU, as extract_frames by
      default) instead of with libswscale's fast path (PyAV's default; about 3x cheaper
      conversion, pixels within a few levels of the exact ones).
    """

    def __init__(self, dataset, column, clip_len, stride=None, size=None, rows=None, pixel_format="rgb24",
                 storage_options=None, exact=False):
        if not isinstance(clip_len, int) or clip_len < 1:
            raise ValueError(f"clip_len must be a positive integer, got {clip_len!r}")
        stride = clip_len if stride is None else stride
        if not isinstance(stride, int) or stride < 1:
            raise ValueError(f"stride must be a positive integer, got {stride!r}")
        if size is not None and (len(size) != 2 or min(size) < 1):
            raise ValueError(f"size must be (height, width), got {size!r}")
        self.column, self.clip_len, self.size, self.pixel_format = column, clip_len, size, pixel_format
        self.exact = bool(exact)
        self._pool, self._pool_pid = None, None
        self._pinned = _Pinned(dataset, storage_options)
        if rows is None:
            ids = dataset.scanner(columns=[], with_row_id=True).to_table().column("_rowid")
            rows = np.asarray(ids, dtype=np.uint64)
        rows = np.asarray(rows, dtype=np.uint64).reshape(-1)
        starts, row_of = [], []
        for row, info in zip(rows.tolist(), dataset.video_info(column, ids=rows) if len(rows) else []):
            if info is None:
                continue
            n = (info["frame_count"] - clip_len) // stride + 1 if info["frame_count"] >= clip_len else 0
            starts.extend(range(0, n * stride, stride))
            row_of.extend([row] * n)
        self._rows = np.asarray(row_of, dtype=np.uint64)
        self._starts = np.asarray(starts, dtype=np.int64)

    def __len__(self):
        return len(self._rows)

    def clip(self, i):
        """(row id, first frame index) of clip i."""
        return int(self._rows[i]), int(self._starts[i])

    def __getitem__(self, i):
        return self._decode(self._checked(i), self._pinned.get())

    def __getitems__(self, indices):
        """The clips of a batch, decoded in parallel (extract_frames releases the GIL)."""
        indices = [self._checked(i) for i in indices]
        ds = self._pinned.get()
        if len(indices) < 2:
            return [self._decode(i, ds) for i in indices]
        return list(self._threads().map(lambda i: self._decode(i, ds), indices))

    def _checked(self, i):
        if not -len(self) <= i < len(self):
            raise IndexError(f"clip {i} of {len(self)}")
        return i % len(self)

    def _threads(self):
        # Per process (DataLoader workers are forked) and sized to this worker's share of
        # the cores, so workers x threads does not oversubscribe the machine.
        if self._pool is None or self._pool_pid != os.getpid():
            info = get_worker_info()
            share = max(1, (os.cpu_count() or 1) // (info.num_workers if info is not None else 1))
            self._pool, self._pool_pid = ThreadPoolExecutor(max_workers=share), os.getpid()
        return self._pool

    def _decode(self, i, ds):
        row, start = self.clip(i)
        height, width = self.size if self.size is not None else (0, 0)
        frames = ds.extract_frames(self.column, [row], frames=range(start, start + self.clip_len),
                                   pixel_format=self.pixel_format, width=width, height=height, exact=self.exact)[0]
        if len(frames) != self.clip_len:
            raise RuntimeError(f"row {row}: {len(frames)} frames decoded for a clip of {self.clip_len} at {start}")
        return _clip_tensor(frames)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_pool"], state["_pool_pid"] = None, None
        return state


def _clip_tensor(frames):
    """(T, H, W, C) over the decoder's output without copying when the frames lie back to
    back in it (they do: one buffer per extraction), else a stacked copy."""
    first = frames[0]
    step = first.nbytes
    base = first.__array_interface__["data"][0]
    if all(f.shape == first.shape and f.__array_interface__["data"][0] == base + k * step for k, f in enumerate(frames)):
        clip = np.lib.stride_tricks.as_strided(first, shape=(len(frames),) + first.shape,
                                               strides=(step,) + first.strides, writeable=False)
        # The buffer is this call's own decoder output, shared with nobody, so the
        # tensor may be written even though numpy marks the view read-only.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return torch.from_numpy(clip)
    return torch.from_numpy(np.stack(frames))


class Rows(IterableDataset):
    """Iterable dataset of row batches: dicts column → tensor (numbers, fixed-size lists
    as 2-D) or list (other types). With DataLoader workers, each reads its own share of
    the fragments; use DataLoader(batch_size=None) since batches come ready-made."""

    def __init__(self, dataset, columns=None, batch_size=1024, filter=None, storage_options=None):
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        self.columns, self.batch_size, self.filter = columns, batch_size, filter
        self._pinned = _Pinned(dataset, storage_options)
        self._fragments = [f["id"] for f in dataset.fragments()]

    def __iter__(self):
        info = get_worker_info()
        mine = self._fragments if info is None else self._fragments[info.id::info.num_workers]
        if not mine:
            return
        scanner = self._pinned.get().scanner(columns=self.columns, filter=self.filter, batch_size=self.batch_size,
                                             fragment_ids=mine)
        for batch in scanner.to_batches():
            yield {name: _tensor(batch, name) for name in batch.column_names}


def _tensor(batch, name):
    values = batch.to_numpy(name)
    # torch has no unsigned types past uint8; those stay numpy-converted lists.
    if values.dtype.kind in "bf" or values.dtype in (np.int8, np.int16, np.int32, np.int64, np.uint8):
        # A view of this batch's own scan output, which nothing else reads: writable in
        # practice though numpy marks the view read-only.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return torch.from_numpy(np.ascontiguousarray(values))
    return values.tolist()
