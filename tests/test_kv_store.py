"""The one content-keyed SQLite store behind the audit's caches."""
from concurrent.futures import ThreadPoolExecutor

import pytest

from kvdata.kv_store import KeyValueStore


def test_values_survive_reopening_and_keep_their_type(tmp_path):
    store = KeyValueStore(tmp_path, "c.sqlite")
    store.put_many({"a": b"\x00\x01", "b": "text"})
    store.put_many([("a", b"\x02")])                      # replaces
    store.close()
    again = KeyValueStore(tmp_path, "c.sqlite")
    assert again.get_many(["a", "b", "missing", "a"]) == {"a": b"\x02", "b": "text"}
    assert len(again) == 2


def test_threads_of_one_process_share_a_store(tmp_path):
    store = KeyValueStore(tmp_path, "c.sqlite")
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda i: store.put_many({f"k{i}": str(i)}), range(700)))
    got = store.get_many([f"k{i}" for i in range(700)])   # more keys than one SELECT takes
    assert got == {f"k{i}": str(i) for i in range(700)}


def test_a_table_name_must_be_an_identifier(tmp_path):
    with pytest.raises(ValueError):
        KeyValueStore(tmp_path, "c.sqlite", table="x; DROP TABLE y")
