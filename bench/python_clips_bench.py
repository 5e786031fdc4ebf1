#!/usr/bin/env python3
"""Clips/s through lancet.torch.FrameClips against PyAV decoding the same clips from the
original MP4 files on disk (the usual alternative), in the same run.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_clips_bench.py [--videos N] [--clips K]

Makes N videos with the ffmpeg CLI (10 s, 320x240, 30 fps, H.264, a keyframe every 2 s),
ingests them through the video plugin, then reads the same K random clips of 16 frames
(RGB24, full size) both ways, one process, best of 3: FrameClips (one range read and a
decode from the keyframe before the clip) and PyAV (open the file, seek to the clip's
time, decode until its 16 frames, to_ndarray). Two ways of asking:

- one clip at a time (clips[i] in a loop), FrameClips with its default fast conversion
  and with exact=True (bit-exact pixels; PyAV has no such mode);
- a DataLoader(batch_size=8, num_workers=0) over each, the usual training loop: FrameClips
  decodes a batch's clips in parallel over the cores, PyAV's dataset one after another;
- the same with num_workers=2, where both use every core (worker start-up included).

Prints clips/s for each and the ratios.
"""

import argparse
import gc
import os
import random
import subprocess
import sys
import tempfile
import time

import av
import numpy as np

import torch
from torch.utils.data import DataLoader

import lancet
import lancet.torch

HERE = os.path.dirname(os.path.abspath(__file__))
PLUGIN = os.path.join(os.environ.get("LANCET_BUILD_DIR", os.path.join(HERE, "..", "build")), "plugins",
                      "liblancet_video_ffmpeg.so")
CLIP = 16
BATCH = 8


def make_videos(d, n):
    paths = []
    for i in range(n):
        p = os.path.join(d, f"v{i}.mp4")
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                        f"testsrc2=size=320x240:rate=30:duration=10,hue=h={i * 30}", "-c:v", "libx264", "-preset",
                        "veryfast", "-pix_fmt", "yuv420p", "-g", "60", "-bf", "0", p], check=True)
        paths.append(p)
    return paths


def pyav_clip(path, start):
    with av.open(path) as c:
        s = c.streams.video[0]
        rate = s.average_rate
        target = int(start / rate / s.time_base)
        c.seek(target, stream=s, backward=True)
        out = []
        for f in c.decode(s):
            if f.pts < target:
                continue
            out.append(f.to_ndarray(format="rgb24"))
            if len(out) == CLIP:
                break
        return np.stack(out)


class PyAvClips(torch.utils.data.Dataset):
    """What a user writes without Lancet: a map-style dataset decoding from the MP4s."""

    def __init__(self, clips, row_path):
        self.clips, self.row_path = clips, row_path

    def __len__(self):
        return len(self.clips)

    def __getitem__(self, i):
        row, start = self.clips.clip(i)
        return torch.from_numpy(pyav_clip(self.row_path[row], start))


def loader_rate(dataset, picks, workers=0, reps=3):
    best = 0.0
    for _ in range(reps):
        # PyAV containers left in reference cycles would be collected in the forked
        # workers, where closing their decoders joins threads that only the parent has.
        gc.collect()
        t0 = time.perf_counter()
        n = 0
        for batch in DataLoader(dataset, batch_size=BATCH, sampler=picks, num_workers=workers):
            n += batch.shape[0]
        best = max(best, n / (time.perf_counter() - t0))
    return best


def best_rate(fn, clips, reps=3):
    best = 0.0
    for _ in range(reps):
        t0 = time.perf_counter()
        for c in clips:
            fn(c)
        best = max(best, len(clips) / (time.perf_counter() - t0))
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--videos", type=int, default=8)
    ap.add_argument("--clips", type=int, default=128)
    args = ap.parse_args()
    if not os.path.isfile(PLUGIN):
        sys.exit(f"python_clips_bench: no video plugin at {PLUGIN} (build lancet_video_ffmpeg, or set LANCET_BUILD_DIR)")
    with tempfile.TemporaryDirectory() as d:
        paths = make_videos(d, args.videos)
        schema = lancet.schema([lancet.field("id", lancet.types.int64()), lancet.blob_field("video", inline_max=0)])
        ds = lancet.write_dataset({"id": np.arange(len(paths)), "video": [open(p, "rb").read() for p in paths]},
                                  os.path.join(d, "v.lance"), schema=schema, media={"video": PLUGIN})
        clips = lancet.torch.FrameClips(ds, "video", clip_len=CLIP, stride=CLIP)
        picks = random.Random(7).sample(range(len(clips)), min(args.clips, len(clips)))
        row_path = {int(r): p for r, p in zip(ds.scanner(columns=[], with_row_id=True).to_table().column("_rowid"),
                                              paths)}
        # The same frames both ways (checked on one clip) before timing.
        row, start = clips.clip(picks[0])
        assert clips[picks[0]].shape == pyav_clip(row_path[row], start).shape
        exact = lancet.torch.FrameClips(ds, "video", clip_len=CLIP, stride=CLIP, exact=True)
        pyav = PyAvClips(clips, row_path)
        ours = best_rate(lambda i: clips[i], picks)
        ours_exact = best_rate(lambda i: exact[i], picks)
        theirs = best_rate(lambda i: pyav[i], picks)
        ours_loader = loader_rate(clips, picks)
        theirs_loader = loader_rate(pyav, picks)
        ours_workers = loader_rate(clips, picks, workers=2)
        theirs_workers = loader_rate(pyav, picks, workers=2)
        print(f"clips of {CLIP} frames, 320x240 RGB24, {len(picks)} random clips of {len(clips)}, "
              f"{os.cpu_count()} cores:")
        print("  one clip at a time:")
        print(f"    lancet FrameClips            {ours:8.1f} clips/s")
        print(f"    lancet FrameClips exact=True {ours_exact:8.1f} clips/s")
        print(f"    PyAV from the MP4s           {theirs:8.1f} clips/s")
        print(f"    ratio                        {ours / theirs:8.2f} (exact: {ours_exact / theirs:.2f})")
        print(f"  DataLoader(batch_size={BATCH}, num_workers=0):")
        print(f"    lancet FrameClips            {ours_loader:8.1f} clips/s")
        print(f"    PyAV from the MP4s           {theirs_loader:8.1f} clips/s")
        print(f"    ratio                        {ours_loader / theirs_loader:8.2f} (target >= 2)")
        print(f"  DataLoader(batch_size={BATCH}, num_workers=2):")
        print(f"    lancet FrameClips            {ours_workers:8.1f} clips/s")
        print(f"    PyAV from the MP4s           {theirs_workers:8.1f} clips/s")
        print(f"    ratio                        {ours_workers / theirs_workers:8.2f}")


if __name__ == "__main__":
    main()
