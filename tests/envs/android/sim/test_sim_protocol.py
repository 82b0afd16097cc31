"""The wire format on its own: headers, magic, checksums, defensive parsing."""

from __future__ import annotations

import socket

import pytest

from crab_gym.envs.android.sim.adbd import protocol as p


def test_pack_and_parse_roundtrip():
    raw = p.pack(p.WRTE, 7, 9, b"hello")
    assert len(raw) == p.HEADER_SIZE + 5
    command, arg0, arg1, length, check = p.parse_header(raw[:24])
    assert (command, arg0, arg1, length, check) == (p.WRTE, 7, 9, 5, sum(b"hello"))


@pytest.mark.parametrize(
    "raw",
    [
        b"\x00" * 24,  # magic mismatch
        p.HEADER.pack(p.OPEN, 1, 0, 10, 0, 0),  # bad magic
        p.HEADER.pack(0x12345678, 1, 0, 0, 0, 0x12345678 ^ 0xFFFFFFFF),  # unknown command
        p.HEADER.pack(p.WRTE, 1, 0, 1 << 30, 0, p.WRTE ^ 0xFFFFFFFF),  # absurd length
        b"CNXN",  # truncated
    ],
)
def test_bad_headers_raise_protocol_error(raw):
    with pytest.raises(p.ProtocolError):
        p.parse_header(raw)


def test_truncated_payload_is_a_protocol_error():
    a, b = socket.socketpair()
    with a, b:
        a.sendall(p.pack(p.WRTE, 1, 1, b"0123456789")[:-4])
        a.shutdown(socket.SHUT_WR)
        with pytest.raises(p.ProtocolError):
            p.read_message(b)


def test_shell_packet_layout():
    assert p.shell_packet(p.SHELL_EXIT, b"\x03") == b"\x03\x01\x00\x00\x00\x03"
