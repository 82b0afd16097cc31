"""Clearing what covers the screen, from the device's state as any agent can read it: the oracle's generic
step before an action when a system window it did not open is in the way.

On the phone: a dialog of a system package (not the foreground app's: an app's own dialogs are part of its
task) is cancelled with BACK, and a heads-up notification is tapped away. On the desktop: a focused window
of a system prompt program (update-notifier, polkit's agent, a pop-up) is closed with Escape; notifications
take no focus and expire by themselves. Nothing here reads what put the window up.
"""

from __future__ import annotations

from typing import Any

from crab_gym.env_protocol import CrabEnvLike

PHONE_SYSTEM = {"com.android.systemui", "com.google.android.permissioncontroller", "com.google.android.gms"}
HEADS_UP = "com.android.systemui:id/heads_up"
# the programs whose windows are system prompts (WM_CLASS, lower case)
DESKTOP_PROMPTS = {"update-notifier", "polkit-gnome-authentication-agent-1", "xmessage"}


def clear_action(env: CrabEnvLike, device: str) -> tuple | None:
    """The action that clears a system window covering ``device``'s screen, or None if nothing does."""
    sub = env.subenvs.get(device)
    if sub is None:
        return None
    state: Any = sub.state()
    if device == "android":
        nodes = state.ui_tree()
        front = state.foreground_package()
        system = PHONE_SYSTEM - {front}
        if any(n.resource_id == "android:id/parentPanel" and n.package in system for n in nodes):
            return env.encode_action("android", "press", {"button": "back"})
        for n in nodes:
            if n.resource_id == HEADS_UP:
                x1, y1, x2, y2 = n.bounds
                w, h = sub.screen_size
                point = ((x1 + x2) / 2 / w, (y1 + y2) / 2 / h)
                return env.encode_action("android", "tap", {"point": point})
    elif device == "ubuntu":
        win = state.active_window()
        if win is not None and win.wm_class.split(".")[0].lower() in DESKTOP_PROMPTS:
            return env.encode_action("ubuntu", "press", {"key": "escape"})
    return None
