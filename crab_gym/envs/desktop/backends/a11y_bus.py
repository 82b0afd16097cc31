"""The session's accessibility (AT-SPI) bus and its registry, which outlive resets.

Applications find the bus through ``AT_SPI_BUS_ADDRESS``. It is ours rather than the one the session bus
starts on demand (at-spi-bus-launcher), which dies with the session bus at every reset and would take the
panel's accessibility with it. The bus starts no services (session/a11y-bus.conf), and the registry runs
without the session bus, so nothing here depends on what a reset replaces.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING

from crab_gym.envs.base import DeviceError

if TYPE_CHECKING:
    from crab_gym.envs.desktop.backends.xvfb import XvfbSession

BUS_CONFIG = Path(__file__).resolve().parent.parent / "session" / "a11y-bus.conf"
REGISTRY = "/usr/libexec/at-spi2-registryd"
REGISTRY_NAME = "org.a11y.atspi.Registry"


def a11y_bus_address(directory: Path) -> str:
    return f"unix:path={directory / 'a11y-bus'}"


def start_a11y_bus(session: XvfbSession, directory: Path, timeout: float = 10.0) -> list[subprocess.Popen]:
    """Start the bus and the registry in ``directory``; return once the registry owns its name (before
    that, an application that asks for it would find nothing)."""
    socket = directory / "a11y-bus"
    address = a11y_bus_address(directory)
    # The session user reads the config from its own directory: the package may sit where it cannot reach
    # (a clone inside a 0700 temporary directory).
    config = directory / BUS_CONFIG.name
    shutil.copyfile(BUS_CONFIG, config)
    session.chown(config)
    bus = session.spawn(
        ["dbus-daemon", "--nofork", f"--config-file={config}", f"--address={address}"],
        log=f"{directory.name}/a11y-bus",
        cwd=directory,
    )
    deadline = time.monotonic() + timeout
    while not socket.exists():
        if bus.poll() is not None or time.monotonic() > deadline:
            bus.kill()
            raise DeviceError(f"the accessibility bus did not start (see {directory}/a11y-bus.log)")
        time.sleep(0.005)
    no_session_bus = {"DBUS_SESSION_BUS_ADDRESS": "disabled:"}
    registry = session.spawn([REGISTRY], log=f"{directory.name}/registry", cwd=directory, env=no_session_bus)
    res = session.run(
        ["gdbus", "wait", "--address", address, "--timeout", str(int(timeout)), REGISTRY_NAME],
        timeout=timeout + 5,
    )
    if res.returncode != 0 or registry.poll() is not None:
        for p in (bus, registry):
            p.kill()
        why = res.stderr.decode(errors="replace").strip()
        raise DeviceError(f"the accessibility registry did not start: {why or 'it exited'}")
    return [bus, registry]
