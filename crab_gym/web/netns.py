"""Listening sockets on 127.0.0.1 inside a network namespace, made without entering it with the process: a
short-lived thread enters the namespace (setns acts on the calling thread only), binds, and ends. A socket
stays in the namespace it was made in, so whoever holds it (this process, or a child it is handed to)
answers there and nowhere else."""

from __future__ import annotations

import ctypes
import os
import socket
import threading

CLONE_NEWNET = 0x40000000


def listen(port: int) -> socket.socket:
    """A non-blocking listening socket on 127.0.0.1:``port`` (0: a free one) of this thread's namespace."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


def bind_in_netns(netns: str | None, ports: tuple[int, ...]) -> list[socket.socket]:
    """Listening sockets on 127.0.0.1 at ``ports`` inside the network namespace at path ``netns``
    (``/run/netns/NAME``); with None, on the host's loopback (port 0 picks a free one)."""
    if netns is None:
        return [listen(p) for p in ports]
    out: list[socket.socket] = []
    error: list[BaseException] = []

    def enter_and_bind() -> None:
        try:
            fd = os.open(netns, os.O_RDONLY)
            try:
                libc = ctypes.CDLL(None, use_errno=True)
                if libc.setns(fd, CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), f"setns {netns}")
            finally:
                os.close(fd)
            out.extend(listen(p) for p in ports)
        except BaseException as exc:  # handed to the caller's thread
            error.append(exc)

    t = threading.Thread(target=enter_and_bind, name="web-bind")  # this thread's netns changes, then it ends
    t.start()
    t.join()
    if error:
        for sock in out:
            sock.close()
        raise error[0]
    return out
