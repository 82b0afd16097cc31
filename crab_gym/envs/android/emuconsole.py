"""A client of the Android emulator's console (what ``adb emu`` drives): telnet-style lines on 127.0.0.1.

The console of ``emulator-NNNN`` listens on port NNNN (the serial's number, as the adb client computes it).
We speak the protocol directly rather than through ``adb emu``, so no adb binary is needed and a ``KO:``
answer arrives as an error with the console's reason.
"""

from __future__ import annotations

import re
import socket
from pathlib import Path

from crab_gym.envs.base import DeviceError

_EMULATOR = re.compile(r"^emulator-(\d+)$")


def console_port(serial: str) -> int | None:
    """The console port of an emulator serial (``emulator-5554`` → 5554); None for other serials."""
    m = _EMULATOR.match(serial)
    return int(m.group(1)) if m else None


def console(port: int, lines: list[str], token: str | None = None, timeout: float = 30.0) -> list[list[str]]:
    """Authenticate on the console at ``port`` and run ``lines``; each one's answer lines before its ``OK``.

    Raises DeviceError naming the command on a ``KO:`` answer or when the console cannot be reached.
    """
    if token is None:
        path = Path.home() / ".emulator_console_auth_token"
        token = path.read_text().strip() if path.exists() else ""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            f = s.makefile("rwb")

            def answer(cmd: str) -> list[str]:
                out: list[str] = []
                for raw in f:
                    line = raw.decode("utf-8", "replace").rstrip("\r\n")
                    if line == "OK":
                        return out
                    if line.startswith("KO"):
                        raise DeviceError(f"emulator console {port}: {cmd!r} answered {line!r}")
                    out.append(line)
                raise DeviceError(f"emulator console {port}: closed before answering {cmd!r}")

            answer("(banner)")
            results = []
            for cmd in [f"auth {token}", *lines]:
                f.write(cmd.encode() + b"\r\n")
                f.flush()
                results.append(answer(cmd.split()[0] if cmd.startswith("auth") else cmd))
            f.write(b"quit\r\n")
            f.flush()
            return results[1:]
    except OSError as e:
        raise DeviceError(f"emulator console on 127.0.0.1:{port} unreachable: {e}") from e


def load_snapshot(serial: str, name: str, token: str | None = None) -> bool:
    """Load snapshot ``name`` on emulator ``serial`` through its console; False if not an emulator serial or
    the emulator has no such snapshot (DeviceError if the console fails)."""
    port = console_port(serial)
    if port is None:
        return False
    listed = console(port, ["avd snapshot list"], token)[0]
    if not any(line.split()[-1:] == [name] for line in listed):
        return False
    console(port, [f"avd snapshot load {name}"], token)
    return True
