"""An env driven from outside: one thread runs every env call, and its episodes are :func:`rollout`\\ s whose
agent (:class:`RemoteAgent`) waits for the next action to arrive as a command.

``crab-gym play`` (a person in the browser) and ``crab-gym mcp`` (an MCP client) are such drivers. Callers
queue commands (:meth:`RolloutThread.run` from asyncio, :meth:`RolloutThread.submit` from anywhere); the
thread runs them one at a time, so the devices are only ever touched from it. While the agent waits, other
commands (screens, marks) run; an ``act`` command is the agent's next action; a ``reset`` or ``close`` ends
the episode unfinished (the recorder closes it as incomplete) and then runs. No action within
``idle_timeout`` seconds ends the episode with ``agent_error``.

A subclass makes ``env`` and defines ``reset`` (which calls :meth:`RolloutThread.episode` and returns
:data:`DEFERRED`), ``act``, ``encode`` (an ``act`` command's arguments as the env's action, or
:class:`CommandError`) and ``answer`` (reply to the command waiting for the observation, in ``self.reply``).
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, TypeVar

from crab_gym.rollout import AgentError, Transition, rollout

if TYPE_CHECKING:
    import gymnasium as gym

    from crab_gym.core.metrics import EpisodeRecord

__all__ = ["DEFERRED", "CommandError", "RemoteAgent", "RolloutThread"]

T = TypeVar("T")
Command = tuple[Callable[..., Any], tuple[Any, ...], "Future[Any]"]
DEFERRED = object()
"""What a command returns when its answer comes later (a reset or an action: with the next observation)."""


class CommandError(Exception):
    """A command that cannot be done (an unknown task, a malformed action); the episode goes on."""


class _Drop(Exception):
    """Ends the running episode unfinished (recorded as incomplete): a reset or a close came."""

    def __init__(self, command: Command) -> None:
        super().__init__("the episode was left unfinished")
        self.command = command


class RemoteAgent:
    """The driver as an agent of :func:`crab_gym.rollout`: ``act`` waits for the next ``act`` command."""

    def __init__(self, owner: RolloutThread) -> None:
        self.owner = owner

    def act(self, obs: Any, info: dict[str, Any]) -> Any:
        return self.owner._next_action(obs, info)


class RolloutThread:
    """Commands run on one thread of their own; see the module docstring for what a subclass provides."""

    idle_timeout: float = 1800.0
    error: type[CommandError] = CommandError  # what the subclass raises for a command it cannot do

    def __init__(self, prefix: str, idle_timeout: float) -> None:
        """Start the thread, named ``prefix-<id>`` (``self.id``: 8 hex digits)."""
        self.id = uuid.uuid4().hex[:8]
        self.idle_timeout = idle_timeout
        self.env: Any = None  # the env (its wrappers included), made on the thread
        self.reply: Future[Any] | None = None  # the reset or action answered by the next observation
        self.current: Future[Any] | None = None  # the command being run
        self._commands: queue.SimpleQueue[Command | None] = queue.SimpleQueue()
        self._next: Command | None = None  # a command that ended an episode, run next
        self._waiting = False  # the agent waits for an action
        self._thread = threading.Thread(target=self._serve, name=f"{prefix}-{self.id}", daemon=True)
        self._thread.start()

    # ---- what a subclass provides --------------------------------------------------------------
    def reset(self, *args: Any) -> Any:
        raise NotImplementedError

    def act(self, *args: Any) -> Any:
        raise NotImplementedError

    def close(self) -> None:
        """Close the env: an unfinished episode is recorded as incomplete, the devices stop."""
        env, self.env = self.env, None
        if env is not None:
            env.close()

    @property
    def crab(self) -> Any:
        """The CrabEnv below the wrappers."""
        if self.env is None:
            raise self.error("the session has no env yet")
        return self.env.unwrapped

    def encode(self, *args: Any) -> Any:
        """An ``act`` command's arguments as the env's action; :class:`CommandError` if they are not one."""
        raise NotImplementedError

    def answer(self, obs: Any, info: Mapping[str, Any]) -> None:
        """Answer ``self.reply`` (if any) now that the reset or the action has its observation."""
        raise NotImplementedError

    def check_reset(self, *args: Any) -> tuple[Any, ...]:
        """A reset's arguments checked before it ends a running episode (raise CommandError to refuse)."""
        return args

    # ---- calling in ----------------------------------------------------------------------------
    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        """Queue ``fn(*args)`` for the thread; the future holds its result."""
        future: Future[T] = Future()
        self._commands.put((fn, args, future))
        return future

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` on the thread and await its result."""
        return await asyncio.wrap_future(self.submit(fn, *args))

    def shutdown(self) -> None:
        """Let the thread end (after :meth:`close` ran on it)."""
        self._commands.put(None)

    # ---- on the thread -------------------------------------------------------------------------
    def _serve(self) -> None:
        while True:
            command, self._next = self._next or self._commands.get(), None
            if command is None:
                return
            self._execute(command)

    def _is(self, fn: Callable[..., Any], *names: str) -> bool:
        method = getattr(fn, "__func__", None)
        return method is not None and any(method is getattr(type(self), n) for n in names)

    def _execute(self, command: Command) -> None:
        """Run a command; during an episode, a reset (with valid arguments) or a close first ends it."""
        fn, args, future = command
        if self._waiting and self._is(fn, "reset", "close"):
            if self._is(fn, "reset"):
                try:
                    args = self.check_reset(*args)
                except CommandError as e:  # e.g. an unknown task: the episode goes on
                    future.set_exception(e)
                    return
            raise _Drop((fn, args, future))
        if not future.set_running_or_notify_cancel():
            return
        self.current = future
        try:
            result = fn(*args)
        except _Drop:
            raise
        except BaseException as e:  # noqa: BLE001 - the caller gets it
            future.set_exception(e)
            return
        if result is not DEFERRED:
            future.set_result(result)

    def episode(
        self,
        env: gym.Env,
        *,
        on_step: Callable[[Transition], None] | None = None,
        **kwargs: Any,
    ) -> EpisodeRecord | None:
        """Run one :func:`rollout` of ``env`` with the :class:`RemoteAgent` (call it from ``reset``; the reset
        command is answered with the first observation). None if a reset or close ended it (that command
        runs next); any other exception propagates (the recorder closed the episode as incomplete)."""
        self.reply = self.current
        try:
            return rollout(env, RemoteAgent(self), on_step=on_step, **kwargs)
        except _Drop as e:
            self._next = e.command
            return None

    def _next_action(self, obs: Any, info: Mapping[str, Any]) -> Any:
        """The next action (the agent's ``act``): answer the last request, then run the other commands
        until an ``act`` comes; AgentError after ``idle_timeout`` seconds without one."""
        self.answer(obs, info)
        deadline = time.monotonic() + self.idle_timeout
        self._waiting = True
        try:
            while (left := deadline - time.monotonic()) > 0:
                try:
                    command = self._commands.get(timeout=left)
                except queue.Empty:
                    break
                if command is None:  # shut down without a close: leave the episode
                    self._commands.put(None)
                    raise _Drop((lambda: None, (), Future()))
                fn, args, future = command
                if not self._is(fn, "act"):
                    self._execute(command)
                    continue
                if not future.set_running_or_notify_cancel():
                    continue
                try:
                    encoded = self.encode(*args)
                except CommandError as e:
                    future.set_exception(e)
                    continue
                self.reply = future
                return encoded
        finally:
            self._waiting = False
        raise AgentError(f"no action came in {self.idle_timeout:.0f} s")
