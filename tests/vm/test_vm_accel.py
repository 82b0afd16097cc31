"""Choosing the accelerator: a kernel that boots is told from one that does not, whatever /dev/kvm claims."""

from __future__ import annotations

import os
import stat

import pytest

from crab_gym.vm.kvm import DEV_KVM, kernel_boots

pytestmark = [pytest.mark.vm, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def kernel(vm_domain: str) -> str:
    from crab_gym.vm.image import build_image
    from crab_gym.vm.recipe import Recipe

    return str(build_image(Recipe(), report=lambda _line: None).kernel)


def test_the_guest_kernel_boots_under_tcg(kernel: str) -> None:
    assert kernel_boots(kernel, "tcg", timeout=120)


def test_no_kernel_is_no_boot(tmp_path) -> None:
    bogus = tmp_path / "vmlinuz"
    bogus.write_bytes(b"not a kernel")
    assert not kernel_boots(bogus, "tcg", timeout=30)  # QEMU exits: False at once, not after the bound


def test_daemons_leave_dev_kvm_open_to_the_kvm_group(vm_domain: str) -> None:
    """open_connection (here through vm_domain) leaves /dev/kvm usable by libvirt-qemu, so libvirtd's QEMU
    capabilities stay valid (root-only, libvirtd re-probes QEMU forever and defineXML never returns)."""
    if not os.path.exists(DEV_KVM) or os.geteuid() != 0:
        pytest.skip("no /dev/kvm, or not root")
    from crab_gym.vm.kvm import open_to_kvm_group

    assert stat.S_IMODE(os.stat(DEV_KVM).st_mode) & 0o060 == 0o060
    assert open_to_kvm_group() is False  # nothing left to change
