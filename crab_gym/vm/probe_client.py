"""The host side of the guest's probe agent: named operations over a virtio-serial channel.

The channel is opened with ``virDomainOpenChannel`` as a libvirt stream, so it works the same on a local
daemon and through a remote URI (``qemu+ssh://host/system``). The stream lives on a libvirt connection of
its own: a thread blocked in its ``recv`` then never holds up the domain calls (``loadvm``, state) made on
the session's connection, and a reopen drops the whole connection, which ends a blocked ``recv`` for sure.
Requests carry an id; an answer to an older request (one that timed out, or that a snapshot load cut
short) is discarded.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from crab_gym.envs.base import DeviceError
from crab_gym.vm.connection import VMError, import_libvirt, open_connection

PROBE_CHANNEL = "org.crabgym.probe.0"


class ProbeClient:
    """One open channel to the probe agent of a running domain."""

    def __init__(self, uri: str, uuid: str, timeout: float = 20.0, name: str = PROBE_CHANNEL) -> None:
        self.libvirt = import_libvirt()
        self.uri, self.uuid, self.timeout, self.name = uri, uuid, timeout, name
        self._conn: Any = None
        self._cond = threading.Condition()
        self._buf = b""
        self._broken = ""
        self._next_id = 1
        self._stream: Any = None
        self._open()

    def _open(self) -> None:
        lv = self.libvirt
        try:
            conn = open_connection(self.uri)
        except VMError as e:
            raise DeviceError(f"cannot open the probe channel {self.name}: {e}") from e
        try:
            stream = conn.newStream(0)
            conn.lookupByUUIDString(self.uuid).openChannel(self.name, stream, lv.VIR_DOMAIN_CHANNEL_FORCE)
        except lv.libvirtError as e:
            _close_quietly(conn)
            raise DeviceError(f"cannot open the probe channel {self.name}: {e}") from e
        self._conn, self._stream = conn, stream
        self._broken = ""
        reader = threading.Thread(target=self._read, args=(stream,), name=f"probe-{self.name}", daemon=True)
        reader.start()

    def _read(self, stream: Any) -> None:
        """Receive on a thread of its own (a blocking stream needs no libvirt event loop, which a forked
        vector-env worker could not run); ends when the channel closes or ``close`` aborts the stream."""
        lv = self.libvirt
        while True:
            try:
                data = stream.recv(65536)
            except lv.libvirtError as e:
                broken = f"channel error: {e}"
                break
            if not isinstance(data, bytes) or not data:
                broken = "channel closed"
                break
            with self._cond:
                if stream is self._stream:
                    self._buf += data
                    self._cond.notify_all()
        with self._cond:
            if stream is self._stream:
                self._broken = broken
                self._cond.notify_all()

    def call(self, op: str, reply_within: float | None = None, **args: Any) -> Any:
        """Ask the guest for ``op``; its result, or DeviceError (no answer in time, or an error answer)."""
        if self._stream is None or self._broken:
            self.reopen()
        rid = self._next_id
        self._next_id += 1
        self._send(json.dumps({"id": rid, "op": op, "args": args}).encode() + b"\n")
        wait = self.timeout if reply_within is None else reply_within
        deadline = time.monotonic() + wait
        with self._cond:
            while True:
                while b"\n" in self._buf:
                    line, self._buf = self._buf.split(b"\n", 1)
                    try:
                        reply = json.loads(line)
                    except ValueError:
                        continue  # a fragment cut by a snapshot load
                    if reply.get("id") != rid:
                        continue
                    if not reply.get("ok"):
                        raise DeviceError(f"guest probe {op}: {reply.get('error')}")
                    return reply.get("result")
                if self._broken:
                    raise DeviceError(f"guest probe {op}: {self._broken}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise DeviceError(f"the guest's probe did not answer {op!r} within {wait:.0f} s")
                self._cond.wait(left)

    def _send(self, data: bytes) -> None:
        """Write a request, bounded by ``timeout``: a blocking stream's send can wait forever when the
        channel stops taking data, so it runs on a thread, and a send still waiting at the deadline breaks
        the channel (aborting the stream wakes it; the next call reopens)."""
        stream, failure = self._stream, []

        def write() -> None:
            lv, view = self.libvirt, memoryview(data)
            try:
                while view:
                    n = stream.send(bytes(view))
                    if n <= 0:
                        failure.append("the stream refused data")
                        return
                    view = view[n:]
            except lv.libvirtError as e:
                failure.append(f"send failed: {e}")

        writer = threading.Thread(target=write, name=f"probe-send-{self.name}", daemon=True)
        writer.start()
        writer.join(self.timeout)
        if writer.is_alive():
            failure.append(f"send blocked for {self.timeout:.0f} s")
            self.close()  # aborts the stream, which ends the writer
        if failure:
            self._broken = failure[0]
            raise DeviceError(f"guest probe channel: {self._broken}")

    def drain(self) -> None:
        """Forget any buffered bytes (after a snapshot load, answers in flight belong to the past)."""
        with self._cond:
            self._buf = b""

    def reopen(self) -> None:
        self.close()
        self._open()

    def close(self) -> None:
        with self._cond:
            stream, self._stream = self._stream, None
            conn, self._conn = self._conn, None
            self._buf = b""
        if stream is not None:
            try:
                stream.abort()  # wakes the reader thread, which then ends
            except self.libvirt.libvirtError:
                pass
        if conn is not None:
            _close_quietly(conn)


def _close_quietly(conn: Any) -> None:
    try:
        conn.close()
    except import_libvirt().libvirtError:
        pass
