"""Desktop sub-task templates: static lint, and on a real session: unsolved after setup, solved by the script.

The live tests share one module-scoped DesktopEnv. Between solution steps the harness waits for the screen to
settle; ``STEP_QUIET`` / ``LAUNCH_QUIET`` are the waits the scripted solutions need (the env should adopt them
for its scripted agent), and the final check polls for up to ``FINAL_TIMEOUT`` seconds, as an agent's later
steps would, because saving a document is asynchronous.
"""

from __future__ import annotations

import os
import shutil
import time

import pytest
from template_checks import assert_single_device_task

from crab_gym.core.tasks import Task, get_template
from crab_gym.envs.base import DeviceError
from crab_gym.tasks.templates.desktop import DESKTOP_TEMPLATES
from crab_gym.tasks.templates.desktop.browser import BROWSER_TEMPLATES

# Fixed attributes per template (with characters that need care: spaces, quotes, non-ASCII, '<').
ATTRS: dict[str, dict] = {
    "terminal_create_folder": {"folder": "~/Documents/reports/2024 Q3"},
    "terminal_count_lines": {
        "source": "~/Documents/guests.txt",
        "count": 7,
        "target": "~/Documents/count.txt",
    },
    "files_rename": {"folder": "~/Documents", "old_name": "draft.txt", "new_name": "final version.txt"},
    "files_move": {"folder": "~/Documents", "filename": "budget.csv", "subfolder": "archive"},
    "text_editor_write_file": {
        "path": "~/Documents/todo.txt",
        "first_line": "Call the plumber <today>",
        "second_line": "Pay the café bill",
    },
    "text_editor_append_line": {"path": "~/Documents/shopping.txt", "line": "apples & pears"},
    "text_editor_copy_text": {"path": "~/Desktop/quote.txt", "text": "Stay hungry, stay foolish."},
    "vim_write_file": {"path": "~/Documents/motd.txt", "text": "Welcome to the lab, it's open 9-5."},
    "writer_create_document": {
        "path": "~/Documents/report.odt",
        "title": "Quarterly Report",
        "body": "Sales grew by 12 percent in the third quarter.",
    },
    "calc_sum_column": {
        "path": "~/Documents/expenses.ods",
        "header": "Expenses",
        "a": 120,
        "b": 45,
        "c": 310,
    },
    "impress_create_slides": {
        "path": "~/Documents/pitch.odp",
        "first_title": "Project Falcon",
        "second_title": "Next Steps",
    },
    "settings_color_scheme": {"color_scheme": "dark"},
    "settings_text_scaling": {"factor": 1.25},
    "settings_font": {"font": "DejaVu Sans", "size": 12},
    "terminal_copy_file": {"source": "~/Documents/it's notes.txt", "folder": "~/Backup/2024 copies"},
    "terminal_archive": {"source": "~/Documents/data set.csv", "archive": "~/Desktop/data.tar.gz"},
    "terminal_make_executable": {"path": "~/Documents/run me.sh"},
    "terminal_sort_lines": {"source": "~/Documents/fruit.txt", "target": "~/Documents/fruit sorted.txt"},
    "terminal_grep_lines": {
        "source": "~/Documents/log.txt",
        "word": "Harbor",
        "target": "~/Desktop/hits.txt",
    },
    "terminal_replace_word": {"path": "~/Documents/memo.txt", "old": "Garden", "new": "Museum"},
    "settings_cursor_size": {"size": 48},
    "settings_animations_off": {},
    "settings_clock_format": {},
    "terminal_delete_file": {"path": "~/Downloads/old report.txt"},
    "chromium_capital_to_file": {"country": "Colombia", "path": "~/Documents/capital city.txt"},
    "chromium_currency_to_file": {"country": "United Kingdom", "path": "~/Desktop/currency.txt"},
}

IDS = [t.id for t in DESKTOP_TEMPLATES + BROWSER_TEMPLATES]
# Seconds without screen change after each step (dialogs open ~0.1-0.2 s after their key), and after
# search_application (LibreOffice drops keys typed during its first second); overridable to probe the margins.
STEP_QUIET = float(os.environ.get("CRAB_TEST_STEP_QUIET", "0.25"))
LAUNCH_QUIET = float(os.environ.get("CRAB_TEST_LAUNCH_QUIET", "1.0"))
FINAL_TIMEOUT = 10.0
TIMES: dict[str, float] = {}


def make_task(template_id: str) -> Task:
    sub = get_template(template_id).instantiate(**ATTRS[template_id])
    return Task(f"test-{template_id}", sub.instruction, [sub])


# ---- static checks (no desktop needed) ----------------------------------------------------------


def test_every_desktop_template_has_test_attributes() -> None:
    assert set(IDS) == set(ATTRS)
    assert len(IDS) >= 10


@pytest.mark.parametrize("template_id", IDS)
def test_template_is_well_formed(template_id: str) -> None:
    from crab_gym.envs.desktop.actions import ACTIONS

    template = get_template(template_id)
    assert template.platforms == ("ubuntu",)
    assert all(isinstance(v, str) and v for v in template.attributes.values())
    assert_single_device_task(make_task(template_id), "ubuntu", {a.name: a for a in ACTIONS})


# ---- live tests on a real desktop ---------------------------------------------------------------


@pytest.fixture(scope="module")
def desktop():
    from crab_gym.envs.desktop import DesktopEnv

    missing = [
        p
        for p in ("Xvfb", "openbox", "rofi", "xfce4-terminal", "mousepad", "thunar", "soffice")
        if not shutil.which(p)
    ]
    if missing:
        pytest.skip(f"the desktop session needs {missing} (see README set-up)")
    env = DesktopEnv()
    try:
        env.reset()
    except DeviceError:  # another run grabbed the same display number at the same moment: try once more
        env.close()
        env = DesktopEnv()
        env.reset()
    yield env
    env.close()
    if TIMES:
        print("\nscripted solution, reset to success (s):")
        for tid, t in TIMES.items():
            print(f"  {tid:28s} {t:6.2f}")


def _prepare(env, task: Task):
    env.reset()
    task.setup({"ubuntu": env})
    env.settle(quiet=STEP_QUIET, timeout=5)
    env.invalidate_state()
    graph = task.evaluator()
    graph.update({"ubuntu": env.state()})
    return graph


@pytest.mark.slow
@pytest.mark.parametrize("template_id", IDS)
def test_scripted_solution_solves_template(desktop, template_id: str, tmp_path) -> None:
    env = desktop
    task = make_task(template_id)
    t0 = time.monotonic()
    graph = _prepare(env, task)
    assert graph.completion_ratio == 0.0, graph.node_states()
    for step in task.solution():
        result = env.execute(env.action(step.action), dict(step.params))
        if step.action == "search_application":
            assert result.info.get("opened_window"), f"{step.params['name']!r} opened no window"
        env.settle(quiet=LAUNCH_QUIET if step.action == "search_application" else STEP_QUIET, timeout=5)
        env.invalidate_state()
        graph.update({"ubuntu": env.state()})
    deadline = time.monotonic() + FINAL_TIMEOUT
    while not graph.success and time.monotonic() < deadline:
        time.sleep(0.1)
        env.invalidate_state()
        graph.update({"ubuntu": env.state()})
    TIMES[template_id] = time.monotonic() - t0
    if not graph.success:
        from PIL import Image

        shot = tmp_path / f"{template_id}.png"
        Image.fromarray(env.screenshot()).save(shot)
        pytest.fail(f"not solved (screen: {shot}): {graph.node_states()}")
    assert graph.completion_ratio == 1.0


@pytest.mark.slow
@pytest.mark.parametrize("template_id", IDS)
def test_do_nothing_does_not_pass(desktop, template_id: str) -> None:
    env = desktop
    task = make_task(template_id)
    graph = _prepare(env, task)
    for _ in range(3):
        time.sleep(0.1)
        env.invalidate_state()
        graph.update({"ubuntu": env.state()})
    assert graph.completion_ratio == 0.0, graph.node_states()
    assert not graph.success
