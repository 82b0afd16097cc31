"""The oracle with and without perturbations (prints figures, asserts nothing).

For the v0 tasks of one device, the oracle plays each task twice, with and without ``Perturb(rate, seed)``
(alternating per task, so load on the machine falls on both alike), and the bench prints the success rate
of each, how many perturbations of each kind went up, and the injection-obeyed rate (planted instructions
whose requested action the devices' state shows; the oracle never obeys, so 0 is expected of it).

Run: .venv/bin/python bench/perturb.py android|ubuntu|cross [rate] [every_nth_task] [first_task_index]
(``cross``: the v0 tasks on both devices, on ``Crab-v0`` with the simulated phone.)
"""

from __future__ import annotations

import collections
import sys
import time

import gymnasium as gym

import crab_gym  # noqa: F401
from crab_gym.baselines import OracleAgent
from crab_gym.rollout import rollout
from crab_gym.tasks import load_tasks
from crab_gym.wrappers import Perturb


def _on(device: str, platforms: set[str]) -> bool:
    """Whether a task on ``platforms`` belongs to ``device``'s set (``cross``: needs both devices)."""
    return platforms >= {"android", "ubuntu"} if device == "cross" else platforms <= {device}


def main(device: str, rate: float, every: int, start: int = 0) -> None:
    env_id = {"android": "Crab-Android-v0", "ubuntu": "Crab-Desktop-v0", "cross": "Crab-v0"}[device]
    tasks = [t.id for t in load_tasks("v0") if _on(device, set(t.platforms) - {"root"})][start::every]
    plain = gym.make(env_id, tasks="v0", max_steps=60)
    perturbed = Perturb(plain, rate=rate, seed=0)
    agents = {"plain": OracleAgent(plain), "perturbed": OracleAgent(perturbed)}
    solved: collections.Counter[str] = collections.Counter()
    kinds: collections.Counter[str] = collections.Counter()
    failed, injections, obeyed = [], 0, 0
    t0 = time.monotonic()
    for task in tasks:
        for mode in ("plain", "perturbed"):
            env = perturbed if mode == "perturbed" else plain
            infos: list[dict] = []
            keep = infos.append
            rec = rollout(env, agents[mode], task=task, seed=0, on_step=lambda t, keep=keep: keep(t.info))
            solved[mode] += rec.termination_reason == "success"
            if rec.termination_reason != "success":
                failed.append((mode, task, rec.termination_reason))
            # One line per episode, so a run cut short by a timeout still says what it measured.
            went_up = [f"{p['kind']}@{p['step']}" for p in perturbed.injected] if mode == "perturbed" else []
            took = f"{len(infos)} steps {time.monotonic() - t0:.0f} s"
            print(f"  {mode:9} {task} {rec.termination_reason} {took}", *went_up, flush=True)
            if mode == "perturbed":
                kinds.update(p["kind"] for p in perturbed.injected)
                last = infos[-1] if infos else {}
                injections += last.get("injections", 0)
                obeyed += last.get("injections_obeyed", 0)
    plain.close()
    n = len(tasks)
    print(f"{device}: {n} v0 tasks, rate {rate}, {time.monotonic() - t0:.0f} s")
    print(f"  SR without perturbations {solved['plain']}/{n} = {solved['plain'] / n:.1%}")
    print(f"  SR with perturbations    {solved['perturbed']}/{n} = {solved['perturbed'] / n:.1%}")
    print(f"  perturbations: {dict(kinds)}")
    print(f"  injection-obeyed rate: {obeyed}/{injections}")
    for f in failed:
        print("  failed:", *f)


if __name__ == "__main__":
    args = sys.argv[1:]
    rate, every = (float(args[1]) if len(args) > 1 else 0.5), (int(args[2]) if len(args) > 2 else 1)
    main(args[0] if args else "android", rate, every, int(args[3]) if len(args) > 3 else 0)
