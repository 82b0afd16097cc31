"""How the phone looks: Roboto and Material Icons from the Debian font packages, every drawn pixel inside
the dump's bounds of the View that drew it, small frames drawn directly that look like the resized full
frame, the dark theme drawn dark, and frames cached by what the tree draws."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from PIL import Image

from crab_gym.envs.android.sim import Phone
from crab_gym.envs.android.sim.apps import APPS
from crab_gym.envs.android.sim.system.providers import put_setting
from crab_gym.envs.android.sim.ui import fonts, render
from crab_gym.envs.android.sim.ui.theme import LIGHT
from crab_gym.envs.android.sim.ui.view import View


def _crash(p: Phone) -> None:
    p.launch("com.google.android.apps.tasks")
    p.current.state["crashed"] = True
    p.invalidate()


SCENES: dict[str, Callable[[Phone], object]] = {
    "home": lambda p: None,
    "drawer": lambda p: p.swipe(540, 1800, 540, 600),
    "shade": lambda p: p.swipe(540, 10, 540, 900),
    "contacts": lambda p: p.launch("com.android.contacts"),
    "editor": lambda p: (p.launch("com.android.contacts"), p.push("edit", focus="first_name"), p.text("Ann")),
    "conversation": lambda p: (p.launch("com.google.android.apps.messaging"), p.tap(540, 420)),
    "keypad": lambda p: (p.launch("com.google.android.dialer"), p.push("keypad", focus="digits")),
    "display": lambda p: (p.launch("com.android.settings"), p.push("display")),
    "network": lambda p: (p.launch("com.android.settings"), p.push("network")),
    "tasks": lambda p: p.launch("com.google.android.apps.tasks"),
    "clock": lambda p: p.launch("com.google.android.deskclock"),
    "files": lambda p: p.launch("com.google.android.documentsui"),
    "crash dialog": _crash,
    "chrome new tab": lambda p: p.launch("com.android.chrome"),
}


@pytest.fixture(scope="module")
def small_phone():
    """A 540x1200 phone: the same layouts at half the pixels, so per-View redraws stay cheap."""
    p = Phone(width=540, height=1200, seed=0)
    yield p
    p.close()


def show(p: Phone, scene: str, dark: bool = False) -> View:
    p.reset(0)
    if dark:
        put_setting(p, "secure", "ui_night_mode", "2")
        p.invalidate()
    SCENES[scene](p)
    return p.ui_tree()


def covers(w: View, v: View) -> bool:
    """``w`` (drawn later) paints an opaque background over all of ``v``."""
    a1, b1, a2, b2 = w.bounds
    x1, y1, x2, y2 = v.bounds
    return w.bg is not None and w.shape == "rect" and a1 <= x1 and b1 <= y1 and x2 <= a2 and y2 <= b2


def parent_of(root: View) -> dict[int, View]:
    return {id(c): v for v in root.walk() for c in v.children}


def test_fonts_come_from_the_debian_packages():
    assert "roboto" in fonts.find_font("Roboto-Regular.ttf", "fonts-roboto").lower()
    assert fonts.find_font(fonts.ICONS_TTF, fonts.ICONS_PACKAGE).endswith("MaterialIcons-Regular.ttf")
    assert fonts.text_font(40).getname()[0] == "Roboto"
    assert len(fonts.codepoints()) > 2000 and fonts.glyph("add") == "\ue145"
    with pytest.raises(KeyError, match="no Material icon named 'no_such_icon'"):
        fonts.glyph("no_such_icon")


def test_a_missing_font_names_the_debian_package(monkeypatch, tmp_path):
    monkeypatch.setattr(fonts, "KNOWN_DIRS", ())
    monkeypatch.setattr(fonts, "FONT_ROOTS", (str(tmp_path),))
    monkeypatch.setattr(fonts, "CODEPOINT_FILE", str(tmp_path / "_variables.scss"))
    fonts.find_font.cache_clear()
    fonts.codepoints.cache_clear()
    try:
        with pytest.raises(fonts.FontMissing, match="apt-get install -y fonts-roboto"):
            fonts.find_font("Roboto-Regular.ttf", "fonts-roboto")
        with pytest.raises(fonts.FontMissing, match="fonts-material-design-icons-iconfont"):
            fonts.codepoints()
        (tmp_path / "_variables.scss").write_text("garbage\n")
        with pytest.raises(fonts.FontMissing, match="_variables.scss: no icon code points"):
            fonts.codepoints()
    finally:
        fonts.find_font.cache_clear()
        fonts.codepoints.cache_clear()


def test_every_icon_the_phone_draws_exists(small_phone):
    used = set()
    for scene in SCENES:
        used |= {v.icon for v in show(small_phone, scene).walk() if v.icon}
    assert {"arrow_back", "add", "search", "wifi", "person", "settings"} <= used
    assert used <= set(fonts.codepoints())


@pytest.mark.parametrize("scene", list(SCENES))
def test_every_view_draws_inside_its_bounds_and_shows(small_phone, scene):
    """Take each View (with its subtree) out of the tree: the frame may change only inside the boxes the
    dump gives for it, and a View that has something to show (text, an icon, a background) changes it."""
    p = small_phone
    root = show(p, scene)
    full = render.draw(root, p.width, p.height, root.bg, (p.width, p.height))
    parents = parent_of(root)
    order = list(root.walk())
    for n, v in enumerate(order[1:], 1):
        siblings = parents[id(v)].children
        i = siblings.index(v)
        del siblings[i]
        try:
            without = render.draw(root, p.width, p.height, root.bg, (p.width, p.height))
        finally:
            siblings.insert(i, v)
        changed = np.any(full != without, axis=2)
        inside = np.zeros_like(changed)
        for d in v.walk():
            x1, y1, x2, y2 = d.bounds
            inside[max(0, y1) : y2, max(0, x1) : x2] = True
        assert not (changed & ~inside).any(), f"{scene}: {v.cls} {v.text or v.desc or v.rid!r} draws outside"
        shows = (v.text or v.icon or v.hint or v.shape not in ("rect", "none")) and v.bounds[2] > v.bounds[0]
        hidden = any(covers(w, v) for w in order[n + 1 :] if w not in set(v.walk()))
        if shows and not hidden and v.shape != "scrim" and v.bounds[3] - v.bounds[1] > 8:
            assert changed.any(), f"{scene}: {v.cls} {v.text or v.desc or v.rid!r} draws nothing"


@pytest.mark.parametrize("size", [(96, 208), (270, 600)])
@pytest.mark.parametrize("scene", ["home", "contacts", "conversation", "display", "crash dialog"])
def test_a_small_frame_looks_like_the_resized_full_frame(phone, scene, size):
    tree = show(phone, scene)
    small = phone.screenshot(size)
    assert small.shape == (size[1], size[0], 3) and small.dtype == np.uint8
    full = Image.fromarray(phone.screenshot()).resize(size, Image.Resampling.BILINEAR, reducing_gap=2.0)
    diff = np.abs(small.astype(int) - np.asarray(full).astype(int))
    assert diff.mean() < 4.0, f"{scene} at {size}: mean difference {diff.mean():.2f}"
    assert np.percentile(diff, 95) < 40
    assert phone.ui_tree() is tree, "drawing small does not rebuild the tree"


@pytest.mark.parametrize("scene", ["contacts", "display", "conversation", "home", "drawer"])
def test_the_dark_theme_is_drawn_dark(phone, scene):
    show(phone, scene)
    light = phone.screenshot().mean()
    show(phone, scene, dark=True)
    dark = phone.screenshot().mean()
    assert phone.dark and dark < 80 < 170 < light, (scene, light, dark)


def test_frames_are_cached_by_what_the_tree_draws(phone):
    phone.launch("com.android.contacts")
    first, small = phone.screenshot(), phone.screenshot((96, 208))
    assert phone.screenshot() is first and phone.screenshot((96, 208)) is small
    assert not first.flags.writeable and not small.flags.writeable
    phone.keyevent(4)  # back to the launcher, then the same screen again: a new tree, the same frame
    phone.launch("com.android.contacts")
    assert phone.screenshot() is first and phone.screenshot((96, 208)) is small
    phone.push("edit", focus="first_name")
    phone.text("A")
    assert not np.array_equal(phone.screenshot((96, 208)), small)


def test_every_screen_of_every_app_draws_at_both_sizes(phone):
    for pkg, app in APPS.items():
        for screen in app.screens:
            phone.reset(0)
            if pkg != "com.google.android.apps.nexuslauncher":
                phone.launch(pkg, screen)
            assert phone.screenshot().shape == (2400, 1080, 3)
            assert phone.screenshot((96, 208)).shape == (208, 96, 3)
            assert "keeps stopping" not in phone.ui_xml(), f"{pkg}/{screen} crashed"


def test_the_crash_dialog_is_a_dialog(phone):
    _crash(phone)
    xml = phone.ui_xml()
    assert 'resource-id="android:id/alertTitle"' in xml and 'text="Tasks keeps stopping"' in xml
    assert 'resource-id="android:id/aerr_close"' in xml
    frame = phone.screenshot()
    behind, card = frame[400, 540].astype(int), frame[1200, 200].astype(int)
    assert behind.sum() < sum(LIGHT["bg"]) - 150, "the screen behind the dialog is dimmed"
    assert tuple(card) == LIGHT["surface_container_high"], "the dialog is a light card"


def test_chrome_new_tab_hint_wraps_whole_and_inside_its_view(small_phone):
    """The new tab's hint is one TextView (whole in the tree) drawn on two lines, not cut with an ellipsis."""
    tree = show(small_phone, "chrome new tab")
    hint = next(v for v in tree.walk() if v.rid.endswith("ntp_hint"))
    assert hint.text == "Type a web address or words to search for in the address bar."
    x1, y1, x2, y2 = hint.bounds
    assert 0 <= x1 < x2 <= small_phone.width and y2 - y1 >= 2 * round(hint.size * 1.4)
    rows = fonts.wrap(hint.text, x2 - x1, hint.size, max_lines=2)
    assert len(rows) == 2 and " ".join(rows) == hint.text and not any(r.endswith("…") for r in rows)
    ink = np.asarray(small_phone.screenshot())[y1:y2, x1:x2].min(axis=(1, 2)) < 200
    half = (y2 - y1) // 2
    assert ink[:half].any() and ink[half:].any(), "the second line of the hint is not drawn"


def test_fonts_wrap_breaks_at_spaces_and_ellipsizes_only_the_last_line():
    text = "one two three four five six seven eight nine ten"
    width = int(fonts.text_width("one two three", 40)) + 1
    assert fonts.wrap(text, width, 40, max_lines=2)[0] == "one two three"
    assert fonts.wrap(text, width, 40, max_lines=2)[1].endswith("…")
    assert " ".join(fonts.wrap(text, width, 40, max_lines=10)) == text
    assert fonts.wrap("", width, 40, max_lines=3) == ()
