"""take, take_blobs and blob_files (with PyAV and PIL as consumers)."""

import io

import numpy as np
import pytest

import lancet


def test_take_by_position_with_deletions(uri):
    ds = lancet.write_dataset({"id": np.arange(100), "s": [f"v{i}" for i in range(100)]}, uri, max_rows_per_file=30)
    t = ds.take([0, 31, 99, 31], columns=["s"])
    assert t.column_names == ["s"]
    assert t.column("s").tolist() == ["v0", "v31", "v99", "v31"]
    ds.delete("id % 10 = 0")
    assert ds.count_rows() == 90
    # Positions count visible rows only.
    assert ds.take([0, 9, 27, 89]).column("id").tolist() == [1, 11, 31, 99]
    with pytest.raises(IndexError):
        ds.take([90])
    ids = ds.to_table(with_row_id=True, filter="id = 55").to_pydict()["_rowid"]
    assert ds._take_rows(ids).column("id").tolist() == [55]


@pytest.fixture
def blobs(uri):
    payloads = [bytes([i % 256]) * n for i, n in enumerate([10, 0, 100_000, 5, 300_000])]
    payloads[1] = None
    ds = lancet.write_dataset({"id": np.arange(5), "blob": payloads}, uri, blob_columns=["blob"])
    return ds, payloads


def test_take_blobs(blobs):
    ds, payloads = blobs
    assert ds.schema.fields[1].is_blob
    assert ds.take_blobs("blob", indices=[4, 0, 1, 2]) == [payloads[4], payloads[0], None, payloads[2]]
    ids = ds.to_table(columns=["id"], with_row_id=True).to_pydict()["_rowid"]
    assert ds.take_blobs("blob", ids=ids) == payloads
    with pytest.raises(ValueError):
        ds.take_blobs("id", indices=[0])  # not a blob column
    with pytest.raises(ValueError):
        ds.take_blobs("blob")  # no rows given


def test_blob_files(blobs):
    ds, payloads = blobs
    files = ds.blob_files("blob", indices=[2, 1, 4])
    f, null, big = files
    assert null is None
    assert isinstance(f, io.RawIOBase) and f.readable() and f.seekable() and not f.writable()
    assert f.size() == 100_000
    assert f.read(10) == payloads[2][:10]
    assert f.tell() == 10
    f.seek(-5, io.SEEK_END)
    assert f.read() == payloads[2][-5:]
    assert f.read(3) == b""
    f.seek(50_000)
    buf = bytearray(1000)
    assert f.readinto(buf) == 1000 and bytes(buf) == payloads[2][50_000:51_000]
    f.seek(10**9)
    assert f.read(1) == b""
    buffered = io.BufferedReader(big, buffer_size=4096)
    assert buffered.read() == payloads[4]
    f.close()
    with pytest.raises(ValueError):
        f.read(1)


def test_pyav_reads_a_blob_file(tmp_path, small_mp4):
    av = pytest.importorskip("av")
    ds = lancet.write_dataset({"name": ["clip"], "video": [small_mp4]}, str(tmp_path / "v.lance"),
                              blob_columns=["video"])
    (f,) = ds.blob_files("video", indices=[0])
    with av.open(f) as container:
        stream = container.streams.video[0]
        frames = [frame.to_ndarray(format="rgb24") for frame in container.decode(stream)]
    assert len(frames) == 20
    assert frames[0].shape == (64, 96, 3)


def test_pil_reads_a_blob_file(tmp_path):
    image = pytest.importorskip("PIL.Image")
    png = io.BytesIO()
    image.new("RGB", (7, 5), (10, 20, 30)).save(png, format="PNG")
    ds = lancet.write_dataset({"img": [png.getvalue()]}, str(tmp_path / "i.lance"), blob_columns=["img"])
    (f,) = ds.blob_files("img", indices=[0])
    with image.open(f) as im:
        assert im.size == (7, 5) and im.getpixel((3, 3)) == (10, 20, 30)
