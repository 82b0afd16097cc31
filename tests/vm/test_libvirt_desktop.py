"""The desktop on a libvirt VM: the SubEnv conformance kit, input, state reads, snapshot resets, recovery."""

from __future__ import annotations

import time

import numpy as np
import pytest

from crab_gym.envs.base import DeviceError, SubEnvConformance
from crab_gym.envs.desktop import DesktopEnv

pytestmark = [pytest.mark.vm, pytest.mark.timeout(1800)]


@pytest.fixture(scope="module")
def desk(vm_domain):
    d = DesktopEnv("libvirt")
    d.reset()
    yield d
    d.close()


class TestLibvirtConformance(SubEnvConformance):
    @pytest.fixture(autouse=True)
    def _domain(self, vm_domain):
        return vm_domain

    def make_subenv(self):
        return DesktopEnv("libvirt")

    def mutate(self, sub):
        assert sub.launch_from_launcher("terminal") == "window"
        sub.execute(sub.action("write_text"), {"text": "mkdir ~/made && touch ~/made/file\n"})
        deadline = time.monotonic() + 60
        while not sub.state().exists("~/made/file"):
            assert time.monotonic() < deadline, "the terminal never ran the command"
            sub.invalidate_state()
            time.sleep(0.2)

    def state_fingerprint(self, sub):
        st = sub.state()
        return (st.list_dir("~"), tuple(sorted(p.name for p in st.processes())), st.active_window())


@pytest.mark.vm_full
def test_typed_text_arrives_intact(desk):
    """Characters outside the guest's US keymap, and shifted ones, arrive exactly (none lost in QEMU)."""
    desk.reset()
    assert desk.launch_from_launcher("text editor") == "window"
    text = "a<b>c|d ~ `x` {y} [z] ü ß é € 中文 “q” \\ done ÄÖÜ 0123456789 !@#$%^&*()_+"
    desk.execute(desk.action("write_text"), {"text": text})
    desk.settle()
    assert desk.state().a11y_texts("mousepad") == [text]


@pytest.mark.vm_full
def test_hotkey_press_and_click(desk):
    desk.reset()
    assert desk.launch_from_launcher("text editor") == "window"
    desk.execute(desk.action("write_text"), {"text": "one two"})
    desk.execute(desk.action("hotkey"), {"keys": ["ctrl", "a"]})
    desk.execute(desk.action("press"), {"key": "backspace"})
    desk.execute(desk.action("write_text"), {"text": "three"})
    desk.settle()
    assert desk.state().a11y_texts("mousepad") == ["three"]
    before = desk.screenshot()
    desk.execute(desk.action("right_click"), {"point": (0.5, 0.5)})  # the editor's context menu
    desk.settle()
    assert (desk.screenshot() != before).any(axis=2).sum() > 500


def test_reset_restores_the_snapshot_and_the_clock(desk):
    desk.reset()
    pristine = desk.screenshot()
    assert pristine.shape == (800, 1280, 3) and pristine.dtype == np.uint8
    desk.write_file("~/Documents/left-behind.txt", "x\n")
    assert desk.launch_from_launcher("terminal") == "window"
    desk.reset()
    st = desk.state()
    assert not st.exists("~/Documents/left-behind.txt")
    assert st.active_window() is None and not st.windows()
    print(f"reset (loadvm + clock resync + probe check): {desk.session.last_reset_seconds:.2f} s")
    desk.session.wait_clock()  # the resync runs beside the reset; it must have succeeded
    desk.write_file("~/Documents/now.txt", "now\n")
    desk.invalidate_state()
    mtime = desk.state().path("~/Documents/now.txt").stat().st_mtime
    assert abs(mtime - time.time()) < 30, "the guest clock was not resynced after the snapshot load"


def test_state_reads_in_the_guest(desk):
    desk.reset()
    desk.write_file("~/Documents/a.txt", "hello\n")
    desk.write_file("~/bin/run.sh", "#!/bin/sh\n")
    st = desk.state()
    assert st.read_text("~/Documents/a.txt") == "hello\n"
    desk.write_file("~/Documents/a.txt", "changed\n")
    assert st.read_text("~/Documents/a.txt") == "hello\n", "a state view must not change within a step"
    desk.invalidate_state()
    st = desk.state()
    assert st.read_text("~/Documents/a.txt") == "changed\n"
    assert st.read_text("~/Documents/missing.txt") is None
    assert st.is_dir("~/Documents") and "a.txt" in st.list_dir("~/Documents")
    assert not st.path("~/bin/run.sh").stat().st_mode & 0o100
    assert {"openbox", "dbus-daemon"} <= {p.name for p in st.processes()}
    assert st.gsetting("org.gnome.desktop.interface", "color-scheme") == "'default'"


def test_a_guest_that_stops_answering_is_recovered(desk):
    """A paused guest (as good as hung) fails the step with DeviceError; the next reset recovers it."""
    desk.reset()
    s = desk.session
    s.dom.suspend()
    s.probe.timeout = 2.0
    try:
        with pytest.raises(DeviceError):
            desk.state().list_dir("~")
    finally:
        s.probe.timeout = 20.0 * s.slowdown
    desk.reset()
    assert "Documents" in desk.state().list_dir("~")


def test_a_dead_qemu_is_restarted_from_the_snapshot(desk):
    desk.reset()
    desk.session.dom.destroy()
    with pytest.raises(DeviceError):
        desk.screenshot()
    desk.reset()
    assert desk.screenshot().shape == (800, 1280, 3)
    assert "Documents" in desk.state().list_dir("~")


def test_the_guest_agent_executes_nothing_sent_from_the_host(desk):
    """guest-exec and the file commands are blocked in the image's qemu-ga; ping and time stay."""
    import json

    import libvirt_qemu

    desk.reset()
    desk.session.wait_clock()  # the agent is connected again after the snapshot load
    dom = desk.session.dom
    info = json.loads(libvirt_qemu.qemuAgentCommand(dom, '{"execute": "guest-info"}', 30, 0))["return"]
    enabled = {c["name"]: c["enabled"] for c in info["supported_commands"]}
    for name in ("guest-exec", "guest-file-open", "guest-file-write", "guest-set-user-password"):
        assert enabled.get(name) is False, name
    assert enabled["guest-ping"] and enabled["guest-set-time"]
    with pytest.raises(Exception, match="disabled|not found|has been disabled"):
        libvirt_qemu.qemuAgentCommand(
            dom, '{"execute": "guest-exec", "arguments": {"path": "/bin/true"}}', 30, 0
        )


def test_the_guest_runs_on_its_vcpus_each_a_host_thread(desk):
    """The domain's vCPUs reach the guest, and under TCG QEMU runs each on a thread of its own (MTTCG)
    rather than one thread for all."""
    from pathlib import Path

    from crab_gym.vm.domain import DomainSpec

    session = desk.session
    cpuinfo = session.read_bytes("/proc/cpuinfo", 1 << 20)
    assert cpuinfo is not None
    n = DomainSpec().vcpus
    assert cpuinfo.decode().count("processor\t:") == n
    pid_file = Path(f"/run/libvirt/qemu/{session.name}.pid")
    if "type='kvm'" in session.dom.XMLDesc(0) or not pid_file.exists():
        return  # KVM, or QEMU on another host: nothing of TCG's threads to see here
    tasks = Path(f"/proc/{pid_file.read_text().strip()}/task")
    names = sorted((t / "comm").read_text().strip() for t in tasks.iterdir())
    assert [c for c in names if c.endswith("/TCG")] == [f"CPU {i}/TCG" for i in range(n)]
