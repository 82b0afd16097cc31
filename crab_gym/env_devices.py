"""The devices of a CrabEnv: building a sub-env from its name and backend string, adding its API actions, and
the lazy view of their states that the graph evaluator reads."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from crab_gym.core.actions import ActionSpec
from crab_gym.envs.backend_spec import parse_backend
from crab_gym.envs.base import SubEnv
from crab_gym.envs.root import RootEnv


def make_subenv(name: str, backend: str | None, realtime: bool = False) -> SubEnv:
    """A sub-env by device name and backend string (:func:`~crab_gym.envs.backend_spec.parse_backend`):
    ``xvfb`` or ``libvirt[:<domain>][@<uri>]`` for the desktop; ``sim``, ``adb-sim``, ``adb:<serial>`` or
    ``androidenv`` for the phone. ``realtime``: the simulated phone's clock runs with the wall clock (the
    desktop and a real phone always do)."""
    if name == "root":
        return RootEnv()
    if name == "ubuntu":
        from crab_gym.envs.desktop import DesktopEnv

        return DesktopEnv(parse_backend(name, backend))
    if name == "android":
        from crab_gym.envs.android.subenv import AndroidEnv

        return AndroidEnv(parse_backend(name, backend), realtime=realtime)
    raise ValueError(f"unknown device {name!r}; devices: ubuntu, android, root")


def add_api_actions(sub: SubEnv) -> None:
    """Append the device's API actions (:mod:`crab_gym.envs.api_actions`) to this sub-env's action table,
    after its GUI actions, whose indices stay; a device without any is left as it is."""
    extra: tuple[ActionSpec, ...] = ()
    if sub.name == "ubuntu":
        from crab_gym.envs.desktop import DesktopEnv
        from crab_gym.envs.desktop.api_actions import ACTIONS as extra

        kind = sub.spec.kind if isinstance(sub, DesktopEnv) else type(sub).__name__
        if kind != "xvfb":
            raise ValueError(f"api_actions: the desktop's API actions need the xvfb backend, not {kind}")
    elif sub.name == "android":
        from crab_gym.envs.android.api_actions import ACTIONS as extra
    if extra and not any(a is extra[0] for a in sub.actions):
        sub.actions = (*sub.actions, *extra)


class LazyStates(Mapping[str, Any]):
    """Device states for evaluators, read only when a check asks (each sub-env caches per step)."""

    def __init__(self, subenvs: Mapping[str, SubEnv]) -> None:
        self._subenvs = subenvs

    def __getitem__(self, name: str) -> Any:
        return self._subenvs[name].state()

    def __iter__(self) -> Iterator[str]:
        return iter(self._subenvs)

    def __len__(self) -> int:
        return len(self._subenvs)
