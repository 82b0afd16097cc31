"""The apps, one module each (each defines one AppSpec called APP; the Clock's world clock screens are in a
second module). The system knows every app by its manifest (system/manifest.py); importing this package
installs the loader that imports an app's modules when its code is first needed (a screen built, a uri
handled), so a phone imports only the apps it shows."""

from __future__ import annotations

import importlib
from functools import cache

from ..system.registry import APPS, LAUNCHER, AppSpec, install_loader, spec

__all__ = ["APPS", "LAUNCHER", "AppSpec", "load", "spec"]


@cache
def load(package: str) -> AppSpec:
    """The AppSpec of an installed app, after importing each of its modules (its manifest lists them)."""
    # every module is imported: a further one adds its screens to the first's APP
    modules = [importlib.import_module(f"{__name__}.{m}") for m in APPS[package].modules]
    app = modules[0].APP
    if not isinstance(app, AppSpec) or app.package != package:
        raise RuntimeError(f"apps/{APPS[package].modules[0]}.py defines no AppSpec of {package}")
    return app


install_loader(load)
