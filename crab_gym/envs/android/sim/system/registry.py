"""What an app is to the system: its manifest (system/manifest.py), always known, by package name in APPS,
and its code, an AppSpec (package, label, icon colour, named screens with their builders, uri handlers)
that its module under apps/ defines and that loads when first needed. `apps/` installs the loader when
imported (the phone imports it), so am, pm, intents and dumpsys know every app without importing app code."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .manifest import LAUNCHER, MANIFESTS, Manifest

if TYPE_CHECKING:
    from ..ui.layout import Screen

__all__ = ["APPS", "LAUNCHER", "AppSpec", "Manifest", "install_loader", "short", "spec", "uri_handler"]

Builder = Callable[["Screen"], None]
UriHandler = Callable[[Any, str], None]  # (phone, the uri's rest after "scheme:")


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


APPS: dict[str, Manifest] = {m.package: m for m in MANIFESTS}  # the installed apps, in install order
_loader: list[Callable[[str], AppSpec]] = []


def install_loader(load: Callable[[str], AppSpec]) -> None:
    """How an installed app's code is loaded (apps/__init__.py's: it imports the app's modules)."""
    _loader[:] = [load]


def spec(package: str) -> AppSpec:
    """The AppSpec of an installed app, its modules imported the first time (KeyError: not installed)."""
    if package not in APPS:
        raise KeyError(f"no app {package!r}; installed: {', '.join(sorted(APPS))}")
    if not _loader:
        raise RuntimeError("no app loader: import crab_gym.envs.android.sim.apps first (the phone does)")
    return _loader[0](package)


def uri_handler(scheme: str) -> UriHandler | None:
    """What the first installed app that takes `scheme` does with it (its code loaded), or None."""
    pkg = next((m.package for m in MANIFESTS if scheme in m.schemes), None)
    return None if pkg is None else spec(pkg).uri_handlers.get(scheme)


def short(package: str, cls: str) -> str:
    """ActivityRecord style: com.pkg/.Cls when the class lives in the package."""
    return f"{package}/{cls[len(package) :]}" if cls.startswith(package + ".") else f"{package}/{cls}"
