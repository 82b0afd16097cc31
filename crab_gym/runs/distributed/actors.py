"""Collect and eval on Ray: actors that each hold a worker pool and pull jobs from one board.

The driver plans the jobs and skips finished episodes (``crab_gym.runs.collect.collect``, as on one
machine); a :class:`JobBoard` actor hands them out one at a time. Each :class:`CollectActor` runs the collect
machinery's own worker pool (``run_jobs``: worker processes running ``rollout``, worker replacement, one
retry) on a queue that pulls from the board, so Ray adds placement and nothing else. An actor on a node
that shares the run folder records into it directly; any other node records into a staging folder and
sends each finished episode to the driver (:mod:`crab_gym.runs.distributed.shipping`). If an actor dies (its
node is lost), the jobs it held go back on the board once and a new actor takes its place; a job that
fails again is written to ``failed.jsonl``, like a job whose worker died twice.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import socket
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from crab_gym.runs.distributed.options import RayOptions, ray_session
from crab_gym.runs.distributed.shipping import (
    EpisodeFiles,
    make_marker,
    pack_episode,
    sees_marker,
    unpack_episode,
)
from crab_gym.runs.pool import Job, Worker, run_jobs

__all__ = ["CollectActor", "JobBoard", "PulledJobs", "run_on_ray"]

Event = tuple[dict[str, Any], EpisodeFiles | None]


class JobBoard:
    """The run's job queue, as a Ray actor: hands out jobs, remembers who holds which, and keeps the finished
    episodes' events until the driver takes them."""

    def __init__(self, jobs: list[Job]) -> None:
        self.queue: deque[Job] = deque(jobs)
        self.held: dict[str, dict[str, Job]] = {}
        self.events: list[Event] = []

    def pull(self, actor: str) -> Job | None:
        if not self.queue:
            return None
        job = self.queue.popleft()
        self.held.setdefault(actor, {})[job.episode_id] = job
        return job

    def remaining(self) -> int:
        return len(self.queue)

    def put_back(self, jobs: list[Job]) -> None:
        self.queue.extendleft(reversed(jobs))

    def report(self, actor: str, event: dict[str, Any], files: EpisodeFiles | None = None) -> None:
        self.held.get(actor, {}).pop(str(event.get("episode_id")), None)
        self.events.append((event, files))

    def take_events(self) -> list[Event]:
        events, self.events = self.events, []
        return events

    def release(self, actor: str) -> list[Job]:
        """The jobs ``actor`` pulled and never reported, forgotten by the board."""
        return list(self.held.pop(actor, {}).values())


class PulledJobs:
    """The queue ``run_jobs`` consumes, pulling from the board: ``pop(0)`` takes a job (None when the board
    is empty), ``insert(0, job)`` keeps a job to retry here, ``len`` counts what is left to do."""

    def __init__(self, board: Any, actor: str) -> None:
        import ray

        self._get = ray.get
        self.board, self.actor = board, actor
        self.local: list[Job] = []

    def __len__(self) -> int:
        return len(self.local) + int(self._get(self.board.remaining.remote()))

    def pop(self, index: int = 0) -> Job | None:
        if self.local:
            return self.local.pop(index)
        return self._get(self.board.pull.remote(self.actor))

    def insert(self, index: int, job: Job) -> None:
        self.local.insert(index, job)


class CollectActor:
    """A Ray actor holding a pool of ``num_envs`` collect workers (each with its own devices, on this
    actor's node) and running jobs from the board until none are left."""

    def __init__(
        self, name: str, board: Any, marker: str, worker: Worker, num_envs: int, ship: bool | None = None
    ) -> None:
        import crab_gym  # noqa: F401 - registers the env ids in this process

        self.name, self.board, self.num_envs = name, board, num_envs
        shared = sees_marker(marker) and not ship
        self.stage = None if shared else Path(tempfile.mkdtemp(prefix="crab-gym-stage-"))
        self.worker = worker if self.stage is None else dataclasses.replace(worker, out=str(self.stage))

    def run(self) -> tuple[int, float, list[tuple[Job, str]]]:
        """Run jobs until the board is empty: (steps, seconds, jobs given up with their error). Each finished
        episode is reported with the Ray node, host and pid that ran it and whether its files were sent."""
        import ray

        host, node = socket.gethostname(), ray.get_runtime_context().get_node_id()

        def report(event: dict[str, Any]) -> None:
            files, shipped = None, self.stage is not None
            event = {**event, "node": node, "host": host, "pid": os.getpid(), "shipped": shipped}
            folder = self.stage / str(event["episode_id"]) if self.stage is not None else None
            if folder is not None and folder.is_dir():
                files = pack_episode(folder)
                shutil.rmtree(folder, ignore_errors=True)
            ray.get(self.board.report.remote(self.name, event, files))

        queue: Any = PulledJobs(self.board, self.name)
        try:
            return run_jobs(self.worker, queue, self.num_envs, report, False)
        finally:
            if self.stage is not None:
                shutil.rmtree(self.stage, ignore_errors=True)


def _alive_nodes() -> int:
    import ray

    return sum(1 for n in ray.nodes() if n.get("Alive"))


class _Run:
    """The driver's side of one run: starts actors, writes what they report, settles what dead ones held."""

    def __init__(self, options: RayOptions, out: Path, board: Any, spec: tuple, on_episode: Any) -> None:
        import ray

        self.ray, self.options, self.out, self.board = ray, options, out, board
        self.spec, self.on_episode = spec, on_episode
        self.remote_actor = ray.remote(CollectActor)
        self.running: dict[Any, tuple[str, Any]] = {}
        self.started = 0
        self.steps = self.finished = self.ok = 0
        self.failed: list[tuple[Job, str]] = []
        self.tries: dict[Job, int] = {}

    def start(self) -> None:
        name = f"collect-{self.started}"
        self.started += 1
        options = {"num_cpus": self.options.actor_cpus, "scheduling_strategy": "SPREAD"}
        # Any: Ray's types give an actor handle's methods no .remote
        actor: Any = self.remote_actor.options(**options).remote(name, self.board, *self.spec)
        self.running[actor.run.remote()] = (name, actor)

    def drain(self) -> None:
        """Write the episodes reported since the last call into the run folder."""
        for event, files in self.ray.get(self.board.take_events.remote()):
            if files is not None:
                try:
                    unpack_episode(self.out, str(event["episode_id"]), files)
                except (OSError, ValueError) as e:  # the run goes on; a re-run records it again
                    episode = event.get("episode_id")
                    print(f"{self.out}: episode {episode!r} not written: {e}", file=sys.stderr)
            self.finished += 1
            self.ok += bool(event.get("success"))
            if self.on_episode is not None:
                self.on_episode(event)

    def settle(self, ref: Any) -> bool:
        """Account for an actor that returned or died; True if it died holding jobs to run again."""
        ray = self.ray
        name, actor = self.running.pop(ref)
        try:
            steps, _seconds, given_up = ray.get(ref)
        except (ray.exceptions.RayActorError, ray.exceptions.RayTaskError) as e:
            self.drain()  # what it reported before it died
            error = f"{type(e).__name__}: {(str(e).splitlines() or [''])[0]}"
            retry = []
            for job in ray.get(self.board.release.remote(name)):
                self.tries[job] = self.tries.get(job, 0) + 1
                if self.tries[job] < 2:
                    retry.append(job)
                else:
                    self.failed.append((job, error))
                    self.finished += 1
            ray.get(self.board.put_back.remote(retry))
            return True
        finally:
            ray.kill(actor)
        self.steps += steps
        self.finished += len(given_up)
        self.failed.extend(given_up)
        ray.get(self.board.release.remote(name))
        return False


def run_on_ray(
    options: RayOptions,
    out: Path,
    worker: Worker,
    jobs: list[Job],
    num_envs: int,
    on_episode: Callable[[dict[str, Any]], None] | None = None,
    progress: bool = True,
) -> tuple[int, float, list[tuple[Job, str]]]:
    """Run ``jobs`` on Ray actors: (steps, seconds, jobs given up with their error), as ``run_jobs``
    returns them. Finished episodes end up in ``out`` whichever node ran them."""
    import ray
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    out = Path(out).resolve()
    with ray_session(options):
        board: Any = ray.remote(num_cpus=0)(JobBoard).remote(list(jobs))  # Any: an actor handle
        marker = make_marker(out)
        spec = (str(marker), dataclasses.replace(worker, out=str(out)), num_envs, options.ship)
        run = _Run(options, out, board, spec, on_episode)
        wanted = max(1, min(options.actors or _alive_nodes(), len(jobs)))
        columns = [TextColumn("[bold]collect on ray"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   TextColumn("{task.fields[rate]}")]  # fmt: skip
        t0 = time.perf_counter()
        try:
            with Progress(*columns, disable=not progress) as bar:
                shown = bar.add_task("episodes", total=len(jobs), rate="")
                for _ in range(wanted):
                    run.start()
                while run.running:
                    ready, _ = ray.wait(list(run.running), num_returns=1, timeout=0.25)
                    run.drain()
                    for ref in ready:
                        died = run.settle(ref)
                        more = ray.get(board.remaining.remote()) > 0
                        if died and more and run.started < 2 * wanted:  # a replacement, at most one per actor
                            run.start()
                    elapsed = time.perf_counter() - t0
                    rate = f"{run.finished / elapsed:.2f} ep/s  SR {run.ok / max(run.finished, 1):.0%}"
                    bar.update(shown, completed=run.finished, rate=f"{rate}  {len(run.running)} actors")
            run.failed.extend((job, "no Ray actor was left to run it") for job in _drain_queue(board))
        finally:
            for _, actor in run.running.values():
                ray.kill(actor)
            ray.kill(board)
            marker.unlink(missing_ok=True)
    return run.steps, time.perf_counter() - t0, run.failed


def _drain_queue(board: Any) -> list[Job]:
    """Jobs still on the board after the last actor ended (every replacement used up)."""
    import ray

    left: list[Job] = []
    while (job := ray.get(board.pull.remote(""))) is not None:
        left.append(job)
    return left
