"""What an app is to the system (an AppSpec: package, label, icon colour, named screens, the uri schemes it
takes) and the installed apps by package name. `apps/` fills APPS when imported (the phone imports it), so
am, pm, intents and dumpsys know every app without importing app code."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..ui.layout import Screen

Builder = Callable[[Screen], None]
UriHandler = Callable[[Any, str], None]  # (phone, the uri's rest after "scheme:")

LAUNCHER = "com.google.android.apps.nexuslauncher"  # the home app


@dataclass
class AppSpec:
    package: str
    label: str
    color: tuple[int, int, int]
    screens: dict[str, tuple[str, Builder]] = field(default_factory=dict)  # name -> (activity class, builder)
    main: str = "main"
    in_drawer: bool = True
    uri_handlers: dict[str, UriHandler] = field(default_factory=dict)  # scheme -> what the app does with it

    def activity(self, screen: str) -> str:
        """The fully qualified activity class of a screen."""
        cls = self.screens[screen][0]
        return self.package + cls if cls.startswith(".") else cls

    def screen(self, name: str, activity: str) -> Callable[[Builder], Builder]:
        def deco(fn: Builder) -> Builder:
            self.screens[name] = (activity, fn)
            return fn

        return deco

    def handles(self, scheme: str) -> Callable[[UriHandler], UriHandler]:
        """Register what the app does with a uri of `scheme` (tel: for the dialer)."""

        def deco(fn: UriHandler) -> UriHandler:
            self.uri_handlers[scheme] = fn
            return fn

        return deco


APPS: dict[str, AppSpec] = {}


def install(specs: Iterable[AppSpec]) -> None:
    """Add apps to APPS in the order given (the factory packages take their uids in this order)."""
    for spec in specs:
        APPS[spec.package] = spec


def uri_handler(scheme: str) -> UriHandler | None:
    """What the first installed app that takes `scheme` does with it, or None."""
    return next((a.uri_handlers[scheme] for a in APPS.values() if scheme in a.uri_handlers), None)


def short(package: str, cls: str) -> str:
    """ActivityRecord style: com.pkg/.Cls when the class lives in the package."""
    return f"{package}/{cls[len(package) :]}" if cls.startswith(package + ".") else f"{package}/{cls}"
