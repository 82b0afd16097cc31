"""Running a script that starts Ray nodes of its own (in its own session, so that a timeout kills them)."""

from __future__ import annotations

import os
import signal
import subprocess


def run_script(cmd: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    """Run ``cmd`` in its own session; on timeout, kill its process group (its Ray nodes with it)."""
    pipe = subprocess.PIPE
    proc = subprocess.Popen(cmd, stdout=pipe, stderr=pipe, text=True, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr)
