"""Budgets and device-state fingerprints shared by the fuzz tests.

Two budgets: the CI slice (the default run) and ``CRAB_FUZZ=long``. Hypothesis keeps no example database
here, so a run leaves no files in the checkout; a failure prints the example and its reproduction blob.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

from hypothesis import HealthCheck, settings

LONG = os.environ.get("CRAB_FUZZ") == "long"


def budget(ci: int, long: int) -> settings:
    """Hypothesis settings running ``ci`` examples by default and ``long`` with CRAB_FUZZ=long."""
    return settings(
        max_examples=long if LONG else ci,
        deadline=None,  # real devices and sockets take their time; speed is measured by bench/, not here
        database=None,
        derandomize=not LONG,  # the CI slice is the same every run; the long run explores afresh
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )


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
