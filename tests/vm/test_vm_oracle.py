"""v0's desktop tasks on the libvirt VM, solved by the scripted agent with the xvfb backend's evaluators.

Under software emulation (TCG) a desktop task takes 15-30 s, so the CI slice takes two (the terminal and a
settings check); the ``[all]`` variant (marked ``vm_full``) runs every v0 task that uses the desktop
(desktop-only and cross-device, the phone simulated), or those matching ``CRAB_VM_TASKS`` (comma-separated
shell patterns of task ids, a filter of that variant):

    .venv/bin/pytest -m vm_full tests/vm/test_vm_oracle.py
    CRAB_VM_TASKS='terminal_*,vim_*' .venv/bin/pytest -m vm_full tests/vm/test_vm_oracle.py
"""

from __future__ import annotations

import fnmatch
import os
import time

import pytest

from crab_gym.runs.validate import run_check
from crab_gym.tasks import load_tasks

pytestmark = [pytest.mark.vm, pytest.mark.timeout(0)]

SLICE = ("terminal_create_folder-0", "settings_color_scheme-0")


def _tasks(every: bool):
    tasks = [t for t in load_tasks("v0") if "ubuntu" in t.platforms]
    if not every:
        return [t for t in tasks if t.id in SLICE]
    patterns = [p.strip() for p in os.environ.get("CRAB_VM_TASKS", "*").split(",") if p.strip()]
    return [t for t in tasks if any(fnmatch.fnmatchcase(t.id, p) for p in patterns)]


@pytest.mark.parametrize(
    "every", [pytest.param(False, id="slice"), pytest.param(True, id="all", marks=pytest.mark.vm_full)]
)
def test_v0_desktop_tasks_solved_on_libvirt(vm_domain, every):
    tasks = _tasks(every)
    assert tasks
    started = time.monotonic()
    results = run_check(
        tasks,
        backends={"ubuntu": "libvirt", "android": "sim"},
        on_result=lambda r: print(f"{r.task_id}: {r.problems or 'ok'} ({r.seconds:.0f} s)", flush=True),
    )
    failed = {r.task_id: r.problems for r in results if not r.ok}
    print(f"{len(results) - len(failed)}/{len(results)} solved in {time.monotonic() - started:.0f} s")
    assert not failed, failed
