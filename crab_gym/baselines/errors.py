"""Errors an agent raises when it cannot choose an action (the runner ends the episode on them)."""

from __future__ import annotations


class AgentError(RuntimeError):
    """The agent cannot go on: its model refused a request for good (HTTP 400, 401, 404, ...), or stayed
    unreachable or overloaded through every retry. A runner ends the episode with ``agent_error``.

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
