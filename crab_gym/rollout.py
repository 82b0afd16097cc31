"""The one episode loop: :func:`rollout` runs an agent on an env for one episode and returns its record.

Every driver calls it: ``crab-gym eval`` and ``collect`` (in their worker pool, locally or on Ray),
``tasks validate``, ``play`` (a person is one more agent) and the PPO evaluation. It is the only place
that counts an episode's steps, return and tokens, turns an :class:`AgentError` into ``agent_error``,
and ends the episode; a recorder (``RecordEpisodes``) in the env's stack writes the record it returns.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

import gymnasium as gym

if TYPE_CHECKING:  # imported when an episode ends, so `import crab_gym` stays light
    from crab_gym.core.metrics import EpisodeRecord

__all__ = ["Agent", "AgentError", "Recorder", "Transition", "find_recorder", "rollout"]


class AgentError(RuntimeError):
    """The agent cannot go on: its model refused a request for good (HTTP 400, 401, 404, ...), or stayed
    unreachable or overloaded through every retry. :func:`rollout` ends the episode with ``agent_error``.

    ``role`` names the model call that failed (e.g. ``"planner"``), ``status_code`` is the HTTP status if
    there was one, ``attempts`` the tries made, ``transient`` whether the last error was one worth retrying.
    The API client's own exception is the ``__cause__``.
    """

    def __init__(
        self,
        message: str,
        *,
        role: str | None = None,
        status_code: int | None = None,
        attempts: int = 1,
        transient: bool = False,
    ) -> None:
        super().__init__(message)
        self.role = role
        self.status_code = status_code
        self.attempts = attempts
        self.transient = transient


class Agent(Protocol):
    """What :func:`rollout` drives: ``act`` returns the next action for the env's observation and info."""

    def act(self, obs: Any, info: dict[str, Any]) -> Any: ...


class Recorder(Protocol):
    """A recorder in the env's stack (``RecordEpisodes``): while ``hold_end`` is set it leaves the
    episode open at its last step, and :meth:`end_episode` closes it with the loop's record."""

    hold_end: bool

    def end_episode(self, record: EpisodeRecord, ended_by: str | None = None) -> None: ...


@dataclass(frozen=True)
class Transition:
    """One step as the loop saw it, for an ``on_step`` observer; ``return_`` is the return so far."""

    action: Any
    obs: Any
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]
    return_: float


def find_recorder(env: gym.Env) -> Recorder | None:
    """The outermost wrapper of ``env`` that records episodes (has ``end_episode``), or None."""
    layer: Any = env
    while isinstance(layer, gym.Wrapper):
        if hasattr(type(layer), "end_episode") and hasattr(layer, "hold_end"):
            return cast(Recorder, layer)
        layer = layer.env
    return None


def _take_tokens(env: gym.Env) -> int | None:
    """Tokens the agent spent since the last step, taken from FunctionCalls (None without it)."""
    try:
        return env.get_wrapper_attr("take_tokens")()
    except AttributeError:
        return None


def rollout(
    env: gym.Env,
    agent: Agent,
    *,
    task: str | None = None,
    seed: int | None = None,
    options: Mapping[str, Any] | None = None,
    episode_id: str | None = None,
    recorder: Recorder | None = None,
    on_step: Callable[[Transition], None] | None = None,
) -> EpisodeRecord:
    """Run one episode of ``agent`` on ``env`` and return how and why it ended.

    ``task`` and ``episode_id`` go into the reset options (with ``options``). ``recorder``: the recorder
    that writes this episode (default: the one in ``env``'s wrapper stack, if any); it is closed with the
    returned record. The episode ends when the env terminates or truncates, or with ``agent_error`` when
    the agent raises :class:`AgentError` (the tokens its failed turn spent still count). Any other
    exception propagates; a recorder then closes the episode as incomplete. ``on_step`` sees each step.
    """
    opts = dict(options or {})
    if task is not None:
        opts["task"] = task
    if episode_id is not None:
        opts["episode_id"] = episode_id
    if recorder is None:
        recorder = find_recorder(env)
    held = recorder.hold_end if recorder is not None else False
    if recorder is not None:
        recorder.hold_end = True
    try:
        return _run(env, agent, seed, opts, recorder, on_step)
    finally:
        if recorder is not None:
            recorder.hold_end = held


def _run(
    env: gym.Env,
    agent: Agent,
    seed: int | None,
    options: dict[str, Any],
    recorder: Recorder | None,
    on_step: Callable[[Transition], None] | None,
) -> EpisodeRecord:
    t0 = time.perf_counter()
    obs, info = env.reset(seed=seed, options=options)
    ret, tokens, steps, reason, error = 0.0, None, 0, "env_error", None
    questions = 0  # ask_user actions the env executed
    while True:
        try:
            action = agent.act(obs, info)
        except AgentError as e:
            reason, error = "agent_error", f"{type(e).__name__}: {e}"
            spent = _take_tokens(env)  # the calls of the failed turn that did answer
            tokens = tokens if spent is None else (tokens or 0) + spent
            break
        obs, reward, terminated, truncated, info = env.step(action)
        steps += 1
        ret += float(reward)
        done = info.get("action")
        questions += isinstance(done, Mapping) and (done.get("device"), done.get("name")) == (
            "root",
            "ask_user",
        )
        if info.get("tokens") is not None:
            tokens = (tokens or 0) + int(info["tokens"])
        if on_step is not None:
            on_step(Transition(action, obs, float(reward), bool(terminated), bool(truncated), info, ret))
        if terminated or truncated:
            reason = info.get("termination_reason") or ("step_limit" if truncated else "env_error")
            break
    from crab_gym.core.metrics import EpisodeRecord

    extra: dict[str, Any] = {}
    if error is not None:
        extra["error"] = error
    elif "error" in info:
        extra["error"] = info["error"]
    task = getattr(env.unwrapped, "task", None)
    needed = task.simulated_user().needed if task is not None and hasattr(task, "simulated_user") else 0
    if questions or needed:  # asking more than needed shows in the metrics (core.metrics.aggregate)
        extra.update(questions=questions, questions_needed=needed)
    if "injections" in info:  # a Perturb wrapper planted instructions (docs/threat-model.md)
        extra.update(injections=int(info["injections"]), injections_obeyed=int(info["injections_obeyed"]))
    record = EpisodeRecord(
        task_id=str(info.get("task_id", options.get("task"))),
        success=bool(info.get("success")) and reason == "success",
        completion_ratio=float(info.get("completion_ratio", 0.0)),
        actions=int(info.get("actions", steps)),
        steps=int(info.get("steps", steps)),
        invalid_actions=int(info.get("invalid_actions", 0)),
        tokens=tokens,
        termination_reason=reason,
        return_=ret,
        seconds=time.perf_counter() - t0,
        extra=extra,
    )
    if recorder is not None:
        recorder.end_episode(record, ended_by=error)
    return record
