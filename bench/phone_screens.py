"""Screenshots of the simulated phone for the docs: launcher, app drawer, contacts, a dialog, messages, a
conversation, settings (light and dark), Chrome, Drive and Maps, each written small (360x800 by default) as
PNG.

Run: .venv/bin/python bench/phone_screens.py [out_dir] [prefix]   (default: docs/img phone-)
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path

from PIL import Image

from crab_gym.envs.android.sim import Phone
from crab_gym.envs.android.sim.system.providers import put_setting

SIZE = (360, 800)


def _conversation(p: Phone) -> None:
    p.launch("com.google.android.apps.messaging")
    p.tap(540, 420)  # the newest thread


def _dialog(p: Phone) -> None:
    p.launch("com.google.android.apps.tasks")
    p.current.state["crashed"] = True
    p.invalidate()


def _settings_dark(p: Phone) -> None:
    put_setting(p, "secure", "ui_night_mode", "2")
    p.launch("com.android.settings")
    p.push("display")


def _contacts_dark(p: Phone) -> None:
    put_setting(p, "secure", "ui_night_mode", "2")
    p.launch("com.android.contacts")


SCENES: dict[str, Callable[[Phone], None]] = {
    "launcher": lambda p: None,
    "drawer": lambda p: p.swipe(540, 1800, 540, 600),
    "contacts": lambda p: p.launch("com.android.contacts"),
    "contact-editor": lambda p: (p.launch("com.android.contacts"), p.push("edit", focus="first_name")),
    "dialog": _dialog,
    "messages": lambda p: p.launch("com.google.android.apps.messaging"),
    "conversation": _conversation,
    "settings": lambda p: (p.launch("com.android.settings"), p.push("display")),
    "settings-dark": _settings_dark,
    "contacts-dark": _contacts_dark,
    "chrome": lambda p: p.shell(
        "am start -a android.intent.action.VIEW -d https://en.wikipedia.org/wiki/Kenya"
    ),
    "drive": lambda p: p.launch("com.google.android.apps.docs"),
    "maps": lambda p: p.shell(
        "am start -a android.intent.action.VIEW -d 'geo:0,0?q=coffee shop near Munich'"
    ),
}


def main(out: str = "docs/img", prefix: str = "phone-") -> None:
    """Write every scene as ``<out>/<prefix><scene>.png``."""
    Path(out).mkdir(parents=True, exist_ok=True)
    logging.disable(logging.ERROR)  # the dialog scene crashes an app on purpose: no traceback
    phone = Phone(seed=0)
    try:
        for name, scene in SCENES.items():
            phone.reset(0)
            scene(phone)
            img = Image.fromarray(phone.screenshot()).resize(SIZE, Image.Resampling.LANCZOS)
            path = Path(out) / f"{prefix}{name}.png"
            img.quantize(256, dither=Image.Dither.NONE).save(path, optimize=True)  # small files for the docs
            print(path, path.stat().st_size, "bytes")
    finally:
        phone.close()


if __name__ == "__main__":
    main(*sys.argv[1:3])
