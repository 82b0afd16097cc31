"""Saved states of the VM desktop (internal snapshots) with the worker's disk in a folder of its own
(``CRAB_GYM_VM_WORKER_DIR``, here on tmpfs): a branch comes back frame for frame, and a restore that fails is
a DeviceError that the next reset() recovers from. The CI slice checks the folder and the failed restore;
``-m vm_full`` adds the branch and ``crab-gym vm remove``."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from xml.etree import ElementTree as ET

import numpy as np
import pytest

from crab_gym.envs.base import DeviceError
from crab_gym.envs.desktop import DesktopEnv
from crab_gym.envs.desktop.backends import libvirt as libvirt_backend
from crab_gym.vm.domain import hmp

pytestmark = [pytest.mark.vm, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def desk(vm_domain):
    shm = "/dev/shm" if Path("/dev/shm").is_dir() else None
    folder = tempfile.mkdtemp(prefix="crab-gym-workers-", dir=shm)
    Path(folder).chmod(0o755)
    patch = pytest.MonkeyPatch()
    patch.setattr(libvirt_backend, "WORKER_DIR", folder)
    d = DesktopEnv("libvirt")
    try:
        d.reset()
        yield d
    finally:
        d.close()
        patch.undo()
        shutil.rmtree(folder)  # the worker is cloned into the pool again by the next session


def disk_of(desk) -> Path:
    source = ET.fromstring(desk.session.dom.XMLDesc(0)).find("devices/disk/source")
    return Path(source.get("file"))


def play(desk) -> np.ndarray:
    desk.execute(desk.action("write_text"), {"text": "echo after the branch point\n"})
    desk.settle()
    return desk.screenshot()


def test_the_worker_disk_is_in_the_worker_dir(desk):
    assert disk_of(desk).parent == Path(libvirt_backend.WORKER_DIR)


@pytest.mark.vm_full
def test_a_loaded_state_gives_the_same_frames(desk):
    desk.reset()
    assert desk.launch_from_launcher("terminal") == "window"
    desk.settle()
    at_save = desk.screenshot()
    state = desk.save_state()
    first = play(desk)
    assert not np.array_equal(first, at_save), "the action changed nothing on the screen"
    problems = []
    for _ in range(2):  # a loaded machine now and then draws another frame with no load involved
        desk.load_state(state)
        desk.settle()
        if not np.array_equal(desk.screenshot(), at_save):
            problems.append("the frame after the load is not the frame at the save")
        elif not np.array_equal(play(desk), first):
            problems.append("the same action gave another frame after the load")
        else:
            break
    else:
        raise AssertionError("; ".join(problems))


def test_a_failed_restore_is_a_device_error_and_reset_recovers(desk):
    desk.reset()
    state = desk.save_state()
    hmp(desk.session.dom, f"delvm {state.snapshot}")  # the snapshot is gone behind the session's back
    with pytest.raises(DeviceError, match="failed"):
        desk.load_state(state)
    desk.reset()
    desk.invalidate_state()
    assert "Documents" in desk.state().list_dir("~")


@pytest.mark.vm_full
def test_vm_remove_deletes_a_worker_disk_outside_the_pool(desk):
    """Last in this module: it closes the desktop."""
    from crab_gym.vm.connection import open_connection
    from crab_gym.vm.domain import remove_domain

    name, uri, disk = desk.session.name, desk.session.uri, disk_of(desk)
    desk.close()
    conn = open_connection(uri)
    try:
        remove_domain(conn, name)  # the next session clones the worker again
    finally:
        conn.close()
    assert not disk.exists()
