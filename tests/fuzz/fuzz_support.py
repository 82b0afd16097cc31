"""Budgets and device-state fingerprints shared by the fuzz tests.

Two budgets per fuzz test: the CI slice (``[ci]``, in ``scripts/test.sh``) and the long run (``[long]``,
marked ``fuzz_long``: ``pytest -m fuzz_long tests/fuzz``). Hypothesis keeps no example database here, so a
run leaves no files in the checkout; a failure prints the example and its reproduction blob.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from hypothesis import HealthCheck, settings

T = TypeVar("T", bound=Callable[..., Any])
_long = False  # the budget of the test running now: set by the fuzz_profile fixture (conftest.py)


def _settings(examples: int, long: bool) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,  # real devices and sockets take their time; speed is measured by bench/, not here
        database=None,
        derandomize=not long,  # the CI slice is the same every run; the long run explores afresh
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
            HealthCheck.function_scoped_fixture,  # fuzz_profile only picks the budget: nothing to reset
        ],
    )


def budget(ci: int, long: int) -> Callable[[T], T]:
    """Hypothesis settings of ``ci`` examples, or ``long`` in the test's ``[long]`` variant. Works on a test
    decorated at import time (``fuzz_profile`` swaps its settings) and inside a test body (read when run)."""

    def apply(test: T) -> T:
        out = _settings(long if _long else ci, _long)(test)
        out._crab_budget = (ci, long)  # type: ignore[attr-defined]  # read back by profile()
        return out

    return apply


@contextlib.contextmanager
def profile(long: bool, test: Any) -> Iterator[None]:
    """Run ``test`` with its long budget (or its CI one), for tests decorated with :func:`budget`."""
    global _long
    chosen = getattr(test, "_crab_budget", None)
    saved = getattr(test, "_hypothesis_internal_use_settings", None)
    _long = long
    if chosen:
        test._hypothesis_internal_use_settings = _settings(chosen[1] if long else chosen[0], long)
    try:
        yield
    finally:
        _long = False
        if chosen:
            test._hypothesis_internal_use_settings = saved


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def phone_fingerprint(sub: Any) -> tuple:
    """The phone's foreground app, every row of every app database, its files and its screen."""
    phone = sub.device.phone  # the in-process simulated phone behind the sim backend
    with phone.lock:
        rows = []
        for path in sorted(phone.fs.root.rglob("*.db")):
            rows.append((str(path.relative_to(phone.fs.root)), _digest(path.read_bytes())))
        files = sorted(
            (str(p.relative_to(phone.fs.root)), p.stat().st_size)
            for p in phone.fs.root.rglob("*")
            if p.is_file() and not p.name.endswith(("-journal", "-wal", "-shm"))
        )
    sub.invalidate_state()
    return (sub.state().foreground(), tuple(rows), tuple(files), _digest(sub.screenshot().tobytes()))


def desktop_fingerprint(sub: Any) -> tuple:
    """The desktop's windows, the listing of its HOME and its screen."""
    sub.invalidate_state()
    st = sub.state()
    windows = tuple((w.title, w.wm_class) for w in sub.x.windows())
    return (windows, tuple(st.list_dir("~")), _digest(sub.screenshot().tobytes()))


def root_fingerprint(sub: Any) -> tuple:
    return (sub.answer, sub.completed)


def env_fingerprint(env: Any) -> dict[str, tuple]:
    """Every device's fingerprint, by device name."""
    out = {}
    for name, sub in env.unwrapped.subenvs.items():
        fn = {"android": phone_fingerprint, "ubuntu": desktop_fingerprint, "root": root_fingerprint}[name]
        out[name] = fn(sub)
    return out
