"""The phone's filesystem: Android paths mapped into one sandbox directory on the host, never outside it."""

from __future__ import annotations

import os
import posixpath
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .times import Times


@dataclass
class Snapshot:
    """The tree under the root, by path relative to it ("." for the root): file bytes, directories, symlinks
    (their targets) and the (mode, mtime ns) of each of them."""

    files: dict[str, bytes] = field(default_factory=dict)
    stats: dict[str, tuple[int, int]] = field(default_factory=dict)
    dirs: set[str] = field(default_factory=set)
    links: dict[str, str] = field(default_factory=dict)


ALIASES = ("/storage/emulated/0", "/storage/self/primary", "/mnt/sdcard", "/mnt/user/0/primary")
SKELETON = (
    "sdcard/DCIM/Camera",
    "sdcard/Download",
    "sdcard/Documents",
    "sdcard/Pictures",
    "sdcard/Music",
    "sdcard/Movies",
    "sdcard/Alarms",
    "sdcard/Android/data",
    "data/local/tmp",
    "data/data",
    "system/bin",
    "system/app",
    "system/etc",
    "vendor",
    "proc",
    "dev",
    "etc",
    "storage/emulated",
    "cache",
    "mnt",
)


# Character devices: an empty placeholder file in the sandbox stands for each; reads and writes go through
# `read_bytes` / `write_bytes`, which give a device's bytes and discard what is written to it.
DEVICE_READ_SIZE = 64 * 1024  # what one read of an endless device gives (nothing here reads forever)
DEVICES = ("/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/stdout", "/dev/stderr")


class FsError(OSError):
    """An Android path that cannot be used (outside the sandbox, missing, wrong type)."""


class Sandbox:
    """Maps absolute Android paths ("/sdcard/x") to files under `root`; `..` cannot climb above "/"."""

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root).resolve()
        self.on_change: Callable[[], None] | None = None  # told when a command or a push changes files
        self.virtual: dict[str, Callable[[], bytes]] = {}  # kernel files (/proc): made when read
        self.times = Times(self.root)  # the entries' times on the phone's clock (times.py)
        self._skeleton()

    def _skeleton(self) -> None:
        for d in SKELETON:
            (self.root / d).mkdir(parents=True, exist_ok=True)
        for dev in (*DEVICES, *self.virtual):
            host = self.root / dev.lstrip("/")
            host.parent.mkdir(parents=True, exist_ok=True)
            host.touch(exist_ok=True)

    def add_virtual(self, path: str, make: Callable[[], bytes]) -> None:
        """A read-only kernel file: an empty placeholder in the sandbox (so ls, find and test see it) whose
        bytes `make` gives at each read, as /proc's are made when read."""
        self.virtual[path] = make
        host = self.root / path.lstrip("/")
        host.parent.mkdir(parents=True, exist_ok=True)
        host.touch(exist_ok=True)

    def is_device(self, path: str, cwd: str = "/") -> bool:
        """True for a character device such as /dev/null (`test -c`, `ls -l` show it as one)."""
        try:
            return self.android_path(path, cwd) in DEVICES
        except FsError:
            return False

    def android_path(self, path: str, cwd: str = "/") -> str:
        if "\0" in path:
            raise FsError(f"{path!r}: invalid path")
        full = posixpath.normpath(posixpath.join(cwd, path)) if path else cwd
        if full.startswith("//"):
            full = "/" + full.lstrip("/")
        for alias in ALIASES:
            if full == alias or full.startswith(alias + "/"):
                full = "/sdcard" + full[len(alias) :]
        return full

    def resolve(self, path: str, cwd: str = "/") -> Path:
        """The host path of an Android path; raises FsError if it would leave the sandbox."""
        full = self.android_path(path, cwd)
        host = self.root / full.lstrip("/") if full != "/" else self.root
        real = Path(os.path.realpath(host))
        if real != self.root and self.root not in real.parents:
            raise FsError(f"{path}: Permission denied")
        self.times.touched.add(str(real))  # what a command may change: its time is given at the next note
        return host

    def to_android(self, host: Path) -> str:
        rel = Path(os.path.realpath(host)).relative_to(self.root)
        return "/" + str(rel) if str(rel) != "." else "/"

    def read_bytes(self, path: str) -> bytes:
        device = self.android_path(path)
        make = self.virtual.get(device)
        if make is not None:
            return make()
        if device in DEVICES:
            if device == "/dev/zero":
                return bytes(DEVICE_READ_SIZE)
            if device.endswith("random"):
                return os.urandom(DEVICE_READ_SIZE)
            return b""
        host = self.resolve(path)
        if host.is_dir():
            raise FsError(f"{path}: Is a directory")
        if not host.exists():
            raise FsError(f"{path}: No such file or directory")
        return host.read_bytes()

    def write_bytes(self, path: str, data: bytes, append: bool = False) -> None:
        if self.android_path(path) in DEVICES:  # the shell sends /dev/tty and /dev/stdout to stdout first
            return
        if self.android_path(path) in self.virtual:
            raise FsError(f"{path}: Permission denied")
        host = self.resolve(path)
        if host.is_dir():
            raise FsError(f"{path}: Is a directory")
        host.parent.mkdir(parents=True, exist_ok=True)
        with open(host, "ab" if append else "wb") as f:
            f.write(data)
        self.changed()

    def changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def exists(self, path: str) -> bool:
        try:
            return self.resolve(path).exists()
        except FsError:
            return False

    # -- pristine state: snapshot once, restore in about a millisecond ---
    def wipe(self, keep: tuple[str, ...] = ()) -> None:
        """Delete everything under the root (but top-level names in `keep`), then recreate the skeleton."""
        for child in self.root.iterdir():
            if child.name in keep:
                continue
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
        self._skeleton()

    def snapshot(self) -> Snapshot:
        """Every file's bytes, every directory and symlink, the mode and mtime of each: the tree now."""
        snap = Snapshot()
        root = str(self.root)
        st = os.lstat(root)
        snap.stats["."] = (st.st_mode, st.st_mtime_ns)
        for dirpath, dirnames, filenames in os.walk(root):
            rel = os.path.relpath(dirpath, root)
            snap.dirs.add(rel)
            for name in dirnames + filenames:
                path = os.path.join(dirpath, name)
                key = os.path.normpath(os.path.join(rel, name))
                st = os.lstat(path)
                if stat.S_ISLNK(st.st_mode):
                    snap.links[key] = os.readlink(path)
                elif stat.S_ISREG(st.st_mode):
                    with open(path, "rb") as fh:
                        snap.files[key] = fh.read()
                elif not stat.S_ISDIR(st.st_mode):
                    continue
                snap.stats[key] = (st.st_mode, st.st_mtime_ns)
        return snap

    def restore(self, snapshot: Snapshot, before_change: Callable[[], None] | None = None) -> bool:
        """Make the tree equal to the snapshot: remove what is new, rewrite only files whose bytes differ, put
        symlinks, modes and mtimes back (directories' last: what changed in them moved theirs), as the phone's
        times (times.py). ``before_change`` is called once, before the first change (readers close their
        connections); returns whether anything changed (an unchanged tree is only read)."""
        changed = False

        def change() -> None:
            nonlocal changed
            if not changed and before_change is not None:
                before_change()
            changed = True

        root = str(self.root)
        seen: set[str] = set()  # what stays of the tree, by key
        self._prune(root, "", snapshot, seen, change)
        for d in sorted(snapshot.dirs - seen):
            if d != ".":
                change()
                os.makedirs(os.path.join(root, d), exist_ok=True)
        for key, target in snapshot.links.items():
            if key not in seen:
                change()
                os.symlink(target, os.path.join(root, key))
        for key, data in snapshot.files.items():
            path = os.path.join(root, key)
            st = os.lstat(path) if key in seen else None
            same = False
            if st is not None and st.st_size == len(data):
                with open(path, "rb") as src:
                    same = src.read() == data  # compare contents: mtimes are too coarse to trust
            if not same:
                change()
                with open(path, "wb") as dst:
                    dst.write(data)
            mode, mtime = snapshot.stats.get(key, (None, None))
            if mode is not None and (st is None or stat.S_IMODE(st.st_mode) != stat.S_IMODE(mode)):
                change()
                os.chmod(path, stat.S_IMODE(mode))
            if mtime is not None and (not same or st is None or st.st_mtime_ns != mtime):
                change()
                os.utime(path, ns=(mtime, mtime))
        for key, (mode, mtime) in snapshot.stats.items():
            if key in snapshot.files:
                continue
            path = os.path.join(root, key)
            st = os.lstat(path)
            if key not in snapshot.links and stat.S_IMODE(st.st_mode) != stat.S_IMODE(mode):
                change()
                os.chmod(path, stat.S_IMODE(mode))
            if st.st_mtime_ns != mtime:
                change()
                os.utime(path, ns=(mtime, mtime), follow_symlinks=False)
        self.times.adopt({key: mtime for key, (_, mtime) in snapshot.stats.items()})
        return changed

    @classmethod
    def _prune(
        cls, path: str, prefix: str, snapshot: Snapshot, seen: set[str], change: Callable[[], None]
    ) -> None:
        """Remove under ``path`` (key ``prefix``) what the snapshot does not have, never following a symlink;
        add to ``seen`` the keys that stay."""
        with os.scandir(path) as entries:
            for e in entries:
                key = prefix + e.name
                if e.is_symlink():
                    keep = snapshot.links.get(key) == os.readlink(e.path)
                elif e.is_dir(follow_symlinks=False):
                    keep = key in snapshot.dirs
                    if keep:
                        cls._prune(e.path, key + "/", snapshot, seen, change)
                else:
                    keep = key in snapshot.files and e.is_file(follow_symlinks=False)
                if keep:
                    seen.add(key)
                    continue
                change()
                if e.is_dir(follow_symlinks=False):
                    shutil.rmtree(e.path, ignore_errors=True)
                else:
                    os.unlink(e.path)
