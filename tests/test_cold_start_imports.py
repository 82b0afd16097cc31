"""What a phone's first observation and a desktop's ``gym.make`` leave unimported, so their cold starts do
not pay for it (bench/phone_start.py and bench/desktop_start.py time the starts; tests never do)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Annotated

import pytest

from crab_gym.core.actions import (
    REQUIRED,
    Bounds,
    InvalidAction,
    ParamCheck,
    ParamSpec,
    Point,
    action,
    build_params_model,
)
from crab_gym.envs.android.sim.shell import commands
from crab_gym.spaces import _constraints


def _printed(code: str, env: dict[str, str] | None = None) -> str:
    """The last line ``code`` prints, run in a fresh interpreter (which must succeed)."""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert res.returncode == 0, res.stderr
    return res.stdout.splitlines()[-1]


def _loaded(code: str, modules: tuple[str, ...], env: dict[str, str] | None = None) -> list[str]:
    probe = f"import sys\nprint(sorted(m for m in {modules!r} if m in sys.modules))\n"
    return eval(_printed(code + probe, env))  # noqa: S307 - a list of names we printed


def test_a_phones_first_observation_needs_no_pydantic_web_server_or_tls():
    code = (
        "import gymnasium as gym, crab_gym\n"
        "env = gym.make('Crab-Android-v0', max_steps=5, tasks='rl-phone', obs_size={'android': (96, 208)})\n"
        "env.reset(seed=0)\n"
    )
    heavy = ("pydantic", "ssl", "http.client", "xml.sax.saxutils", "starlette", "crab_gym.web.server")
    assert _loaded(code, heavy) == []
    # what only some apps' screens or an adb server use (the home screen and the task's app need none)
    sim = "crab_gym.envs.android.sim."
    unused = ("zoneinfo", "html.parser", sim + "adbd.server", sim + "net.page", sim + "ui.webview")
    assert _loaded(code, unused) == []
    # the first valid step validates its parameters: pydantic then (a sampled action may be invalid, e.g. an
    # action index past the root device's three, and is refused before any model is built)
    step = "a = env.action_space.sample()\nenv.step((0, 0, a[2]))\n"  # the phone's first action: tap
    assert _loaded(code + step, ("pydantic",)) == ["pydantic"]


def test_a_phones_first_observation_loads_no_pillow_once_its_glyphs_are_stored(tmp_path):
    code = (
        "import gymnasium as gym, crab_gym\n"
        "env = gym.make('Crab-Android-v0', max_steps=5, tasks='rl-phone', obs_size={'android': (96, 208)})\n"
        "env.reset(seed=0)\n"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    pillow = ("PIL.Image", "PIL.ImageFont")
    assert _loaded(code, pillow, env) == list(pillow)  # the first process draws them (and stores them)
    # the next reads them back (ui/glyphstore.py), and nothing else it imports draws or resizes at import
    assert _loaded(code, pillow, env) == []


def test_a_phones_first_observation_builds_one_task_and_imports_no_template_registry():
    code = (
        "import gymnasium as gym, crab_gym\n"
        "env = gym.make('Crab-Android-v0', max_steps=5, tasks='rl-phone', obs_size={'android': (96, 208)})\n"
        "env.reset(seed=0)\n"
        "import sys\n"
        "from crab_gym.tasks.lazy import LazyTasks\n"
        "tasks = env.unwrapped.tasks\n"
        "assert isinstance(tasks, LazyTasks) and len(tasks._built) == 1, tasks\n"  # the drawn task only
    )
    # the set is built without the registry: no platform's templates, no generator (and its web worlds),
    # no task layout; the seed's data classes neither, once the seed cache holds the seed
    lazy = (
        "crab_gym.tasks.templates",
        "crab_gym.tasks.generator",
        "crab_gym.tasks.templates.android.layout",
        "crab_gym.envs.android.sim.storage.baseline",
        "crab_gym.web.content.places",  # the Maps app's, loaded at its first search
    )
    _loaded(code, lazy)  # fills the seed cache if this tree's seeding code has none yet
    assert _loaded(code, lazy) == []
    # the setup's launch (`monkey`) runs without the shell (Phone.monkey): no interpreter, no command module,
    # not the commands' context either (the phone's log, providers and /proc keep their commands apart)
    sim = "crab_gym.envs.android.sim."
    shell = (sim + "shell.interpreter", sim + "shell.context", sim + "shell.tokens")
    assert _loaded(code, (*shell, *commands.MODULES)) == []


def test_every_command_is_found_whichever_the_shell_meets_first():
    code = (
        "from crab_gym.envs.android.sim import Phone\n"
        "p = Phone(width=360, height=800)\n"
        "print(p.shell('monkey -p com.android.settings 1')[2], p.shell('echo hi | wc -c')[:1])\n"
        "print(p.shell('which ls toybox monkey')[0].split())\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    first, second = res.stdout.splitlines()
    assert first == "0 (b'3\\n',)"
    assert eval(second) == [b"/system/bin/ls", b"/system/bin/toybox", b"/system/bin/monkey"]  # noqa: S307


def test_the_known_commands_are_in_their_modules():
    from crab_gym.envs.android.sim.shell.context import REGISTRY

    commands.load_all()
    for name, module in commands.KNOWN.items():
        assert REGISTRY[name].__module__ == module


def test_a_phone_only_tapped_and_looked_at_loads_no_shell():
    code = (
        "from crab_gym.envs.android.sim import Phone\n"
        "p = Phone(width=360, height=800)\n"
        "p.screenshot()\n"
        "p.tap(180, 400)\n"
        "p.screenshot()\n"
    )
    shell = ("crab_gym.envs.android.sim.shell.builtins", "crab_gym.envs.android.sim.shell.interpreter")
    assert _loaded(code, shell) == []
    assert _loaded(code + "p.shell('true')\n", shell) == list(shell)  # the first command line loads it


def test_making_a_desktop_env_imports_no_web_server_or_pydantic():
    code = "import gymnasium as gym, crab_gym\nenv = gym.make('Crab-Desktop-v0', tasks='v0')\n"
    assert _loaded(code, ("starlette", "uvicorn", "cryptography", "crab_gym.web.server", "pydantic")) == []


def _double(x: int) -> int:
    if x > 100:
        raise ValueError("too big")
    return 2 * x


def test_bounds_and_checks_become_pydantic_constraints_also_nested():
    small = Annotated[int, Bounds(ge=1, le=5), ParamCheck(_double)]
    params = (
        ParamSpec("n", small, "a number"),
        ParamSpec("pair", tuple[small, small] | None, "two numbers", None),
        ParamSpec("point", Point, "a point", REQUIRED),
    )
    model = build_params_model("m", params)
    ok = model.model_validate({"n": 2, "pair": [1, 5], "point": [0, 1]})
    assert (ok.n, ok.pair, ok.point) == (4, (2, 10), (0.0, 1.0))  # checks ran, nested ones too
    for bad in (
        {"n": 6, "point": [0, 0]},
        {"n": 1, "pair": [1, 9], "point": [0, 0]},
        {"n": 1, "point": [2, 0]},
    ):
        with pytest.raises(Exception, match="less than or equal"):
            model.model_validate(bad)
    schema = model.model_json_schema()["properties"]["n"]
    assert (schema["minimum"], schema["maximum"]) == (1, 5)
    assert _constraints(small) == (int, {"ge": 1, "le": 5})  # what the action space reads


def test_a_failing_check_is_an_invalid_action():
    @action
    def act(target: object, text: Annotated[str, Bounds(min_length=1), ParamCheck(str.upper)]) -> str:
        """Act.

        Args:
            text: Some text.
        """
        return text

    assert act(None, text="ab") == "AB"
    with pytest.raises(InvalidAction, match="parameter 'text'"):
        act(None, text="")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_phones_first_observation_imports_no_app_it_does_not_show(seed):
    from crab_gym.envs.android.sim.system.manifest import MANIFESTS

    code = (
        "import gc, json, sys\n"
        "import gymnasium as gym, crab_gym\n"
        "env = gym.make('Crab-Android-v0', max_steps=5, tasks='rl-phone', obs_size={'android': (96, 208)})\n"
        f"env.reset(seed={seed})\n"
        "from crab_gym.envs.android.sim.phone import Phone\n"
        "(phone,) = [o for o in gc.get_objects() if isinstance(o, Phone)]\n"
        "apps = [m for m in sys.modules if m.startswith('crab_gym.envs.android.sim.apps.')]\n"
        "print(json.dumps([phone.current.package, apps]))\n"
    )
    shown, loaded = json.loads(_printed(code))
    prefix = "crab_gym.envs.android.sim.apps."
    by_app = {m.package: {prefix + n for n in m.modules} for m in MANIFESTS}
    assert shown in by_app
    # the shown app's code, and none of the other apps' (the status bar, input and overview are the system's)
    assert {m for ms in by_app.values() for m in ms} & set(loaded) == by_app[shown]


def test_making_a_desktop_env_imports_no_simulated_phone():
    # the task library names the phone's checks and templates, but a desktop builds no phone task's
    # solution and makes no phone: the simulator (its apps, views and shell) stays unimported
    code = "import gymnasium as gym, crab_gym\nenv = gym.make('Crab-Desktop-v0', tasks='v0')\n"
    sim = "crab_gym.envs.android.sim"
    probe = f"print(sorted(m for m in sys.modules if m == {sim!r} or m.startswith({sim + '.'!r})))\n"
    assert eval(_printed(code + "import sys\n" + probe)) == []  # noqa: S307 - a list of names we printed
    # and the phone's package still gives its sub-env when asked
    asked = "from crab_gym.envs.android import AndroidEnv\n"
    assert _loaded(asked, (sim, "crab_gym.envs.android.subenv")) == [sim, "crab_gym.envs.android.subenv"]


def test_a_phones_first_observation_imports_no_metrics_nor_env_state():
    code = (
        "import gymnasium as gym, crab_gym\n"
        "env = gym.make('Crab-Android-v0', max_steps=5, tasks='rl-phone', obs_size={'android': (96, 208)})\n"
        "env.reset(seed=0)\n"
    )
    # episode metrics are the runner's, not the env's; the env's saved states are read and written by
    # env_state, imported at the first save or load
    unused = ("crab_gym.core.metrics", "crab_gym.core.passk", "crab_gym.env_state")
    assert _loaded(code, unused) == []
    # the core's names are still there when asked for
    asked = "from crab_gym.core import Metrics, GraphEvaluator, action\n"
    assert _loaded(asked, ("crab_gym.core.metrics",)) == ["crab_gym.core.metrics"]


def test_making_a_desktop_env_builds_none_of_v0s_json_tasks_nor_imports_the_generator():
    code = (
        "import gymnasium as gym, crab_gym\n"
        "env = gym.make('Crab-Desktop-v0', tasks='v0')\n"
        "from crab_gym.tasks.lazy import LazyTasks\n"
        "tasks = env.unwrapped.tasks\n"
        "assert isinstance(tasks, LazyTasks) and all(k[0] == 'handmade' for k in tasks._built)\n"
    )
    # the generator (and the web worlds its samplers load) is for the generated and interactive sets
    assert _loaded(code, ("crab_gym.tasks.generator", "crab_gym.tasks.interactive")) == []
