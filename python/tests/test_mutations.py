"""delete, update, merge_insert, versions, tags, time travel and restore."""

import datetime

import numpy as np
import pandas as pd
import pytest

import lancet


@pytest.fixture
def people(uri):
    df = pd.DataFrame({"id": np.arange(10), "name": [f"p{i}" for i in range(10)], "score": np.arange(10) * 1.5})
    return lancet.write_dataset(df, uri)


def test_delete_and_update(people):
    people.delete("id >= 8")
    assert people.version == 2 and people.count_rows() == 8
    res = people.update({"score": "score * 2", "name": "'changed'"}, where="id < 3")
    assert res == {"num_rows_updated": 3}
    assert people.version == 3
    d = people.to_table(filter="id < 4").to_pydict()
    assert sorted(zip(d["id"], d["name"], d["score"])) == [
        (0, "changed", 0.0), (1, "changed", 3.0), (2, "changed", 6.0), (3, "p3", 4.5)]
    people.update({"score": None, "name": "'x'"}, where="id = 7")
    assert people.to_table(filter="id = 7").to_pydict() == {"id": [7], "name": ["x"], "score": [None]}
    with pytest.raises(ValueError):
        people.update({"nope": 1})
    with pytest.raises(ValueError):
        people.delete("id = = 1")


def test_merge_insert(people):
    new = pd.DataFrame({"id": [8, 9, 10, 11], "name": ["u8", "u9", "n10", "n11"], "score": [0.0, 0.0, 1.0, 1.0]})
    stats = people.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(new)
    assert stats["num_inserted_rows"] == 2 and stats["num_updated_rows"] == 2 and stats["num_deleted_rows"] == 0
    assert people.version == 2 and people.count_rows() == 12
    d = people.to_table(filter="id >= 8").to_pydict()
    assert sorted(zip(d["id"], d["name"])) == [(8, "u8"), (9, "u9"), (10, "n10"), (11, "n11")]
    # Insert-if-absent: matched rows are left alone.
    stats = people.merge_insert(["id"]).when_not_matched_insert_all().execute({"id": [0, 12], "name": ["zz", "n12"],
                                                                            "score": [9.0, 9.0]})
    assert (stats["num_inserted_rows"], stats["num_updated_rows"]) == (1, 0)
    assert people.to_table(filter="id = 0").to_pydict()["name"] == ["p0"]
    stats = (people.merge_insert("id").when_matched_update_all().when_not_matched_by_source_delete("id > 10")
             .execute({"id": [1], "name": ["one"], "score": [1.0]}))
    assert stats["num_deleted_rows"] == 2 and people.count_rows() == 11


def test_versions_time_travel_tags_restore(people, uri):
    people.delete("id = 0")
    people.insert({"id": [100], "name": ["late"], "score": [0.5]})
    versions = people.versions()
    assert [v["version"] for v in versions] == [1, 2, 3]
    assert [v["num_rows"] for v in versions] == [10, 9, 10]
    assert isinstance(versions[0]["timestamp"], datetime.datetime)
    v1 = lancet.dataset(uri, version=1)
    assert v1.version == 1 and v1.count_rows() == 10 and v1.latest_version == 3
    assert people.checkout_version(2).count_rows() == 9
    people.tags.create("before-late", 2)
    assert people.tags.list() == {"before-late": {"version": 2}}
    assert lancet.dataset(uri, tag="before-late").version == 2
    assert lancet.dataset(uri, version="before-late").count_rows() == 9
    with pytest.raises(FileExistsError):
        people.tags.create("before-late", 1)
    people.restore(1)
    assert people.version == 4 and people.count_rows() == 10
    assert lancet.dataset(uri).to_table(filter="id = 0").num_rows == 1
    people.tags.delete("before-late")
    assert people.tags.list() == {}
    assert people.data_storage_version == "2.2"
    with pytest.raises(ValueError):
        people.checkout_version(99)
