"""The device-less root sub-env: submit an answer, declare the task complete, or wait."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Annotated

import numpy as np

from crab_gym.core.actions import ActionSpec, Bounds, Typable, action
from crab_gym.core.evaluators import evaluator
from crab_gym.core.user import DONT_KNOW, SimulatedUser
from crab_gym.envs.base import ActionResult, SubEnv

Answer = Annotated[str, Bounds(min_length=1, max_length=1024), Typable]  # CRAB submits paragraphs
Seconds = Annotated[int, Bounds(ge=1, le=5)]
Question = Annotated[str, Bounds(min_length=1, max_length=512), Typable]


@dataclass(frozen=True)
class RootState:
    answer: str | None
    completed: bool
    questions: tuple[tuple[str, str], ...] = ()  # (question, reply) of every ask_user, in order


@action
def submit(env: RootEnv, answer: Answer) -> ActionResult:
    """Submit the answer the task asks for; this ends the episode.

    Args:
        answer: The answer, as text.
    """
    env.answer = answer
    return ActionResult(output=answer, info={"ends_episode": True})


@action
def complete(env: RootEnv) -> ActionResult:
    """Declare the task complete; this ends the episode."""
    env.completed = True
    return ActionResult(info={"ends_episode": True})


@action
def wait(env: RootEnv, seconds: Seconds = 1) -> ActionResult:
    """Do nothing for a while, letting applications finish what they are doing.

    Args:
        seconds: How long to wait, 1 to 5 seconds.
    """
    time.sleep(seconds * env.time_scale)
    return ActionResult(info={"waited": seconds})


@action
def ask_user(env: RootEnv, question: Question) -> ActionResult:
    """Ask the user for a fact the task leaves out; the reply is the action's output (only when needed).

    Args:
        question: The question, as text.
    """
    reply, told = env.user.answer(question) if env.user is not None else (DONT_KNOW, ())
    env.questions.append((question, reply))
    return ActionResult(output=reply, info={"told": list(told)})  # which hidden attributes it told


class RootEnv(SubEnv):
    """Answers, "I'm done", and waiting: the actions that touch no device."""

    name = "root"
    description = (
        "Not a device: submit(answer) gives an answer, complete() ends the task, wait() lets time pass."
    )
    actions: tuple[ActionSpec, ...] = (submit, complete, wait)

    def __init__(self, time_scale: float = 1.0) -> None:
        self.time_scale = time_scale  # tests and the oracle shorten waits
        self.answer: str | None = None
        self.completed = False
        self.user: SimulatedUser | None = None  # the task's, set by Task.setup after reset
        self.questions: list[tuple[str, str]] = []
        self._state: RootState | None = None

    def add_ask_user(self) -> None:
        """Add ``ask_user`` after the other root actions (whose indices stay)."""
        if ask_user not in self.actions:
            self.actions = (*self.actions, ask_user)
            self.description += " ask_user(question) asks the user for a fact the task leaves out."

    @property
    def screen_size(self) -> tuple[int, int]:
        return (0, 0)

    def reset(self, seed: int | None = None) -> None:
        self.answer, self.completed, self._state = None, False, None
        self.user, self.questions = None, []

    def screenshot(self) -> np.ndarray:
        return np.zeros((0, 0, 3), dtype=np.uint8)

    def state(self) -> RootState:
        if self._state is None:
            self._state = RootState(self.answer, self.completed, tuple(self.questions))
        return self._state

    def invalidate_state(self) -> None:
        self._state = None

    def save_state(self) -> tuple[str | None, bool, tuple[tuple[str, str], ...]]:
        """The answer given, whether the task was declared complete, and the questions asked (the user who
        answers them is the task's: the env sets it)."""
        return self.answer, self.completed, tuple(self.questions)

    def load_state(self, state: tuple[str | None, bool, tuple[tuple[str, str], ...]]) -> None:
        self.answer, self.completed, questions = state
        self.questions = list(questions)
        self._state = None

    def close(self) -> None:
        pass


@evaluator(env="root")
def answer_equals(state: RootState, value: str) -> bool:
    """the submitted answer is {value!r}"""
    return state.answer is not None and state.answer.strip().lower() == value.strip().lower()


@evaluator(env="root")
def answer_contains(state: RootState, text: str) -> bool:
    """the submitted answer contains {text!r}"""
    return state.answer is not None and text.lower() in state.answer.lower()
