"""`crab-gym train`: PPO on the rl-phone families (one policy per family, or --joint one for all), saved
as run folders; `--eval RUN` evaluates saved runs and the random agent on held-out seeds."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any


def add_parsers(sub: Any) -> None:
    """The `train` subcommand on the `crab-gym` parser's subparsers."""
    t = sub.add_parser(
        "train",
        help="train PPO on the rl-phone task families (or --eval a saved run)",
        description="Train PPO (SB3, or RLlib with --engine rllib) on the rl-phone families -- one policy "
        "per family in --out/FAMILY, or with --joint one policy for all in --out -- each run folder holding "
        "model.zip (rllib: rllib/), config.json and curve.json; with --eval RUN, evaluate saved runs (a run "
        "folder or a folder of them) and the random agent on held-out seeds.",
    )
    t.add_argument("--out", default="runs/ppo", help="the run folder to write (train)")
    t.add_argument("--eval", default="", metavar="RUN", help="evaluate this run folder (or its model.zip)")
    t.add_argument("--config", default="", help="a JSON file of PPOConfig fields (train)")
    t.add_argument("--families", default="", help="comma-separated families (default: all)")
    t.add_argument("--timesteps", type=int, default=0, help="env steps to train (default: the config's)")
    t.add_argument("--n-envs", type=int, default=0, help="envs collecting rollouts (default: the config's)")
    t.add_argument(
        "--vec",
        default="",
        help="dummy (in-process), subproc (a process per env) or batched (make_vec: a worker per core)",
    )
    t.add_argument(
        "--engine",
        default="",
        help="sb3 (Stable-Baselines3, default) or rllib (RLlib EnvRunners; the ray extra)",
    )
    t.add_argument("--env-runners", type=int, default=0, help="rllib: EnvRunners, a process each (default 2)")
    t.add_argument("--envs-per-runner", type=int, default=0, help="rllib: envs of each EnvRunner (default 2)")
    t.add_argument(
        "--address",
        "--ray-address",
        default="",
        help="rllib: join this Ray cluster (HOST:6379, or auto) instead of starting a local Ray",
    )
    t.add_argument("--seed", type=int, default=None)
    t.add_argument("--joint", action="store_true", help="one policy for every family (default: one each)")
    t.add_argument("--parallel", type=int, default=2, help="policies trained at a time (one per family)")
    t.add_argument("--eval-every", type=int, default=0, help="evaluate on held-out seeds every N steps")
    t.add_argument("--episodes", type=int, default=32, help="evaluation episodes per family")
    t.add_argument("--split", default="heldout", help="--eval: heldout (default) or train")
    t.set_defaults(func=train_command)


def _config(args: argparse.Namespace) -> Any:
    from crab_gym.baselines.ppo import PPOConfig

    data: dict[str, Any] = {}
    if args.config:
        path = Path(args.config)
        try:
            data = json.loads(path.read_text())
        except OSError as e:
            raise ValueError(f"{path}: cannot read ({e.strerror})") from None
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: not valid JSON (line {e.lineno}: {e.msg})") from None
    source = args.config or "--options"
    config = PPOConfig.from_json(data, source)
    overrides: dict[str, Any] = {}
    if args.families:
        overrides["families"] = [f for f in args.families.split(",") if f]
    for key in ("timesteps", "n_envs", "vec", "engine", "env_runners", "envs_per_runner"):
        if getattr(args, key):
            overrides[key] = getattr(args, key)
    if args.seed is not None:
        overrides["seed"] = args.seed
    return PPOConfig.from_json({**config.to_json(), **overrides}, source)


def result_table(results: dict[str, dict[str, dict[str, float]]]) -> str:
    """Success rate and mean return per family, one column pair per agent."""
    agents = list(results)
    families = list(next(iter(results.values()))) if results else []
    head = f"{'family':16s}" + "".join(f" {a + ' SR':>12s} {a + ' return':>14s}" for a in agents)
    lines = [head, "-" * len(head)]
    for f in families:
        cells = "".join(f" {results[a][f]['success']:12.2f} {results[a][f]['return']:14.2f}" for a in agents)
        lines.append(f"{f:16s}{cells}")
    return "\n".join(lines)


def train_command(args: argparse.Namespace) -> int:
    from crab_gym.baselines import ppo

    if args.split not in ("heldout", "train"):
        print(f"--split must be heldout or train, got {args.split!r}", file=sys.stderr)
        return 2
    try:
        if not args.eval:
            config = _config(args)
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    if not args.eval and args.address and config.engine != "rllib":
        print(f"--address {args.address}: only with --engine rllib", file=sys.stderr)
        return 2
    if not args.eval:
        t0 = time.perf_counter()
        if config.engine == "rllib":
            _train_rllib(config, args)
        elif args.joint:

            def show(row: dict[str, Any]) -> None:
                fams = " ".join(f"{k} {v['success']:.2f}" for k, v in row["families"].items())
                print(
                    f"{row['steps']:8d} steps {row['seconds']:7.0f} s  held-out success: {fams}", flush=True
                )

            ppo.train(config, out=args.out, eval_every=args.eval_every, on_eval=show)
        else:
            ppo.train_per_family(config, args.out, parallel=args.parallel, eval_every=args.eval_every)
        print(f"trained in {time.perf_counter() - t0:.0f} s; saved in {args.out}")
    try:
        runs = ppo.load_runs(args.eval or args.out)
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    print(result_table(evaluate_runs(runs, args.split, args.episodes)))
    return 0


def _train_rllib(config: Any, args: argparse.Namespace) -> None:
    """RLlib training, one policy per family in turn (each run has the machine's cores), or --joint one."""
    import dataclasses

    from crab_gym.baselines import rllib_ppo

    groups = [config.families] if args.joint else [(f,) for f in config.families]
    for families in groups:
        name = "+".join(families)

        def show(row: dict[str, Any], name: str = name) -> None:  # this run's name, not the loop's last
            fams = " ".join(f"{k} {v['success']:.2f}" for k, v in row["families"].items())
            print(f"[rllib {name}] {row['steps']:7d} steps {row['seconds']:6.0f} s  held-out success: {fams}",
                  flush=True)  # fmt: skip

        out = Path(args.out) if args.joint else Path(args.out) / name
        one = dataclasses.replace(config, families=families, vocabulary=())
        stats = rllib_ppo.train(one, out, eval_every=args.eval_every, on_eval=show, address=args.address)[2]
        print(f"[rllib {name}] {stats['steps']:.0f} env steps in {stats['seconds']:.0f} s: "
              f"{stats['steps_per_s']:.1f} steps/s ({stats['env_runners']:.0f} EnvRunners, "
              f"{stats['envs']:.0f} envs in all) on {stats['nodes']:.0f} Ray node(s)",
              flush=True)  # fmt: skip


def evaluate_runs(
    runs: dict[str, Any], split: str, episodes: int, seed: int = 0
) -> dict[str, dict[str, Any]]:
    """{"random": per-family results, "ppo": per-family results} of saved runs on the same episodes."""
    from crab_gym.baselines import ppo

    results: dict[str, dict[str, Any]] = {"random": {}, "ppo": {}}
    for model, config in runs.values():
        env = ppo.make_env(config, split, seed=0)
        try:
            results["random"].update(ppo.evaluate(ppo.random_policy(env.action_space, seed), env, episodes))
            results["ppo"].update(ppo.evaluate(ppo.model_policy(model), env, episodes))
        finally:
            env.close()
    return results
