"""crab-gym: GUI agents across a Linux desktop and an Android phone, in one Gymnasium env.

``import crab_gym`` registers the env ids below; ``crab_gym.rollout(env, agent)`` runs one episode;
``crab_gym.make_vec(env_id, num_envs, workers=W)`` makes a batched vector env.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gymnasium.envs.registration import register

from crab_gym.rollout import rollout

if TYPE_CHECKING:
    from crab_gym.vector import make_vec

__all__ = ["make_vec", "rollout"]


def __getattr__(name: str) -> Any:
    """``make_vec``, imported when first asked for: a process that makes one env needs no vector code.

    (Registration names entry points as strings, so ``gym.make`` imports only the env it makes.)
    """
    if name == "make_vec":
        from crab_gym.vector import make_vec

        return make_vec
    raise AttributeError(f"module 'crab_gym' has no attribute {name!r}")


__version__ = "0.1.0"

# Every id is nondeterministic: real applications repaint, start and save on their own schedule, so the
# same actions from the same seed can yield different frames (and, rarely, different timing of state).
register(
    id="Crab-Desktop-v0",
    entry_point="crab_gym.env:CrabEnv",
    nondeterministic=True,
    kwargs={"devices": ("ubuntu", "root")},
)

# The simulated phone is deterministic, but the same ids drive a real phone or emulator over adb (its own
# schedule of animations and saves) and, in Crab-v0, the desktop: so these are nondeterministic too.
register(
    id="Crab-Android-v0",
    entry_point="crab_gym.env:CrabEnv",
    nondeterministic=True,
    kwargs={"devices": ("android", "root")},
)
register(
    id="Crab-v0",
    entry_point="crab_gym.env:CrabEnv",
    nondeterministic=True,
    kwargs={"devices": ("ubuntu", "android", "root")},
)
