"""``crab-gym vm build-image|create|status|remove``: the desktop VM's image and domain."""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def _progress(title: str) -> Iterator[Callable[[str], None]]:
    """A live line: a spinner, the elapsed time and the latest message (plain lines when not a terminal)."""
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    if not console.is_terminal:
        yield lambda line: print(f"{title}: {line}", file=sys.stderr, flush=True)
        return
    columns = (SpinnerColumn(), TimeElapsedColumn(), TextColumn("{task.description}"))
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task(title)

        def report(line: str) -> None:
            progress.update(task, description=f"{title}: {line[:100]}")

        yield report


def _cmd_build_image(args: argparse.Namespace) -> int:
    from crab_gym.vm.image import BuildError, build_image
    from crab_gym.vm.recipe import Recipe

    recipe = Recipe(mirror=args.mirror) if args.mirror else Recipe()
    started = time.monotonic()
    try:
        with _progress("build-image") as report:
            paths = build_image(recipe, report)
    except BuildError as e:
        print(f"crab-gym vm build-image: {e}", file=sys.stderr)
        return 1
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(paths.disk, out)
        shutil.copyfile(paths.kernel, out.with_name(out.name + ".vmlinuz"))
        shutil.copyfile(paths.initrd, out.with_name(out.name + ".initrd.img"))
        print(f"copied to {out} (+ .vmlinuz, .initrd.img for direct kernel boot)")
    size = paths.disk.stat().st_size / 1024**3
    took = time.monotonic() - started
    print(f"image {paths.disk} ({size:.2f} GiB) in {took:.0f} s; manifest {paths.manifest}")
    return 0


def _cmd_create(args: argparse.Namespace) -> int:
    from crab_gym.vm.connection import VMError
    from crab_gym.vm.create import create
    from crab_gym.vm.domain import DomainSpec
    from crab_gym.vm.image import BuildError

    spec = DomainSpec(
        name=args.name, memory_mib=args.memory, vcpus=args.vcpus, accel=args.accel, network=args.network,
        console_log=args.console_log,
    )  # fmt: skip
    try:
        with _progress("create") as report:
            made = create(spec, args.uri or None, report)
    except (VMError, BuildError) as e:
        print(f"crab-gym vm create: {e}", file=sys.stderr)
        return 1
    print(
        f"domain {made.name} at {made.uri} ({made.virt_type}): booted in {made.boot_seconds:.0f} s, "
        f"snapshot saved in {made.savevm_seconds:.1f} s; use backends={{'ubuntu': 'libvirt'}}"
    )
    return 0


def _cmd_status(args: argparse.Namespace) -> int:
    from crab_gym.vm.connection import DEFAULT_URI, open_connection
    from crab_gym.vm.domain import DEFAULT_DOMAIN, has_snapshot, metadata

    conn = open_connection(args.uri or DEFAULT_URI)
    try:
        for dom in conn.listAllDomains(0):
            meta = metadata(dom)
            if not meta and not dom.name().startswith(DEFAULT_DOMAIN):
                continue
            state = "running" if dom.isActive() else "stopped"
            snap = has_snapshot(dom) if dom.isActive() else meta.get("snapshot", "?")
            print(f"{dom.name()}\t{state}\timage {meta.get('image', '?')}\tsnapshot {snap}")
    finally:
        conn.close()
    return 0


def _cmd_remove(args: argparse.Namespace) -> int:
    from crab_gym.vm.connection import DEFAULT_URI, open_connection
    from crab_gym.vm.domain import remove_domain

    conn = open_connection(args.uri or DEFAULT_URI)
    try:
        for name in args.names:
            remove_domain(conn, name)
            print(f"removed {name}")
    finally:
        conn.close()
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Add ``vm`` to the ``crab-gym`` parser."""
    from crab_gym.vm.domain import DEFAULT_DOMAIN

    vm = sub.add_parser("vm", help="the desktop in a libvirt/QEMU virtual machine")
    vsub = vm.add_subparsers(dest="vm_command", required=True)
    b = vsub.add_parser("build-image", help="debootstrap the guest image (cached in ~/.cache/crab-gym/vm)")
    b.add_argument("--out", default="", help="also copy the qcow2 here (kernel and initrd beside it)")
    b.add_argument("--mirror", default="", help="Debian mirror (default http://deb.debian.org/debian)")
    b.set_defaults(func=_cmd_build_image)
    c = vsub.add_parser("create", help="define the domain, boot it once and save the pristine snapshot")
    c.add_argument("--name", default=DEFAULT_DOMAIN)
    c.add_argument("--uri", default="", help="libvirt URI (default $CRAB_GYM_LIBVIRT_URI or qemu:///system)")
    c.add_argument("--memory", type=int, default=2048, help="MiB")
    c.add_argument("--vcpus", type=int, default=1, help="default 1; under TCG each runs on a host thread")
    c.add_argument("--accel", choices=["auto", "kvm", "tcg"], default="auto")
    c.add_argument("--network", action="store_true", help="user-mode networking (off by default)")
    c.add_argument("--console-log", default="", help="write the guest's serial console to this file")
    c.set_defaults(func=_cmd_create)
    s = vsub.add_parser("status", help="crab-gym domains, running or not, and their image")
    s.add_argument("--uri", default="")
    s.set_defaults(func=_cmd_status)
    r = vsub.add_parser("remove", help="destroy and undefine domains and delete their overlays")
    r.add_argument("names", nargs="+")
    r.add_argument("--uri", default="")
    r.set_defaults(func=_cmd_remove)
