"""Build the guest image from Debian packages: mmdebstrap a root file system, add our files, make a qcow2.

Two cached layers (see :mod:`crab_gym.vm.recipe`): ``rootfs-<hash>.tar`` and ``image-<hash>/`` with the
disk, the kernel and initrd for direct kernel boot (no bootloader), and a manifest of every package version.
Needs root (chroot, file ownership) and Debian's ``mmdebstrap``, ``e2fsprogs`` and ``qemu-utils``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from crab_gym.vm.recipe import (
    ENABLE_UNITS,
    GUEST_FILES,
    GUEST_HOME,
    GUEST_UID,
    GUEST_USER,
    KERNEL_CMDLINE,
    MASK_UNITS,
    TEMPLATE_HOME,
    ImagePaths,
    Recipe,
    cache_dir,
)

REQUIRED_TOOLS = ("mmdebstrap", "mkfs.ext4", "qemu-img", "tar", "chroot")
FREE_SPACE = 2 * 1024**3  # room for what tasks write, on top of the installed system
# Documentation and translations nobody reads inside the VM; excluding them saves ~300 MiB.
DPKG_OPTS = (
    "path-exclude=/usr/share/man/*", "path-exclude=/usr/share/doc/*",
    "path-include=/usr/share/doc/*/copyright", "path-exclude=/usr/share/locale/*",
    "path-include=/usr/share/locale/en*", "path-exclude=/usr/share/info/*",
)  # fmt: skip

Report = Callable[[str], None]


class BuildError(RuntimeError):
    """The image could not be built; the message names the step and the tool's last output."""


def _check_tools() -> None:
    missing = [t for t in REQUIRED_TOOLS if shutil.which(t) is None]
    if missing:
        raise BuildError(
            f"building the VM image needs {missing} (Debian packages mmdebstrap, e2fsprogs, qemu-utils)"
        )
    if os.geteuid() != 0:
        raise BuildError("building the VM image needs root (chroot and file ownership in the guest tree)")


def _run(argv: list[str], step: str, report: Report, cwd: Path | None = None) -> None:
    """Run a build tool, passing each output line to ``report``; BuildError with the tail on failure."""
    tail: list[str] = []
    with subprocess.Popen(
        argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
        errors="replace", env={**os.environ, "LC_ALL": "C.UTF-8", "DEBIAN_FRONTEND": "noninteractive"},
    ) as proc:  # fmt: skip
        assert proc.stdout is not None
        for line in proc.stdout:
            line = line.rstrip()
            if line:
                tail = (tail + [line])[-15:]
                report(line)
    if proc.returncode != 0:
        raise BuildError(f"{step} failed ({argv[0]} exited {proc.returncode}):\n" + "\n".join(tail))


def build_rootfs(recipe: Recipe, report: Report, root: Path | None = None) -> Path:
    """The root file system tarball of ``recipe``'s packages (cached by its hash)."""
    out = (root or cache_dir()) / f"rootfs-{recipe.rootfs_hash()}.tar"
    if out.exists():
        report(f"rootfs cached: {out}")
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_suffix(".tar.partial")
    partial.unlink(missing_ok=True)
    argv = [
        "mmdebstrap", "--mode=root", "--variant=minbase", "--format=tar",
        "--aptopt=APT::Install-Recommends \"false\"", "--aptopt=Acquire::Retries \"3\"",
        *(f"--dpkgopt={o}" for o in DPKG_OPTS),
        "--include=" + ",".join(recipe.all_packages()),
        "--customize-hook=chroot \"$1\" dpkg-query -W -f='${Package}\\t${Version}\\n' > \"$1/crab-manifest\"",
        "--verbose", recipe.suite, str(partial), recipe.mirror,
    ]  # fmt: skip
    _run(argv, "mmdebstrap", report)
    partial.rename(out)
    return out


def _install_files(tree: Path) -> None:
    for guest_path, (src, mode) in GUEST_FILES.items():
        dest = tree / guest_path.lstrip("/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
        os.chmod(dest, mode)
    home = tree / GUEST_HOME.lstrip("/")
    if home.exists():
        shutil.rmtree(home)
    shutil.copytree(TEMPLATE_HOME, home, symlinks=True)
    for dirpath, dirnames, filenames in os.walk(home):
        for n in [dirpath, *(os.path.join(dirpath, x) for x in dirnames + filenames)]:
            os.chown(n, GUEST_UID, GUEST_UID, follow_symlinks=False)
    os.chmod(home, 0o700)
    (tree / "etc/hostname").write_text("crab\n")
    (tree / "etc/hosts").write_text("127.0.0.1 localhost\n127.0.1.1 crab\n")
    (tree / "etc/fstab").write_text("/dev/vda / ext4 rw,relatime,errors=remount-ro 0 1\n")
    (tree / "etc/machine-id").write_text("")  # generated at first boot, so no two images share one
    # Direct kernel boot passes the command line; keep a copy in the image for reference.
    (tree / "etc/crab-kernel-cmdline").write_text(KERNEL_CMDLINE + "\n")


def _configure(tree: Path, report: Report) -> None:
    _run(["chroot", str(tree), "useradd", "--uid", str(GUEST_UID), "--user-group", "--shell", "/bin/bash",
          "--home-dir", GUEST_HOME, "--no-create-home", GUEST_USER], "useradd", report)  # fmt: skip
    _install_files(tree)
    _run(["systemctl", f"--root={tree}", "enable", *ENABLE_UNITS], "systemctl enable", report)
    _run(["systemctl", f"--root={tree}", "mask", *MASK_UNITS], "systemctl mask", report)
    _run(["systemctl", f"--root={tree}", "set-default", "multi-user.target"], "systemctl set-default", report)


def _tree_bytes(tree: Path) -> int:
    res = subprocess.run(["du", "-sb", str(tree)], capture_output=True, text=True, check=True)
    return int(res.stdout.split()[0])


def build_image(recipe: Recipe | None = None, report: Report = print, root: Path | None = None) -> ImagePaths:
    """The guest image of ``recipe`` (the default desktop), built unless cached; returns its paths."""
    recipe = recipe or Recipe()
    _check_tools()
    paths = ImagePaths.for_hash(recipe.image_hash(), root)
    if paths.complete():
        report(f"image cached: {paths.disk}")
        return paths
    started = time.monotonic()
    tarball = build_rootfs(recipe, report, root)
    work = paths.disk.parent.with_name(paths.disk.parent.name + ".partial")
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    with tempfile.TemporaryDirectory(dir=work, prefix="tree-") as tmp:
        tree = Path(tmp)
        report("unpacking the root file system")
        _run(["tar", "-xpf", str(tarball), "--numeric-owner", "--xattrs", "-C", str(tree)], "tar", report)
        report("adding the desktop session, the probe agent and the services")
        _configure(tree, report)
        kernels = sorted((tree / "boot").glob("vmlinuz-*"))
        initrds = sorted((tree / "boot").glob("initrd.img-*"))
        if not kernels or not initrds:
            raise BuildError(f"no kernel or initrd in {tree / 'boot'} (is linux-image-amd64 in the recipe?)")
        shutil.copyfile(kernels[-1], work / "vmlinuz")
        shutil.copyfile(initrds[-1], work / "initrd.img")
        versions = dict(
            line.split("\t", 1) for line in (tree / "crab-manifest").read_text().splitlines() if "\t" in line
        )
        (tree / "crab-manifest").unlink()
        size = _tree_bytes(tree) * 5 // 4 + FREE_SPACE
        raw = work / "disk.raw"
        report(f"making the file system ({size / 1024**3:.1f} GiB, sparse)")
        with open(raw, "wb") as f:
            f.truncate(size)
        _run(["mkfs.ext4", "-q", "-F", "-L", "crab-root", "-d", str(tree), str(raw)], "mkfs.ext4", report)
    report("converting to qcow2")
    _run(["qemu-img", "convert", "-O", "qcow2", str(raw), str(work / "disk.qcow2")], "qemu-img", report)
    raw.unlink()
    manifest = {
        "recipe": {"suite": recipe.suite, "mirror": recipe.mirror, "packages": list(recipe.all_packages())},
        "rootfs_hash": recipe.rootfs_hash(),
        "image_hash": recipe.image_hash(),
        "kernel_cmdline": KERNEL_CMDLINE,
        "versions": versions,
        "build_seconds": round(time.monotonic() - started, 1),
    }
    (work / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))
    if paths.disk.parent.exists():
        shutil.rmtree(paths.disk.parent)
    work.rename(paths.disk.parent)
    for old in paths.disk.parent.parent.glob("image-*"):  # earlier recipes' images (1.6 GB each)
        if old != paths.disk.parent and old.is_dir():
            shutil.rmtree(old, ignore_errors=True)
    report(f"image built: {paths.disk}")
    return paths
