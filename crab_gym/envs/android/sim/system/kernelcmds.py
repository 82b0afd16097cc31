"""The tools that report the kernel's view of the phone (procfs.py): `uname`, `uptime`, `df` and `nproc`, in
the formats toybox prints."""

from __future__ import annotations

import os

from ..shell.context import Ctx, command, split_flags
from ..storage import db
from .clock import elapsed_ms
from .procfs import CPUS, KERNEL, KERNEL_VERSION, uptime_s


@command("uname")
def _uname(ctx: Ctx, args: list[str]) -> int:
    """toybox uname: -s kernel name (the default), -n node, -r release, -v version, -m machine, -o OS, -a."""
    flags, _, _ = split_flags(args, "snrvmoap")
    fields = {
        "s": "Linux",
        "n": "localhost",
        "r": KERNEL,
        "v": KERNEL_VERSION,
        "m": "x86_64",
        "o": "Toybox",
    }
    chosen = "snrvmo" if "a" in flags else "".join(f for f in "snrvmo" if f in flags) or "s"
    ctx.print(" ".join(fields[f] for f in chosen))
    return 0


@command("uptime")
def _uptime(ctx: Ctx, args: list[str]) -> int:
    """toybox uptime: ` 09:30:12 up 10 min,  0 users,  load average: 0.52, 0.61, 0.70`; -s the boot time."""
    import datetime as dt

    up = int(uptime_s(ctx.phone))
    now = dt.datetime.fromtimestamp((db.NOW_MS + elapsed_ms(ctx.phone)) / 1000, dt.timezone.utc)
    if "-s" in args:
        ctx.print(f"{now - dt.timedelta(seconds=up):%Y-%m-%d %H:%M:%S}")
        return 0
    days, rest = divmod(up, 86400)
    hours, minutes = rest // 3600, rest % 3600 // 60
    span = (f"{days} day{'s' if days != 1 else ''}, " if days else "") + (
        f"{hours:2d}:{minutes:02d}" if hours else f"{minutes} min"
    )
    ctx.print(f" {now:%H:%M:%S} up {span},  0 users,  load average: 0.52, 0.61, 0.70")
    return 0


@command("nproc")
def _nproc(ctx: Ctx, args: list[str]) -> int:
    ctx.print(str(CPUS))
    return 0


def _used_kb(root) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(root):
        total += sum(os.path.getsize(os.path.join(dirpath, f)) for f in files)
    return total // 1024 + 1


def _mounts(ctx: Ctx) -> list[tuple[str, int, int, str]]:
    """(filesystem, 1K-blocks, used, mount point), as a Pixel's df lists its mounts."""
    data = 6_241_148 + _used_kb(ctx.fs.root / "data") + _used_kb(ctx.fs.root / "sdcard")
    return [
        ("/dev/block/dm-6", 6_082_256, 4_902_520, "/"),
        ("tmpfs", 2_012_846, 1436, "/dev"),
        ("tmpfs", 2_012_846, 0, "/mnt"),
        ("/dev/block/dm-7", 1_038_028, 808_796, "/system_ext"),
        ("/dev/block/dm-8", 3_041_228, 2_889_164, "/product"),
        ("/dev/block/dm-9", 785_888, 612_104, "/vendor"),
        ("tmpfs", 2_012_846, 0, "/apex"),
        ("/dev/block/dm-45", 115_095_552, data, "/data"),
        ("/dev/fuse", 115_095_552, data, "/storage/emulated"),
    ]


def _human(kb: int) -> str:
    size = float(kb * 1024)
    for unit in ("", "K", "M", "G", "T"):
        if size < 1024 or unit == "T":
            return f"{size:.0f}{unit}" if unit == "" or size >= 10 else f"{size:.1f}{unit}"
        size /= 1024
    return str(kb)


@command("df")
def _df(ctx: Ctx, args: list[str]) -> int:
    """toybox df [-hk] [PATH...]: the mounts (or those holding each PATH), columns as wide as their data."""
    flags, _, paths = split_flags(args, "hkPaist")
    mounts = _mounts(ctx)
    if paths:
        chosen = []
        for path in paths:
            full = ctx.fs.android_path(path, ctx.shell.cwd)
            if not ctx.fs.exists(full):
                ctx.eprint(f"df: {path}: No such file or directory")
                continue
            full = "/storage/emulated" + full[len("/sdcard") :] if full.startswith("/sdcard") else full
            best = max(
                (m for m in mounts if full == m[3] or full.startswith(m[3].rstrip("/") + "/")),
                key=lambda m: len(m[3]),
            )
            chosen.append(best)
        mounts = chosen
    if "h" in flags:
        head = ("Filesystem", "Size", "Used", "Avail", "Use%", "Mounted on")
        rows = [
            (fs, _human(size), _human(used), _human(size - used), _pct(used, size), mp)
            for fs, size, used, mp in mounts
        ]
    else:
        head = ("Filesystem", "1K-blocks", "Used", "Available", "Use%", "Mounted on")
        rows = [
            (fs, str(size), str(used), str(size - used), _pct(used, size), mp)
            for fs, size, used, mp in mounts
        ]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(5)]
    for row in [head, *rows]:
        cells = [row[0].ljust(widths[0])] + [row[i].rjust(widths[i]) for i in range(1, 5)]
        ctx.print(" ".join(cells) + " " + row[5])
    return 0 if len(mounts) == len(paths) or not paths else 1


def _pct(used: int, size: int) -> str:
    return f"{-(-used * 100 // size) if size else 0}%"
