"""Overview (recents): KEYCODE_APP_SWITCH or the navigation bar's square opens it over the tasks. It lists
the recent tasks, newest first; a card brings its task to the front, "Clear all" closes every task, and
APP_SWITCH again goes back to the task that was on top. Pixel's launcher draws it, so it is a launcher
screen (com.android.quickstep.RecentsActivity, which apps/launcher.py declares with `overview`); the system
UI opens it without loading the launcher's code."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..system.registry import APPS, LAUNCHER

if TYPE_CHECKING:
    from ..ui.layout import Screen


def _close(phone) -> None:
    phone.stack = [a for a in phone.stack if a.screen != "recents" or a.package != LAUNCHER] or phone.stack


def show(phone) -> None:
    """Open overview, or close it if it shows (APP_SWITCH toggles)."""
    if phone.current.package == LAUNCHER and phone.current.screen == "recents":
        phone.back()
        return
    phone.shade_open = False
    home = next((a for a in phone.stack if a.package == LAUNCHER), phone.current)
    phone.stack.append(type(phone.current)(LAUNCHER, "recents", {}, home.task_id))
    phone.invalidate()


def recent_tasks(phone) -> list[str]:
    """The packages with a task, top first (the home screen is not one)."""
    seen: list[str] = []
    for act in reversed(phone.stack):
        if act.package != LAUNCHER and act.package not in seen:
            seen.append(act.package)
    return seen


def overview(s: Screen) -> None:
    phone = s.phone
    tasks = recent_tasks(phone)
    s.y += s.px(40)
    if not tasks:
        s.text("No recent items", rid="recents_empty", muted=True)
    for pkg in tasks:

        def open_task(p=pkg) -> None:
            _close(phone)
            phone.launch(p)

        s.button(APPS[pkg].label, open_task, rid="snapshot", tone="")

    def clear_all() -> None:
        for p in tasks:
            phone.force_stop(p)
        phone.home()

    if tasks:
        s.button("Clear all", clear_all, rid="clear_all")
