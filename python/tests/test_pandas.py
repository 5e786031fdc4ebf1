"""to_pandas: blocks filled as the scan streams, nulls arriving mid-stream, and every
scan option giving the same frame as to_table().to_pandas()."""

import numpy as np
import pandas as pd
import pytest

import lancet
from lancet.frame import FrameBuilder


@pytest.fixture
def ds(uri):
    n = 3000
    ints = [None if i >= 2500 and i % 7 == 0 else i for i in range(n)]  # nulls only in the last fragment
    flags = [None if i == 2999 else i % 2 == 0 for i in range(n)]
    data = {"i": ints, "flag": flags, "f": np.arange(n) / 2, "u8": (np.arange(n) % 200).astype(np.uint8),
            "s": [f"s{i}" for i in range(n)], "v": np.arange(n * 2, dtype=np.float32).reshape(n, 2)}
    return lancet.write_dataset(data, uri, max_rows_per_file=1000)


@pytest.mark.parametrize("args", [{}, {"limit": 10}, {"offset": 2990}, {"offset": 5, "limit": 2000},
                                  {"fragment_ids": [1]}, {"filter": "i > 2000"}, {"columns": ["f", "s"]},
                                  {"batch_size": 7}, {"offset": 5000}])
def test_same_as_through_a_table(ds, args):
    streamed = ds.to_pandas(**args)
    tabled = ds.to_table(**args).to_pandas()
    pd.testing.assert_frame_equal(streamed, tabled)


def test_nulls_arriving_mid_stream(ds):
    df = ds.to_pandas()
    assert df["i"].dtype == np.float64 and df["i"].isna().sum() == sum(1 for i in range(2500, 3000) if i % 7 == 0)
    assert df["i"][2499] == 2499
    assert df["flag"].dtype == object and df["flag"][2999] is None and df["flag"][2] is True
    assert df["u8"].dtype == np.uint8 and df["f"].dtype == np.float64
    np.testing.assert_array_equal(np.stack(df["v"].to_numpy())[:, 1], np.arange(3000) * 2 + 1)


def test_builder_grows_past_a_wrong_estimate(ds):
    table = ds.to_table(batch_size=500)
    builder = FrameBuilder(table.schema, 1)
    for b in table.to_batches():
        builder.add(b)
    pd.testing.assert_frame_equal(builder.finish(), table.to_pandas())
