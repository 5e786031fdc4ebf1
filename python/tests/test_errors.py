"""Errors are Python exceptions with the C++ message, never crashes."""

import os

import numpy as np
import pytest

import lancet


def test_hierarchy():
    assert issubclass(lancet.InvalidArgumentError, ValueError)
    assert issubclass(lancet.NotFoundError, FileNotFoundError)
    assert issubclass(lancet.CorruptionError, OSError)
    assert issubclass(lancet.CommitConflict, lancet.LancetError)
    for cls in (lancet.InvalidArgumentError, lancet.NotFoundError, lancet.CorruptionError, lancet.CommitConflict):
        assert issubclass(cls, lancet.LancetError)


def test_missing_dataset(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        lancet.dataset(str(tmp_path / "nothing-here"))
    assert isinstance(e.value, lancet.NotFoundError)
    assert "nothing-here" in str(e.value)


def test_bad_arguments(uri):
    ds = lancet.write_dataset({"a": np.arange(3)}, uri)
    with pytest.raises(ValueError, match="zzz"):
        ds.to_table(columns=["zzz"])
    with pytest.raises(ValueError):
        lancet.dataset(uri, version=1, tag="x")
    with pytest.raises(ValueError):
        lancet.write_dataset({"a": [1]}, uri, mode="upsert")
    with pytest.raises(TypeError):
        lancet.write_dataset(42, uri + "2")
    with pytest.raises(ValueError):
        lancet.write_dataset({"a": [1, 2], "b": [1]}, uri + "3")  # ragged columns
    with pytest.raises(ValueError):
        lancet.types.DataType("not-a-type")
    with pytest.raises(ValueError):
        ds.checkout_version(7)
    with pytest.raises(ValueError):
        ds.take_blobs("a", indices=[0])


def test_corrupt_data_file_raises(uri):
    ds = lancet.write_dataset({"a": np.arange(5000), "s": [str(i) for i in range(5000)]}, uri)
    (frag,) = ds.fragments()
    path = frag["files"][0]
    path = path if os.path.isabs(path) else os.path.join(uri, "data", os.path.basename(path))
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.truncate(size // 2)
    with pytest.raises(OSError) as e:
        lancet.dataset(uri).to_table()
    assert isinstance(e.value, lancet.LancetError)
    with open(path, "wb") as f:
        f.write(b"\x00" * 100)
    with pytest.raises(OSError):
        lancet.dataset(uri).to_pandas()


def test_corrupt_manifest_raises(uri):
    lancet.write_dataset({"a": [1]}, uri)
    versions = os.path.join(uri, "_versions")
    for name in os.listdir(versions):
        with open(os.path.join(versions, name), "r+b") as f:
            f.truncate(7)
    with pytest.raises(lancet.LancetError):
        lancet.dataset(uri)


def test_commit_conflict(uri):
    lancet.write_dataset({"a": np.arange(10)}, uri)
    stale = lancet.dataset(uri, version=1)
    lancet.write_dataset({"a": np.arange(3)}, uri, mode="overwrite")
    with pytest.raises(lancet.CommitConflict):
        stale.delete("a < 5")  # its rows were replaced by a concurrent overwrite
    assert lancet.dataset(uri).count_rows() == 3
