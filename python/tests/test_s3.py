"""Datasets on S3 from Python, against a real server (radosgw from scripts/s3-server.sh,
which `make s3-test` starts; ctest python_s3).

Skipped without AWS_ENDPOINT_URL and LANCET_TEST_BUCKET, as the C++ S3 tests are. The
server's settings reach lancet only through storage_options: each test removes the
AWS_* variables from the environment (and hides ~/.aws), so an option lost on its way
to the store fails here instead of being quietly filled in from the environment.
"""

import io
import os
import shutil
import subprocess
import urllib.parse
import uuid
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest

import lancet

ENDPOINT = os.environ.get("AWS_ENDPOINT_URL", "")
BUCKET = os.environ.get("LANCET_TEST_BUCKET", "")
pytestmark = pytest.mark.skipif(
    not (ENDPOINT and BUCKET),
    reason='no S3 server: set AWS_ENDPOINT_URL and LANCET_TEST_BUCKET (eval "$(scripts/s3-server.sh start)")')

# Every variable src/io/s3_config.cc reads.
_AWS_ENV = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION",
            "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_ALLOW_HTTP", "AWS_VIRTUAL_HOSTED_STYLE_REQUEST",
            "AWS_PROFILE")
_SERVER = {k: os.environ.get(k, "") for k in _AWS_ENV}
RUN = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"


def _server_options():
    return {
        "aws_endpoint": ENDPOINT,
        "aws_access_key_id": _SERVER["AWS_ACCESS_KEY_ID"],
        "aws_secret_access_key": _SERVER["AWS_SECRET_ACCESS_KEY"],
        "aws_region": _SERVER["AWS_REGION"] or "us-east-1",
        "allow_http": _SERVER["AWS_ALLOW_HTTP"] or str(ENDPOINT.startswith("http://")).lower(),
    }


def _curl(args):
    """curl against the server, its credentials given on stdin so that they are in no
    process's arguments."""
    config = (f'user = "{_SERVER["AWS_ACCESS_KEY_ID"]}:{_SERVER["AWS_SECRET_ACCESS_KEY"]}"\n'
              f'aws-sigv4 = "aws:amz:{_SERVER["AWS_REGION"] or "us-east-1"}:s3"\n'
              # curl signs no payload hash of its own, and S3 wants one.
              'header = "x-amz-content-sha256: UNSIGNED-PAYLOAD"\n')
    return subprocess.run(["curl", "-s", "--max-time", "30", "--config", "-", *args], input=config.encode(),
                          capture_output=True, check=False).stdout


def _delete_prefix(prefix):
    """Removes what a test wrote (a reused server would otherwise keep it)."""
    if shutil.which("curl") is None:
        return
    ns = "{http://s3.amazonaws.com/doc/2006-03-01/}"
    token = None
    while True:
        params = {"list-type": 2, "prefix": prefix, **({"continuation-token": token} if token else {})}
        query = urllib.parse.urlencode(params, quote_via=urllib.parse.quote)
        root = ET.fromstring(_curl([f"{ENDPOINT}/{BUCKET}?{query}"]) or b"<NoAnswer/>")
        assert root.tag == f"{ns}ListBucketResult", f"listing {prefix} for cleanup: {root.tag} {root.findtext('Code')}"
        for key in root.iter(f"{ns}Key"):
            _curl(["-X", "DELETE", f"{ENDPOINT}/{BUCKET}/{urllib.parse.quote(key.text)}"])
        token = root.findtext(f"{ns}NextContinuationToken")
        if not token:
            return


@pytest.fixture
def opts(monkeypatch, tmp_path):
    for k in _AWS_ENV:
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    return _server_options()


@pytest.fixture
def s3_uri(request):
    prefix = f"python-tests/{RUN}/{request.node.name}"
    yield f"s3://{BUCKET}/{prefix}/ds.lance"
    _delete_prefix(prefix + "/")


def _frame(start, n):
    ids = np.arange(start, start + n, dtype=np.int64)
    return pd.DataFrame({
        "id": ids,
        "name": [None if i % 7 == 0 else f"name-{i}" for i in ids],
        "score": ids.astype(np.float64) / 4,
    })


def test_no_credentials_without_storage_options(opts, s3_uri):
    # The premise of the other tests: with the environment cleared, nothing but
    # storage_options can point lancet at the server.
    with pytest.raises(lancet.LancetError):
        lancet.write_dataset(_frame(0, 3), s3_uri)


def test_write_and_read(opts, s3_uri):
    df = _frame(0, 100)
    ds = lancet.write_dataset(df, s3_uri, max_rows_per_file=40, storage_options=opts)
    assert ds.uri == s3_uri
    assert ds.version == 1
    assert len(ds.fragments()) == 3

    ds = lancet.dataset(s3_uri, storage_options=opts)
    pd.testing.assert_frame_equal(ds.to_pandas(), df)
    assert ds.count_rows() == 100
    assert ds.count_rows(filter="id >= 90") == 10
    assert ds.count_rows(filter="name IS NULL") == len(range(0, 100, 7))
    got = ds.to_table(columns=["id", "score"], filter="id % 25 = 0").to_pydict()
    assert got == {"id": [0, 25, 50, 75], "score": [0.0, 6.25, 12.5, 18.75]}
    batches = list(ds.to_batches(batch_size=16, columns=["id"]))
    assert sum(b.num_rows for b in batches) == 100
    assert ds.head(3).column("id").tolist() == [0, 1, 2]
    assert ds.take([99, 0, 41, 41], columns=["id", "name"]).to_pydict() == {
        "id": [99, 0, 41, 41], "name": ["name-99", None, "name-41", "name-41"]}


def test_append_overwrite_and_versions(opts, s3_uri):
    lancet.write_dataset(_frame(0, 10), s3_uri, storage_options=opts)
    ds = lancet.write_dataset(_frame(10, 5), s3_uri, mode="append", storage_options=opts)
    assert (ds.version, ds.count_rows()) == (2, 15)
    # Dataset.insert writes through the options the dataset was opened with.
    ds.insert(_frame(15, 5))
    assert (ds.version, ds.count_rows()) == (3, 20)
    assert ds.to_table(columns=["id"]).column("id").tolist() == list(range(20))

    reopened = lancet.dataset(s3_uri, storage_options=opts)
    assert [(v["version"], v["num_rows"]) for v in reopened.versions()] == [(1, 10), (2, 15), (3, 20)]
    assert lancet.dataset(s3_uri, version=1, storage_options=opts).count_rows() == 10
    assert reopened.checkout_version(2).count_rows() == 15

    ds = lancet.write_dataset(_frame(100, 4), s3_uri, mode="overwrite", storage_options=opts)
    assert ds.version == 4
    assert ds.to_table(columns=["id"]).column("id").tolist() == [100, 101, 102, 103]
    assert ds.checkout_version(3).count_rows() == 20
    with pytest.raises(FileExistsError):
        lancet.write_dataset(_frame(0, 1), s3_uri, storage_options=opts)


def test_delete(opts, s3_uri):
    ds = lancet.write_dataset(_frame(0, 30), s3_uri, max_rows_per_file=10, storage_options=opts)
    ds.delete("id % 3 = 0")
    assert (ds.version, ds.count_rows()) == (2, 20)
    assert ds.take([0, 1, 19], columns=["id"]).column("id").tolist() == [1, 2, 29]
    ds.delete("id < 10")
    fresh = lancet.dataset(s3_uri, storage_options=opts)
    assert fresh.count_rows() == 14
    assert fresh.count_rows(filter="id < 20") == 7
    assert fresh.checkout_version(1).count_rows() == 30


def test_blobs(opts, s3_uri):
    # Sizes on both sides of the inline / packed / dedicated thresholds; the 9 MiB one
    # goes up as a multipart upload (8 MiB parts).
    rng = np.random.default_rng(7)
    sizes = [0, 10, 70_000, 300_000, 9 * 1024 * 1024 + 17]
    payloads = [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in sizes]
    payloads.insert(2, None)
    ds = lancet.write_dataset({"id": np.arange(len(payloads)), "blob": payloads}, s3_uri, blob_columns=["blob"],
                              storage_options=opts)
    ds = lancet.dataset(s3_uri, storage_options=opts)
    assert ds.schema.fields[1].is_blob
    assert ds.take_blobs("blob", indices=[5, 0, 2, 4]) == [payloads[5], payloads[0], None, payloads[4]]
    ids = ds.to_table(columns=["id"], with_row_id=True).to_pydict()["_rowid"]
    assert ds.take_blobs("blob", ids=ids) == payloads

    small, null, big = ds.blob_files("blob", indices=[3, 2, 5])
    assert null is None
    assert small.size() == 70_000 and big.size() == len(payloads[5])
    assert small.read() == payloads[3]
    big.seek(8 * 1024 * 1024 - 5)
    assert big.read(10) == payloads[5][8 * 1024 * 1024 - 5:8 * 1024 * 1024 + 5]
    big.seek(-3, io.SEEK_END)
    buf = bytearray(8)
    assert big.readinto(buf) == 3 and bytes(buf[:3]) == payloads[5][-3:]
    assert big.read(1) == b""
    big.seek(0)
    assert io.BufferedReader(big, buffer_size=1 << 20).read() == payloads[5]

    ds.delete("id = 3")
    assert ds.take_blobs("blob", indices=[3]) == [payloads[4]]


def test_missing_dataset(opts, s3_uri):
    with pytest.raises(lancet.NotFoundError) as e:
        lancet.dataset(s3_uri, storage_options=opts)
    assert s3_uri.removeprefix(f"s3://{BUCKET}/") in str(e.value)


def test_bad_option(opts, s3_uri):
    with pytest.raises(lancet.InvalidArgumentError, match="aws_no_such_key"):
        lancet.dataset(s3_uri, storage_options={**opts, "aws_no_such_key": "1"})


def test_wrong_secret(opts, s3_uri):
    lancet.write_dataset(_frame(0, 5), s3_uri, storage_options=opts)
    wrong = f"wrong-secret-{uuid.uuid4().hex}"
    bad = {**opts, "aws_secret_access_key": wrong}
    secrets = (wrong, opts["aws_secret_access_key"])

    with pytest.raises(lancet.LancetError) as opened:
        lancet.dataset(s3_uri, storage_options=bad)
    with pytest.raises(lancet.LancetError) as written:
        lancet.write_dataset(_frame(5, 5), s3_uri, mode="append", storage_options=bad)
    with pytest.raises(lancet.LancetError) as created:
        lancet.write_dataset(_frame(0, 5), s3_uri.replace("/ds.lance", "/other.lance"), storage_options=bad)
    for e in (opened, written, created):
        assert isinstance(e.value, OSError), repr(e.value)
        text = f"{e.value!s} {e.value!r} {e.value.args!r}"
        assert "403" in text and f"s3://{BUCKET}/" in text, text
        for secret in secrets:
            assert secret not in text

    # The failures left the dataset as it was.
    ds = lancet.dataset(s3_uri, storage_options=opts)
    assert (ds.version, ds.count_rows()) == (1, 5)
    for secret in secrets:
        assert secret not in repr(ds) and secret not in str(ds.describe())
