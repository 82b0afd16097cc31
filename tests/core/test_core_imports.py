"""The core stands alone: it never imports the task library, which registers its own templates. A phone-only
process loads no desktop code: the laziness the phone's cold start relies on (bench/phone_start.py measures
the start itself; tests never time it)."""

from __future__ import annotations

import ast
import pickle
import subprocess
import sys
from pathlib import Path

from crab_gym.core.actions import ActionSpec
from crab_gym.envs.android.actions import ACTIONS

CORE = Path(__file__).resolve().parents[2] / "crab_gym" / "core"
UPWARD = ("crab_gym.tasks", "crab_gym.envs", "crab_gym.env", "crab_gym.wrappers", "crab_gym.baselines")
# Modules a phone never needs: the desktop sub-env, its X and screenshot libraries, networkx (task graphs
# given as networkx graphs), rich (printed tables) and the vector envs (crab_gym.make_vec).
HEAVY = ("crab_gym.envs.desktop", "Xlib", "mss", "networkx", "rich", "crab_gym.vector")
PHONE_STEP = (  # a phone env made, reset and stepped once: what a phone-only process does
    "import sys, gymnasium as gym, crab_gym\n"
    "env = gym.make('Crab-Android-v0', max_steps=5, tasks='rl-phone', obs_size={'android': (96, 208)})\n"
    "env.reset(seed=0)\n"
    "env.step(env.action_space.sample())\n"
)


def _imported_modules(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):  # lazy imports in functions too
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def test_no_core_module_imports_upward():
    bad = {
        f"{path.name}: {name}"
        for path in sorted(CORE.glob("*.py"))
        for name in _imported_modules(path)
        if any(name == up or name.startswith(up + ".") for up in UPWARD)
    }
    assert not bad, f"crab_gym/core must not import the layers above it: {sorted(bad)}"


def _python(code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter (what it imports is its own)."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_the_task_library_registers_its_templates_when_imported():
    res = _python(
        "import sys\n"
        "from crab_gym.core import tasks as core\n"
        "assert not core.TEMPLATES and 'crab_gym.tasks' not in sys.modules\n"
        "try:\n"
        "    core.get_template('contacts_add')\n"
        "except KeyError as e:\n"
        "    assert 'crab_gym.tasks is imported' in str(e), e\n"
        "import crab_gym.tasks\n"
        "assert core.get_template('contacts_add').id == 'contacts_add'\n"
        "assert crab_gym.tasks.get_template is core.get_template\n"
        "print(len(core.TEMPLATES))\n"
    )
    assert res.returncode == 0, res.stderr
    assert int(res.stdout) > 40


def test_gym_make_finds_the_v0_templates():
    res = _python(
        "import gymnasium as gym, crab_gym\n"
        "env = gym.make('Crab-Android-v0', tasks='v0')\n"
        "print(len(env.unwrapped.task_ids()))\n"
        "env.close()\n"
    )
    assert res.returncode == 0, res.stderr
    assert int(res.stdout) > 50


def test_a_phone_env_starts_without_networkx():
    """Cold start (docs/scale.md): the rl-phone tasks' graphs are chains, built without networkx."""
    res = _python(PHONE_STEP + "print('networkx' in sys.modules)\n")
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "False"


def test_a_phone_env_makes_resets_and_steps_without_desktop_modules():
    heavy = f"sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r} or m.startswith({HEAVY!r}))"
    res = _python(PHONE_STEP + f"print({heavy})\n")
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]", f"a phone-only process imported {res.stdout.strip()}"


def test_desktop_templates_import_the_desktop_evaluators_when_a_task_is_built():
    res = _python(
        "import sys, crab_gym.tasks\n"
        "assert 'crab_gym.envs.desktop' not in sys.modules\n"
        "tasks = crab_gym.tasks.generate_tasks(seed=0, n=3, platforms=['ubuntu'])\n"
        "assert 'crab_gym.envs.desktop' not in sys.modules\n"
        "evaluators = [t.evaluator() for t in tasks]\n"
        "print(len(evaluators), 'crab_gym.envs.desktop.evaluators' in sys.modules)\n"
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["3", "True"]


def test_a_desktop_check_reads_back_from_json_before_any_desktop_task_is_built():
    res = _python(
        "import sys, crab_gym.tasks\n"
        "from crab_gym.core.evaluators import check_from_json\n"
        "assert 'crab_gym.envs.desktop' not in sys.modules\n"
        "check = check_from_json({'evaluator': 'ubuntu.file_exists', 'kwargs': {'path': '~/a'}})\n"
        "print(check.to_json()['evaluator'])\n"
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "ubuntu.file_exists"


def test_an_action_builds_its_pydantic_model_when_first_used():
    spec = next(s for s in ACTIONS if s.params)
    fresh = ActionSpec(spec.name, spec.description, spec.fn, spec.params)
    assert fresh.model is None
    assert fresh.parameters_schema() == spec.parameters_schema()
    assert fresh.model is not None and fresh.params_model() is fresh.model
    assert pickle.loads(pickle.dumps(spec)) is spec


def test_a_lazy_module_imports_at_first_use_and_copies_without_recursion():
    res = _python(
        "import copy, sys\n"
        "from crab_gym.core.lazy import lazy_module\n"
        "m = lazy_module('xml.dom.minidom')\n"
        "before = 'xml.dom.minidom' in sys.modules\n"
        "copy.copy(m)\n"
        "print(before, m.parseString('<a/>').documentElement.tagName, 'xml.dom.minidom' in sys.modules)\n"
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["False", "a", "True"]
