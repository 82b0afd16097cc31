"""System windows over the app: a dialog (a permission request, an update prompt, a pop-up) and a heads-up
notification, as Android's system UI draws them above whatever app is in front.

Something outside the apps puts them up (``show``; the robustness wrapper of crab_gym.wrappers.perturb does),
as a real phone's system puts up its own. A dialog takes the screen: a tap on one of its buttons or BACK
closes it (BACK is its "cancel"). A heads-up notification covers the top of the screen until it is swiped
up or tapped; it is also posted to the shade. They live in the system's memory, so a reset clears them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from types import SimpleNamespace

from ..ui import widgets
from ..ui.layout import Screen
from ..ui.view import Handler, View
from . import logcat, notifications

SYSTEMUI = "com.android.systemui"
PACKAGES = {  # which system package owns each kind's window, as on a Pixel
    "permission": "com.google.android.permissioncontroller",
    "update": "com.google.android.gms",
    "popup": SYSTEMUI,
    "notification": SYSTEMUI,
}


@dataclass(frozen=True)
class Overlay:
    """One system window: ``kind`` is a key of PACKAGES; ``buttons`` are its labels, the first the cancel."""

    kind: str
    title: str
    message: str = ""
    buttons: tuple[str, ...] = ("OK",)


def shown(phone) -> list[Overlay]:
    """The system windows up now, bottom first."""
    found: list[Overlay] = getattr(phone, "overlays", [])
    return found


def show(phone, overlay: Overlay) -> None:
    if overlay.kind not in PACKAGES:
        raise ValueError(f"unknown overlay kind {overlay.kind!r}; known: {sorted(PACKAGES)}")
    with phone.lock:
        phone.overlays = [*shown(phone), overlay]
        if overlay.kind == "notification":
            note = notifications.Notification(overlay.title, overlay.title, overlay.message)
            notifications.post(phone, note)
        logcat.log(phone, "I", "WindowManager", f"Adding window {PACKAGES[overlay.kind]} ({overlay.kind})")
        phone.invalidate()


def close(phone, overlay: Overlay, choice: str) -> None:
    with phone.lock:
        phone.overlays = [o for o in shown(phone) if o is not overlay]
        logcat.log(phone, "I", "WindowManager", f"Removing window {overlay.kind}: {choice}")
        phone.invalidate()


def dialog_up(phone) -> Overlay | None:
    """The topmost dialog, if one is up."""
    dialogs = [o for o in shown(phone) if o.kind != "notification"]
    return dialogs[-1] if dialogs else None


def key(phone, code: int) -> bool:
    """BACK (or ESCAPE) cancels the topmost dialog; True when consumed."""
    top = dialog_up(phone)
    if top is None or code not in (4, 111):
        return False
    close(phone, top, "back")
    return True


def swipe(phone, x1: float, y1: float, x2: float, y2: float) -> bool:
    """A swipe up that starts on a heads-up notification dismisses it; while a dialog is up, a swipe reaches
    nothing under it. True when consumed."""
    if dialog_up(phone) is not None:
        return True
    heads = [o for o in shown(phone) if o.kind == "notification"]
    if heads and y1 <= _heads_up_bottom(phone) and y1 - y2 > 100 * phone.width / 1080:
        close(phone, heads[-1], "swiped")
        return True
    return False


def _heads_up_bottom(phone) -> int:
    return phone.status_h + int(300 * phone.width / 1080)


def draw(phone, root: View) -> None:
    """Every system window, bottom first, over what is drawn in ``root``."""
    for overlay in shown(phone):
        (_heads_up if overlay.kind == "notification" else _dialog)(phone, root, overlay)


def _heads_up(phone, root: View, o: Overlay) -> None:
    w, s = phone.width, phone.width / 1080
    text = f"{o.title}: {o.message}" if o.message else o.title
    bounds = (int(30 * s), phone.status_h + int(20 * s), w - int(30 * s), _heads_up_bottom(phone))
    root.add(
        notifications.card(
            phone, text, bounds, cls="android.widget.FrameLayout", rid=f"{SYSTEMUI}:id/heads_up",
            desc=f"Notification. {text}", clickable=True, on_click=lambda: close(phone, o, "tapped"),
            radius=int(40 * s), size=int(38 * s),
        )
    )  # fmt: skip


def _dialog(phone, root: View, o: Overlay) -> None:
    """Android's Material dialog over a scrim (ui/widgets.py), in the owning package's window; each button
    closes it."""
    window = SimpleNamespace(package=PACKAGES[o.kind], state={})  # the system window's activity, in effect
    buttons: list[tuple[str, Handler, str]] = [
        (label, partial(close, phone, o, label), f"android:id/button{i + 1}")
        for i, label in enumerate(o.buttons)
    ]
    widgets.dialog(Screen(phone, window, root), o.title, buttons, o.message)
