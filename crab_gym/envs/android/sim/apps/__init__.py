"""The installed apps, by package name. Each module defines one AppSpec called APP."""

from __future__ import annotations

from . import (
    calendar,
    camera,
    clock,
    contacts,
    dialer,
    files,
    launcher,
    mail,
    messages,
    notes,
    settings,
    tasks,
)
from .base import AppSpec

LAUNCHER = launcher.APP.package
APPS: dict[str, AppSpec] = {
    m.APP.package: m.APP
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
    )
}

__all__ = ["APPS", "LAUNCHER", "AppSpec"]
