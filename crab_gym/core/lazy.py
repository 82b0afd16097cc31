"""A module imported at its first attribute access, for imports a process may never need.

A template module names the desktop's evaluators, but a process that only drives a phone never builds a
desktop task: importing them (and with them Xlib, mss and the desktop's actions) would only slow its start.
Import the real module under ``TYPE_CHECKING`` beside the proxy, so type checkers and the layer test still
see the dependency.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyModule:
    """Stands for the module ``name``; its first attribute access imports it."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:  # only for names not set in __init__
        if attr.startswith("_"):  # copy/pickle probing an instance made without __init__: no recursion
            raise AttributeError(attr)
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attr)

    def __repr__(self) -> str:
        state = "imported" if self._module is not None else "not imported yet"
        return f"<lazy module {self._name!r}, {state}>"


def lazy_module(name: str) -> Any:
    """A proxy of the module ``name`` that imports it when first used (typed Any: see the module's doc)."""
    return LazyModule(name)
