"""Where collect and eval run on Ray: a local Ray started for the run, or a cluster joined by address; and
the ``--ray`` / ``--ray-address`` / ``--ray-actors`` arguments that choose it."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["RayOptions", "add_ray_arguments", "ray_options", "ray_session"]


@dataclass(frozen=True)
class RayOptions:
    """``address``: a cluster to join (``auto``, ``HOST:6379``, ``ray://HOST:10001``); None starts a local
    Ray (``num_cpus`` of it, all cores by default) unless one is already running in this process.
    ``actors``: how many collect actors, each with a pool of ``num_envs`` workers (0: one per node);
    ``actor_cpus``: the CPUs each reserves, which is how Ray spreads them over the nodes. ``ship``: whether
    actors send finished episodes to the driver instead of writing the run folder themselves (None: only
    actors on nodes that do not see the run folder; True: all of them)."""

    address: str | None = None
    actors: int = 0
    actor_cpus: float = 1.0
    num_cpus: int | None = None
    ship: bool | None = None

    def describe(self) -> dict[str, object]:
        return {"address": self.address or "local", "actors": self.actors or "one per node"}


@contextmanager
def ray_session(options: RayOptions) -> Iterator[None]:
    """Ray, initialised for the duration: the one this process already runs, else a cluster joined (or a
    local one started) here and shut down at the end."""
    import ray

    if ray.is_initialized():
        yield
        return
    if options.address:
        ray.init(address=options.address)
    else:
        ray.init(num_cpus=options.num_cpus, include_dashboard=False)
    try:
        yield
    finally:
        ray.shutdown()


def _actors(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give 0 (one actor per node) or a positive count")
    return n


def add_ray_arguments(parser: argparse.ArgumentParser) -> None:
    """``--ray``, ``--ray-address`` and ``--ray-actors`` on a collect or eval parser."""
    parser.add_argument("--ray", action="store_true", help="run on Ray actors (a local Ray started here)")
    parser.add_argument(
        "--ray-address", default="", help="run on this Ray cluster (auto, HOST:6379, ray://HOST:10001)"
    )
    parser.add_argument(
        "--ray-actors", type=_actors, default=0, help="Ray: actors, each with a worker pool (0: one per node)"
    )


def ray_options(args: argparse.Namespace) -> RayOptions | None:
    """The RayOptions the arguments ask for; None without ``--ray`` or ``--ray-address``."""
    if not (args.ray or args.ray_address):
        return None
    return RayOptions(address=args.ray_address or None, actors=args.ray_actors)
