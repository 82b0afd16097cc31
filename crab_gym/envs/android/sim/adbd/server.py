"""PhoneServer: the simulated phone served as an adb device over TCP (the adbd side of the protocol).

One thread per connection reads messages; each opened stream runs its service in its own thread. Nothing a
host sends can kill the server: protocol errors drop that connection, service errors close that stream.
"""

from __future__ import annotations

import logging
import socket
import socketserver
import threading
from collections.abc import Callable

from . import protocol as p
from .services import run_service, service_exists

log = logging.getLogger(__name__)

FEATURES = (
    "shell_v2",
    "cmd",
    "stat_v2",
    "ls_v2",
    "fixed_push_mkdir",
    "fixed_push_symlink_timestamp",
    "sendrecv_v2",
)
BANNER = (
    "device::ro.product.name=crab_phone;ro.product.model=CrabPhone;ro.product.device=crab;features="
    + ",".join(FEATURES)
)
ACK_TIMEOUT = 30.0
MAX_BUFFERED = 1 << 20  # bytes from the host a stream holds before it stops acknowledging
MAX_STREAMS = 64  # open streams per connection; more OPENs are refused with CLSE


class StreamClosed(Exception):
    """The peer closed the stream (or the connection) while we were writing or reading."""


class Stream:
    """One adb stream: writes under WRTE/OKAY flow control, and a buffer of the bytes the host wrote."""

    def __init__(self, conn: Connection, local_id: int, remote_id: int) -> None:
        self.conn, self.local_id, self.remote_id = conn, local_id, remote_id
        self._buf = bytearray()
        self._cond = threading.Condition()
        self._acked = threading.Event()
        self._acked.set()
        self.closed = False
        self._sent_close = False
        self._owe_okay = False

    # -- called by the connection's reader thread
    def feed(self, data: bytes) -> None:
        """Buffer the host's bytes; acknowledge now, or once the service has read the backlog."""
        with self._cond:
            self._buf += data
            self._cond.notify_all()
            if len(self._buf) > MAX_BUFFERED:
                self._owe_okay = True
                return
        self.conn.send(p.OKAY, self.local_id, self.remote_id)

    def _consumed(self) -> None:
        if self._owe_okay and len(self._buf) <= MAX_BUFFERED and not self.closed:
            self._owe_okay = False
            try:
                self.conn.send(p.OKAY, self.local_id, self.remote_id)
            except StreamClosed:
                pass

    def ack(self) -> None:
        self._acked.set()

    def peer_closed(self) -> None:
        """The connection went away (or was reset by a new CNXN): the stream ends without any CLSE."""
        with self._cond:
            self.closed = True
            self._sent_close = True  # nobody is left to tell
            self._cond.notify_all()
        self._acked.set()

    def host_closed(self) -> bool:
        """The host sent CLSE: end the stream; True if we still owe the host our CLSE.

        adbd's local socket, closed by the host, shuts down its remote peer, which sends CLSE back
        (AOSP `remote_socket_shutdown`); hosts such as adb-shell wait for that echo. A stream we already
        closed ourselves has had its CLSE, so it gets none.
        """
        with self._cond:
            owe = not self._sent_close
            self.closed = True
            self._sent_close = True
            self._cond.notify_all()
        self._acked.set()
        return owe

    # -- called by the service thread
    def write(self, data: bytes) -> None:
        view = memoryview(data)
        step = self.conn.max_payload
        for i in range(0, len(view), step):
            if not self._acked.wait(ACK_TIMEOUT) or self.closed:
                raise StreamClosed(f"stream {self.local_id}: host stopped acknowledging")
            self._acked.clear()
            self.conn.send(p.WRTE, self.local_id, self.remote_id, bytes(view[i : i + step]))

    def read(self, n: int = 1 << 20, timeout: float | None = None) -> bytes:
        """Up to n bytes; b"" once the host closed the stream (or on timeout)."""
        with self._cond:
            if not self._cond.wait_for(lambda: self._buf or self.closed, timeout):
                return b""
            out = bytes(self._buf[:n])
            del self._buf[:n]
            self._consumed()
            return out

    def read_exact(self, n: int, timeout: float | None = 60.0) -> bytes:
        with self._cond:
            if not self._cond.wait_for(lambda: len(self._buf) >= n or self.closed, timeout):
                raise StreamClosed(f"stream {self.local_id}: timed out waiting for {n} bytes")
            if len(self._buf) < n:
                raise StreamClosed(f"stream {self.local_id}: closed with {len(self._buf)} of {n} bytes")
            out = bytes(self._buf[:n])
            del self._buf[:n]
            self._consumed()
            return out

    def close(self) -> None:
        with self._cond:
            if self._sent_close:
                return
            self._sent_close = True
            self.closed = True
            self._cond.notify_all()
        # Let the last WRTE be acknowledged first, as adbd does, so the host sees all data before CLSE.
        self._acked.wait(2.0)
        self.conn.send(p.CLSE, self.local_id, self.remote_id)
        self.conn.forget(self.local_id)


class Connection:
    """One host connection: the message loop and the table of open streams."""

    def __init__(self, sock: socket.socket, server: PhoneServer) -> None:
        self.sock, self.server = sock, server
        self.max_payload = p.MAX_PAYLOAD
        self.version = p.A_VERSION
        self.streams: dict[int, Stream] = {}
        self._lock = threading.Lock()
        self._send_lock = threading.Lock()
        self._next_id = 1
        self.alive = True

    def send(self, command: int, arg0: int, arg1: int, data: bytes = b"") -> None:
        if not self.alive:
            raise StreamClosed("connection is gone")
        try:
            with self._send_lock:
                self.sock.sendall(p.pack(command, arg0, arg1, data))
        except OSError as e:
            self.alive = False
            raise StreamClosed(f"send failed: {e}") from e

    def forget(self, local_id: int) -> None:
        with self._lock:
            self.streams.pop(local_id, None)

    def run(self) -> None:
        try:
            while self.alive and not self.server.stopping:
                msg = p.read_message(self.sock)
                try:
                    self.dispatch(msg)
                except StreamClosed:
                    raise
                except Exception:  # a bug handling one message must not take the device offline
                    log.exception("failed to handle %s", msg.name)
        except EOFError:
            pass
        except p.ProtocolError as e:
            log.info("dropping connection: %s", e)
        except (OSError, StreamClosed):
            pass
        finally:
            self.alive = False
            with self._lock:
                streams = list(self.streams.values())
                self.streams.clear()
            for s in streams:
                s.peer_closed()

    def dispatch(self, msg: p.Message) -> None:
        if msg.command == p.CNXN:
            self.version = min(max(msg.arg0, p.A_VERSION_MIN), p.A_VERSION)
            self.max_payload = max(256, min(msg.arg1 or p.MAX_PAYLOAD, p.MAX_PAYLOAD))
            with self._lock:
                old = list(self.streams.values())
                self.streams.clear()
            for s in old:
                s.peer_closed()
            self.send(p.CNXN, self.version, p.MAX_PAYLOAD, BANNER.encode())
        elif msg.command == p.OPEN:
            self._open(msg)
        elif msg.command == p.WRTE:
            stream = self.streams.get(msg.arg1)
            if stream is None or stream.remote_id != msg.arg0:
                self.send(p.CLSE, 0, msg.arg0)
                return
            stream.feed(msg.data)
        elif msg.command == p.OKAY:
            stream = self.streams.get(msg.arg1)
            if stream is not None:
                stream.ack()
        elif msg.command == p.CLSE:
            with self._lock:
                stream = self.streams.get(msg.arg1)
                # adbd's find_local_socket: the local id must match, and the peer id too unless it is 0
                if stream is None or msg.arg0 not in (0, stream.remote_id):
                    return
                del self.streams[msg.arg1]
            if stream.host_closed():
                self.send(p.CLSE, stream.local_id, stream.remote_id)
        # AUTH, STLS, SYNC: we never ask for them; ignore.

    def _open(self, msg: p.Message) -> None:
        service = msg.data.split(b"\0", 1)[0].decode("utf-8", "replace")
        if msg.arg0 == 0 or not service_exists(service) or len(self.streams) >= MAX_STREAMS:
            self.send(p.CLSE, 0, msg.arg0)
            return
        with self._lock:
            local_id = self._next_id
            self._next_id = (self._next_id % 0x7FFFFFFF) + 1
            stream = Stream(self, local_id, msg.arg0)
            self.streams[local_id] = stream
        self.send(p.OKAY, local_id, msg.arg0)
        t = threading.Thread(
            target=self._serve, args=(stream, service), daemon=True, name=f"adb-{service[:20]}"
        )
        t.start()

    def _serve(self, stream: Stream, service: str) -> None:
        try:
            run_service(self.server.phone, stream, service)
        except StreamClosed:
            pass
        except Exception:  # a service bug closes its stream, never the connection
            log.exception("service %r failed", service)
        finally:
            try:
                stream.close()
            except StreamClosed:
                pass


class _Handler(socketserver.BaseRequestHandler):
    server: _TCPServer  # the one server that makes these handlers

    def handle(self) -> None:
        owner = self.server.owner
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with owner._conn_lock:
            owner._sockets.add(self.request)
        try:
            Connection(self.request, owner).run()
        finally:
            with owner._conn_lock:
                owner._sockets.discard(self.request)


class _TCPServer(socketserver.ThreadingTCPServer):
    owner: PhoneServer  # set right after construction
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address) -> None:  # never print tracebacks for one bad peer
        log.exception("connection from %s failed", client_address)


class PhoneServer:
    """Serve `phone` as an adb device on host:port (0 = any free port); serial is "host:port"."""

    def __init__(self, phone, host: str = "127.0.0.1", port: int = 0) -> None:
        self.phone = phone
        self.host = host
        self._requested_port = port
        self._server: _TCPServer | None = None
        self._thread: threading.Thread | None = None
        self.stopping = False
        self._sockets: set[socket.socket] = set()
        self._conn_lock = threading.Lock()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("PhoneServer is not started: call start() first")
        return self._server.server_address[1]

    @property
    def serial(self) -> str:
        return f"{self.host}:{self.port}"

    def start(self) -> PhoneServer:
        if self._server is not None:
            return self
        self.stopping = False
        self._server = _TCPServer((self.host, self._requested_port), _Handler)
        self._server.owner = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, daemon=True, name="adb-phone-server"
        )
        self._thread.start()
        return self

    def serve_forever(self, on_ready: Callable[[PhoneServer], None] | None = None) -> None:
        self.start()
        if on_ready:
            on_ready(self)
        assert self._thread is not None
        try:
            while self._thread.is_alive():
                self._thread.join(0.5)
        finally:
            self.stop()

    def stop(self) -> None:
        if self._server is None:
            return
        self.stopping = True
        self._server.shutdown()
        self._server.server_close()
        self._server = None
        with self._conn_lock:
            sockets = list(self._sockets)
        for s in sockets:  # hosts see the device go away at once, as when a phone is unplugged
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def __enter__(self) -> PhoneServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
