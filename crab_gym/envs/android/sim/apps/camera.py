"""Camera (com.android.camera2): a viewfinder and a shutter that writes a JPEG under /sdcard/DCIM/Camera."""

from __future__ import annotations

import datetime as dt
import io

from ..system.registry import AppSpec
from ..ui.layout import Screen

APP = AppSpec("com.android.camera2", "Camera", (60, 64, 67))


def take_photo(phone) -> str:
    from PIL import Image  # here: a phone that takes no photo never loads Pillow

    ms = phone.now_ms()
    stamp = dt.datetime.fromtimestamp(ms / 1000, dt.timezone.utc).strftime("%Y%m%d_%H%M%S")
    path = f"/sdcard/DCIM/Camera/IMG_{stamp}.jpg"
    shade = (phone.seed * 37 + phone.counter * 53) % 200
    buf = io.BytesIO()
    Image.new("RGB", (320, 240), (40 + shade // 2, 90, 40 + shade)).save(buf, format="JPEG", quality=80)
    phone.fs.write_bytes(path, buf.getvalue())
    return path


@APP.screen("main", "com.android.camera.CameraActivity")
def viewfinder(s: Screen) -> None:
    s.view(
        cls="android.widget.FrameLayout",
        rid="activity_root_view",
        bounds=(0, s.y, s.right, s.bottom),
        bg=(0, 0, 0),
    )
    s.view(
        cls="android.view.TextureView",
        rid="preview_content",
        bounds=(0, s.y, s.right, s.bottom - s.px(420)),
        bg=(48, 52, 56),
    )
    size = s.px(200)
    cx, cy = s.right // 2, s.bottom - s.px(210)

    def shoot() -> None:
        s.state["last"] = take_photo(s.phone)

    s.view(
        cls="android.widget.ImageButton",
        desc="Shutter",
        rid="shutter_button",
        clickable=True,
        focusable=True,
        on_click=shoot,
        shape="circle",
        bg=(255, 255, 255),
        bounds=(cx - size // 2, cy - size // 2, cx + size // 2, cy + size // 2),
    )
    if s.state.get("last"):
        s.view(
            cls="android.widget.TextView",
            text="Saved " + s.state["last"].rsplit("/", 1)[-1],
            rid="toast",
            fg=(255, 255, 255),
            size=s.px(36),
            align="center",
            bounds=(0, s.bottom - s.px(500), s.right, s.bottom - s.px(430)),
        )
