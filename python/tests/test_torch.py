"""lancet.torch: clips through extract_frames and row batches, in DataLoader workers."""

import io

import numpy as np
import pytest

import lancet

torch = pytest.importorskip("torch")
from torch.utils.data import DataLoader  # noqa: E402

import lancet.torch  # noqa: E402

av = pytest.importorskip("av")


@pytest.fixture
def videos(tmp_path, small_mp4, video_plugin):
    schema = lancet.schema([lancet.field("id", lancet.types.int64()), lancet.blob_field("video", inline_max=0)])
    return lancet.write_dataset({"id": [0, 1, 2], "video": [small_mp4, None, small_mp4]}, str(tmp_path / "v.lance"),
                                schema=schema, media={"video": video_plugin})


def _pyav_frames(mp4):
    """Every frame decoded by PyAV from the original file, for comparison."""
    with av.open(io.BytesIO(mp4)) as c:
        return np.stack([f.to_ndarray(format="rgb24") for f in c.decode(video=0)]).astype(np.int16)


def test_video_info(videos):
    info = videos.video_info("video", ids=[0, 1, 2])
    assert info[1] is None
    assert info[0]["frame_count"] == 20 and info[0]["width"] == 96 and info[0]["height"] == 64
    assert info[0]["fps"] == pytest.approx(10.0)
    with pytest.raises(ValueError):
        videos.video_info("id", ids=[0])


def test_frame_clips_match_pyav(videos, small_mp4):
    clips = lancet.torch.FrameClips(videos, "video", clip_len=4, stride=3)
    # 20 frames: clips start at 0, 3, ..., 15 on each of the two videos; the null row has none.
    assert len(clips) == 12
    assert clips.clip(0) == (0, 0) and clips.clip(6) == (2, 0)
    x = clips[2]
    assert x.dtype == torch.uint8 and tuple(x.shape) == (4, 64, 96, 3)
    # Each frame is closest to PyAV's frame of the same index (the RGB conversions differ
    # a little at sharp chroma edges, so the match is by distance, not exact).
    theirs = _pyav_frames(small_mp4)
    for k, frame in enumerate(x.numpy().astype(np.int16)):
        distances = np.abs(theirs - frame).mean(axis=(1, 2, 3))
        assert int(distances.argmin()) == 6 + k and distances.min() < 8
    assert tuple(lancet.torch.FrameClips(videos, "video", clip_len=2, size=(32, 48))[0].shape) == (2, 32, 48, 3)
    with pytest.raises(IndexError):
        clips[12]
    with pytest.raises(ValueError):
        lancet.torch.FrameClips(videos, "video", clip_len=0)


def test_a_batch_of_clips_decodes_in_parallel_to_the_same_tensors(videos):
    clips = lancet.torch.FrameClips(videos, "video", clip_len=4, stride=3)
    picks = [11, 0, 5, 5, -1, 7]
    batch = clips.__getitems__(picks)
    assert len(batch) == len(picks)
    for i, x in zip(picks, batch):
        torch.testing.assert_close(x, clips[i])
    # DataLoader(batch_size) goes through __getitems__: the same clips as one at a time.
    got = torch.cat(list(DataLoader(clips, batch_size=5, num_workers=0)))
    torch.testing.assert_close(got, torch.stack([clips[i] for i in range(len(clips))]))
    with pytest.raises(IndexError):
        clips.__getitems__([0, 12])


def test_exact_clips_are_extract_frames_bit_for_bit_and_fast_ones_close(videos):
    exact = lancet.torch.FrameClips(videos, "video", clip_len=4, stride=3, exact=True)
    fast = lancet.torch.FrameClips(videos, "video", clip_len=4, stride=3)
    frames = videos.extract_frames("video", [0], frames=range(3, 7))[0]
    np.testing.assert_array_equal(exact[1].numpy(), np.stack(frames))
    diff = np.abs(fast[1].numpy().astype(np.int16) - exact[1].numpy().astype(np.int16))
    assert diff.mean() < 8  # chroma rounds differently at the sharp edges of testsrc
    fast_frames = videos.extract_frames("video", [0], frames=range(3, 7), exact=False)[0]
    np.testing.assert_array_equal(fast[1].numpy(), np.stack(fast_frames))


def test_frame_clips_in_worker_processes(videos):
    clips = lancet.torch.FrameClips(videos, "video", clip_len=5, stride=5)
    loader = DataLoader(clips, batch_size=2, num_workers=2)
    batches = list(loader)
    assert sum(b.shape[0] for b in batches) == len(clips) == 8
    assert all(tuple(b.shape[1:]) == (5, 64, 96, 3) for b in batches)
    single = torch.cat(list(DataLoader(clips, batch_size=2, num_workers=0)))
    torch.testing.assert_close(torch.cat(batches), single)


def test_rows_split_between_workers(tmp_path):
    n = 1000
    ds = lancet.write_dataset({"id": np.arange(n), "vec": np.random.rand(n, 4).astype(np.float32),
                               "name": [f"n{i}" for i in range(n)]}, str(tmp_path / "r.lance"), max_rows_per_file=150)
    rows = lancet.torch.Rows(ds, columns=["id", "vec", "name"], batch_size=64)
    seen = []
    for batch in DataLoader(rows, batch_size=None, num_workers=2):
        assert batch["vec"].dtype == torch.float32 and batch["vec"].shape[1] == 4
        assert len(batch["name"]) == len(batch["id"])
        seen.extend(batch["id"].tolist())
    assert sorted(seen) == list(range(n))
    filtered = [b["id"] for b in lancet.torch.Rows(ds, columns=["id"], filter="id < 10")]
    assert torch.cat(filtered).tolist() == list(range(10))


def test_workers_fork_after_the_parent_used_its_thread_pools(tmp_path):
    # Scans and an index build in the parent start Lancet's thread pools; forked
    # DataLoader workers must get their own (regression: they hung on the parent's).
    n = 3000
    ds = lancet.write_dataset({"id": np.arange(n), "vec": np.random.rand(n, 8).astype(np.float32)},
                              str(tmp_path / "f.lance"), max_rows_per_file=500)
    assert ds.to_table(io_parallelism=8).num_rows == n
    ds.create_index("vec", "IVF_PQ", num_partitions=2, num_sub_vectors=2)
    ds.create_scalar_index("id")
    rows = lancet.torch.Rows(ds, columns=["id"], batch_size=100)
    seen = [b["id"] for b in DataLoader(rows, batch_size=None, num_workers=2, timeout=60)]
    assert sorted(torch.cat(seen).tolist()) == list(range(n))
