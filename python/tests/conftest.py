"""Shared fixtures: the build tree, small videos made with the ffmpeg CLI."""

import os
import shutil
import subprocess

import pytest

REPO = os.environ.get("LANCET_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))


def build_dir():
    d = os.environ.get("LANCET_BUILD_DIR")
    if d:
        return d
    import lancet

    # <build>/python/lancet/__init__.py
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(lancet.__file__))))


@pytest.fixture
def uri(tmp_path):
    return str(tmp_path / "ds.lance")


@pytest.fixture(scope="session")
def video_plugin():
    path = os.path.join(build_dir(), "plugins", "liblancet_video_ffmpeg.so")
    if not os.path.isfile(path):
        pytest.skip(f"no video plugin at {path} (build lancet_video_ffmpeg)")
    return path


@pytest.fixture(scope="session")
def small_mp4(tmp_path_factory):
    """A 2 s, 10 fps, 96x64 H.264 MP4 with a keyframe every 5 frames."""
    if shutil.which("ffmpeg") is None:
        pytest.skip("the ffmpeg CLI is not installed")
    path = tmp_path_factory.mktemp("video") / "small.mp4"
    cmd = ["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=96x64:rate=10:duration=2",
           "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-g", "5", "-keyint_min", "5",
           "-sc_threshold", "0", "-bf", "0", str(path)]
    if subprocess.run(cmd).returncode != 0:
        pytest.skip("ffmpeg could not encode an H.264 test video")
    return path.read_bytes()
