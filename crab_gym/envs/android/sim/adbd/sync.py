"""The adb sync service on the sandbox: STAT/LIST/RECV/SEND, STA2/LST2/LIS2 (stat_v2, ls_v2), RCV2/SND2
(sendrecv_v2, without compression: we advertise no compression feature, so hosts send flags 0)."""

from __future__ import annotations

import errno
import os
import stat as st
import struct

from ..storage.fs import FsError

SYNC_DATA_MAX = 64 * 1024
MAX_PATH = 1024
REQ = struct.Struct("<4sI")
STAT_V1 = struct.Struct("<4sIII")
DENT_V1 = struct.Struct("<4sIIII")
STAT_V2 = struct.Struct("<4sIQQIIIIQqqq")
DENT_V2 = struct.Struct("<4sIQQIIIIQqqqI")
SEND_V2 = struct.Struct("<4sII")  # id, mode, flags
SEND_RECV_V2 = struct.Struct("<4sI")  # id, flags


def _fail(stream, msg: str) -> None:
    data = msg.encode()
    stream.write(REQ.pack(b"FAIL", len(data)) + data)


def _v2_fields(s: os.stat_result) -> tuple[int, ...]:
    """What a v2 STAT reply and a v2 directory entry both carry after their id: error 0, dev, ino, mode,
    nlink, uid, gid, size, atime, mtime, ctime."""
    times = (int(s.st_mtime),) * 3  # the phone keeps one time per file (storage/times.py)
    return (0, 0xFD00, s.st_ino, s.st_mode, s.st_nlink, 0, 0, s.st_size, *times)


def _stat_v2(ident: bytes, s: os.stat_result | None, err: int = 0) -> bytes:
    if s is None:
        return STAT_V2.pack(ident, err, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    return STAT_V2.pack(ident, *_v2_fields(s))


def serve_sync(phone, stream) -> None:
    fs = phone.fs
    while True:
        ident, length = REQ.unpack(stream.read_exact(8, timeout=None))
        if ident == b"QUIT":
            return
        if length > MAX_PATH:
            _fail(stream, f"path too long: {length}")
            return
        path = stream.read_exact(length).decode("utf-8", "replace")
        if ident in (b"STAT", b"STA2", b"LST2"):
            try:
                with phone.lock:
                    fs.times.settle()
                    host = fs.resolve(path)
                    s = host.stat() if ident == b"STA2" else os.lstat(host)
            except (OSError, FsError) as e:
                s, err = None, (e.errno or errno.ENOENT) if isinstance(e, OSError) else errno.ENOENT
            if ident == b"STAT":
                stream.write(
                    STAT_V1.pack(
                        b"STAT", *((s.st_mode, s.st_size & 0xFFFFFFFF, int(s.st_mtime)) if s else (0, 0, 0))
                    )
                )
            else:
                stream.write(_stat_v2(ident, s, 0 if s else err))
        elif ident in (b"LIST", b"LIS2"):
            with phone.lock:
                fs.times.settle()
                _list(fs, stream, path, v2=ident == b"LIS2")
        elif ident == b"RECV":
            _recv(fs, stream, path)
        elif ident == b"SEND":
            _send(phone, stream, path)
        elif ident == b"RCV2":
            _ident, flags = SEND_RECV_V2.unpack(stream.read_exact(SEND_RECV_V2.size))
            if flags:
                _fail(stream, f"unsupported sync flags {flags:#x}: this device offers no compression")
                return
            _recv(fs, stream, path)
        elif ident == b"SND2":
            _ident, mode, flags = SEND_V2.unpack(stream.read_exact(SEND_V2.size))
            if flags:
                _fail(stream, f"unsupported sync flags {flags:#x}: this device offers no compression")
                return
            _send(phone, stream, f"{path},{mode}")
        else:
            _fail(stream, f"unknown sync request {ident!r}")
            return


def _list(fs, stream, path: str, v2: bool) -> None:
    out = bytearray()
    try:
        host = fs.resolve(path)
        names = sorted(os.listdir(host)) if host.is_dir() else []
        entries = [(".", host), ("..", host.parent)] + [(n, host / n) for n in names]
        for name, h in entries:
            try:
                s = os.lstat(h)
            except OSError:
                continue
            raw = name.encode()
            if v2:
                out += DENT_V2.pack(b"DNT2", *_v2_fields(s), len(raw)) + raw
            else:
                out += (
                    DENT_V1.pack(b"DENT", s.st_mode, s.st_size & 0xFFFFFFFF, int(s.st_mtime), len(raw)) + raw
                )
    except (OSError, FsError):
        pass
    if v2:
        out += DENT_V2.pack(b"DONE", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    else:
        out += DENT_V1.pack(b"DONE", 0, 0, 0, 0)
    stream.write(bytes(out))


def _recv(fs, stream, path: str) -> None:
    try:
        host = fs.resolve(path)
        if host.is_dir():
            raise FsError(f"remote object '{path}' is a directory")
        make = fs.virtual.get(fs.android_path(path))
        data = make() if make is not None else host.read_bytes()
    except FileNotFoundError:
        _fail(stream, "No such file or directory")
        return
    except (OSError, FsError) as e:
        _fail(stream, str(e.strerror or e) if isinstance(e, OSError) and e.strerror else str(e))
        return
    out = bytearray()
    for i in range(0, len(data), SYNC_DATA_MAX):
        chunk = data[i : i + SYNC_DATA_MAX]
        out += REQ.pack(b"DATA", len(chunk)) + chunk
    out += REQ.pack(b"DONE", 0)
    stream.write(bytes(out))


def _send(phone, stream, spec: str) -> None:
    path, _, mode_s = spec.rpartition(",")
    if not path:
        path, mode_s = spec, "420"
    try:
        mode = int(mode_s)
    except ValueError:
        mode = 0o644
    chunks = []
    while True:
        ident, length = REQ.unpack(stream.read_exact(8))
        if ident == b"DATA":
            if length > SYNC_DATA_MAX * 4:
                _fail(stream, f"data chunk too large: {length}")
                raise ConnectionError("bad sync DATA length")
            chunks.append(stream.read_exact(length))
        elif ident == b"DONE":
            mtime = length
            break
        else:
            _fail(stream, f"unexpected sync request {ident!r} during SEND")
            raise ConnectionError("bad sync SEND")
    try:
        host = phone.fs.resolve(path)
        if st.S_ISDIR(mode) or host.is_dir():
            raise FsError(f"{path}: Is a directory")
        host.parent.mkdir(parents=True, exist_ok=True)
        with phone.lock:
            host.write_bytes(b"".join(chunks))
            os.chmod(host, (mode & 0o777) | 0o600)
            if mtime:  # adb push keeps the file's time
                phone.fs.times.set(host, mtime)
            phone.fs.changed()
    except (OSError, FsError) as e:
        _fail(stream, f"couldn't create file: {e}")
        return
    stream.write(REQ.pack(b"OKAY", 0))
