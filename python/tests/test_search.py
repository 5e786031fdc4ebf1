"""Indexes and search from Python: create_index of each kind, nearest=, full_text_query=."""

import numpy as np
import pytest

import lancet


@pytest.fixture
def docs(tmp_path):
    rng = np.random.default_rng(3)
    n = 600
    words = ["red car", "blue car", "red bike", "green tree", "old red barn"]
    data = {"id": np.arange(n), "vec": rng.random((n, 16), dtype=np.float32),
            "text": [words[i % len(words)] + f" item{i}" for i in range(n)]}
    return lancet.write_dataset(data, str(tmp_path / "s.lance"), max_rows_per_file=200), data


def test_nearest_exact_then_indexed(docs):
    ds, data = docs
    q = data["vec"][17]
    exact = ds.to_table(nearest={"column": "vec", "q": q, "k": 5}, columns=["id"])
    ids = exact.column("id").tolist()
    assert ids[0] == 17 and len(ids) == 5
    d = np.linalg.norm(data["vec"] - q, axis=1) ** 2
    assert ids == np.argsort(d, kind="stable")[:5].tolist()
    assert "_distance" in exact.column_names

    v0 = ds.version
    assert ds.create_index("vec", "IVF_PQ", num_partitions=4, num_sub_vectors=4) == "vec_idx"
    assert ds.version == v0 + 1
    assert [i["name"] for i in ds.list_indices()] == ["vec_idx"]
    hit = ds.to_table(nearest={"column": "vec", "q": q, "k": 10, "refine_factor": 5}, columns=["id"])
    assert 17 in hit.column("id").tolist()[:3]
    filtered = ds.to_table(nearest={"column": "vec", "q": q, "k": 5, "use_index": False}, filter="id % 2 = 0",
                           columns=["id"])
    assert all(i % 2 == 0 for i in filtered.column("id").tolist())
    with pytest.raises(ValueError):
        ds.to_table(nearest={"column": "vec", "q": q[:3]})
    with pytest.raises(ValueError):
        ds.to_table(nearest={"column": "vec", "q": q, "bogus": 1})


def test_full_text_and_scalar(docs):
    ds, _ = docs
    ds.create_index("text", "INVERTED")
    ds.create_scalar_index("id", "BTREE")
    assert sorted(i["name"] for i in ds.list_indices()) == ["id_idx", "text_idx"]
    t = ds.to_table(full_text_query="barn", columns=["id", "text"], limit=1000)
    assert t.num_rows == 120 and all("barn" in s for s in t.column("text").tolist())
    assert "_score" in t.column_names
    top = ds.to_table(full_text_query={"query": "red", "column": "text"}, limit=3)
    assert top.num_rows == 3
    assert ds.count_rows("id < 7") == 7
    with pytest.raises(ValueError):
        ds.create_index("id", "NO_SUCH_TYPE")
    with pytest.raises(ValueError):
        ds.to_table(full_text_query="x", nearest={"q": [0.0]})
