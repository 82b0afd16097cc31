"""An emulator console for our simulated phone: the protocol ``adb emu`` and ``telnet localhost 5554`` speak.

It is a test double for the Android emulator's console, on loopback, speaking the real protocol: a banner
asking for ``auth <token>`` (``~/.emulator_console_auth_token``'s, or the one given; empty: no auth), then one
command a line, each answered ``OK`` or ``KO: <reason>`` (lines end ``\\r\\n``). Commands: ``auth``,
``avd snapshot save|load|delete <name>``, ``avd snapshot list``, ``avd name``, ``ping``, ``quit``/``exit``.
Snapshots are the phone's own (:mod:`..system.snapshot`), kept in this process by name.
"""

from __future__ import annotations

import socketserver
import threading
from pathlib import Path

from ..system.snapshot import PhoneState, capture, restore

TOKEN_FILE = Path.home() / ".emulator_console_auth_token"


def console_token(path: Path = TOKEN_FILE) -> str:
    """The console's auth token, from the file (made with a fresh token if missing, as the emulator does)."""
    if not path.exists():
        import secrets

        path.write_text(secrets.token_urlsafe(12))
        path.chmod(0o600)
    return path.read_text().strip()


class EmulatorConsole:
    """The console of ``phone`` on 127.0.0.1:``port`` (0: any free port; :attr:`port` says which)."""

    def __init__(self, phone, port: int = 0, token: str | None = None, avd: str = "crab_sim") -> None:
        self.phone, self.avd = phone, avd
        self.token = console_token() if token is None else token
        self.snapshots: dict[str, PhoneState] = {}
        console = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                console._serve(self)

        socketserver.ThreadingTCPServer.allow_reuse_address = True
        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self.port: int = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True, name="emu-console")
        self._thread.start()

    def _serve(self, h: socketserver.StreamRequestHandler) -> None:
        def say(*lines: str) -> None:
            h.wfile.write("".join(line + "\r\n" for line in lines).encode())
            h.wfile.flush()

        authed = not self.token  # an empty token file turns authentication off, as on the emulator
        if authed:
            say("Android Console: type 'help' for a list of commands", "OK")
        else:
            say(
                "Android Console: Authentication required",
                "Android Console: type 'auth <auth_token>' to authenticate",
                f"Android Console: you can find your <auth_token> in '{TOKEN_FILE}'",
                "OK",
            )
        for raw in h.rfile:
            words = raw.decode("utf-8", "replace").split()
            if not words:
                continue
            if words[0] in ("quit", "exit"):
                return
            if words[0] == "auth":
                authed = len(words) == 2 and words[1] == self.token
                say("Android Console: type 'help' for a list of commands", "OK") if authed else say(
                    "KO: authentication token does not match ~/.emulator_console_auth_token"
                )
                continue
            if not authed:
                say("KO: unknown command, try 'help'")  # what the console says before auth
                continue
            say(*self.command(words))

    def command(self, words: list[str]) -> list[str]:
        """The answer lines to one authenticated command line, split into words."""
        if words == ["ping"]:
            return ["I am alive!", "OK"]
        if words == ["avd", "name"]:
            return [self.avd, "OK"]
        if words[:2] != ["avd", "snapshot"] or len(words) < 3:
            return ["KO: unknown command, try 'help'"]
        verb, name = words[2], " ".join(words[3:])
        if verb == "list":
            rows = [f"{i}  {n}" for i, n in enumerate(sorted(self.snapshots), 1)]
            return ["List of snapshots present on all disks:", *rows, "OK"] if rows else ["OK"]
        if not name:
            return [f"KO: 'avd snapshot {verb}' needs a snapshot name"]
        if verb == "save":
            self.snapshots[name] = capture(self.phone)
            return ["OK"]
        if verb == "load":
            if name not in self.snapshots:
                return [f"KO: snapshot '{name}' not found"]
            restore(self.phone, self.snapshots[name])
            return ["OK"]
        if verb == "delete":
            return (
                ["OK"] if self.snapshots.pop(name, None) is not None else [f"KO: snapshot '{name}' not found"]
            )
        return [f"KO: bad sub-command 'avd snapshot {verb}'"]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
