"""The wheel works without the checkout: built from the git-tracked files, installed (not editable) into a
fresh venv, it holds every file of crab_gym/ and finds its data files from there.

The fresh venv gets the wheel alone (``--no-deps``): its dependencies come from this interpreter's path,
appended *after* the venv's own site-packages by a ``.pth`` file, so nothing is downloaded. Entries that
hold a ``crab_gym`` (the checkout, an editable install's path) are left out and PYTHONPATH is cleared, so
the installed ``crab_gym`` is the one imported; an editable install's finder runs only from a processed
site dir, which a path line is not.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.timeout(600)  # ~20 s: a build, a venv, an install

# Run inside the fresh venv: every data file the code reads, found through the installed package.
CHECK = """
import pathlib, sys
import crab_gym
installed = pathlib.Path(crab_gym.__file__).resolve().parent
assert installed.is_relative_to(pathlib.Path(sys.prefix).resolve()), (installed, sys.prefix)
from crab_gym.tasks import load_tasks
assert len(load_tasks("v0")) > 100
from crab_gym.envs.desktop.backends import a11y_bus, panel
from crab_gym.envs.desktop.backends import xvfb
from crab_gym.play import server
from crab_gym.vm import recipe
paths = [a11y_bus.BUS_CONFIG, panel.PANEL_SOURCE, xvfb.TEMPLATE_HOME / ".bashrc", xvfb.AGENT_SOURCE,
         server.STATIC / "index.html", recipe.SESSION_AGENT, recipe.TEMPLATE_HOME]
paths += [source for source, _ in recipe.GUEST_FILES.values()]
recipe.Recipe().image_hash()  # reads every file the guest image is built from
missing = [str(p) for p in paths if not p.exists() or not p.resolve().is_relative_to(installed)]
assert not missing, missing
from crab_gym.episode.view import _template as view
from crab_gym.report.page import _template as report
view(), report()
print(installed)
"""


def _tracked() -> list[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the tracked files are unknown")
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    return [f for f in out.stdout.decode().split("\0") if f and (ROOT / f).exists()]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel of the tracked files (a copy, so the checkout gets no build/ or egg-info)."""
    src = tmp_path_factory.mktemp("src")
    for name in _tracked():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, src / name)
    out = tmp_path_factory.mktemp("wheel")
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out)]
    res = subprocess.run([*pip, str(src)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-3000:]
    (found,) = out.glob("crab_gym-*.whl")
    return found


def test_the_wheel_holds_every_file_of_the_package(wheel):
    inside = set(zipfile.ZipFile(wheel).namelist())
    missing = [f for f in _tracked() if f.startswith("crab_gym/") and f not in inside]
    assert not missing, f"tracked files of crab_gym/ not in the wheel (add them to package-data): {missing}"


def test_the_installed_wheel_finds_its_data_files(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index"]
    # Without PYTHONPATH: a checkout on it (its crab_gym.egg-info) would make pip skip the wheel as installed.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    res = subprocess.run([*install, "-q", str(wheel)], env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-3000:]
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    deps = [p for p in sys.path if p and Path(p).is_dir() and not Path(p, "crab_gym").exists()]
    Path(site, "zz_test_deps.pth").write_text("".join(f"{d}\n" for d in deps))
    res = subprocess.run(
        [str(python), "-c", CHECK], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-3000:]
    assert Path(res.stdout.strip()).is_relative_to(venv.resolve())
