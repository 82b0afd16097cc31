"""The VM tier: a libvirt domain of the current guest image, with its pristine snapshot.

Tests marked ``vm`` use the domain ``crab-gym vm create`` made; when it is missing, of an earlier recipe or
of another vCPU count, the tier builds the image of this checkout's recipe and creates the domain first
(~2.5 min of Debian packages and image, a boot of ~3-4 min under TCG). What runs is chosen by markers:

- ``-m "not full"`` (``scripts/test.sh``, CI): build and create as needed, then the CI slice: the
  conformance kit, resets, recovery, the guest agent's refusals, and two v0 tasks by the oracle;
- ``-m vm_full``: the rest (input, vector envs, remote-style streams, every v0 task that uses the desktop);
- ``-m "not vm"``: skip the tier (the default ``pytest`` run leaves it out, as every ``slow`` test).
"""

from __future__ import annotations

import os
import shutil

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
    """The template domain's name, created first from the current image if it is missing or older."""
    reason = _missing()
    if reason:
        pytest.skip(reason)
    from crab_gym.vm.connection import DEFAULT_URI, VMError, open_connection
    from crab_gym.vm.domain import DEFAULT_DOMAIN, DomainSpec, metadata
    from crab_gym.vm.recipe import Recipe

    try:
        conn = open_connection(DEFAULT_URI)
    except VMError as e:
        pytest.fail(f"QEMU and libvirt are installed but libvirt does not answer: {e}")
    try:
        want = Recipe().image_hash()
        try:
            dom = conn.lookupByName(DEFAULT_DOMAIN)
            have = metadata(dom).get("image", "") if dom.info()[3] == DomainSpec().vcpus else "other vCPUs"
        except Exception:  # noqa: BLE001 - libvirtError: no such domain
            have = ""
    finally:
        conn.close()
    if have != want:
        from crab_gym.vm.create import create

        create(report=lambda line: print(f"vm: {line}", flush=True))
    return DEFAULT_DOMAIN
