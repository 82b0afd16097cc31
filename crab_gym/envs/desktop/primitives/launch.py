"""What a launch did: a new window mapped, an existing one focused, or the launched program gone or idle.

A launcher (rofi) may start a program that opens a window, hand off to a running instance that focuses
one of its windows, start something that exits, or start something that never opens a window. Waiting for
a new window in every case blocks for the whole start-up bound; a :class:`LaunchWatch` instead ends as soon
as the outcome is known, and waits out an application's start-up only while the program works (uses CPU).

Guest-safe (stdlib only, and the guest-safe modules beside it): the VM image ships this module to the probe
agent, which judges launches in the guest with this same code.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Literal, Protocol

from crab_gym.envs.desktop.primitives.cpu import any_at_work, cpu_demand_ns, waiting_on_disk
from crab_gym.envs.desktop.primitives.procs import proc_name, shell_attached
from crab_gym.envs.desktop.primitives.x11_windows import WindowInfo

Outcome = Literal["window", "focused", "exited", "idle", "timeout"]
Pids = Callable[[], list[int]]


class Screen(Protocol):
    """The window facts a launch is judged by (an X11Display, a WindowReader)."""

    def windows(self) -> list[WindowInfo]: ...

    def active_window(self) -> WindowInfo | None: ...


class LaunchWatch:
    """Snapshot the session before a launch; :meth:`wait` then says what the launch did.

    ``session_pids`` lists the session's processes; ``snapshot`` resumes a watch from :meth:`snapshot`
    (plain data, so the probe agent can take it in one request and wait in another).
    """

    def __init__(
        self,
        screen: Screen,
        session_pids: Pids,
        ignore: frozenset[str] = frozenset({"rofi"}),
        snapshot: dict[str, Any] | None = None,
    ) -> None:
        self.x, self.session_pids, self.ignore = screen, session_pids, ignore
        if snapshot is None:
            active = screen.active_window()
            snapshot = {
                "windows": [w.wid for w in screen.windows()],
                "active": active.wid if active is not None else None,
                "pids": session_pids(),
            }
        self.windows = set(snapshot["windows"])
        self.active = snapshot["active"]
        self.pids = set(snapshot["pids"])

    def snapshot(self) -> dict[str, Any]:
        """What the launch is judged against, as plain data."""
        return {"windows": sorted(self.windows), "active": self.active, "pids": sorted(self.pids)}

    def new_pids(self) -> list[int]:
        """Session processes started since the snapshot (the launcher itself excluded)."""
        return [p for p in self.session_pids() if p not in self.pids and proc_name(p) not in self.ignore]

    def outcome_now(self) -> Outcome | None:
        """What the active window shows: "window" (a new one; a terminal's once its shell is attached, see
        :func:`~crab_gym.envs.desktop.primitives.procs.shell_attached`), "focused" (another one that was there
        before), else None."""
        win = self.x.active_window()
        if win is None:
            return None
        if win.wid not in self.windows and win.title:
            return "window" if win.pid is None or shell_attached(win.pid) else None
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
        waited to run under 5 % of a CPU, none of them waiting on the disk (state D uses no CPU), for
        ``idle_after`` s with no window; "timeout" after ``startup`` s of a program that keeps working
        without showing a window. A window of before that becomes active while the launched program still
        runs is not the launch's doing (focus coming back to an app whose dialog just closed, say), so it
        decides nothing.
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
            if fresh or total - used > 0.05 * poll * 1e9 or waiting_on_disk(pids):
                last_active = now
            used = total
            if now - start >= grace and not pids:
                return "focused" if shown == "focused" else "exited"
            if pids and now - last_active >= idle_after:
                return "idle"
            if now - start >= startup:
                return "timeout"
            time.sleep(poll)


def launcher_exits(
    session_pids: Pids, name: str = "rofi", idle_for: float = 0.2, bound: float = 2.0, poll: float = 0.01
) -> bool:
    """After Enter in the launcher: True once it exits (it launched something); False once it sits open and
    idle for ``idle_for`` s (nothing matched), or after ``bound`` s.

    Idle means no CPU, no runnable thread (a starved launcher is not idle) and no thread waiting on the
    disk: after starting the app rofi rewrites its history file, and on a disk busy with writes its
    ``close`` of that file sleeps in state D (``rq_qos_wait``) for 0.2 s and more, using nothing (read as
    "no match" 4 times in 120 beside two ``dd conv=fsync`` loops, 0 in 90 since)."""
    pids = [p for p in session_pids() if proc_name(p) == name]
    start = last_active = time.monotonic()
    used = cpu_demand_ns(pids)
    while any(proc_name(p) == name for p in pids):
        now, total = time.monotonic(), cpu_demand_ns(pids)
        if total - used > 0.05 * poll * 1e9 or any_at_work(pids):
            last_active = now
        used = total
        if now - last_active >= idle_for or now - start >= bound:
            return False
        time.sleep(poll)
    return True
