"""API actions beside the GUI (AgentStudio's): named functions an agent may call, opt-in per env.

``CrabEnv(api_actions=True)`` (``gym.make(..., api_actions=True)``) appends each device's API actions to its
action table, after the GUI actions, so the GUI actions keep their indices and, with the option off, every
space is unchanged. The actions themselves live with their device: :mod:`crab_gym.envs.desktop.api_actions`
(a shell command as the session user, a file in its HOME) and :mod:`crab_gym.envs.android.api_actions`
(``adb shell``, an SMS, a contact). This module is the light table the dialects read (no device imports);
``crab_gym.env_devices.add_api_actions`` adds the actions to a sub-env.
"""

from __future__ import annotations

API_ACTIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "ubuntu": {"shell": ("command", "timeout"), "read_file": ("path",), "write_file": ("path", "content")},
    "android": {"adb_shell": ("command",), "send_sms": ("to", "body"), "add_contact": ("name", "number")},
}
"""Per device: each API action's name and its parameter names in order (positional arguments in code)."""

OUTPUT_CAP = 16 * 1024
"""Most characters of a command's output an action returns (the rest is cut, and ``truncated`` says so)."""


def api_device(name: str) -> str | None:
    """The device an API action belongs to (each name is on one device only), or None."""
    return next((dev for dev, names in API_ACTIONS.items() if name in names), None)


def command_result(output: bytes, exit_code: int | None, timed_out: bool = False) -> dict[str, object]:
    """What a shell action returns: the exit code and the (capped) output; a failure is a result too."""
    text = output.decode(errors="replace")
    return {
        "exit_code": exit_code,
        "output": text[:OUTPUT_CAP],
        "truncated": len(text) > OUTPUT_CAP,
        "timed_out": timed_out,
    }
