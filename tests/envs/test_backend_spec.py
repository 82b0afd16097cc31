"""One parser reads every backend string; its errors name the string and what would be valid."""

from __future__ import annotations

import pytest

from crab_gym.envs.backend_spec import BackendSpec, parse_backend


@pytest.mark.parametrize(
    ("device", "text", "want"),
    [
        ("ubuntu", "xvfb", BackendSpec("ubuntu", "xvfb", "xvfb")),
        ("ubuntu", None, BackendSpec("ubuntu", "xvfb", "xvfb")),
        ("ubuntu", "libvirt", BackendSpec("ubuntu", "libvirt", "libvirt")),
        ("ubuntu", "libvirt:desk", BackendSpec("ubuntu", "libvirt", "libvirt:desk", domain="desk")),
        (
            "ubuntu",
            "libvirt:desk@qemu+ssh://h/system",
            BackendSpec(
                "ubuntu", "libvirt", "libvirt:desk@qemu+ssh://h/system", "desk", "qemu+ssh://h/system"
            ),
        ),
        (
            "ubuntu",
            "libvirt@qemu:///session",
            BackendSpec("ubuntu", "libvirt", "libvirt@qemu:///session", None, "qemu:///session"),
        ),
        ("android", "", BackendSpec("android", "sim", "sim")),
        ("android", "adb-sim", BackendSpec("android", "adb-sim", "adb-sim")),
        ("android", "androidenv", BackendSpec("android", "androidenv", "androidenv")),
        (
            "android",
            "adb:127.0.0.1:5555",
            BackendSpec("android", "adb", "adb:127.0.0.1:5555", serial="127.0.0.1:5555"),
        ),
    ],
)
def test_valid_strings(device, text, want):
    assert parse_backend(device, text) == want


@pytest.mark.parametrize(
    ("device", "text", "valid"),
    [
        ("ubuntu", "vnc", "libvirt[:<domain>][@<uri>]"),
        ("ubuntu", "libvirt:", "xvfb"),
        ("ubuntu", "libvirt:desk@", "libvirt[:<domain>][@<uri>]"),
        ("ubuntu", "sim", "xvfb"),
        ("android", "adb:", "adb:<serial>"),
        ("android", "bluetooth:phone", "adb-sim"),
        ("android", "xvfb", "androidenv"),
    ],
)
def test_invalid_strings_name_the_string_and_the_valid_forms(device, text, valid):
    with pytest.raises(ValueError, match="valid") as e:
        parse_backend(device, text)
    assert repr(text) in str(e.value) and valid in str(e.value)


def test_an_unknown_device_is_refused():
    with pytest.raises(ValueError, match="'phone'.*ubuntu, android"):
        parse_backend("phone", "sim")


def test_make_subenv_builds_from_the_spec_without_starting_anything():
    """A libvirt desktop is made (not started) without libvirt or a domain; its description is the VM's."""
    from crab_gym.env import make_subenv
    from crab_gym.envs.desktop import DesktopEnv

    desk = make_subenv("ubuntu", "libvirt:desk@qemu:///session")
    assert isinstance(desk, DesktopEnv)
    assert desk.spec.domain == "desk" and desk.spec.uri == "qemu:///session"
    assert desk.backend == "libvirt:desk@qemu:///session"
    assert "panel" not in desk.description and "panel" in make_subenv("ubuntu", None).description
    with pytest.raises(ValueError, match="unknown ubuntu backend 'adb:x'"):
        make_subenv("ubuntu", "adb:x")
