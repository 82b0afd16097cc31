"""What an app is to the phone: a package, a label, an icon colour and named screens (activity + builder)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..layout import Screen

Builder = Callable[[Screen], None]


@dataclass
class AppSpec:
    package: str
    label: str
    color: tuple[int, int, int]
    screens: dict[str, tuple[str, Builder]] = field(default_factory=dict)  # name -> (activity class, builder)
    main: str = "main"
    in_drawer: bool = True

    def activity(self, screen: str) -> str:
        """The fully qualified activity class of a screen."""
        cls = self.screens[screen][0]
        return self.package + cls if cls.startswith(".") else cls

    def screen(self, name: str, activity: str) -> Callable[[Builder], Builder]:
        def deco(fn: Builder) -> Builder:
            self.screens[name] = (activity, fn)
            return fn

        return deco


def short(package: str, cls: str) -> str:
    """ActivityRecord style: com.pkg/.Cls when the class lives in the package."""
    return f"{package}/{cls[len(package) :]}" if cls.startswith(package + ".") else f"{package}/{cls}"


def rows(phone, path: str, sql: str, args: tuple = ()) -> list[tuple]:
    """Read rows from one of the phone's databases (a kept connection: ``sim/readers.py``)."""
    with phone.lock:
        return phone.readers.rows(path, sql, args)


def execute(phone, path: str, sql: str, args: tuple = ()) -> int:
    """Write to one of the phone's databases; returns the last row id."""
    from ..db import connect

    with phone.lock, connect(phone.fs, path) as c:
        return int(c.execute(sql, args).lastrowid or 0)


def fields(s, *keys: str) -> list[str]:
    values = s.state.setdefault("fields", {})
    return [values.get(k, "").strip() for k in keys]
