"""PPO learns the rl-phone families: held-out success rate and return vs env steps, the random agent beside.

Trains SB3 PPO (crab_gym.baselines.ppo, torch on CPU) on the training seeds of the rl-phone families -- one
policy per family, --parallel of them at a time (or --joint: one policy for all) -- evaluates each greedy
policy on held-out seeds every --eval-every steps, then evaluates the final policies and the random agent
(uniform over the same actions) on the same held-out episodes. Prints the per-family table and the wall
time, saves the runs (model.zip, config.json, curve.json) under --out and draws the curves to --png.
Asserts nothing; timings depend on what else the machine runs.

Needs the `sb3` and `plots` extras. Run:
    .venv/bin/python bench/ppo_learning.py [--timesteps 50000] [--parallel 2]
    .venv/bin/python bench/ppo_learning.py --vec-compare 2048     # PPO steps/s: DummyVecEnv vs SubprocVecEnv
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from crab_gym.baselines import ppo
from crab_gym.baselines.train_command import evaluate_runs, result_table

ROOT = Path(__file__).resolve().parent.parent


def plot(curves: dict[str, list[dict]], random: dict[str, dict[str, float]], png: Path, title: str) -> None:
    """Held-out success and return of each family's policy vs its env steps; dotted: the random agent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    families = list(random)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), dpi=100)
    for ax, key, label in (
        (axes[0], "success", "success rate"),
        (axes[1], "return", "mean return (final CR)"),
    ):
        for i, f in enumerate(families):
            color = f"C{i}"
            steps = [row["steps"] for row in curves[f]]
            values = [row["families"][f][key] for row in curves[f]]
            ax.plot(steps, values, color=color, marker="o", ms=3, label=f)
            ax.axhline(random[f][key], color=color, ls=":", lw=1.2)
        ax.plot([], [], color="gray", ls=":", label="random agent (same episodes)")
        if key == "success":
            ax.axhline(0.8, color="black", lw=0.8, ls="--", alpha=0.5)
        ax.set_xlabel("env steps")
        ax.set_ylabel(f"held-out {label}")
        ax.set_ylim(-0.03, 1.03)
        ax.grid(alpha=0.3)
    axes[0].legend(loc="upper left", fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png)
    plt.close(fig)


def vec_compare(steps: int, config: ppo.PPOConfig) -> None:
    """PPO learning steps/s with the envs in-process and in a process each."""
    import torch

    torch.set_num_threads(config.torch_threads)
    config.vocabulary = ppo.vocabulary_for(config)
    for vec in ("dummy", "subproc"):
        config.vec = vec
        venv = ppo._make_vec(config)
        model = ppo.new_model(config, venv)
        t = time.perf_counter()
        model.learn(total_timesteps=steps)
        rate = model.num_timesteps / (time.perf_counter() - t)
        venv.close()
        print(f"PPO learn, {config.n_envs} envs, {vec:8s}: {rate:6.1f} steps/s")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--timesteps", type=int, default=50_000, help="env steps per policy")
    p.add_argument("--eval-every", type=int, default=5_000)
    p.add_argument("--eval-episodes", type=int, default=16, help="per family, at each curve point")
    p.add_argument("--final-episodes", type=int, default=64, help="per family, for the table")
    p.add_argument("--joint", action="store_true", help="one policy for every family")
    p.add_argument("--parallel", type=int, default=2, help="policies trained at a time (one per family)")
    p.add_argument("--n-envs", type=int, default=4)
    p.add_argument("--vec", default="dummy", help="dummy or subproc")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=str(ROOT / "runs" / "ppo-bench"))
    p.add_argument("--png", default=str(ROOT / "docs" / "img" / "ppo_learning.png"))
    p.add_argument("--vec-compare", type=int, default=0, metavar="STEPS", help="only compare vec envs")
    args = p.parse_args()
    config = ppo.PPOConfig(timesteps=args.timesteps, n_envs=args.n_envs, vec=args.vec, seed=args.seed)
    if args.vec_compare:
        vec_compare(args.vec_compare, config)
        return

    t0 = time.perf_counter()
    if args.joint:

        def show(row: dict) -> None:
            fams = "  ".join(f"{k} {v['success']:.2f}/{v['return']:.2f}" for k, v in row["families"].items())
            print(
                f"{row['steps']:7d} steps {row['seconds']:6.0f} s  held-out success/return: {fams}",
                flush=True,
            )

        _, curve = ppo.train(
            config, out=args.out, eval_every=args.eval_every, eval_episodes=args.eval_episodes, on_eval=show
        )
        curves = {f: curve for f in config.families}
    else:
        curves = ppo.train_per_family(config, args.out, args.parallel, args.eval_every, args.eval_episodes)
    train_seconds = time.perf_counter() - t0
    runs = ppo.load_runs(args.out)
    results = evaluate_runs(runs, "heldout", args.final_episodes, seed=args.seed)
    total = time.perf_counter() - t0
    steps = (
        sum(curve[-1]["steps"] for curve in curves.values())
        if not args.joint
        else curves[config.families[0]][-1]["steps"]
    )
    print()
    print(f"held-out seeds, {args.final_episodes} episodes per family (the same episodes for both agents):")
    print(result_table(results))
    passed = [f for f, r in results["ppo"].items() if r["success"] >= 0.8]
    print(
        f"families at >= 80 % held-out success: {len(passed)} of {len(results['ppo'])} ({', '.join(passed)})"
    )
    how = "one policy for all families" if args.joint else f"one policy per family, {args.parallel} at a time"
    print(
        f"wall time: training {train_seconds / 60:.1f} min ({how}; {steps} env steps in all, "
        f"{args.timesteps} per policy; with the curve's evaluations), total with the final evaluation "
        f"{total / 60:.1f} min; {config.n_envs} envs per policy ({config.vec}), torch threads "
        f"{config.torch_threads}"
    )
    (Path(args.out) / "results.json").write_text(
        json.dumps({"results": results, "train_seconds": train_seconds, "total_seconds": total}, indent=1)
    )
    title = (
        f"PPO on rl-phone, held-out seeds: {how}, {args.timesteps} env steps each, "
        f"{train_seconds / 60:.0f} min on 2 CPU cores; dotted: random agent"
    )
    plot(curves, results["random"], Path(args.png), title)
    print(f"curves: {args.png}; runs: {args.out}")


if __name__ == "__main__":
    main()
