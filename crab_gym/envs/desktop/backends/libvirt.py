"""The desktop in a libvirt/QEMU virtual machine, reset by loading an internal snapshot in place.

``backends={"ubuntu": "libvirt"}``: each env gets a worker domain of its own (``crab-desktop-w<N>``), cloned
once from the domain ``crab-gym vm create`` made (its disk overlay carries the pristine snapshot).
``"libvirt:<domain>"`` drives that domain itself. ``"...@<uri>"`` picks the libvirt URI (default
``$CRAB_GYM_LIBVIRT_URI`` or ``qemu:///system``; ``qemu+ssh://host/system`` works unchanged).

Input and frames go through QEMU (:class:`crab_gym.vm.display.VMDisplay`); state reads go to the probe
agent in the guest, which answers named operations only. A reset is HMP ``loadvm`` in the running QEMU
process, then a clock resync through the guest agent. A guest that stops answering makes the step fail with
DeviceError; the next reset loads the snapshot again, or restarts the domain from it.
"""

from __future__ import annotations

import base64
import os
import shutil
import threading
import time
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any
from xml.etree import ElementTree as ET

from crab_gym.envs.base import DeviceError
from crab_gym.envs.desktop.backends.base import DESCRIPTION, HOME_FOLDERS
from crab_gym.envs.desktop.backends.vm_states import VMState, VMStates
from crab_gym.envs.desktop.primitives.apps import app_argv
from crab_gym.envs.desktop.primitives.files import resolve
from crab_gym.envs.desktop.primitives.procs import Process
from crab_gym.envs.slot_lock import SlotLock
from crab_gym.vm.connection import DEFAULT_URI, VMError, import_libvirt, open_connection
from crab_gym.vm.display import VMDisplay
from crab_gym.vm.domain import (
    DEFAULT_DOMAIN,
    POOL,
    SNAPSHOT,
    has_snapshot,
    load_snapshot,
    metadata,
    storage_pool,
)
from crab_gym.vm.probe_client import ProbeClient
from crab_gym.vm.recipe import GUEST_HOME

MAX_WORKERS = 32
TCG_SLOWDOWN = float(os.environ.get("CRAB_GYM_VM_SLOWDOWN", "5"))  # how much longer waits are under TCG
# A folder on the VM host (this machine) for the worker domains' disks instead of the storage pool, e.g. a
# tmpfs such as /dev/shm: a save then writes the guest's RAM to memory, not to the disk (docs/state.md).
WORKER_DIR = os.environ.get("CRAB_GYM_VM_WORKER_DIR", "")


class GuestStat:
    """The fields of ``os.stat_result`` the probe reports."""

    def __init__(self, d: dict[str, Any]) -> None:
        self.st_mode, self.st_size = int(d["mode"]), int(d["size"])
        self.st_mtime, self.st_uid = float(d["mtime"]), int(d["uid"])


class GuestLaunch:
    """A launch watched in the guest: the probe takes the snapshot, and judges the outcome with the
    desktop's own :class:`~crab_gym.envs.desktop.primitives.launch.LaunchWatch` (see ``launch_wait``)."""

    def __init__(self, session: LibvirtSession) -> None:
        self._s = session
        self.snapshot = session.agent_client().call("launch_snapshot")

    def new_pids(self) -> list[int]:
        old = set(self.snapshot["pids"])
        return [p.pid for p in self._s.processes() if p.pid not in old and p.name != "rofi"]

    def wait(self, startup: float = 40.0, idle_after: float = 1.0, grace: float = 0.3) -> str:
        """The outcome; under TCG a new window is then also waited on until the machine is quiet for
        ``idle_after`` (stretched) s, within another ``startup`` (stretched): LibreOffice maps its frame
        a minute or more before it draws the document and takes keys (over 4 min at host load 25)."""
        k = self._s.slowdown
        outcome = str(
            self._s.agent_client().call(
                "launch_wait", snapshot=self.snapshot, startup=startup * k, idle_after=idle_after * k,
                grace=grace * k, reply_within=startup * k + 30.0,
            )
        )  # fmt: skip
        if outcome == "window" and k > 1.0 and self._s.x is not None:
            self._s.x.settle(quiet=idle_after * k, timeout=startup * k)
        return outcome


class _WorkerSlot:
    """A machine-wide lock on worker number N of a template (one env per worker domain)."""

    def __init__(self, template: str) -> None:
        self._lock = SlotLock(f"vm-{template}-", range(MAX_WORKERS))
        if self._lock.index is None:
            raise DeviceError(f"no free VM worker slot for {template} (all {MAX_WORKERS} in use)")
        self.index: int = self._lock.index

    def release(self) -> None:
        self._lock.release()


class LibvirtSession:
    """One desktop domain. ``start()`` once, ``reset()`` per episode, ``close()`` at the end."""

    # What the guest image has (no panel: the xvfb session's panel is not shipped in the image yet).
    description = f"{DESCRIPTION} {HOME_FOLDERS}"
    settle_quiet = 0.02  # the guest's probe reads CPU time only (no runnable threads, no timers)

    def __init__(
        self, domain: str | None = None, uri: str = DEFAULT_URI, size: tuple[int, int] = (1280, 800)
    ) -> None:
        self.libvirt = import_libvirt()
        self.uri, self.size = uri, size
        self.template = domain or DEFAULT_DOMAIN
        self.worker = domain is None
        self.name = self.template
        self.home = PurePosixPath(GUEST_HOME)
        self.conn: Any = None
        self.dom: Any = None
        self.probe: ProbeClient | None = None
        self.x: VMDisplay | None = None
        self.slowdown = 1.0
        self.last_reset_seconds = 0.0
        self._slot: _WorkerSlot | None = None
        self._started_here = False
        self._clock: threading.Thread | None = None
        self._clock_stop = threading.Event()
        self.clock_error = ""
        self.clock_synced_at = 0.0
        self._states = VMStates()  # the snapshots save_state took

    # ---- lifecycle ----------------------------------------------------------------------------
    def start(self) -> None:
        try:
            self.conn = open_connection(self.uri)
            if self.worker:
                self._slot = _WorkerSlot(self.template)
                self.name = f"{self.template}-w{self._slot.index}"
                self._ensure_worker()
            self.dom = self._lookup(self.name)
            self.slowdown = 1.0 if "type='kvm'" in self.dom.XMLDesc(0) else TCG_SLOWDOWN
            if not self.dom.isActive():
                self.dom.createWithFlags(self.libvirt.VIR_DOMAIN_START_PAUSED)
                self._started_here = True
            if not has_snapshot(self.dom, SNAPSHOT):
                raise DeviceError(f"domain {self.name} has no snapshot {SNAPSHOT!r} (crab-gym vm create)")
            self.probe = ProbeClient(self.uri, self.dom.UUIDString(), timeout=20.0 * self.slowdown)
            self.x = VMDisplay(self.conn, self.dom, self.probe, self.size, screen_file=self._screen_file())
            self.x.input_timeout = 5.0 * self.slowdown
        except (VMError, self.libvirt.libvirtError) as e:
            raise DeviceError(f"libvirt desktop {self.name}: {e}") from e
        self.reset()

    def reset(self) -> None:
        """Load the pristine snapshot in place, check the probe answers, and resync the guest clock.

        The clock is set through the guest agent, which libvirt sees reconnect 0.3-2 s after the load under
        TCG; that happens on a thread of its own, so the reset returns once the desktop answers. A resync
        still waiting for the agent when the next reset comes is stopped (that load needs its own); one that
        failed is reported by the next reset.
        """
        self._load(SNAPSHOT)

    def save_state(self) -> VMState:
        """An internal snapshot of the running machine (:class:`~.vm_states.VMStates`)."""
        if self.dom is None:
            raise DeviceError("the VM session is not started")
        try:
            return self._states.save(self.dom)
        except (VMError, self.libvirt.libvirtError) as e:
            raise DeviceError(f"saving the state of {self.name} failed: {e}") from e

    def load_state(self, state: VMState) -> None:
        """``loadvm`` of a snapshot :meth:`save_state` took in this domain, then what a reset does next."""
        if self.dom is None:
            raise DeviceError("the VM session is not started")
        self._load(self._states.snapshot_of(state, self.dom, self.name))

    def _load(self, snapshot: str) -> None:
        """Load a snapshot in place, check the probe answers, and resync the guest clock (see reset)."""
        if self.dom is None or self.probe is None or self.x is None:
            raise DeviceError("the VM session is not started")
        self.wait_clock(stop=True)
        started = time.monotonic()
        try:
            if not self.dom.isActive():
                self.dom.createWithFlags(self.libvirt.VIR_DOMAIN_START_PAUSED)
                self._started_here = True
            load_snapshot(self.dom, snapshot)
            if self.dom.state()[0] == self.libvirt.VIR_DOMAIN_PAUSED:
                self.dom.resume()
            # A channel stream opened before the load can stop taking data (a send then blocks in libvirt,
            # seen under TCG): every episode talks to the probe on a stream opened after the load.
            self.probe.reopen()
            self.x.after_snapshot_load()
            self.probe.call("ping", reply_within=10.0 * self.slowdown)
        except (VMError, self.libvirt.libvirtError) as e:
            raise DeviceError(f"reset of {self.name} failed: {e}") from e
        self.last_reset_seconds = time.monotonic() - started
        self._clock_stop = threading.Event()
        self._clock = threading.Thread(
            target=self._sync_clock, args=(self._clock_stop,), name=f"clock-{self.name}", daemon=True
        )
        self._clock.start()

    def wait_clock(self, stop: bool = False) -> None:
        """Wait for the previous reset's clock resync (with ``stop``, end it at its next try); raise
        DeviceError if it failed."""
        if self._clock is not None:
            if stop:
                self._clock_stop.set()
            self._clock.join()
            self._clock = None
        if self.clock_error:
            error, self.clock_error = self.clock_error, ""
            raise DeviceError(error)

    def _sync_clock(self, stop: threading.Event) -> None:
        """The snapshot's clock is the moment it was taken: set the guest's to ours (guest agent).

        libvirt sees the agent's port close and reopen across the load, so "not connected" is retried
        until the deadline; a failure is reported by the next reset.
        """
        deadline = time.monotonic() + 10.0 * self.slowdown
        while not stop.is_set():
            now = time.time_ns()
            try:
                self.dom.setTime({"seconds": now // 10**9, "nseconds": now % 10**9}, 0)
                self.clock_synced_at = time.monotonic()
                return
            except self.libvirt.libvirtError as e:
                if time.monotonic() > deadline:
                    self.clock_error = f"clock resync of {self.name} (guest agent) failed: {e}"
                    return
            stop.wait(0.02)

    def close(self) -> None:
        self._states.drop(self.dom, (VMError, self.libvirt.libvirtError))
        if self._clock is not None:
            self._clock_stop.set()
            self._clock.join()
            self._clock = None
        if self.probe is not None:
            self.probe.close()
            self.probe = None
        self.x = None
        # A worker domain is ours while we hold its slot (even if a dead process left it running).
        if self.dom is not None and (self._started_here or self.worker):
            try:
                if self.dom.isActive():
                    self.dom.destroy()
            except self.libvirt.libvirtError:
                pass
        self.dom = None
        if self.conn is not None:
            try:
                self.conn.close()
            except self.libvirt.libvirtError:
                pass
            self.conn = None
        if self._slot is not None:
            self._slot.release()
            self._slot = None

    # ---- worker domains -------------------------------------------------------------------------
    def _lookup(self, name: str) -> Any:
        try:
            return self.conn.lookupByName(name)
        except self.libvirt.libvirtError as e:
            hint = "run `crab-gym vm create`" if name == DEFAULT_DOMAIN else f"define {name} first"
            raise DeviceError(f"no libvirt domain {name!r} at {self.uri}: {hint}") from e

    def _ensure_worker(self) -> None:
        """Clone the template's overlay (with its snapshot) and definition into this worker's domain, once
        per template image."""
        template = self._lookup(self.template)
        want = metadata(template).get("image", "")
        pool = storage_pool(self.conn)
        src = pool.storageVolLookupByName(f"{self.template}.qcow2")
        folder = WORKER_DIR if WORKER_DIR and self._is_local() else ""
        home = Path(folder or Path(src.path()).parent)  # where this worker's disk belongs
        try:
            dom = self.conn.lookupByName(self.name)
            disk = ET.fromstring(dom.XMLDesc(0)).find("devices/disk/source")
            path = Path(disk.get("file", "") if disk is not None else "")
            same = metadata(dom).get("image", "") == want and (
                not self._is_local() or (path.parent == home and path.exists())
            )
            if same:
                return
            if dom.isActive():
                dom.destroy()
            dom.undefine()
            if path.parent == Path(WORKER_DIR or "/nonexistent"):
                path.unlink(missing_ok=True)
        except self.libvirt.libvirtError:
            pass
        if template.isActive():
            raise DeviceError(f"template domain {self.template} is running; stop it to clone workers from it")
        dest_name = f"{self.name}.qcow2"
        try:
            pool.storageVolLookupByName(dest_name).delete(0)
        except self.libvirt.libvirtError:
            pass
        dest_path = self._copy_volume(pool, src, dest_name, folder)
        root = ET.fromstring(template.XMLDesc(self.libvirt.VIR_DOMAIN_XML_INACTIVE))
        root.find("name").text = self.name  # type: ignore[union-attr]  # a domain's XML always has it
        uuid = root.find("uuid")
        if uuid is not None:
            root.remove(uuid)
        root.find("devices/disk/source").set("file", dest_path)  # type: ignore[union-attr]  # the template's disk
        self.conn.defineXML(ET.tostring(root, encoding="unicode"))

    def _copy_volume(self, pool: Any, src: Any, name: str, folder: str = "") -> str:
        """A byte copy of ``src`` (qcow2 internal snapshots included): a file copy on this machine (into
        ``folder`` if given, else the pool), a download and upload through libvirt for a remote host."""
        size = src.info()[1]
        if self._is_local() and os.access(src.path(), os.R_OK):
            if folder:
                Path(folder).mkdir(mode=0o755, parents=True, exist_ok=True)
            dest = str(Path(folder) / name if folder else Path(src.path()).with_name(name))
            shutil.copyfile(src.path(), dest)
            owner = os.stat(src.path())
            os.chown(dest, owner.st_uid, owner.st_gid)
            pool.refresh(0)
            return dest
        vol = pool.createXML(
            f"<volume><name>{name}</name><capacity>{size}</capacity>"
            "<target><format type='raw'/></target></volume>",
            0,
        )
        down, up = self.conn.newStream(0), self.conn.newStream(0)
        src.download(down, 0, 0, 0)
        vol.upload(up, 0, 0, 0)
        down.recvAll(lambda _s, data, _o: up.send(data), None)
        down.finish()
        up.finish()
        pool.refresh(0)
        return vol.path()

    def _is_local(self) -> bool:
        return self.conn.getURI().startswith("qemu:///")

    def _screen_file(self) -> str:
        """Where QEMU may write frames on this machine (system: beside libvirt's QEMU state; session: our
        runtime dir); empty for a remote host."""
        if not self._is_local():
            return ""
        if self.conn.getURI().endswith("/system"):
            base = Path("/var/lib/libvirt/qemu")
            d = base / POOL
            if os.geteuid() != 0 or not base.exists():
                return ""
            d.mkdir(exist_ok=True)
            st = base.stat()
            os.chown(d, st.st_uid, st.st_gid)
            return str(d / f"{self.name}.ppm")
        d = Path(os.environ.get("XDG_RUNTIME_DIR") or "/tmp") / "crab-gym-vm"
        d.mkdir(mode=0o700, exist_ok=True)
        return str(d / f"{self.name}.ppm")

    # ---- what the desktop env uses -------------------------------------------------------------
    def check(self) -> None:
        """Raise DeviceError if the domain stopped mid-episode; the next reset starts it from the snapshot."""
        try:
            active = self.dom is not None and self.dom.isActive()
        except self.libvirt.libvirtError:
            active = False
        if not active:
            raise DeviceError(f"the VM {self.name} is not running")

    def agent_client(self) -> ProbeClient:
        if self.probe is None:
            raise DeviceError("the VM session is not started")
        return self.probe

    def resolve(self, path: str) -> PurePosixPath:
        """A session path (``~/x`` or ``/abs``) as the guest sees it; ``~`` is the guest user's HOME."""
        return resolve(self.home, path)

    def write_file(self, rel: str, data: bytes) -> PurePosixPath:
        """Create a file in the guest (owned by the desktop user)."""
        encoded = base64.b64encode(data).decode()
        self.agent_client().call("write_file", path=str(self.resolve(rel)), data=encoded)
        return self.resolve(rel)

    def stat(self, path: str) -> GuestStat | None:
        d = self.agent_client().call("stat", path=str(self.resolve(path)))
        return None if d is None else GuestStat(d)

    def read_bytes(self, path: str, limit: int) -> bytes | None:
        data = self.agent_client().call("read_file", path=str(self.resolve(path)), limit=limit)
        return None if data is None else base64.b64decode(data)

    def list_dir(self, path: str) -> list[str] | None:
        return self.agent_client().call("list_dir", path=str(self.resolve(path)))

    def session_pids(self) -> list[int]:
        return [p[0] for p in self.agent_client().call("processes")]

    def processes(self) -> list[Process]:
        return [Process(pid, name, tuple(cmd)) for pid, name, cmd in self.agent_client().call("processes")]

    def kill(self, pid: int, sig: int) -> bool:
        return bool(self.agent_client().call("kill", pid=pid, sig=sig))

    def spawn_app(self, app: str, args: Sequence[str]) -> None:
        app_argv(app, args)  # an unknown app fails here, with the list of known ones
        self.agent_client().call("spawn", app=app, args=[str(a) for a in args])

    def launch_watch(self) -> GuestLaunch:
        return GuestLaunch(self)

    def launcher_ready(self) -> bool:
        return bool(self.agent_client().call("launcher_ready"))

    def launcher_exits(self, idle_for: float, bound: float) -> bool:
        k = self.slowdown
        return bool(
            self.agent_client().call("launcher_exits", idle_for=idle_for * k, bound=bound * k,
                                     reply_within=30.0 * k)
        )  # fmt: skip

    def settle(self, quiet: float, timeout: float) -> None:
        """As on xvfb, judged in the guest; both times stretched by the slowdown (under TCG an app draws a
        menu in bursts more than 20 ms apart)."""
        if self.x is None:
            raise DeviceError("the VM session is not started")
        self.x.settle(quiet=quiet * self.slowdown, timeout=timeout * self.slowdown)

    def outgrown(self) -> bool:
        """Never: a reset loads the whole machine from its snapshot."""
        return False

    def identity(self) -> dict[str, Any]:
        return {"domain": self.name, "uri": self.uri} if self.dom is not None else {}
