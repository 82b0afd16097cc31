"""Beyond one machine, on Ray: collect and eval on actors that each hold a worker pool (``collect(...,
ray=RayOptions(...))``, ``crab-gym collect|eval --ray`` or ``--ray-address``), and RLlib registration of the
env ids with device slots per node. Ray is imported only when used (extra ``ray``). See docs/distributed.md.
"""

from __future__ import annotations

from crab_gym.runs.distributed.options import RayOptions, add_ray_arguments, ray_options, ray_session
from crab_gym.runs.distributed.slots import DeviceSlot, resolve_backends, slot_limit

__all__ = [
    "DeviceSlot",
    "RayOptions",
    "add_ray_arguments",
    "ray_options",
    "ray_session",
    "register_rllib_envs",
    "resolve_backends",
    "slot_limit",
]


def register_rllib_envs() -> tuple[str, ...]:
    """Register the three env ids with RLlib (see :mod:`crab_gym.runs.distributed.rllib`)."""
    from crab_gym.runs.distributed.rllib import register_rllib_envs as register

    return register()
