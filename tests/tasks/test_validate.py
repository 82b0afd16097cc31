"""Task validity. The lint runs over every v0 task and a generated sample of 200; the run check (scripted
solution through Crab-v0, nothing satisfied at reset) over a sample of composed tasks mixing both devices.
``crab-gym tasks validate --all`` runs the run check on everything."""

from __future__ import annotations

import subprocess
import sys

import pytest

from crab_gym.core.tasks import Task, get_template
from crab_gym.runs.validate import run_check
from crab_gym.tasks import generate_tasks, load_tasks
from crab_gym.tasks.validate import lint_task, lint_tasks, validation_sample


def test_lint_passes_on_v0_and_a_generated_sample() -> None:
    tasks = load_tasks("v0") + validation_sample(200, seed=0)
    bad = {r.task_id: r.problems for r in lint_tasks(tasks) if not r.ok}
    assert not bad


def test_lint_catches_bad_tasks() -> None:
    sms = get_template("sms_send")
    ok = sms.instantiate(number="555-100-2000", message="Hello there")
    assert lint_task(Task("ok", ok.instruction, [ok])) == []
    # the instruction does not mention what the check looks at
    problems = lint_task(Task("vague", "Send a text message.", [ok]))
    assert any("does not mention" in p for p in problems)
    # an unfilled placeholder
    assert any("placeholder" in p for p in lint_task(Task("ph", "Send {message} to 555-100-2000", [ok])))
    # an attribute of the wrong type
    alarm = get_template("clock_set_alarm").instantiate(hour="nine", minute=5)
    assert any("gives int" in p for p in lint_task(Task("typ", "Set an alarm for nine:05.", [alarm])))
    # duplicate ids
    results = lint_tasks([Task("d", ok.instruction, [ok]), Task("d", ok.instruction, [ok])])
    assert all("duplicate task id" in r.problems for r in results)


def _mixed_composed_sample(n: int = 10) -> list[Task]:
    out = []
    for t in generate_tasks(seed=2026, n=400):
        if len(t.subtasks) > 1 and {"ubuntu", "android"} <= set(t.platforms):
            out.append(t)
        if len(out) == n:
            break
    return out


@pytest.mark.slow
def test_run_check_on_composed_cross_device_sample() -> None:
    import shutil

    if not all(shutil.which(p) for p in ("Xvfb", "openbox", "rofi", "xfce4-terminal", "mousepad", "soffice")):
        pytest.skip("the desktop session needs Xvfb, openbox, rofi and the apps (see README set-up)")
    tasks = _mixed_composed_sample(10)
    assert len(tasks) == 10 and len({tuple(s.template.id for s in t.subtasks) for t in tasks}) >= 6
    results = run_check(tasks, backends={"android": "sim"})
    bad = {r.task_id: r.problems for r in results if not r.ok}
    assert not bad


@pytest.mark.slow  # ~25 s
def test_run_check_on_android_sample() -> None:
    tasks = [t for t in generate_tasks(seed=3, n=80, platforms=["android"])]
    results = run_check(tasks, backends={"android": "sim"})
    assert {r.task_id: r.problems for r in results if not r.ok} == {}


def test_cli_validate_lint_only() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "crab_gym.cli",
            "tasks",
            "validate",
            "--sample",
            "30",
            "--seed",
            "1",
            "--lint-only",
        ],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "lint: 30/30 tasks well formed" in out.stdout
