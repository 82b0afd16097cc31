"""System windows over the app: a dialog (a permission request, an update prompt, a pop-up) and a heads-up
notification, as Android's system UI draws them above whatever app is in front.

Something outside the apps puts them up (``show``; the robustness wrapper of crab_gym.wrappers.perturb does),
as a real phone's system puts up its own. A dialog takes the screen: a tap on one of its buttons or BACK
closes it (BACK is its "cancel"). A heads-up notification covers the top of the screen until it is swiped
up or tapped; it is also posted to the shade. They live in the system's memory, so a reset clears them.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ui.theme import palette
from ..ui.view import View
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
    """A Material dialog over a scrim, in the owning package's window; each button closes it."""
    c, w, h, s = palette(phone.dark), phone.width, phone.height, phone.width / 1080
    pkg = PACKAGES[o.kind]
    root.add(View(cls="android.view.View", package=pkg, bounds=(0, 0, w, h), shape="scrim"))
    x1, x2 = int(84 * s), w - int(84 * s)
    row = int(130 * s)
    height = int((64 + 90 + 260 + 40) * s) + row * len(o.buttons)
    y1 = (h - height) // 2
    card = root.add(
        View(
            cls="android.widget.LinearLayout",
            package=pkg,
            rid="android:id/parentPanel",
            bounds=(x1, y1, x2, y1 + height),
            shape="round",
            radius=int(74 * s),
            bg=c["surface_container_high"],
        )
    )
    y = y1 + int(64 * s)
    for rid, text, tall, size, fg in (
        ("android:id/alertTitle", o.title, 90, 56, c["text"]),
        ("android:id/message", o.message, 260, 38, c["muted"]),
    ):
        card.add(
            View(
                cls="android.widget.TextView",
                package=pkg,
                rid=rid,
                text=text,
                bounds=(x1 + int(64 * s), y, x2 - int(64 * s), y + int(tall * s)),
                fg=fg,
                size=int(size * s),
            )
        )
        y += int(tall * s)
    y += int(40 * s)
    for i, label in enumerate(o.buttons):  # stacked full-width buttons, as a permission dialog has
        card.add(
            View(
                cls="android.widget.Button",
                package=pkg,
                rid=f"android:id/button{i + 1}",
                text=label,
                clickable=True,
                focusable=True,
                on_click=lambda label=label: close(phone, o, label),
                bounds=(x1 + int(40 * s), y, x2 - int(40 * s), y + row - int(10 * s)),
                shape="pill",
                fg=c["primary"],
                size=int(40 * s),
                bold=True,
                align="center",
            )
        )
        y += row
