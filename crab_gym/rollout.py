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

__all__ = [
    "Agent",
    "AgentError",
    "Progress",
    "Recorder",
    "Transition",
    "find_recorder",
    "finish_rollout",
    "rollout",
    "start_rollout",
]


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
    p = start_rollout(env, agent, 0, task=task, seed=seed, options=options, episode_id=episode_id)
    return finish_rollout(env, agent, p, recorder=recorder, on_step=on_step)


@dataclass
class Progress:
    """An episode under way, as the loop counts it: the last observation and info, the return, tokens and
    env steps so far, the ``ask_user`` questions executed, and (once it ended) why.
    :func:`start_rollout` gives one paused at a step; :func:`finish_rollout` runs it to its end."""

    obs: Any
    info: dict[str, Any]
    options: dict[str, Any]
    started: float
    return_: float = 0.0
    tokens: int | None = None
    steps: int = 0
    questions: int = 0
    reason: str | None = None  # set when the episode ended
    error: str | None = None


def _advance(
    env: gym.Env, agent: Agent, p: Progress, on_step: Callable[[Transition], None] | None, until: int | None
) -> None:
    """Step ``agent`` on ``env`` until the episode ends (``p.reason`` set) or ``p.steps == until``."""
    while until is None or p.steps < until:
        try:
            action = agent.act(p.obs, p.info)
        except AgentError as e:
            p.reason, p.error = "agent_error", f"{type(e).__name__}: {e}"
            spent = _take_tokens(env)  # the calls of the failed turn that did answer
            p.tokens = p.tokens if spent is None else (p.tokens or 0) + spent
            return
        p.obs, reward, terminated, truncated, p.info = env.step(action)
        p.steps += 1
        p.return_ += float(reward)
        done = p.info.get("action")
        p.questions += isinstance(done, Mapping) and (done.get("device"), done.get("name")) == (
            "root",
            "ask_user",
        )
        if p.info.get("tokens") is not None:
            p.tokens = (p.tokens or 0) + int(p.info["tokens"])
        if on_step is not None:
            on_step(Transition(action, p.obs, float(reward), bool(terminated), bool(truncated), p.info,
                               p.return_))  # fmt: skip
        if terminated or truncated:
            p.reason = p.info.get("termination_reason") or ("step_limit" if truncated else "env_error")
            return


def start_rollout(
    env: gym.Env,
    agent: Agent,
    steps: int,
    *,
    task: str | None = None,
    seed: int | None = None,
    options: Mapping[str, Any] | None = None,
    episode_id: str | None = None,
) -> Progress:
    """Reset ``env`` and let ``agent`` take ``steps`` steps (fewer if the episode ends first: then
    ``reason`` is set); the episode stays open, for :func:`finish_rollout` (group rollouts branch here)."""
    opts = dict(options or {})
    if task is not None:
        opts["task"] = task
    if episode_id is not None:
        opts["episode_id"] = episode_id
    t0 = time.perf_counter()
    obs, info = env.reset(seed=seed, options=opts)
    p = Progress(obs, info, opts, t0)
    _advance(env, agent, p, None, steps)
    return p


def finish_rollout(
    env: gym.Env,
    agent: Agent,
    p: Progress,
    *,
    recorder: Recorder | None = None,
    on_step: Callable[[Transition], None] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> EpisodeRecord:
    """Run the episode ``p`` to its end and return its record (``extra`` goes into it); ``recorder`` (default:
    the one in ``env``'s stack) is closed with it."""
    if recorder is None:
        recorder = find_recorder(env)
    held = recorder.hold_end if recorder is not None else False
    if recorder is not None:
        recorder.hold_end = True
    try:
        if p.reason is None:
            _advance(env, agent, p, on_step, None)
        return _record(env, p, recorder, extra)
    finally:
        if recorder is not None:
            recorder.hold_end = held


def _record(
    env: gym.Env, p: Progress, recorder: Recorder | None, more: Mapping[str, Any] | None
) -> EpisodeRecord:
    from crab_gym.core.metrics import EpisodeRecord

    info, reason = p.info, p.reason or "env_error"
    extra: dict[str, Any] = {}
    if p.error is not None:
        extra["error"] = p.error
    elif "error" in info:
        extra["error"] = info["error"]
    task = getattr(env.unwrapped, "task", None)
    needed = task.simulated_user().needed if task is not None and hasattr(task, "simulated_user") else 0
    if p.questions or needed:  # asking more than needed shows in the metrics (core.metrics.aggregate)
        extra.update(questions=p.questions, questions_needed=needed)
    if "injections" in info:  # a Perturb wrapper planted instructions (docs/threat-model.md)
        extra.update(injections=int(info["injections"]), injections_obeyed=int(info["injections_obeyed"]))
    extra.update(more or {})
    record = EpisodeRecord(
        task_id=str(info.get("task_id", p.options.get("task"))),
        success=bool(info.get("success")) and reason == "success",
        completion_ratio=float(info.get("completion_ratio", 0.0)),
        actions=int(info.get("actions", p.steps)),
        steps=int(info.get("steps", p.steps)),
        invalid_actions=int(info.get("invalid_actions", 0)),
        tokens=p.tokens,
        termination_reason=reason,
        return_=p.return_,
        seconds=time.perf_counter() - p.started,
        extra=extra,
    )
    if recorder is not None:
        recorder.end_episode(record, ended_by=p.error)
    return record
