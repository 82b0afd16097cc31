"""The policy's view of the phone for PPO: a small factored action and a small observation.

``PolicyView`` wraps :class:`~crab_gym.wrappers.FlattenActions` over ``Crab-Android-v0`` with a small
``obs_size`` — directly (taps go to grid cells), or over :class:`~crab_gym.wrappers.SetOfMarks` with the
phone's uiautomator tree only (taps go to numbered elements):

- action ``MultiDiscrete([kinds, grid x, grid y])`` (grid) or ``MultiDiscrete([kinds, elements])``
  (elements): the kind of action — ``tap``, ``press(home)``, ``press(back)``, ``open_app_drawer()``, then
  ``write_text`` of each of the first ``text_slots`` text candidates of the episode (quoted strings first,
  then numbers: see FlattenActions); ``kinds`` names them — and where a tap goes (ignored by the other
  kinds). An element the screen does not have is an invalid action of the env (no device touched).
- observation ``"screen"``: the phone's frame (H, W, C) uint8; ``"words"``: the instruction as a bag of words
  over a fixed vocabulary (:func:`instruction_words`: lower-case letter runs outside quotes; quoted text and
  numbers are what the agent types, so they are not words; a word outside the vocabulary is dropped);
  ``"recent"``: the kind of the previous action (or none yet) and the step number, one-hot each (a frame this
  small barely changes when text is typed, so "type the text" and "now press Save" would look alike);
  with elements, ``"marks"``: each element's box as fractions of the screen (zeros past the last).
- reset without ``options["task"]`` draws a task family (the template ids of a task) uniformly, then a task
  of that family, and resets the phone with a seed from ``phone_seeds`` (kept to a few: a new phone seed
  builds its databases, ~0.3 s, and the phone keeps the last 8 in memory). With ``solution_starts`` p, a
  share p of episodes then plays the first k steps of the task's scripted solution (k uniform, short of the
  whole) before the policy acts: a start further along the task (a training curriculum, off in evaluation).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from crab_gym.core.tasks import Step, Task
from crab_gym.env_protocol import crab_of
from crab_gym.wrappers.flatten import FlattenActions

__all__ = ["PolicyView", "build_vocabulary", "instruction_words"]

_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")
_WORD = re.compile(r"[a-z]+")
# (kind, action, its FlattenActions parameters); a tap's place and a text's candidate are filled per step
_BASE_KINDS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("tap", "tap", {}),
    ("press(home)", "press", {"button": "home"}),
    ("press(back)", "press", {"button": "back"}),
    ("open_app_drawer()", "open_app_drawer", {}),
)
# only to validate the action
_STAND_INS: dict[str, dict[str, Any]] = {"tap": {"point": (0.5, 0.5)}, "write_text": {"text": "x"}}


def instruction_words(text: str) -> list[str]:
    """The words of an instruction the policy reads: lower-case letter runs, quoted parts left out."""
    return _WORD.findall(_QUOTED.sub(" ", text.lower()))


def build_vocabulary(tasks: Sequence[Task]) -> list[str]:
    """Every word of the tasks' instructions, sorted: the fixed input vocabulary of a policy."""
    return sorted({w for t in tasks for w in instruction_words(t.description)})


def _family(task: Task) -> str:
    return "+".join(s.template.id for s in task.subtasks)


class PolicyView(gym.Wrapper):
    """FlattenActions with a [kind, where] action; the screen, instruction and recent steps observed."""

    def __init__(
        self,
        env: FlattenActions,
        vocabulary: Sequence[str],
        phone_seeds: Sequence[int] = (0,),
        text_slots: int = 2,
        seed: int | None = None,
        solution_starts: float = 0.0,
    ) -> None:
        super().__init__(env)
        if not isinstance(env, FlattenActions):
            raise TypeError(f"PolicyView wraps FlattenActions, got {type(env).__name__}")
        assert isinstance(env.action_space, spaces.MultiDiscrete)
        assert isinstance(env.observation_space, spaces.Dict)
        if not phone_seeds:
            raise ValueError("phone_seeds must name at least one seed")
        self.flat = env
        self.elements = "element" in env.dims  # over SetOfMarks: taps name elements
        self.vocabulary = list(vocabulary)
        self._index = {w: i for i, w in enumerate(self.vocabulary)}
        self.phone_seeds = [int(s) for s in phone_seeds]
        self.text_slots = min(int(text_slots), env.max_text_candidates)
        self.solution_starts = float(solution_starts)
        self.kinds, self._vectors = self._build_kinds()
        if self.elements:
            self._where = [env.dims.index("element")]
            self.action_space = spaces.MultiDiscrete([len(self.kinds), env.action_space.nvec[self._where[0]]])
        else:
            self._where = [env.dims.index("point.x"), env.dims.index("point.y")]
            self.action_space = spaces.MultiDiscrete([len(self.kinds), *env.grid])
        self._max_steps = int(getattr(env.unwrapped, "max_steps", 1))
        self._last_kind, self._t = len(self.kinds), 0  # no action yet, step 0
        screen = env.observation_space["android_screen"]
        assert isinstance(screen, spaces.Box)
        entries: dict[str, spaces.Space] = {
            "screen": screen,
            "words": spaces.Box(0.0, 1.0, (max(1, len(self.vocabulary)),), np.float32),
            "recent": spaces.Box(0.0, 1.0, (len(self.kinds) + 1 + self._max_steps,), np.float32),
        }
        if self.elements:
            marks = env.observation_space["android_marks"]
            assert isinstance(marks, spaces.Box)
            n = int(marks.shape[0])
            entries["marks"] = spaces.Box(0.0, 1.0, (n,), np.float32)
            self._scale = np.tile([screen.shape[1], screen.shape[0]], 2).astype(np.float32)
        self.observation_space = spaces.Dict(entries)
        self._shapes = {k: space.shape or () for k, space in entries.items()}
        tasks: list[Task] = list(crab_of(env).tasks)
        self.families: dict[str, list[str]] = {}
        for t in tasks:
            self.families.setdefault(_family(t), []).append(t.id)
        self._rng = np.random.default_rng(seed)
        self._words = np.zeros(self._shapes["words"], np.float32)
        self._last: dict[str, np.ndarray] = {}

    def _build_kinds(self) -> tuple[list[str], list[np.ndarray]]:
        """Each kind's FlattenActions vector, built from the CrabEnv's codec (FlattenActions itself encodes
        texts only among the current candidates, and elements only among the current marks)."""
        core = crab_of(self.flat)
        codecs = core.codec.codecs
        names, vectors = [], []
        texts = [(f"write_text(candidate {k})", "write_text", {"text": k}) for k in range(self.text_slots)]
        for name, action, params in [*_BASE_KINDS, *texts]:
            validate = _STAND_INS.get(action, params)
            dev, act, _ = core.encode_action("android", action, validate)
            vec = np.zeros(len(self.flat.dims), np.int64)
            vec[0], vec[1] = int(dev), int(act)
            for key, value in params.items():
                vec[self.flat.dims.index(key)] = value if key == "text" else codecs[key].encode(value)
            names.append(name)
            vectors.append(vec)
        return names, vectors

    def flat_action(self, action: Any) -> np.ndarray:
        """The FlattenActions vector of ``[kind, x, y]`` or ``[kind, element]``; ValueError if not one."""
        space = self.action_space
        assert isinstance(space, spaces.MultiDiscrete)
        n = len(space.nvec)
        a = np.asarray(action, dtype=np.float64).reshape(-1)
        if a.shape != (n,) or not np.all(np.isfinite(a) & (a == np.round(a))):
            what = "[kind, element]" if self.elements else "[kind, x, y]"
            raise ValueError(f"an action is {what} ({n} integers); got {action!r}")
        values = [int(v) for v in a]
        if not all(0 <= v < int(k) for v, k in zip(values, space.nvec, strict=True)):
            raise ValueError(f"action {values} outside {space.nvec.tolist()}")
        vec = self._vectors[values[0]].copy()
        if values[0] == 0:
            for dim, v in zip(self._where, values[1:], strict=True):
                vec[dim] = v
        return vec

    # ---- the loop -----------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        options = dict(options or {})
        if "task" not in options:
            family = list(self.families)[int(self._rng.integers(len(self.families)))]
            ids = self.families[family]
            options["task"] = ids[int(self._rng.integers(len(ids)))]
        phone_seed = options.pop("phone_seed", None)
        if phone_seed is None:
            phone_seed = self.phone_seeds[int(self._rng.integers(len(self.phone_seeds)))]
        obs, info = self.env.reset(seed=int(phone_seed), options=options)
        self._words = self.encode_words(info["instruction"])
        self._last_kind, self._t = len(self.kinds), 0
        info["phone_seed"] = int(phone_seed)
        if self.solution_starts > 0 and self._rng.random() < self.solution_starts:
            obs, info = self._play_prefix(obs, info)
        return self._observe(obs), info

    def _play_prefix(self, obs: dict[str, np.ndarray], info: dict[str, Any]):
        """Play the first k steps of the task's scripted solution (see the module docstring)."""
        task = crab_of(self.flat).task
        assert task is not None  # reset() has picked it
        steps = task.solution()
        k = int(self._rng.integers(len(steps)))
        encode = self.flat.env.get_wrapper_attr("encode_action")
        for step in steps[:k]:
            raw, _, terminated, truncated, info = self.flat.env.step(
                encode(step.env, step.action, step.params)
            )
            obs = self.flat.observation(raw)
            self._t += 1
            self._last_kind = self._kind_of(step)
            if terminated or truncated:
                break
        info["solution_prefix"] = k
        return obs, info

    def _kind_of(self, step: Step) -> int:
        if step.action == "write_text":
            text = step.params.get("text")
            k = self.flat.text_candidates.index(text) if text in self.flat.text_candidates else -1
            name = f"write_text(candidate {k})"
        elif step.action == "press":
            name = f"press({step.params.get('button')})"
        else:
            name = "tap" if step.action == "tap" else f"{step.action}()"
        return self.kinds.index(name) if name in self.kinds else len(self.kinds)

    def step(self, action: Any):
        self._t += 1
        try:
            vec = self.flat_action(action)
        except (TypeError, ValueError) as e:
            # no device is touched, so the screen (and the marks) stay as last observed
            self._last_kind = len(self.kinds)
            _, reward, terminated, truncated, info = crab_of(self.env).reject(str(e))
            return self._observe(self._last), reward, terminated, truncated, info
        self._last_kind = int(np.asarray(action, dtype=np.float64).reshape(-1)[0])
        obs, reward, terminated, truncated, info = self.env.step(vec)
        return self._observe(obs), reward, terminated, truncated, info

    def encode_words(self, instruction: str) -> np.ndarray:
        """The bag of words of an instruction over this view's vocabulary."""
        out = np.zeros(self._shapes["words"], np.float32)
        for w in instruction_words(instruction):
            i = self._index.get(w)
            if i is not None:
                out[i] = 1.0
        return out

    def _observe(self, obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        self._last = obs
        recent = np.zeros(self._shapes["recent"], np.float32)
        recent[self._last_kind] = 1.0
        recent[len(self.kinds) + 1 + min(self._t, self._max_steps - 1)] = 1.0
        out: dict[str, np.ndarray] = {
            "screen": obs["android_screen"],
            "words": self._words.copy(),
            "recent": recent,
        }
        if self.elements:
            boxes = np.asarray(obs["android_marks"], np.float32).reshape(-1, 4) / self._scale
            out["marks"] = np.clip(boxes.reshape(-1), 0.0, 1.0)
        return out
