"""mypy passes on the whole package, as pyproject's [tool.mypy] configures it: the VM guest is its only
exception, and every `type: ignore` left names its error code and says why."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXCEPTIONS = {"crab_gym/vm/guest"}  # with its reason in pyproject.toml
# `# type: ignore[code]  # why`, one or more codes; a bare ignore or one without a reason fails
IGNORE = re.compile(r"#\s*type:\s*ignore")
EXPLAINED = re.compile(r"# type: ignore\[[a-z-]+(, ?[a-z-]+)*\]  # \S")


def test_mypy_passes_on_the_whole_package():
    # No paths given: mypy checks the `files` of [tool.mypy] (the whole crab_gym package).
    res = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout[-5000:] + res.stderr[-2000:]


def test_the_only_exception_is_the_vm_guest():
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["files"] == ["crab_gym"] and not config.get("exclude")
    assert config["warn_unused_ignores"] is True
    assert not config.get("ignore_missing_imports"), "name the libraries without types in an override"
    skipped = set()
    for override in config.get("overrides", []):
        modules = override["module"] if isinstance(override["module"], list) else [override["module"]]
        if override.get("ignore_errors") or override.get("follow_imports") == "skip":
            skipped |= {m.removesuffix(".*").replace(".", "/") for m in modules}
    assert skipped == EXCEPTIONS


def test_every_type_ignore_names_its_code_and_a_reason():
    bare = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in sorted((ROOT / "crab_gym").rglob("*.py"))
        if not any(path.is_relative_to(ROOT / e) for e in EXCEPTIONS)
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if IGNORE.search(line) and not EXPLAINED.search(line)
    ]
    assert not bare, "write `# type: ignore[code]  # why` (or fix the type):\n" + "\n".join(bare)
