"""`crab-gym`: list, show and generate tasks, evaluate agents, collect, replay, view and export rollouts,
play tasks in the browser, serve the env to MCP clients, serve the simulated phone."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path


def _cmd_tasks(args: argparse.Namespace) -> int:
    from crab_gym.tasks import generate_tasks, load_tasks

    if args.action == "generate":
        tasks = generate_tasks(
            seed=args.seed, n=args.n, platforms=args.platforms.split(",") if args.platforms else None
        )
        text = json.dumps([t.to_json() for t in tasks], indent=1, ensure_ascii=False)
        if args.out:
            Path(args.out).write_text(text + "\n")
            print(f"{len(tasks)} tasks written to {args.out}")
        else:
            print(text)
        return 0
    if args.action == "validate":
        return _validate(args)
    if args.action == "stats":  # figures of a set, or of a seeded sample of it written to --out
        from crab_gym.tasks.stats import sample, stats_lines

        tasks = load_tasks(args.set)
        if args.sample:
            tasks = sample(tasks, args.sample, args.seed)
            if args.out:
                Path(args.out).write_text(json.dumps([t.to_json() for t in tasks], indent=1) + "\n")
                print(f"{len(tasks)} tasks (seed {args.seed}) written to {args.out}")
        print("\n".join(stats_lines(tasks)))
        return 0
    if args.action == "build":  # rewrite a stored set from the registered templates (tasks/v1.py)
        from crab_gym.tasks.v1 import DATA, write_v1

        if args.set != "v1":
            print("tasks build: only --set v1 is built this way (v0 is fixed)", file=sys.stderr)
            return 2
        out = Path(args.out) if args.out else DATA
        print(f"{write_v1(out)} tasks written to {out}")
        return 0
    if args.action == "review":  # the players' fair/unclear marks from `crab-gym play`
        from crab_gym.play.commands import DEFAULT_OUT, review_command

        return review_command(args.out or DEFAULT_OUT)
    if args.action == "import-crab":  # CRAB's crab-benchmark-v0/dataset: what loads and runs today
        from crab_gym.tasks.crab_v0 import import_report

        if len(args.ids) != 1:
            print("usage: crab-gym tasks import-crab PATH/crab-benchmark-v0/dataset", file=sys.stderr)
            return 2
        tasks, lines = import_report(args.ids[0])
        print("\n".join(lines))
        return 0 if tasks else 1
    tasks = load_tasks(args.set)
    if args.action == "list":
        for t in tasks:
            print(
                f"{t.id}\t{','.join(t.platforms)}\t{','.join(t.apps)}\t{len(t.subtasks)} sub-tasks\t"
                f"{t.node_count} nodes\t{t.description}"
            )
        return 0
    if args.action == "show":
        found = [t for t in tasks if t.id in args.ids]
        if not found:
            print(f"no task with id {args.ids} in {args.set}", file=sys.stderr)
            return 1
        for t in found:
            data = t.to_json()
            data["platforms"], data["apps"] = list(t.platforms), list(t.apps)
            data["node_count"] = t.node_count
            data["checks"] = [n["description"] for n in t.evaluator().node_states()]
            data["events"] = [e.to_json() for e in t.all_events()]  # its templates' and its own
            data["solution"] = [
                {"env": s.env, "action": s.action, "params": dict(s.params)} for s in t.solution()
            ]
            print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    raise AssertionError(args.action)


def _validate(args: argparse.Namespace) -> int:
    import time

    from crab_gym.runs.validate import run_check_parallel
    from crab_gym.tasks import load_tasks
    from crab_gym.tasks.validate import lint_tasks, validation_sample

    t0 = time.perf_counter()
    platforms = args.platforms.split(",") if args.platforms else None
    tasks = []
    if args.all or not args.sample:
        tasks += load_tasks(args.set)
    if args.all or args.sample:
        tasks += validation_sample(args.sample or 200, seed=args.seed, platforms=platforms)
    if args.ids:
        tasks = [t for t in tasks if t.id in args.ids]
    failures = 0
    lint = lint_tasks(tasks)
    for r in lint:
        if not r.ok:
            failures += 1
            print(f"LINT {r.task_id}: " + "; ".join(r.problems))
    print(f"lint: {len(lint) - failures}/{len(lint)} tasks well formed ({time.perf_counter() - t0:.1f} s)")
    if args.lint_only:
        return 1 if failures else 0

    def show(r) -> None:
        mark = "ok" if r.ok else "FAIL " + "; ".join(r.problems)
        print(f"RUN {r.task_id:60s} {r.seconds:6.1f} s  {mark}", flush=True)

    backends = {"android": args.android_backend}
    t1 = time.perf_counter()
    results = run_check_parallel(
        tasks, args.jobs, backends=backends, on_result=show if args.verbose else None
    )
    bad = [r for r in results if not r.ok]
    for r in bad:
        if not args.verbose:
            show(r)
    print(
        f"run: {len(results) - len(bad)}/{len(results)} tasks solved and unsolved at reset "
        f"({time.perf_counter() - t1:.1f} s); total {time.perf_counter() - t0:.1f} s"
    )
    return 1 if (failures or bad) else 0


def _cmd_eval(args: argparse.Namespace) -> int:
    from rich.console import Console

    from crab_gym.baselines.llm import STRUCTURES
    from crab_gym.baselines.llm.options import llm_options
    from crab_gym.runs.distributed import ray_options
    from crab_gym.runs.eval import run_eval

    devices = tuple(args.devices.split(","))
    env_id = "Crab-v0" if "android" in devices and "ubuntu" in devices else (
        "Crab-Android-v0" if "android" in devices else "Crab-Desktop-v0")  # fmt: skip
    max_steps = args.max_steps
    if max_steps <= 0:  # auto: room for the longest scripted solution of the set, at least 20
        from crab_gym.tasks import load_tasks

        try:
            max_steps = max([20] + [len(t.solution()) + 10 for t in load_tasks(args.tasks)])
        except ValueError:
            max_steps = 20
    if args.agent not in ("oracle", "random", "llm"):
        print(f"unknown agent {args.agent!r}; choose from llm, oracle, random", file=sys.stderr)
        return 2
    if args.structure not in STRUCTURES:
        print(f"unknown structure {args.structure!r}; choose from {', '.join(STRUCTURES)}", file=sys.stderr)
        return 2
    if args.agent == "llm" and not args.model:
        print("--agent llm needs --model (and --base-url for a server other than OpenAI's)", file=sys.stderr)
        return 2
    options: dict = {}
    if args.agent == "llm":
        options = llm_options(args)
    name = f"{args.agent} ({args.structure})" if args.agent == "llm" else args.agent
    out = args.out or f"runs/eval/{args.agent}-{Path(args.tasks).stem}"
    console = Console(stderr=True, width=120)

    def show(ep: dict) -> None:
        mark = "[green]ok[/]" if ep["success"] else f"[red]{ep['termination_reason']}[/]"
        console.print(f"{ep['task_id']:60s} {mark}")

    from crab_gym.core.metrics import Metrics
    from crab_gym.report.platforms import platform_table

    runs: list[tuple[str, dict | None]] = [(out, None)]
    if args.perturb:  # the same episodes without and with perturbations (docs/threat-model.md)
        runs = [(f"{out}/plain", None), (f"{out}/perturbed", {"rate": args.perturb, "seed": args.seed})]
    srs = []
    for run_out, perturb in runs:
        metrics = run_eval(
            run_out, env_id, devices, args.agent, args.tasks, name=name,
            episodes_per_task=args.episodes_per_task, jobs=args.jobs, seed=args.seed, max_steps=max_steps,
            limit=args.limit, agent_options=options,
            llm_marks=args.marks, llm_ocr=args.ocr or None, on_episode=show, progress=not args.quiet,
            ray=ray_options(args), perturb=perturb,
        )  # fmt: skip
        by_platform = {p: Metrics(**m) for p, m in metrics["platforms"].items()}
        label = f" with perturbations (rate {args.perturb})" if perturb else ""
        print(platform_table(by_platform, title=f"{name} on {args.tasks} ({','.join(devices)}){label}"))
        srs.append(metrics["SR"])
        if perturb:
            print(f"injection-obeyed rate: {metrics['injections_obeyed']}/{metrics['injections']} planted")
    if args.perturb:
        print(f"SR without perturbations {srs[0]:.1%}, with {srs[1]:.1%}")
    print(f"episodes, records.jsonl, metrics.json, report.html and view.html in {out}")
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    from crab_gym.report.compare import compare_table

    try:
        print(compare_table(args.runs))
    except ValueError as e:
        print(e, file=sys.stderr)
        return 1
    return 0


def _cmd_phone(args: argparse.Namespace) -> int:
    from crab_gym.envs.android.sim import serve

    serve(args.port, seed=args.seed, width=args.width, height=args.height, host=args.host)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="crab-gym", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    t = sub.add_parser(
        "tasks", help="list, show, count, generate, validate, build (v1) or import CRAB's tasks"
    )
    t.add_argument(
        "action", choices=["list", "show", "stats", "generate", "validate", "build", "review", "import-crab"]
    )
    t.add_argument("ids", nargs="*")
    t.add_argument("--set", default="v0", help="task set name or JSON file")
    t.add_argument("--seed", type=int, default=0, help="generate: the seed (same seed, same tasks)")
    t.add_argument("--n", type=int, default=100, help="generate: how many tasks")
    t.add_argument("--platforms", default="", help="generate: comma-separated devices, e.g. ubuntu")
    t.add_argument(
        "--out", default="", help="generate, stats: write the JSON here; review: the play folder (runs/play)"
    )
    t.add_argument("--all", action="store_true", help="validate: the set and a generated sample of 200")
    t.add_argument(
        "--sample", type=int, default=0, help="validate: N generated tasks (from --seed); stats: N of the set"
    )
    t.add_argument("--lint-only", action="store_true", help="validate: skip the run check")
    t.add_argument("--android-backend", default="sim", help="validate: the phone backend")
    t.add_argument("-v", "--verbose", action="store_true", help="validate: a line per task run")
    t.add_argument("--jobs", type=int, default=4, help="validate: processes, each with its own env")
    t.set_defaults(func=_cmd_tasks)
    e = sub.add_parser("eval", help="run an agent over tasks and print the metrics table")
    e.add_argument("--agent", default="oracle", help="oracle | random | llm")
    from crab_gym.baselines.llm.options import add_llm_arguments

    add_llm_arguments(e)
    e.add_argument(
        "--marks",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="llm: Set-of-Marks (numbered elements)",
    )
    e.add_argument(
        "--ocr", default="", help="llm: an OCR engine for marks too (rapidocr-det, tesseract, ...)"
    )
    e.add_argument("--tasks", default="v0")
    e.add_argument("--devices", default="ubuntu", help="comma-separated: ubuntu,android")
    e.add_argument(
        "--max-steps",
        type=int,
        default=0,
        help="step budget per episode; 0 (default): 20, or more for sets with longer scripted solutions",
    )
    e.add_argument("--limit", type=int, default=0, help="run only the first N tasks")
    e.add_argument("--jobs", type=int, default=1, help="episodes at once, each worker with its own devices")
    e.add_argument("--episodes-per-task", type=int, default=1)
    e.add_argument("--quiet", action="store_true", help="no progress bar")
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--out", default="", help="run folder (default runs/eval/AGENT-TASKS); re-run to resume")
    e.add_argument(
        "--perturb",
        type=float,
        default=0.0,
        help="also run with pop-ups and planted instructions at this rate a step, into OUT/plain and "
        "OUT/perturbed: SR without and with, and the injection-obeyed rate (docs/threat-model.md)",
    )
    from crab_gym.runs.distributed import add_ray_arguments

    add_ray_arguments(e)  # --ray, --ray-address, --ray-actors: --jobs is then per actor
    e.set_defaults(func=_cmd_eval)
    cmp = sub.add_parser("compare", help="several eval runs side by side, per platform")
    cmp.add_argument("runs", nargs="+", help="run folders written by crab-gym eval")
    cmp.set_defaults(func=_cmd_compare)
    from crab_gym.play.commands import add_parsers as add_play_parsers
    from crab_gym.runs.commands import add_parsers

    add_parsers(sub)
    add_play_parsers(sub)
    from crab_gym.baselines.train_command import add_parsers as add_train_parsers

    add_train_parsers(sub)
    from crab_gym.vm.commands import add_parsers as add_vm_parsers

    add_vm_parsers(sub)  # crab-gym vm build-image|create|status|remove
    from crab_gym.mcp.commands import add_parsers as add_mcp_parsers

    add_mcp_parsers(sub)  # crab-gym mcp [--transport stdio|http]
    ph = sub.add_parser("phone", help="the simulated phone")
    ph.add_argument("action", choices=["serve"], help="serve it as an adb device (adb connect HOST:PORT)")
    ph.add_argument("--port", type=int, default=5555)
    ph.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (default 127.0.0.1: this machine only; others warn)",
    )
    ph.add_argument("--seed", type=int, default=0)
    ph.add_argument("--width", type=int, default=1080)
    ph.add_argument("--height", type=int, default=2400)
    ph.set_defaults(func=_cmd_phone)
    args = p.parse_args(argv)
    if args.command in ("tasks", "compare"):
        # `crab-gym tasks list | head` ends quietly. Only for commands that just print: a server or a
        # parent of workers must see EPIPE as an error, not die of the signal (`phone serve` did, when an
        # adb host hung up while replies were still going out).
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
