"""Save + load of the phone's state at every step of oracle episodes (prints figures, asserts nothing).

For v0 phone tasks, the oracle plays each episode; at every step the bench times, in alternating windows:
- ``phone``: ``Phone.save_state()`` + ``Phone.load_state()`` (files, stack, clock, alarms, log);
- ``env``: ``env.unwrapped.save_state()`` + ``load_state()`` on Crab-Android-v0 (the devices, the task's
  graph, the RNG, and the observation at the loaded state, drawn at 96x208);
- ``reset`` (the baseline): ``env.reset()`` to the same task, which is what a branch costs without a state.
Then the same ``env`` figure through adb (``adb-sim``: the phone served from this process; the observation
is a screencap through adb). Median, p90 and max in ms; the ratio of ``env`` to ``reset`` medians.

Run: .venv/bin/python bench/state_phone.py [tasks] [repeats]
"""

from __future__ import annotations

import statistics
import sys
import time

import gymnasium as gym

from crab_gym import rollout
from crab_gym.baselines import OracleAgent
from crab_gym.tasks import load_tasks

SMALL = (96, 208)


def pct(xs: list[float], q: float) -> float:
    return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))]


def line(name: str, xs: list[float]) -> str:
    ms = [x * 1e3 for x in xs]
    med, p90 = statistics.median(ms), pct(ms, 0.9)
    return f"{name:>14}: median {med:6.2f} ms  p90 {p90:6.2f}  max {max(ms):6.2f}  (n={len(ms)})"


def episode(env: gym.Env, task_id: str) -> list[tuple]:
    actions: list[tuple] = []
    rollout(env, OracleAgent(env), task=task_id, seed=0, on_step=lambda t: actions.append(t.action))
    return actions


def run(backend: str, task_ids: list[str], repeats: int) -> dict[str, list[float]]:
    env = gym.make("Crab-Android-v0", tasks="v0", max_steps=60, obs_size={"android": SMALL},
                   backends={"android": backend})  # fmt: skip
    u = env.unwrapped
    u.subenvs["root"].time_scale = 0.0
    dev = u.subenvs["android"].device
    phone = getattr(dev, "phone", None) or dev.served.phone
    times: dict[str, list[float]] = {"phone": [], "env": [], "reset": []}
    for task_id in task_ids:
        actions = episode(env, task_id)
        env.reset(seed=0, options={"task": task_id})
        for a in actions[:-1]:  # every step of the episode but the one that ends it
            env.step(a)
            for _ in range(repeats):  # alternating windows: phone, env, reset
                t = time.perf_counter()
                phone.load_state(phone.save_state())
                times["phone"].append(time.perf_counter() - t)
                t = time.perf_counter()
                state = u.save_state()
                u.load_state(state)
                times["env"].append(time.perf_counter() - t)
                t = time.perf_counter()
                env.reset(seed=0, options={"task": task_id})
                times["reset"].append(time.perf_counter() - t)
                u.load_state(state)  # back where the episode was
    env.close()
    return times


def main() -> None:
    n_tasks = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    ids = [t.id for t in load_tasks("v0") if set(t.platforms) <= {"android", "root"}]
    ids = ids[:: max(1, len(ids) // n_tasks)][:n_tasks]
    print(f"{len(ids)} v0 phone tasks, {repeats} windows at every step; phone 1080x2400, observation 96x208")
    for backend in ("sim", "adb-sim"):
        times = run(backend, ids, repeats if backend == "sim" else 1)
        print(f"[{backend}]")
        for name in ("phone", "env", "reset"):
            print(line(name, times[name]))
        ratio = statistics.median(times["env"]) / statistics.median(times["reset"])
        print(f"{'env / reset':>14}: {ratio:.2f}x")


if __name__ == "__main__":
    main()
