"""What the guest image is made of: Debian packages, the files we add, and the hashes that name the cache.

The image is built in two layers, each cached under its own hash: the root file system of Debian packages
(slow: minutes of downloads and unpacking), and the image made from it with our files (fast: a minute).
Changing a guest file rebuilds only the second.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from crab_gym.core import disk_cache

GUEST_DIR = Path(__file__).resolve().parent / "guest"
DESKTOP_DIR = Path(__file__).resolve().parent.parent / "envs" / "desktop"
SESSION_AGENT = DESKTOP_DIR / "session_agent.py"
TEMPLATE_HOME = DESKTOP_DIR / "session" / "home"
GUEST_LIB = "/usr/local/lib/crab-gym"
# The desktop's own modules the probe agent imports (stdlib and python3-xlib only, so Debian's python3 runs
# them): shipped under GUEST_LIB as the namespace package crab_gym.envs.desktop.primitives, no __init__.
SHARED_MODULES = ("apps", "cpu", "files", "launch", "procs", "x11_windows")

SUITE = "bookworm"
MIRROR = "http://deb.debian.org/debian"
GUEST_USER, GUEST_UID = "user", 1000
GUEST_HOME = f"/home/{GUEST_USER}"
SCREEN = (1280, 800)

# The xvfb backend's desktop (scripts/setup.sh) minus host-only tools, plus what a booting VM needs.
PACKAGES: tuple[str, ...] = (
    # boot, devices, guest agent, clock
    "linux-image-amd64", "systemd-sysv", "udev", "kmod", "qemu-guest-agent", "util-linux-extra", "procps",
    "psmisc",
    # X on the VM's display
    "xserver-xorg-core", "xserver-xorg-input-libinput", "xauth", "x11-utils", "x11-xserver-utils", "xclip",
    # the desktop: window manager, launcher, session bus, accessibility, settings
    "openbox", "rofi", "dbus", "dbus-x11", "at-spi2-core", "dconf-cli", "dconf-gsettings-backend",
    "gsettings-desktop-schemas", "libglib2.0-bin",
    # the applications of the desktop templates
    "xfce4-terminal", "mousepad", "thunar", "vim", "libreoffice-writer", "libreoffice-calc",
    "libreoffice-impress", "libreoffice-gtk3", "gimp",
    # the probe agent: Debian's python3 with AT-SPI and Xlib
    "python3", "python3-gi", "python3-pyatspi", "gir1.2-atspi-2.0", "gir1.2-gtk-3.0", "python3-xlib",
    "fonts-dejavu-core", "xfonts-base",
)  # fmt: skip

# Guest path -> (source, mode). Sources are files of this package; the probe is shipped with the session
# agent it extends and the desktop modules it reuses, so the guest answers the same named operations, by
# the same code, as an xvfb session.
GUEST_FILES: dict[str, tuple[Path, int]] = {
    f"{GUEST_LIB}/probe.py": (GUEST_DIR / "probe.py", 0o644),
    f"{GUEST_LIB}/input_counter.py": (GUEST_DIR / "input_counter.py", 0o644),
    f"{GUEST_LIB}/session_agent.py": (SESSION_AGENT, 0o644),
    **{
        f"{GUEST_LIB}/crab_gym/envs/desktop/primitives/{m}.py": (
            DESKTOP_DIR / "primitives" / f"{m}.py",
            0o644,
        )
        for m in SHARED_MODULES
    },
    f"{GUEST_LIB}/session.sh": (GUEST_DIR / "session.sh", 0o755),
    "/etc/systemd/system/crab-x.service": (GUEST_DIR / "crab-x.service", 0o644),
    "/etc/systemd/system/crab-session.service": (GUEST_DIR / "crab-session.service", 0o644),
    "/etc/X11/xorg.conf.d/10-crab.conf": (GUEST_DIR / "xorg.conf", 0o644),
    "/etc/udev/rules.d/99-crab-probe.rules": (GUEST_DIR / "99-crab-probe.rules", 0o644),
    "/etc/qemu/qemu-ga.conf": (GUEST_DIR / "qemu-ga.conf", 0o644),
}
ENABLE_UNITS = ("crab-x.service", "crab-session.service")
# Units a desktop VM without network or disks to check has no use for; masking them shortens the boot.
MASK_UNITS = (
    "apt-daily.timer", "apt-daily-upgrade.timer", "e2scrub_all.timer", "e2scrub_reap.service",
    "fstrim.timer", "dpkg-db-backup.timer", "man-db.timer", "systemd-timesyncd.service",
    "getty@tty1.service", "systemd-networkd-wait-online.service",
)  # fmt: skip
KERNEL_CMDLINE = "root=/dev/vda rw console=ttyS0 quiet loglevel=3 systemd.show_status=0 mitigations=off"


@dataclass(frozen=True)
class Recipe:
    """Everything that decides the image's bytes; its hashes name the cached layers."""

    suite: str = SUITE
    mirror: str = MIRROR
    packages: tuple[str, ...] = PACKAGES
    extra_packages: tuple[str, ...] = field(default_factory=tuple)

    def rootfs_hash(self) -> str:
        spec = {"suite": self.suite, "mirror": self.mirror, "packages": sorted(self.all_packages())}
        return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:16]

    def image_hash(self) -> str:
        h = hashlib.sha256(self.rootfs_hash().encode())
        for guest_path, (src, mode) in sorted(GUEST_FILES.items()):
            h.update(f"{guest_path}:{mode:o}:".encode() + src.read_bytes())
        for p in sorted(TEMPLATE_HOME.rglob("*")):
            h.update(str(p.relative_to(TEMPLATE_HOME)).encode())
            if p.is_file():
                h.update(p.read_bytes())
        h.update(json.dumps([ENABLE_UNITS, MASK_UNITS, KERNEL_CMDLINE, GUEST_USER, GUEST_UID]).encode())
        return h.hexdigest()[:16]

    def all_packages(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.packages + self.extra_packages))


def cache_dir() -> Path:
    """Where images are cached: ``$CRAB_GYM_VM_CACHE``, else ``$XDG_CACHE_HOME/crab-gym/vm``."""
    if os.environ.get("CRAB_GYM_VM_CACHE"):
        return Path(os.environ["CRAB_GYM_VM_CACHE"])
    return disk_cache.cache_dir() / "vm"


@dataclass(frozen=True)
class ImagePaths:
    """The files of one built image: the disk, the kernel and initrd it boots directly, and its manifest."""

    disk: Path
    kernel: Path
    initrd: Path
    manifest: Path

    @classmethod
    def for_hash(cls, image_hash: str, root: Path | None = None) -> ImagePaths:
        d = (root or cache_dir()) / f"image-{image_hash}"
        return cls(d / "disk.qcow2", d / "vmlinuz", d / "initrd.img", d / "manifest.json")

    def complete(self) -> bool:
        return all(p.exists() for p in (self.disk, self.kernel, self.initrd, self.manifest))
