"""The data commands of ``crab-gym``: collect, replay, view and export (parsing and printing only)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

EXPORTS = ("minari", "hf", "grounding", "inverse-dynamics", "success-detection")


def export(run: str, to: str, out: str, dataset_id: str = "") -> str:
    """Export a run folder to ``to`` (one of EXPORTS) at ``out``; returns where it went, in words."""
    if to == "minari":
        from crab_gym.episode.minari_export import export_minari

        name = dataset_id or f"crab-gym/{Path(run).resolve().name}-v0"
        path = export_minari(run, name, data_path=out)
        return (
            f"Minari dataset {name!r} in {path} (MINARI_DATASETS_PATH={out}; minari.load_dataset({name!r}))"
        )
    if to == "hf":
        from crab_gym.episode.hf_export import export_hf

        ds = export_hf(run, out)
        return f"{len(ds)} steps as a Hugging Face dataset in {out} (datasets.load_from_disk)"
    from crab_gym.episode import derived

    build = {
        "grounding": derived.grounding_dataset,
        "inverse-dynamics": derived.inverse_dynamics_dataset,
        "success-detection": derived.success_detection_dataset,
    }[to]
    ds = build(run, out)
    return f"{len(ds)} rows of the {to} dataset in {out} (datasets.load_from_disk)"


def _cmd_collect(args: argparse.Namespace) -> int:
    from crab_gym.runs.collect import collect
    from crab_gym.runs.distributed import ray_options
    from crab_gym.runs.group import GroupError

    formats = [f for f in args.format.split(",") if f]
    bad = [f for f in formats if f not in ("native", *EXPORTS)]
    if bad:
        print(f"unknown --format {bad}; choose from native, {', '.join(EXPORTS)}", file=sys.stderr)
        return 2
    agent_options: dict = {}
    if args.agent == "llm":
        if not args.model:
            print(
                "--agent llm needs --model (and --base-url for a server other than OpenAI's)", file=sys.stderr
            )
            return 2
        from crab_gym.baselines.llm.options import llm_options

        agent_options = llm_options(args)
    env_kwargs: dict = {"max_steps": args.max_steps}
    if args.android_backend:
        env_kwargs["backends"] = {"android": args.android_backend}
    record = {"frames": args.frames, "downscale": args.downscale, "elements": args.elements}
    try:
        summary = collect(
            args.out,
            env_id=args.env,
            agent=args.agent,
            tasks=args.tasks,
            episodes_per_task=args.episodes_per_task,
            num_envs=args.num_envs,
            seed=args.seed,
            env_kwargs=env_kwargs,
            agent_options=agent_options,
            record_options=record,
            llm_marks=args.marks,
            llm_ocr=args.ocr or None,
            limit=args.limit,
            ray=ray_options(args),
            group=args.group,
            branch_at=args.branch_at,
        )
    except GroupError as e:  # a group that cannot run as asked
        print(f"crab-gym collect: {e}", file=sys.stderr)
        return 2
    print(
        f"{summary['ran']} episodes recorded, {summary['skipped']} already complete, "
        f"{summary['steps_per_second']:.1f} steps/s, {summary['episodes_per_second']:.2f} episodes/s"
    )
    if "metrics" in summary:
        from crab_gym.core.metrics import Metrics, format_table

        print(format_table(Metrics(**summary["metrics"]), title=f"{args.agent} on {args.tasks} ({args.env})"))
    for fmt in formats:
        if fmt != "native":
            print(export(args.out, fmt, str(Path(args.out) / "export" / fmt)))
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    from crab_gym.episode.format import load_episodes
    from crab_gym.runs.replay import replay_episode

    backends = {"android": args.android_backend} if args.android_backend else None
    bad = n = 0
    for ep in load_episodes(args.dir, complete_only=True):
        result = replay_episode(ep, backends=backends, screens=args.screens)
        n += 1
        if result.matches:
            print(f"{ep.id}: {result.steps} steps, every node state and reward matches")
        else:
            bad += 1
            first = json.dumps(result.mismatches[0])
            print(f"{ep.id}: {len(result.mismatches)} of {result.steps} steps differ; first: {first}")
    if not n:
        print(f"no complete episode under {args.dir}", file=sys.stderr)
        return 1
    print(f"{n - bad}/{n} episodes replay identically")
    return 1 if bad else 0


def _cmd_view(args: argparse.Namespace) -> int:
    from crab_gym.episode.view import write_view

    path = write_view(args.dir, args.out or None)
    print(f"wrote {path}")
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    print(export(args.dir, args.to, args.out, args.dataset_id))
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Add ``collect``, ``replay``, ``view`` and ``export`` to the ``crab-gym`` parser."""
    from crab_gym.runs.distributed import add_ray_arguments

    c = sub.add_parser("collect", help="record agents' rollouts in a pool of worker processes (resumable)")
    c.add_argument("--agent", default="oracle", choices=["oracle", "random", "llm"])
    c.add_argument("--tasks", default="v0", help="task set name or JSON file")
    c.add_argument("--env", default="Crab-Android-v0", help="Crab-v0 | Crab-Desktop-v0 | Crab-Android-v0")
    c.add_argument("--episodes-per-task", type=int, default=1)
    c.add_argument("--num-envs", type=int, default=2, help="worker processes, each with its own devices")
    c.add_argument("--out", required=True, help="run folder; re-running with the same one resumes")
    c.add_argument("--format", default="native", help=f"native and any of: {', '.join(EXPORTS)} (comma list)")
    c.add_argument("--max-steps", type=int, default=30)
    c.add_argument("--limit", type=int, default=0, help="only the first N tasks")
    c.add_argument("--seed", type=int, default=0, help="episode k of a task is reset with seed+k")
    c.add_argument("--group", type=int, default=None, help="N branches per episode from one saved state")
    c.add_argument("--branch-at", type=int, default=0, help="--group: at step K (0: pristine)")
    c.add_argument("--frames", default="zst", choices=["zst", "png"], help="how screens are stored")
    c.add_argument("--downscale", type=float, default=None, help="store device screens scaled by this")
    c.add_argument("--elements", action=argparse.BooleanOptionalAction, default=True, help="keep UI elements")
    c.add_argument("--android-backend", default="", help="sim (default), adb-sim, adb:<serial>, ...")
    from crab_gym.baselines.llm.options import add_llm_arguments

    add_llm_arguments(c)
    c.add_argument("--marks", action=argparse.BooleanOptionalAction, default=True, help="llm: Set-of-Marks")
    c.add_argument("--ocr", default="", help="llm: an OCR engine for marks too")
    add_ray_arguments(c)
    c.set_defaults(func=_cmd_collect)
    r = sub.add_parser("replay", help="re-execute recorded episodes and check node states and rewards match")
    r.add_argument("dir", help="a run folder or one episode folder")
    r.add_argument("--android-backend", default="", help="replay on another phone backend")
    r.add_argument("--screens", action="store_true", help="compare every screen too (deterministic devices)")
    r.set_defaults(func=_cmd_replay)
    v = sub.add_parser("view", help="one self-contained HTML page of a run's episodes")
    v.add_argument("dir", help="a run folder or one episode folder")
    v.add_argument("--out", default="", help="the HTML file (default: DIR/view.html)")
    v.set_defaults(func=_cmd_view)
    e = sub.add_parser("export", help="a recorded run as a Minari / Hugging Face / derived dataset")
    e.add_argument("dir", help="a run folder")
    e.add_argument("--to", required=True, choices=EXPORTS)
    e.add_argument("--out", required=True, help="where the dataset goes")
    e.add_argument("--dataset-id", default="", help="minari: the dataset id (default crab-gym/<run>-v0)")
    e.set_defaults(func=_cmd_export)
