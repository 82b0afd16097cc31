"""A seed's databases kept on disk (storage/seedcache.py): a phone seeded from them has the tree, bytes and
times a phone seeded with SQLite has, and a bad file is seeded over, never trusted."""

from __future__ import annotations

import json

import pytest

from crab_gym.envs.android.sim import Phone
from crab_gym.envs.android.sim.storage import db, seedcache


def _tree(phone: Phone) -> tuple:
    s = phone.fs.snapshot()
    return s.files, s.dirs, s.links, s.stats


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "crab-gym"


def test_a_phone_seeded_from_the_cache_equals_one_seeded_with_sqlite(tmp_path, cache, monkeypatch):
    first = Phone(root=tmp_path / "a", seed=5, width=360, height=800)
    [kept] = cache.glob("phone-seed-5-*.bin")

    def no_sqlite(fs, seed):
        raise AssertionError("seeded with SQLite although the cache holds the seed")

    monkeypatch.setattr(db, "seed_databases", no_sqlite)
    second = Phone(root=tmp_path / "b", seed=5, width=360, height=800)
    assert _tree(second) == _tree(first)
    assert (
        second.shell("content query --uri content://contacts/phones")[0]
        == first.shell("content query --uri content://contacts/phones")[0]
    )
    monkeypatch.undo()
    first.close()
    second.close()
    assert kept.exists()


def test_a_bad_cache_file_is_seeded_over(tmp_path, cache):
    reference = Phone(root=tmp_path / "ref", seed=2, width=360, height=800)
    [kept] = cache.glob("phone-seed-2-*.bin")
    head, _, data = kept.read_bytes().partition(b"\n")
    bad = {
        "truncated": head + b"\n" + data[: len(data) // 2],
        "escaping": json.dumps({**json.loads(head), "files": [["../outside", len(data)]]}).encode()
        + b"\n"
        + data,
        "not json": b"\xff\n" + data,
    }
    for name, content in bad.items():
        kept.write_bytes(content)
        phone = Phone(root=tmp_path / name.replace(" ", "_"), seed=2, width=360, height=800)
        assert _tree(phone) == _tree(reference), name
        phone.close()
        assert not (tmp_path / "outside").exists()
        assert seedcache._read(kept) is not None, f"{name}: rewritten whole"
    reference.close()


def test_at_most_max_seeds_files_are_kept(tmp_path, cache, monkeypatch):
    monkeypatch.setattr(seedcache, "MAX_SEEDS", 2)
    phone = Phone(root=tmp_path / "p", seed=0, width=360, height=800)
    for seed in (1, 2, 3):
        phone.reset(seed)
    assert len(list(cache.glob("phone-seed-*.bin"))) == 2
    phone.close()
