"""The simulated phone and its adb device server.

`Phone(width=1080, height=2400, seed=0, root=None)` is the device: apps, SQLite state at Android paths, a UI
tree, rendering and a shell. In-process API (the RL speed path): tap, long_press, swipe, text, keyevent,
screenshot (an (H, W, 3) uint8 array), ui_xml (a uiautomator dump), shell(cmd) -> (stdout, stderr, exit code),
launch, reset(seed). `PhoneServer(phone, host, port=0)` serves the same phone as an adb device (start/stop or
a context manager; `serial` is "host:port" for `adb connect`); every adb command goes through `Phone.shell`.
`serve(port)` blocks serving a fresh phone (`crab-gym phone serve --port P`).

Rooms: `shell/` (the shell and toybox's commands), `system/` (services and their commands, the app
registry), `ui/` (views, layout, widgets, rendering), `apps/` (one module per app), `adbd/` (the wire
protocol and device server), `storage/` (files, databases, APKs). Apps and the shell meet only through
`system/`; tests/envs/android/sim/test_sim_rooms.py keeps the rooms free of import circles.
"""

from __future__ import annotations

import ipaddress
import sys
from typing import TYPE_CHECKING, Any

from .phone import Phone

if TYPE_CHECKING:
    from .adbd.server import PhoneServer


def __getattr__(name: str) -> Any:
    """``PhoneServer``, imported when first asked for: an in-process phone serves no adb."""
    if name == "PhoneServer":
        from .adbd.server import PhoneServer

        return PhoneServer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps a server on this machine (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a host name or "" (every interface): assume reachable from elsewhere
        return False


def serve(port: int, seed: int = 0, width: int = 1080, height: int = 2400, host: str = "127.0.0.1") -> None:
    """Serve a fresh phone as an adb device on host:port until interrupted (`crab-gym phone serve`).

    The default binds loopback only; any other address prints a warning, since adb has no authentication
    here: whoever reaches the port gets a shell on the phone and its files.
    """
    if not is_loopback(host):
        print(
            f"warning: binding {host or 'every interface'}:{port} makes the phone reachable from the "
            "network; anyone who can connect gets a shell on it and its files (no adb authentication). "
            "The default, 127.0.0.1, keeps it on this machine.",
            file=sys.stderr,
            flush=True,
        )
    from .adbd.server import PhoneServer

    phone = Phone(width=width, height=height, seed=seed)
    server = PhoneServer(phone, host=host, port=port)
    try:
        server.serve_forever(on_ready=lambda s: print(f"crab phone serving adb on {s.serial}", flush=True))
    except KeyboardInterrupt:
        pass
    finally:
        phone.close()


__all__ = ["Phone", "PhoneServer", "serve"]
