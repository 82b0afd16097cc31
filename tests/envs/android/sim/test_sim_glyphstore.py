"""The glyphs kept on disk (ui/glyphstore.py): a process reads back what an earlier one drew, to the pixel,
and a bad file is drawn over, never trusted."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

from crab_gym.envs.android.sim.ui import glyphstore

FIRST_FRAMES = """
import sys, numpy as np
from crab_gym.envs.android.sim import Phone
p = Phone(seed=0)
np.savez(sys.argv[1], small=p.screenshot((96, 208)), full=p.screenshot())
p.close()
print(sorted(m for m in ("PIL.ImageFont", "PIL.ImageDraw") if m in sys.modules))
"""


def _first_frames(cache, out) -> tuple[dict, list[str]]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    res = subprocess.run(
        [sys.executable, "-c", FIRST_FRAMES, str(out)], env=env, capture_output=True, text=True, timeout=120
    )
    assert res.returncode == 0, res.stderr
    with np.load(out) as f:
        return {k: f[k] for k in f.files}, eval(res.stdout.strip())  # noqa: S307 - a list we printed


def _entries(path) -> int:
    store = glyphstore.GlyphStore(path)
    store._load()
    return len(store._index or {})


def test_a_second_process_draws_its_first_frames_from_the_stored_glyphs(tmp_path):
    drawn, loaded = _first_frames(tmp_path / "cache", tmp_path / "a.npz")
    assert loaded == ["PIL.ImageDraw", "PIL.ImageFont"]  # nothing stored yet: drawn through FreeType
    stored = sorted((tmp_path / "cache" / "crab-gym").glob("phone-glyphs-*.bin"))
    assert len(stored) == 4  # text and icons at each of the two scales, shapes, widths
    entries = [_entries(f) for f in stored]
    assert sum(entries) > 50  # both frames' strings, icons, shapes and widths
    again, loaded = _first_frames(tmp_path / "cache", tmp_path / "b.npz")
    assert loaded == []  # every glyph of both first frames came from the file: no font was opened
    for size in ("small", "full"):
        assert np.array_equal(drawn[size], again[size]), size
    for f in stored:  # truncated: ignored, redrawn
        f.write_bytes(f.read_bytes()[: f.stat().st_size // 2])
    redrawn, loaded = _first_frames(tmp_path / "cache", tmp_path / "c.npz")
    assert loaded == ["PIL.ImageDraw", "PIL.ImageFont"]
    assert all(np.array_equal(drawn[s], redrawn[s]) for s in ("small", "full"))
    assert [_entries(f) for f in stored] == entries  # written whole again


def test_entries_round_trip_and_a_process_writes_a_bounded_number_of_times(tmp_path, monkeypatch):
    path = tmp_path / "g.bin"
    store = glyphstore.GlyphStore(path)
    mask = np.arange(12, dtype=np.uint8).reshape(3, 4)
    values = {
        ("text", ("Hi", 42, True, 0.5)): (mask, -1, 2, 7),
        ("icon", ("add", 48, 1.0)): (mask.T.copy(), 0, -3),
        ("shape", ("pill", 4, 3, 0.0, 1.5)): mask,
        ("width", ("Hi …", 42, False)): 37.25,
    }
    for (kind, args), value in values.items():
        assert store.get(kind, args) is None
        store.put(kind, args, value)
    assert store.save()
    back = glyphstore.GlyphStore(path)
    for (kind, args), value in values.items():
        got = back.get(kind, args)
        if kind == "width":
            assert got == value
        elif kind == "shape":
            assert np.array_equal(got, value)
        else:
            assert np.array_equal(got[0], value[0]) and got[1:] == value[1:]
    monkeypatch.setattr(glyphstore, "MAX_SAVES", 2)
    back.put("width", ("a", 1, False), 1.0)
    assert back.save() and not back.save()  # nothing new: nothing written
    back.put("width", ("b", 1, False), 2.0)
    assert back.save()
    back.put("width", ("c", 1, False), 3.0)
    assert not back.save()  # its two writes are spent
    assert glyphstore.GlyphStore(path).get("width", ("b", 1, False)) == 2.0
    path.write_bytes(b'{"magic": "something else", "entries": []}\n')
    assert glyphstore.GlyphStore(path).get("width", ("b", 1, False)) is None
    path.write_bytes(b"\xff\xfe not json\n")
    assert glyphstore.GlyphStore(path).get("width", ("b", 1, False)) is None


def test_the_newest_glyph_files_are_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(glyphstore, "MAX_FILES", 2)
    for i in range(4):
        store = glyphstore.GlyphStore(tmp_path / "crab-gym" / f"phone-glyphs-x{i}-key.bin")
        store.get("width", ("a", 1, False))
        store.put("width", ("a", 1, False), float(i))
        assert store.save()
        os.utime(store.path, (i + 1, i + 1))  # distinct ages, oldest first
    kept = sorted(p.name for p in (tmp_path / "crab-gym").glob("phone-glyphs-*.bin"))
    assert kept == ["phone-glyphs-x2-key.bin", "phone-glyphs-x3-key.bin"]
