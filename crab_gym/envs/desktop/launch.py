"""What a launch did: a new window mapped, an existing one focused, or the launched program gone or idle.

A launcher (rofi) may start a program that opens a window, hand off to a running instance that focuses
one of its windows, start something that exits, or start something that never opens a window. Waiting for
a new window in every case blocks for the whole start-up bound; a :class:`LaunchWatch` instead ends as soon
as the outcome is known, and waits out an application's start-up only while the program works (uses CPU).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Literal, Protocol

from crab_gym.envs.desktop.cpu import cpu_demand_ns
from crab_gym.envs.desktop.x11 import X11Display

Outcome = Literal["window", "focused", "exited", "idle", "timeout"]


class Session(Protocol):
    def session_pids(self) -> list[int]: ...


def _name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


class LaunchWatch:
    """Snapshot the session before a launch; :meth:`wait` then says what the launch did."""

    def __init__(self, x: X11Display, session: Session, ignore: frozenset[str] = frozenset({"rofi"})) -> None:
        self.x, self.session, self.ignore = x, session, ignore
        self.windows = {w.wid for w in x.windows()}
        active = x.active_window()
        self.active = active.wid if active is not None else None
        self.pids = set(session.session_pids())

    def new_pids(self) -> list[int]:
        """Session processes started since the snapshot (the launcher itself excluded)."""
        return [p for p in self.session.session_pids() if p not in self.pids and _name(p) not in self.ignore]

    def outcome_now(self) -> Outcome | None:
        """What the active window shows: "window" (a new one), "focused" (another one that was there
        before), else None."""
        win = self.x.active_window()
        if win is None:
            return None
        if win.wid not in self.windows and win.title:
            return "window"
        if win.wid != self.active and win.wid in self.windows:
            return "focused"
        return None

    def wait(
        self, startup: float = 40.0, idle_after: float = 1.0, grace: float = 0.3, poll: float = 0.02
    ) -> Outcome:
        """Poll until the outcome is known.

        "window" as soon as a new window is active; once no process the launch started is alive (after
        ``grace`` s, for a program that hands off to a running instance), "focused" if another window
        that was there before is now active, else "exited"; "idle" once the launched processes ran or
        waited to run under 5 % of a CPU for ``idle_after`` s with no window; "timeout" after ``startup``
        s of a program that keeps working without showing a window. A window of before that becomes
        active while the launched program still runs is not the launch's doing (focus coming back to an
        app whose dialog just closed, say), so it decides nothing.
        """
        start = last_active = time.monotonic()
        seen: set[int] = set()
        used = 0
        while True:
            if (shown := self.outcome_now()) == "window":
                return shown
            now = time.monotonic()
            pids = self.new_pids()
            fresh = [p for p in pids if p not in seen]
            seen.update(fresh)
            total = cpu_demand_ns(pids)
            if fresh or total - used > 0.05 * poll * 1e9:
                last_active = now
            used = total
            if now - start >= grace and not pids:
                return "focused" if shown == "focused" else "exited"
            if pids and now - last_active >= idle_after:
                return "idle"
            if now - start >= startup:
                return "timeout"
            time.sleep(poll)
