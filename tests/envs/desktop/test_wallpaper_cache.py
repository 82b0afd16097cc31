"""The desktop's wallpaper is kept on disk: the cached picture is the drawn one, and a bad cache file is
drawn again (no X server needed)."""

from __future__ import annotations

import numpy as np

from crab_gym.envs.desktop.backends import wallpaper as wp


def test_the_cached_wallpaper_is_the_drawn_one_and_a_bad_file_is_redrawn(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    drawn = wp.draw_wallpaper((64, 40))
    first = wp.wallpaper((64, 40))
    (cached,) = (tmp_path / "crab-gym").glob("wallpaper-64x40-*.npy")
    assert np.array_equal(first, drawn) and np.array_equal(np.load(cached), drawn)
    monkeypatch.setattr(wp, "draw_wallpaper", lambda size: 1 / 0)  # now it must come from the file
    assert np.array_equal(wp.wallpaper((64, 40)), drawn)
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cached.write_bytes(b"not a picture")
    assert np.array_equal(wp.wallpaper((64, 40)), drawn)
    assert np.array_equal(np.load(cached), drawn)  # rewritten
    np.save(cached, np.zeros((3, 3, 3), np.uint8))  # a picture of another size
    assert np.array_equal(wp.wallpaper((64, 40)), drawn)


def test_a_cache_that_cannot_be_written_still_gives_the_picture(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # a file where the cache folder would be
    assert np.array_equal(wp.wallpaper((32, 20)), wp.draw_wallpaper((32, 20)))
