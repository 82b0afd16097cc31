"""The adbd services a host can open on a stream: shell (v1, v2), exec, sync, root and friends."""

from __future__ import annotations

import time

from . import protocol as p
from . import reverse
from .sync import serve_sync

SIMPLE = {
    "root:": b"adbd is already running as root\n",
    "unroot:": b"adbd not running as root\n",
    "remount:": b"remount succeeded\n",
    "usb:": b"restarting in USB mode\n",
    "reboot:": b"",
    "enable-verity:": b"verity cannot be enabled - USER build\n",
    "disable-verity:": b"verity cannot be disabled/enabled - USER build\n",
}
PREFIXES = ("shell:", "shell,", "exec:", "sync:", "tcpip:", "reboot:", "reverse:")
STDIN_TIMEOUT = 10.0


def service_exists(service: str) -> bool:
    return service in SIMPLE or service.startswith(PREFIXES)


def run_service(phone, stream, service: str) -> None:
    """Serve one opened stream until its service ends; the caller closes the stream."""
    if service in SIMPLE:
        stream.write(SIMPLE[service])
    elif service.startswith("tcpip:"):
        stream.write(f"restarting in TCP mode port: {service[6:]}\n".encode())
    elif service.startswith("reboot:"):
        return
    elif service.startswith("reverse:"):
        stream.write(reverse.handle(stream.conn, service[len("reverse:") :]))
    elif service.startswith("shell,"):
        head, _, cmd = service.partition(":")
        shell_v2(phone, stream, cmd, "v2" in head.split(","))
    elif service.startswith("shell:"):
        shell_v1(phone, stream, service[6:])
    elif service.startswith("exec:"):
        live = StreamLive(stream, v2=False, stdout_only=True)
        out, _err, _code = phone.shell(service[5:], stdin=_RawStdin(stream), live=live)
        stream.write(out)
    elif service.startswith("sync:"):
        serve_sync(phone, stream)


class _RawStdin:
    """A raw stream's input: all of it (until the host closes it, or STDIN_TIMEOUT), a known amount, or one
    line (what was read past it is kept for the next read)."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.pending = b""

    def __call__(self) -> bytes:
        return self.read_exact(None)

    def read_line(self) -> bytes:
        deadline = time.monotonic() + STDIN_TIMEOUT
        while b"\n" not in self.pending and (left := deadline - time.monotonic()) > 0:
            data = self.stream.read(1 << 20, timeout=left)
            if not data:
                break
            self.pending += data
        line, sep, self.pending = self.pending.partition(b"\n")
        return line + sep

    def read_exact(self, n: int | None) -> bytes:
        head, self.pending = (self.pending, b"") if n is None else (self.pending[:n], self.pending[n:])
        if n is not None:
            n -= len(head)
        chunks, got = [head], 0
        deadline = time.monotonic() + STDIN_TIMEOUT
        while (n is None or got < n) and (left := deadline - time.monotonic()) > 0:
            data = self.stream.read(n - got if n is not None else 1 << 20, timeout=left)
            if not data:
                break
            chunks.append(data)
            got += len(data)
        return b"".join(chunks)


class StreamLive:
    """A shell's output sent on its adb stream while the command line runs (shell.context.Live): raw bytes,
    stdout and stderr merged (v1), stdout only (exec), or shell-protocol packets (v2)."""

    def __init__(self, stream, v2: bool, stdout_only: bool = False) -> None:
        self.stream, self.v2, self.stdout_only = stream, v2, stdout_only
        self.merged = not v2 and not stdout_only

    @property
    def closed(self) -> bool:
        return self.stream.closed

    def write(self, fd: int, data: bytes) -> None:
        if self.v2:
            _send_v2(self.stream, p.SHELL_STDOUT if fd == 1 else p.SHELL_STDERR, data)
        elif fd == 1 or not self.stdout_only:
            self.stream.write(data)


def shell_v1(phone, stream, cmd: str) -> None:
    if cmd.strip():
        live = StreamLive(stream, v2=False)
        out, _, _code = phone.shell(cmd, stdin=_RawStdin(stream), merged=True, live=live)
        stream.write(out)
        return
    # An interactive shell without a pty: run each line, print a prompt.
    prompt = b"crab:/ # "
    stream.write(prompt)
    pending = b""
    while True:
        data = stream.read(timeout=None)
        if not data:
            return
        pending += data
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            line_s = line.decode("utf-8", "replace").strip("\r")
            if line_s.strip() == "exit":
                return
            out, _, _ = phone.shell(line_s, merged=True) if line_s.strip() else (b"", b"", 0)
            stream.write(out + prompt)


class _V2Stdin:
    """Reads shell-protocol packets from the host: STDIN data until CLOSE_STDIN (or the stream closes)."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.done = False
        self.pending = b""  # read past the line `read_line` gave

    def read_packet(self, timeout: float | None) -> tuple[int, bytes] | None:
        try:
            head = self.stream.read_exact(5, timeout=timeout)
            kind, length = p.SHELL_PACKET.unpack(head)
            if length > p.MAX_ACCEPTED_PAYLOAD:
                return None
            return kind, self.stream.read_exact(length, timeout=timeout) if length else b""
        except Exception:
            return None

    def __call__(self) -> bytes:
        return self.read_exact(None)

    def read_all(self) -> bytes:
        return self.read_exact(None)

    def read_line(self) -> bytes:
        deadline = time.monotonic() + STDIN_TIMEOUT
        while b"\n" not in self.pending and not self.done and (left := deadline - time.monotonic()) > 0:
            pkt = self.read_packet(left)
            if pkt is None or pkt[0] == p.SHELL_CLOSE_STDIN:
                self.done = True
            elif pkt[0] == p.SHELL_STDIN:
                self.pending += pkt[1]
        line, sep, self.pending = self.pending.partition(b"\n")
        return line + sep

    def read_exact(self, n: int | None) -> bytes:
        head, self.pending = (self.pending, b"") if n is None else (self.pending[:n], self.pending[n:])
        if n is not None:
            n -= len(head)
        chunks, got = [head], 0
        deadline = time.monotonic() + STDIN_TIMEOUT
        while not self.done and (n is None or got < n) and (left := deadline - time.monotonic()) > 0:
            pkt = self.read_packet(left)
            if pkt is None or pkt[0] == p.SHELL_CLOSE_STDIN:
                self.done = True
            elif pkt[0] == p.SHELL_STDIN:
                chunks.append(pkt[1])
                got += len(pkt[1])
        return b"".join(chunks)


def shell_v2(phone, stream, cmd: str, v2: bool) -> None:
    if not v2:
        shell_v1(phone, stream, cmd)
        return
    stdin = _V2Stdin(stream)
    if not cmd.strip():  # interactive: each stdin line is a command
        pending = b""
        while True:
            pkt = stdin.read_packet(None)
            if pkt is None or pkt[0] == p.SHELL_CLOSE_STDIN:
                _send_v2(stream, p.SHELL_EXIT, bytes([0]))
                return
            if pkt[0] != p.SHELL_STDIN:
                continue
            pending += pkt[1]
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                line_s = line.decode("utf-8", "replace").strip("\r").strip()
                if line_s == "exit":
                    _send_v2(stream, p.SHELL_EXIT, bytes([0]))
                    return
                out, err, _ = phone.shell(line_s) if line_s else (b"", b"", 0)
                _send_v2(stream, p.SHELL_STDOUT, out)
                _send_v2(stream, p.SHELL_STDERR, err)
    out, err, code = phone.shell(cmd, stdin=stdin, live=StreamLive(stream, v2=True))
    _send_v2(stream, p.SHELL_STDOUT, out)
    _send_v2(stream, p.SHELL_STDERR, err)
    _send_v2(stream, p.SHELL_EXIT, bytes([code & 0xFF]))


def _send_v2(stream, kind: int, data: bytes) -> None:
    """Shell packets sized to fit one WRTE each."""
    if not data and kind != p.SHELL_EXIT:
        return
    step = max(1, stream.conn.max_payload - 5)
    buf = []
    for i in range(0, max(len(data), 1), step):
        buf.append(p.shell_packet(kind, data[i : i + step]))
    for pkt in buf:
        stream.write(pkt)
