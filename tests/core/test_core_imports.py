"""The core stands alone: it never imports the task library, which registers its own templates."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "crab_gym" / "core"
UPWARD = ("crab_gym.tasks", "crab_gym.envs", "crab_gym.env", "crab_gym.wrappers", "crab_gym.baselines")


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


def _python(code: str) -> subprocess.CompletedProcess:
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
    res = _python(
        "import sys, gymnasium as gym, crab_gym\n"
        "env = gym.make('Crab-Android-v0', tasks='rl-phone', obs_size={'android': (96, 208)})\n"
        "env.reset(seed=0)\n"
        "env.step(env.action_space.sample())\n"
        "print('networkx' in sys.modules)\n"
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "False"
