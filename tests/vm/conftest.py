"""The VM tier: a libvirt domain of the current guest image, with its pristine snapshot.

Tests marked ``vm`` use the domain ``crab-gym vm create`` made. ``CRAB_VM_BUILD=1`` builds the image of this
checkout's recipe and creates the domain first when it is missing or of an earlier recipe (minutes: ~6 min
of Debian packages, ~1 min for the image, a boot of 1-3 min under TCG). Without it, a missing domain skips
the tier and one of an earlier recipe is used with a warning.
"""

from __future__ import annotations

import os
import shutil
import warnings

import pytest


def _missing() -> str:
    try:
        import libvirt  # noqa: F401
    except ImportError:
        return "libvirt-python is not installed (the vm extra)"
    if shutil.which("qemu-system-x86_64") is None:
        return "no qemu-system-x86_64 (Debian package qemu-system-x86)"
    if os.geteuid() != 0 and not os.environ.get("CRAB_GYM_LIBVIRT_URI"):
        return "not root: set CRAB_GYM_LIBVIRT_URI (e.g. qemu:///session) for a libvirt of your own"
    return ""


@pytest.fixture(scope="session")
def vm_domain() -> str:
    """The template domain's name, created from the current image if CRAB_VM_BUILD=1 and it is missing."""
    reason = _missing()
    if reason:
        pytest.skip(reason)
    from crab_gym.vm.connection import DEFAULT_URI, VMError, open_connection
    from crab_gym.vm.domain import DEFAULT_DOMAIN, metadata
    from crab_gym.vm.recipe import Recipe

    try:
        conn = open_connection(DEFAULT_URI)
    except VMError as e:
        pytest.skip(str(e))
    try:
        want = Recipe().image_hash()
        try:
            have = metadata(conn.lookupByName(DEFAULT_DOMAIN)).get("image", "")
        except Exception:  # noqa: BLE001 - libvirtError: no such domain
            have = ""
    finally:
        conn.close()
    if have != want and os.environ.get("CRAB_VM_BUILD") == "1":
        from crab_gym.vm.create import create

        create(report=lambda line: None)
    elif not have:
        pytest.skip(f"no {DEFAULT_DOMAIN} domain: crab-gym vm create (or CRAB_VM_BUILD=1)")
    elif have != want:
        warnings.warn(
            f"{DEFAULT_DOMAIN} runs image {have}, an earlier recipe than {want}: `crab-gym vm create` (or "
            "CRAB_VM_BUILD=1) brings the guest's files up to date",
            stacklevel=1,
        )
    return DEFAULT_DOMAIN
