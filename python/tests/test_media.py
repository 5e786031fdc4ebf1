"""extract_frames on a video column ingested through the video plugin."""

import numpy as np
import pytest

import lancet


@pytest.fixture
def videos(tmp_path, small_mp4, video_plugin):
    schema = lancet.schema([lancet.field("id", lancet.types.int64()), lancet.blob_field("video", inline_max=0)])
    return lancet.write_dataset({"id": [0, 1, 2], "video": [small_mp4, None, small_mp4]}, str(tmp_path / "v.lance"),
                                schema=schema, media={"video": video_plugin})


def test_window(videos):
    rows = videos.extract_frames("video", [0, 1], window=(0.0, 0.5))
    frames, null = rows
    assert null is None
    assert isinstance(frames, lancet.FrameList) and len(frames) == 5
    assert all(f.shape == (64, 96, 3) and f.dtype == np.uint8 for f in frames)
    assert frames.indices.tolist() == [0, 1, 2, 3, 4]
    np.testing.assert_allclose(frames.times, [0.0, 0.1, 0.2, 0.3, 0.4], atol=1e-6)
    assert len(frames.pts) == 5


def test_frames_timestamps_keyframes_gray(videos):
    third = videos.take([2], columns=["id"]).column("id").tolist()
    assert third == [2]
    (frames,) = videos.extract_frames("video", [2], frames=[3, 17], rows_are="indices")
    assert frames.indices.tolist() == [3, 17]
    (at,) = videos.extract_frames("video", [0], timestamps=[1.05])
    assert at.indices.tolist() == [10]
    (keys,) = videos.extract_frames("video", [0], window=(0, 2), keyframes_only=True)
    assert keys.indices.tolist() == [0, 5, 10, 15]
    (gray,) = videos.extract_frames("video", [0], frames=[0], pixel_format="gray8", width=48, height=32)
    assert gray[0].shape == (32, 48, 1)


def test_bad_requests(videos):
    with pytest.raises(ValueError):
        videos.extract_frames("video", [0])
    with pytest.raises(ValueError):
        videos.extract_frames("video", [0], window=(1, 0.5))
    with pytest.raises(ValueError):
        videos.extract_frames("video", [0], frames=[1000])
    with pytest.raises(ValueError):
        videos.extract_frames("id", [0], frames=[0])
