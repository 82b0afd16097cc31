"""The SubEnv contract (one device, no task knowledge) and the conformance kit every sub-env must pass."""

from __future__ import annotations

import abc
import pickle
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from crab_gym.core.actions import ActionSpec, InvalidAction


@dataclass
class ActionResult:
    """What one action did: an optional output (e.g. a submitted answer) and extra info."""

    output: Any = None
    info: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class UIElement:
    """An interactive element on a screen, in pixels of the device's frame."""

    box: tuple[int, int, int, int]  # x1, y1, x2, y2
    role: str
    name: str = ""
    source: str = ""


def clip_box(box: tuple[int, int, int, int], size: tuple[int, int]) -> tuple[int, int, int, int] | None:
    """An (x1, y1, x2, y2) box cut to a screen of ``size`` (w, h); None when less than 2 px a side is left."""
    w, h = size
    x1, y1, x2, y2 = max(box[0], 0), max(box[1], 0), min(box[2], w), min(box[3], h)
    return (x1, y1, x2, y2) if x2 - x1 >= 2 and y2 - y1 >= 2 else None


class DeviceError(RuntimeError):
    """The device could not be reached or failed; the next ``reset()`` recovers."""


class DeviceGone(DeviceError):
    """A device we do not own (an adb serial) did not come back within its wait: rebuilding cannot help."""


class SubEnv(abc.ABC):
    """One device. It knows nothing about tasks or rewards."""

    name: str
    description: str
    actions: Sequence[ActionSpec]
    # The packages of the task the next reset() sets up (CrabEnv sets them): a device that cannot be put back
    # whole (a physical phone) clears these apps' data.
    task_apps: tuple[str, ...] = ()

    @property
    @abc.abstractmethod
    def screen_size(self) -> tuple[int, int]:
        """(width, height) of the frames ``screenshot()`` returns; 0x0 for a screenless device."""

    @abc.abstractmethod
    def reset(self, seed: int | None = None) -> None:
        """Return to the pristine state."""

    def execute(self, spec: ActionSpec, params: Mapping[str, Any]) -> ActionResult:
        """Perform one action; raise InvalidAction for bad params or a spec this device does not have."""
        if not any(spec is a for a in self.actions):
            raise InvalidAction(f"{self.name} has no action {spec.name!r}; it has {self.action_names()}")
        result = spec(self, **params)
        self.invalidate_state()
        return result if isinstance(result, ActionResult) else ActionResult(output=result)

    @abc.abstractmethod
    def screenshot(self) -> np.ndarray:
        """The current frame, (H, W, 3) uint8, at ``screen_size``."""

    def settle(self) -> None:  # noqa: B027 - optional hook
        """Return once the screen stopped changing (bounded); default: nothing to wait for."""

    @abc.abstractmethod
    def state(self) -> Any:
        """A read-only view of device state for evaluators, cached until the next action."""

    def invalidate_state(self) -> None:  # noqa: B027 - optional hook
        """Drop the cached state view (called after every action)."""

    def invalidate_screen(self) -> None:  # noqa: B027 - optional hook
        """Drop a cached frame: something other than an action changed the screen (a wrapper's pop-up)."""

    def ui_elements(self) -> list[UIElement]:
        """Interactive elements with boxes, for Set-of-Marks; none by default."""
        return []

    @abc.abstractmethod
    def close(self) -> None:
        """Release the device; idempotent."""

    def identity(self) -> dict[str, Any]:
        """Plain values telling this device apart from others of its kind; none by default."""
        return {}

    def action_names(self) -> list[str]:
        return [a.name for a in self.actions]

    def action(self, name: str) -> ActionSpec:
        for spec in self.actions:
            if spec.name == name:
                return spec
        raise InvalidAction(f"{self.name} has no action {name!r}; it has {self.action_names()}")

    def __enter__(self) -> SubEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SubEnvConformance:
    """Pytest mixin: subclass it and provide ``make_subenv()``, ``mutate(sub)`` and
    ``state_fingerprint(sub)``; the tests run.

    A new backend is done when these pass: reset is pristine, actions validate, screenshots have the
    promised shape, state reads are read-only and cached, close is idempotent. The pristine-reset test
    demands a real fingerprint: one that ``mutate`` changes and ``reset`` brings back.
    """

    def make_subenv(self) -> SubEnv:  # pragma: no cover - provided by subclasses
        raise NotImplementedError

    def mutate(self, sub: SubEnv) -> None:
        """Change device state through actions; the kit checks the fingerprint sees it and reset undoes it."""
        raise NotImplementedError(f"{type(self).__name__} must define mutate(sub): change the device's state")

    def state_fingerprint(self, sub: SubEnv) -> Any:
        """A comparable summary of device state (files, rows, screen...); reset must bring it back."""
        raise NotImplementedError(
            f"{type(self).__name__} must define state_fingerprint(sub): a comparable summary of device state"
        )

    def restored_fingerprint(self, sub: SubEnv) -> Any:
        """What a loaded state must bring back: ``state_fingerprint`` unless a backend restores by starting
        processes anew (then without their pids)."""
        return self.state_fingerprint(sub)

    def test_contract_attributes(self) -> None:
        sub = self.make_subenv()
        try:
            assert isinstance(sub.name, str) and sub.name
            assert isinstance(sub.description, str) and sub.description
            names = sub.action_names()
            assert len(names) == len(set(names)), f"duplicate action names: {names}"
            w, h = sub.screen_size
            assert w >= 0 and h >= 0
        finally:
            sub.close()

    def test_screenshot_shape(self) -> None:
        sub = self.make_subenv()
        try:
            sub.reset(seed=0)
            w, h = sub.screen_size
            frame = sub.screenshot()
            assert frame.dtype == np.uint8 and frame.shape == (h, w, 3)
        finally:
            sub.close()

    def test_invalid_params_rejected(self) -> None:
        sub = self.make_subenv()
        try:
            sub.reset(seed=0)
            for spec in sub.actions:
                if spec.params:
                    try:
                        sub.execute(spec, {"__not_a_param__": 1})
                    except InvalidAction as e:
                        assert spec.name in str(e)
                    else:
                        raise AssertionError(f"{spec.name} accepted an unknown parameter")
            try:
                sub.action("__no_such_action__")
            except InvalidAction as e:
                assert "__no_such_action__" in str(e)
            else:
                raise AssertionError("an unknown action name was accepted")
        finally:
            sub.close()

    def test_state_cached_until_action(self) -> None:
        sub = self.make_subenv()
        try:
            sub.reset(seed=0)
            assert sub.state() is sub.state()
            before = sub.state()
            sub.invalidate_state()
            assert sub.state() is not before
        finally:
            sub.close()

    def test_reset_is_pristine(self) -> None:
        sub = self.make_subenv()
        try:
            sub.reset(seed=0)
            pristine = self.state_fingerprint(sub)
            assert pristine is not None, "state_fingerprint returned None: it must summarise device state"
            self.mutate(sub)
            sub.invalidate_state()
            assert self.state_fingerprint(sub) != pristine, "mutate() left the state fingerprint unchanged"
            sub.reset(seed=0)
            assert self.state_fingerprint(sub) == pristine
        finally:
            sub.close()

    def test_state_round_trip(self) -> None:
        """A state saved after ``mutate`` comes back after a reset (pickled on the way); a device that
        cannot save its state says so with StateUnsupported."""
        from crab_gym.envs.state import Stateful, StateUnsupported  # envs.state imports this module's errors

        sub = self.make_subenv()
        try:
            sub.reset(seed=0)
            self.mutate(sub)
            sub.invalidate_state()
            saved = self.restored_fingerprint(sub)
            if not isinstance(sub, Stateful):
                return
            try:
                state = pickle.loads(pickle.dumps(sub.save_state()))
            except StateUnsupported:
                return
            sub.reset(seed=0)  # a Replay loads onto the start of the task (here: no setup)
            sub.load_state(state)
            sub.invalidate_state()
            assert self.restored_fingerprint(sub) == saved
        finally:
            sub.close()

    def test_close_idempotent(self) -> None:
        sub = self.make_subenv()
        sub.close()
        sub.close()
