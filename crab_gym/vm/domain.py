"""Define the desktop domain on libvirt, boot it once and save the pristine internal snapshot.

The image's disk, kernel and initrd are uploaded as volumes of a ``crab-gym`` storage pool (through
libvirt, so a remote host gets them too); each domain has a qcow2 overlay on the shared base, and the
snapshot (RAM, devices and disk) lives inside that overlay. A reset is one HMP ``loadvm`` in the running
QEMU process; a stopped domain is started paused and loads the snapshot instead of booting.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from crab_gym.vm.connection import VMError, import_libvirt, is_local_system, is_this_machine
from crab_gym.vm.kvm import kvm_runs_guests
from crab_gym.vm.recipe import KERNEL_CMDLINE, SCREEN, ImagePaths

POOL = "crab-gym"
SNAPSHOT = "crab-pristine"
DEFAULT_DOMAIN = "crab-desktop"
METADATA_NS = "https://crab-gym.dev/vm/1"
GUEST_AGENT_CHANNEL = "org.qemu.guest_agent.0"
PROBE_CHANNEL = "org.crabgym.probe.0"

Report = Callable[[str], None]


@dataclass(frozen=True)
class DomainSpec:
    """The knobs of ``crab-gym vm create``."""

    name: str = DEFAULT_DOMAIN
    memory_mib: int = 2048
    # One by default: two (`vm create --vcpus 2`) give QEMU under TCG a host thread per vCPU (MTTCG), but
    # on this 2-core host they solved no more LibreOffice tasks (docs/vm.md) and take both cores.
    vcpus: int = 1
    accel: str = "auto"  # "kvm", "tcg" (libvirt type "qemu"), or "auto": kvm where it works, else tcg
    network: bool = False
    console_log: str = ""  # a file on the VM host for the guest's serial console (default: a pty)


def pool_path(uri: str) -> str:
    if uri.endswith("/session"):
        data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        return f"{data}/libvirt/images/{POOL}"
    return f"/var/lib/libvirt/images/{POOL}"


def storage_pool(conn: Any) -> Any:
    """The ``crab-gym`` directory pool, defined and started on first use."""
    lv = import_libvirt()
    try:
        pool = conn.storagePoolLookupByName(POOL)
    except lv.libvirtError:
        xml = (
            f"<pool type='dir'><name>{POOL}</name>"
            f"<target><path>{pool_path(conn.getURI())}</path></target></pool>"
        )
        pool = conn.storagePoolDefineXML(xml, 0)
        pool.build(0)
        pool.setAutostart(1)
    if not pool.isActive():
        pool.create(0)
    pool.refresh(0)
    return pool


def _volume(pool: Any, name: str) -> Any | None:
    lv = import_libvirt()
    try:
        return pool.storageVolLookupByName(name)
    except lv.libvirtError:
        return None


def upload(conn: Any, pool: Any, name: str, src: Path, report: Report) -> str:
    """Upload a local file as volume ``name`` (names carry the image hash, so an existing one is reused)."""
    vol = _volume(pool, name)
    size = src.stat().st_size
    if vol is not None and vol.info()[1] >= size:
        return vol.path()
    if vol is not None:
        vol.delete(0)
    target = Path(ET.fromstring(pool.XMLDesc(0)).findtext("target/path") or "/nonexistent") / name
    if conn.getURI().startswith("qemu:///") and os.access(target.parent, os.W_OK):
        # The pool is a folder on this machine: a file copy is ~10x faster than streaming through libvirtd.
        report(f"copying {name} into the pool")
        shutil.copyfile(src, target)
        pool.refresh(0)
        return pool.storageVolLookupByName(name).path()
    vol = pool.createXML(
        f"<volume><name>{name}</name><capacity>{size}</capacity>"
        "<target><format type='raw'/></target></volume>",
        0,
    )
    stream = conn.newStream(0)
    vol.upload(stream, 0, size, 0)
    sent = [0]
    with open(src, "rb") as f:

        def chunk(_stream: Any, nbytes: int, _opaque: Any) -> bytes:
            data = f.read(min(nbytes, 4 * 1024 * 1024))
            sent[0] += len(data)
            if sent[0] % (256 * 1024 * 1024) < len(data):
                report(f"uploading {name}: {sent[0] / 1024**2:.0f} / {size / 1024**2:.0f} MiB")
            return data

        stream.sendAll(chunk, None)
    stream.finish()
    pool.refresh(0)
    return vol.path()


def domain_xml(spec: DomainSpec, disk: str, kernel: str, initrd: str, image_hash: str, virt_type: str) -> str:
    """The domain: virtio disk, usb-tablet, standard VGA, the guest agent and probe channels, no network."""
    d = ET.Element("domain", type=virt_type)
    ET.SubElement(d, "name").text = spec.name
    meta = ET.SubElement(ET.SubElement(d, "metadata"), "crab:vm", {"xmlns:crab": METADATA_NS})
    ET.SubElement(meta, "crab:image").text = image_hash
    ET.SubElement(meta, "crab:snapshot").text = SNAPSHOT
    ET.SubElement(meta, "crab:screen").text = f"{SCREEN[0]}x{SCREEN[1]}"
    ET.SubElement(d, "memory", unit="MiB").text = str(spec.memory_mib)
    ET.SubElement(d, "vcpu").text = str(spec.vcpus)
    os_el = ET.SubElement(d, "os")
    ET.SubElement(os_el, "type", arch="x86_64", machine="pc").text = "hvm"
    ET.SubElement(os_el, "kernel").text = kernel
    ET.SubElement(os_el, "initrd").text = initrd
    ET.SubElement(os_el, "cmdline").text = KERNEL_CMDLINE
    ET.SubElement(ET.SubElement(d, "features"), "acpi")
    if virt_type == "kvm":
        ET.SubElement(d, "cpu", mode="host-passthrough")
    ET.SubElement(d, "clock", offset="utc")
    for event, what in (("on_poweroff", "destroy"), ("on_reboot", "restart"), ("on_crash", "destroy")):
        ET.SubElement(d, event).text = what
    dev = ET.SubElement(d, "devices")
    disk_el = ET.SubElement(dev, "disk", type="file", device="disk")
    ET.SubElement(disk_el, "driver", name="qemu", type="qcow2", discard="unmap")
    ET.SubElement(disk_el, "source", file=disk)
    ET.SubElement(disk_el, "target", dev="vda", bus="virtio")
    ET.SubElement(dev, "controller", type="usb", model="qemu-xhci")
    ET.SubElement(dev, "input", type="tablet", bus="usb")
    ET.SubElement(dev, "input", type="keyboard", bus="ps2")
    video = ET.SubElement(dev, "video")
    ET.SubElement(video, "model", type="vga", vram="16384", heads="1", primary="yes")
    for name in (GUEST_AGENT_CHANNEL, PROBE_CHANNEL):
        ch = ET.SubElement(dev, "channel", type="unix")
        ET.SubElement(ch, "source", mode="bind")
        ET.SubElement(ch, "target", type="virtio", name=name)
    if spec.console_log:
        serial = ET.SubElement(dev, "serial", type="file")
        ET.SubElement(serial, "source", path=spec.console_log)
    else:
        ET.SubElement(ET.SubElement(dev, "console", type="pty"), "target", type="serial")
    if spec.network:
        iface = ET.SubElement(dev, "interface", type="user")
        ET.SubElement(iface, "model", type="virtio")
    ET.SubElement(dev, "memballoon", model="none")
    return ET.tostring(d, encoding="unicode")


def hmp(dom: Any, command: str) -> str:
    """Run an HMP command in the domain's QEMU (through libvirt's qemu-monitor-command); its output."""
    lv = import_libvirt()
    import libvirt_qemu

    try:
        flags = libvirt_qemu.VIR_DOMAIN_QEMU_MONITOR_COMMAND_HMP
        return str(libvirt_qemu.qemuMonitorCommand(dom, command, flags))
    except lv.libvirtError as e:
        raise VMError(f"HMP {command!r} failed: {e}") from e


def save_snapshot(dom: Any, name: str = SNAPSHOT) -> float:
    """``savevm``: RAM, devices and disk into the overlay; seconds taken."""
    t = time.monotonic()
    out = hmp(dom, f"savevm {name}").strip()
    if out:
        raise VMError(f"savevm {name}: {out}")
    return time.monotonic() - t


def load_snapshot(dom: Any, name: str = SNAPSHOT) -> float:
    """``loadvm`` in the running QEMU process (no restart); seconds taken."""
    t = time.monotonic()
    out = hmp(dom, f"loadvm {name}").strip()
    if out:
        raise VMError(f"loadvm {name}: {out}")
    return time.monotonic() - t


def has_snapshot(dom: Any, name: str = SNAPSHOT) -> bool:
    return any(line.split()[1:2] == [name] for line in hmp(dom, "info snapshots").splitlines())


def metadata(dom: Any) -> dict[str, str]:
    """The crab-gym facts recorded in the domain (image hash, snapshot name, screen size)."""
    lv = import_libvirt()
    try:
        xml = dom.metadata(lv.VIR_DOMAIN_METADATA_ELEMENT, METADATA_NS, 0)
    except lv.libvirtError:
        return {}
    root = ET.fromstring(xml)
    return {child.tag.split("}")[-1]: (child.text or "") for child in root}


def pick_virt_type(conn: Any, accel: str, kernel: str | Path | None = None) -> str:
    """libvirt's domain type for ``accel``; ``auto`` takes KVM where libvirt lists it and, on this machine,
    ``kernel`` really boots under it (``kvm_runs_guests``), else TCG (type ``qemu``)."""
    if accel == "tcg":
        return "qemu"
    if accel == "kvm":
        return "kvm"
    if os.environ.get("CRAB_GYM_VM_ACCEL", "") == "tcg" or "<domain type='kvm'" not in conn.getCapabilities():
        return "qemu"
    if kernel is not None and is_this_machine(conn.getURI()) and not kvm_runs_guests(kernel):
        return "qemu"
    return "kvm"


def remove_domain(conn: Any, name: str) -> None:
    """Destroy and undefine ``name`` and delete its overlay (not the shared base), in the pool or not."""
    lv = import_libvirt()
    try:
        dom = conn.lookupByName(name)
    except lv.libvirtError:
        dom = None
    if dom is not None:
        source = ET.fromstring(dom.XMLDesc(0)).find("devices/disk/source")
        if dom.isActive():
            dom.destroy()
        dom.undefineFlags(lv.VIR_DOMAIN_UNDEFINE_NVRAM if hasattr(lv, "VIR_DOMAIN_UNDEFINE_NVRAM") else 0)
        disk = Path(source.get("file", "") if source is not None else "")
        if disk.name == f"{name}.qcow2" and is_this_machine(conn.getURI()):
            disk.unlink(missing_ok=True)  # a worker's disk outside the pool (CRAB_GYM_VM_WORKER_DIR)
    pool = storage_pool(conn)
    vol = _volume(pool, f"{name}.qcow2")
    if vol is not None:
        vol.delete(0)


def define_domain(conn: Any, spec: DomainSpec, image: ImagePaths, image_hash: str, report: Report) -> Any:
    """Upload the image (once per host) and define ``spec.name`` on an overlay of it."""
    pool = storage_pool(conn)
    base = upload(conn, pool, f"base-{image_hash}.qcow2", image.disk, report)
    kernel = upload(conn, pool, f"vmlinuz-{image_hash}", image.kernel, report)
    initrd = upload(conn, pool, f"initrd-{image_hash}", image.initrd, report)
    remove_domain(conn, spec.name)
    for name in prune_volumes(conn, pool, image_hash):
        report(f"deleted {name} (an earlier image's)")
    base_vol = pool.storageVolLookupByName(f"base-{image_hash}.qcow2")
    capacity = _qcow2_virtual_size(image.disk) or base_vol.info()[1]
    overlay = pool.createXML(
        f"<volume><name>{spec.name}.qcow2</name><capacity>{capacity}</capacity>"
        f"<target><format type='qcow2'/></target>"
        f"<backingStore><path>{base}</path><format type='qcow2'/></backingStore></volume>",
        0,
    )
    virt_type = pick_virt_type(conn, spec.accel, image.kernel)
    return conn.defineXML(domain_xml(spec, overlay.path(), kernel, initrd, image_hash, virt_type))


def prune_volumes(conn: Any, pool: Any, keep_hash: str) -> list[str]:
    """Delete the base disks, kernels and initrds of other images that no defined domain uses; their names."""
    used = " ".join(dom.XMLDesc(0) for dom in conn.listAllDomains(0))
    gone = []
    for vol in pool.listAllVolumes(0):
        name = vol.name()
        if name.split("-", 1)[0] in ("base", "vmlinuz", "initrd") and keep_hash not in name:
            if vol.path() not in used:
                vol.delete(0)
                gone.append(name)
    return gone


def _qcow2_virtual_size(path: Path) -> int | None:
    """The virtual size in a qcow2 header (bytes 24-31, big-endian)."""
    with open(path, "rb") as f:
        head = f.read(32)
    if head[:4] != b"QFI\xfb":
        return None
    return int.from_bytes(head[24:32], "big")


def is_local(conn: Any) -> bool:
    return is_local_system(conn.getURI()) or conn.getURI().startswith("qemu:///")
