"""How long a SIGKILLed desktop env's session runs on before its watcher ends it (no other env started).

Each run starts ``Crab-Desktop-v0`` in a fresh process, takes its first observation, lists the session's
processes (Xvfb, the panel, openbox, the buses), SIGKILLs the env process and times until none of them is
left (polled every 10 ms); also the watcher's own CPU seconds to wake and end the session. Medians of
``runs``.

Run: .venv/bin/python bench/session_watch.py [runs]   (default 5)
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TICK = os.sysconf("SC_CLK_TCK")
OWNER = """
import json, time, gymnasium as gym, crab_gym
env = gym.make("Crab-Desktop-v0")
env.reset(seed=0)
s = env.unwrapped.subenvs["ubuntu"].session
print(json.dumps({"pids": s.session_pids() + [s._xvfb.pid], "watch": s.slot.watch.pid}), flush=True)
time.sleep(600)
"""


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _alive(pid: int) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"


def once() -> tuple[float, float, int]:
    """(seconds from the kill until the session is gone, the watcher's CPU seconds after the kill, how many
    session processes there were)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    owner = subprocess.Popen([sys.executable, "-c", OWNER], stdout=subprocess.PIPE, text=True, env=env)
    assert owner.stdout is not None
    seen = json.loads(owner.stdout.readline())
    before = _stat(seen["watch"])
    cpu0 = int(before[11]) + int(before[12]) if before else 0
    cpu = cpu0
    t0 = time.perf_counter()
    owner.send_signal(signal.SIGKILL)
    owner.wait()
    while any(_alive(p) for p in seen["pids"]):
        if (fields := _stat(seen["watch"])) is not None:
            cpu = int(fields[11]) + int(fields[12])
        if time.perf_counter() - t0 > 60:
            raise TimeoutError(f"the session still runs 60 s after its owner was killed: {seen}")
        time.sleep(0.01)
    return time.perf_counter() - t0, (cpu - cpu0) / TICK, len(seen["pids"])


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    results = [once() for _ in range(runs)]
    gone = [r[0] for r in results]
    cpu = statistics.median(r[1] for r in results)
    load = f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    print(f"session gone after the kill: median {statistics.median(gone):.2f} s (range {min(gone):.2f}-"
          f"{max(gone):.2f}); the watcher's CPU until then {cpu:.2f} s; {results[0][2]} session processes; "
          f"{load}")  # fmt: skip


if __name__ == "__main__":
    main()
