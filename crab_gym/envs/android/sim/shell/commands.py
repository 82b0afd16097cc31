"""Which modules hold the shell's commands, imported when a command line first needs them.

Commands register in :data:`~.context.REGISTRY` when their module is imported (``@command``). A phone that is
only tapped and looked at never imports them; a command line imports what it names: the module known to hold
it (:data:`KNOWN`: ``monkey``, a task setup's launch), else every command module (an unknown name, and
``which``, ``type`` or ``toybox``, which list or look up every command).
"""

from __future__ import annotations

import importlib

from .context import REGISTRY, CommandFn

__all__ = ["KNOWN", "MODULES", "find", "load_all"]

_SIM = "crab_gym.envs.android.sim"
MODULES = tuple(
    f"{_SIM}.{m}"
    for m in (
        "shell.builtins",
        "shell.filecmds",
        "shell.proccmds",
        "shell.textcmds",
        "system.am",
        "system.capture",
        "system.date",
        "system.devicecmds",
        "system.dumpsys",
        "system.ime",
        "system.kernelcmds",
        "system.logcatcmd",
        "system.pm",
        "system.providercmds",
    )
)
"""Every module whose commands register on import (with what they import, every command there is)."""
KNOWN = {"monkey": f"{_SIM}.system.am", "am": f"{_SIM}.system.am"}
"""Commands found by importing their own module only (the setups' launch); a test checks each is there."""
_all_loaded = False


def load_all() -> None:
    """Import every command module (once)."""
    global _all_loaded
    if not _all_loaded:
        for name in MODULES:
            importlib.import_module(name)
        _all_loaded = True


def find(name: str) -> CommandFn | None:
    """The command ``name``, importing its module first if needed; None if there is no such command."""
    fn = REGISTRY.get(name)
    if fn is None and name in KNOWN:
        importlib.import_module(KNOWN[name])
        fn = REGISTRY.get(name)
    if fn is None and not _all_loaded:
        load_all()
        fn = REGISTRY.get(name)
    return fn
