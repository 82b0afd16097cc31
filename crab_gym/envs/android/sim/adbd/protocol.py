"""The adbd wire protocol: 24-byte little-endian message headers, their payloads, defensive parsing.

A malformed message raises `ProtocolError`; the server drops that one connection and keeps serving.
"""

from __future__ import annotations

import socket
import struct
from dataclasses import dataclass

A_SYNC = 0x434E5953
A_CNXN = 0x4E584E43
A_OPEN = 0x4E45504F
A_OKAY = 0x59414B4F
A_CLSE = 0x45534C43
A_WRTE = 0x45545257
A_AUTH = 0x48545541
A_STLS = 0x534C5453

CNXN, OPEN, OKAY, WRTE, CLSE, AUTH, SYNC, STLS = (
    A_CNXN,
    A_OPEN,
    A_OKAY,
    A_WRTE,
    A_CLSE,
    A_AUTH,
    A_SYNC,
    A_STLS,
)
COMMANDS = {
    CNXN: "CNXN",
    OPEN: "OPEN",
    OKAY: "OKAY",
    WRTE: "WRTE",
    CLSE: "CLSE",
    AUTH: "AUTH",
    SYNC: "SYNC",
    STLS: "STLS",
}

A_VERSION = 0x01000001
A_VERSION_MIN = 0x01000000
MAX_PAYLOAD = 256 * 1024
# The largest payload we accept from a host: adb hosts negotiate at most 1 MiB.
MAX_ACCEPTED_PAYLOAD = 1024 * 1024

HEADER = struct.Struct("<6I")
HEADER_SIZE = HEADER.size  # 24


class ProtocolError(Exception):
    """The peer sent something that is not a valid adb message; the connection is dropped."""


@dataclass(frozen=True)
class Message:
    command: int
    arg0: int
    arg1: int
    data: bytes = b""

    @property
    def name(self) -> str:
        return COMMANDS.get(self.command, f"0x{self.command:08x}")

    def pack(self) -> bytes:
        return pack(self.command, self.arg0, self.arg1, self.data)


def checksum(data: bytes) -> int:
    """The legacy adb data check, a byte sum (hosts at version 0x01000001 ignore it; we still send it)."""
    return sum(data) & 0xFFFFFFFF


def pack(command: int, arg0: int, arg1: int, data: bytes = b"") -> bytes:
    header = HEADER.pack(
        command, arg0 & 0xFFFFFFFF, arg1 & 0xFFFFFFFF, len(data), checksum(data), command ^ 0xFFFFFFFF
    )
    return header + data


def parse_header(raw: bytes) -> tuple[int, int, int, int, int]:
    """(command, arg0, arg1, length, check) from 24 bytes; raises ProtocolError on bad magic or length."""
    if len(raw) != HEADER_SIZE:
        raise ProtocolError(f"truncated header: {len(raw)} of {HEADER_SIZE} bytes")
    command, arg0, arg1, length, check, magic = HEADER.unpack(raw)
    if magic != command ^ 0xFFFFFFFF:
        raise ProtocolError(f"bad magic 0x{magic:08x} for command 0x{command:08x}")
    if command not in COMMANDS:
        raise ProtocolError(f"unknown command 0x{command:08x}")
    if length > MAX_ACCEPTED_PAYLOAD:
        raise ProtocolError(f"payload length {length} exceeds {MAX_ACCEPTED_PAYLOAD}")
    return command, arg0, arg1, length, check


_QUICKACK = getattr(socket, "TCP_QUICKACK", None)


def recv_exact(sock, n: int) -> bytes:
    """Read exactly n bytes or raise ProtocolError (EOFError for a clean close before any byte).

    On Linux, TCP_QUICKACK is re-armed before each read: adb hosts write a header and its payload in two
    writes, and with Nagle on their side a delayed ACK on ours would stall every message by tens of ms.
    """
    chunks = []
    got = 0
    while got < n:
        if _QUICKACK is not None:
            try:
                sock.setsockopt(socket.IPPROTO_TCP, _QUICKACK, 1)
            except (OSError, AttributeError):
                pass
        chunk = sock.recv(min(n - got, 1 << 20))
        if not chunk:
            if got == 0:
                raise EOFError("connection closed")
            raise ProtocolError(f"truncated: got {got} of {n} bytes")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def read_message(sock) -> Message:
    """Read one message from a socket; EOFError on a clean close, ProtocolError on garbage."""
    command, arg0, arg1, length, check = parse_header(recv_exact(sock, HEADER_SIZE))
    data = b""
    if length:
        try:
            data = recv_exact(sock, length)
        except EOFError as e:
            raise ProtocolError("connection closed before payload") from e
    return Message(command, arg0, arg1, data)


# --- shell protocol v2: 1-byte id, 4-byte LE length, payload ---
SHELL_STDIN, SHELL_STDOUT, SHELL_STDERR, SHELL_EXIT, SHELL_CLOSE_STDIN, SHELL_WINDOW_SIZE = 0, 1, 2, 3, 4, 5
SHELL_PACKET = struct.Struct("<BI")


def shell_packet(kind: int, data: bytes) -> bytes:
    return SHELL_PACKET.pack(kind, len(data)) + data
