"""``crab-gym vm create``: define the domain, boot it once, wait for the desktop, save the snapshot."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from crab_gym.envs.base import DeviceError
from crab_gym.vm.connection import VMError, import_libvirt, open_connection
from crab_gym.vm.domain import DomainSpec, define_domain, save_snapshot
from crab_gym.vm.image import build_image
from crab_gym.vm.probe_client import ProbeClient
from crab_gym.vm.recipe import ImagePaths, Recipe

Report = Callable[[str], None]
BOOT_TIMEOUT = 900.0  # s; a TCG boot took 55-90 s on our 2-core machines


@dataclass
class Created:
    name: str
    uri: str
    virt_type: str
    boot_seconds: float
    savevm_seconds: float


def wait_for_desktop(conn: Any, dom: Any, report: Report, timeout: float = BOOT_TIMEOUT) -> ProbeClient:
    """Poll the probe agent until the window manager manages the screen; the open probe client."""
    start = time.monotonic()
    probe: ProbeClient | None = None
    last = ""
    while time.monotonic() - start < timeout:
        if not dom.isActive():
            raise VMError(f"{dom.name()} stopped while booting (see `virsh console {dom.name()}` or its log)")
        try:
            if probe is None:
                probe = ProbeClient(conn.getURI(), dom.UUIDString(), timeout=5.0)
            st = probe.call("status", reply_within=5.0)
            if st.get("wm"):
                probe.timeout = 60.0
                return probe
            last = f"X is up, no window manager yet ({st})"
        except DeviceError as e:
            last = str(e)
            if probe is not None and "did not answer" not in last:
                probe.close()
                probe = None
        report(f"booting {dom.name()}: {time.monotonic() - start:.0f} s ({last[:80]})")
        time.sleep(2.0)
    raise VMError(f"{dom.name()} showed no desktop within {timeout:.0f} s; last: {last}")


def warm_up(probe: ProbeClient, report: Report = print, tries: int = 3) -> None:
    """Load what the first state reads would load (pyatspi, the accessibility bus, the settings backend),
    so the snapshot holds it ready and no reset pays for it. Best effort: each read is tried ``tries``
    times, then reported and skipped (under TCG at load 18-22 the guest's xclip outlasted its own 2 s bound
    on every try, and the whole create failed after a 4-minute boot)."""
    reads: list[tuple[str, float, dict[str, Any]]] = [
        ("atspi_tree", 120.0, {}),
        ("gsettings_get", 60.0, {"schema": "org.gnome.desktop.interface", "key": "color-scheme"}),
        ("clipboard", 30.0, {}),
        ("launch_snapshot", 30.0, {}),
        ("input_events", 30.0, {}),  # starts the input counter's thread
        ("settle", 60.0, {"quiet": 1.0, "timeout": 30.0}),
    ]
    for op, bound, args in reads:
        for attempt in range(tries):
            try:
                probe.call(op, reply_within=bound, **args)
                break
            except DeviceError as e:
                if attempt == tries - 1:
                    report(f"warm-up read {op} skipped: {e}")


def _without_host_cpu(conn: Any, dom: Any) -> Any:
    """Drop the KVM-only ``host-passthrough`` CPU from a definition switched to TCG."""
    from xml.etree import ElementTree as ET

    root = ET.fromstring(dom.XMLDesc(0))
    cpu = root.find("cpu")
    if cpu is None:
        return dom
    root.remove(cpu)
    return conn.defineXML(ET.tostring(root, encoding="unicode"))


def create(
    spec: DomainSpec | None = None,
    uri: str | None = None,
    report: Report = print,
    image: ImagePaths | None = None,
    recipe: Recipe | None = None,
) -> Created:
    """Build (or reuse) the image, define ``spec.name`` on it, boot, snapshot, and stop it again."""
    from crab_gym.vm.connection import DEFAULT_URI

    spec = spec or DomainSpec()
    recipe = recipe or Recipe()
    uri = uri or DEFAULT_URI
    image = image or build_image(recipe, report)
    conn = open_connection(uri)
    try:
        dom = define_domain(conn, spec, image, recipe.image_hash(), report)
        virt_type = "kvm" if "type='kvm'" in dom.XMLDesc(0) else "qemu"
        report(f"defined {spec.name} ({virt_type}); booting")
        started = time.monotonic()
        try:
            dom.create()
        except import_libvirt().libvirtError as e:
            if virt_type != "kvm" or spec.accel != "auto":
                raise VMError(f"{spec.name} did not start: {e}") from e
            # KVM listed but unusable (no access to /dev/kvm, or a paravirtual one): software emulation.
            report(f"KVM failed ({str(e).splitlines()[-1][:80]}); using TCG")
            dom = conn.defineXML(dom.XMLDesc(0).replace("<domain type='kvm'", "<domain type='qemu'", 1))
            dom = _without_host_cpu(conn, dom)
            virt_type = "qemu"
            dom.create()
        probe = wait_for_desktop(conn, dom, report)
        boot = time.monotonic() - started
        report(f"desktop up after {boot:.0f} s; warming up")
        warm_up(probe, report)
        report("saving the pristine snapshot")
        took = save_snapshot(dom)
        probe.close()
        dom.destroy()
        return Created(spec.name, uri, virt_type, boot, took)
    finally:
        conn.close()
