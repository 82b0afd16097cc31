"""The apps, one module each (each defines one AppSpec called APP); importing this package installs them in
system/registry.py, whose APPS (by package name) and LAUNCHER it shows here too."""

from __future__ import annotations

from ..system.registry import APPS, LAUNCHER, AppSpec, install
from . import (
    calendar,
    camera,
    chrome,
    clock,
    contacts,
    dialer,
    drive,
    files,
    launcher,
    mail,
    maps,
    messages,
    notes,
    settings,
    tasks,
    worldclock,  # noqa: F401 - the Clock app's world clock screens
)

install(
    m.APP
    for m in (
        launcher,
        contacts,
        messages,
        dialer,
        calendar,
        clock,
        tasks,
        notes,
        files,
        settings,
        mail,
        camera,
        drive,
        chrome,
        maps,
    )
)

__all__ = ["APPS", "LAUNCHER", "AppSpec"]
