"""The desktop's API actions (opt-in, see :mod:`crab_gym.envs.api_actions`): a shell command and a file in
HOME, each run as the session user inside the session (its namespace, its HOME), never as us.

A command is bounded (``timeout`` seconds, output cut at OUTPUT_CAP; one still writing past four times that
is killed, exit code -9); a command that fails is a result (its exit code and output). Paths are confined
to HOME: ``..`` and a symlink leading out are refused, and the file is read and written by the session
user, so even a path swapped afterwards reaches only its files.
"""

from __future__ import annotations

import os
import select
import signal
import time
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from crab_gym.core.actions import InvalidAction, action
from crab_gym.envs.api_actions import OUTPUT_CAP, command_result
from crab_gym.envs.base import ActionResult, DeviceError
from crab_gym.envs.desktop.backends.xvfb import XvfbSession

if TYPE_CHECKING:
    from crab_gym.envs.desktop import DesktopEnv

Command = Annotated[str, Field(min_length=1, max_length=4096)]
Timeout = Annotated[int, Field(ge=1, le=60)]
HomePath = Annotated[str, Field(min_length=1, max_length=1024)]
Content = Annotated[str, Field(max_length=64 * 1024)]
FILE_CAP = 64 * 1024


@action
def shell(env: DesktopEnv, command: Command, timeout: Timeout = 10) -> ActionResult:
    """Run a bash command line as the desktop user, in HOME; returns its exit code and output.

    Args:
        command: The command line, e.g. "ls ~/Documents" or "grep -c x notes.txt" (bash syntax).
        timeout: Seconds before the command is killed, 1 to 60.
    """
    proc = _xvfb(env).spawn(["/bin/bash", "-c", "exec 2>&1\n" + command], log="api-shell", pipes=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.close()
    fd, out, deadline, timed_out = proc.stdout.fileno(), bytearray(), time.monotonic() + timeout, False
    try:
        while len(out) <= OUTPUT_CAP * 4:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([fd], [], [], min(left, 0.05))
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                out += chunk
            elif proc.poll() is not None:
                break  # exited; a background child holding the pipe is not waited for
    finally:
        if proc.poll() is None:
            _kill_group(proc.pid)
        proc.wait()
        proc.stdout.close()
    result = command_result(bytes(out), None if timed_out else proc.returncode, timed_out)
    return ActionResult(output=result)


@action
def read_file(env: DesktopEnv, path: HomePath) -> ActionResult:
    """Read a text file in the desktop user's HOME.

    Args:
        path: The file, relative to HOME or as "~/..." (e.g. "Documents/notes.txt").
    """
    res = _xvfb(env).run(["cat", "--", _in_home(env, path)], timeout=10)
    data = res.stdout[:FILE_CAP] if res.returncode == 0 else res.stderr
    result = command_result(data, res.returncode)
    result["truncated"] = len(res.stdout) > FILE_CAP
    return ActionResult(output=result)


@action
def write_file(env: DesktopEnv, path: HomePath, content: Content) -> ActionResult:
    """Write a text file in the desktop user's HOME (its folders are created; an existing file is replaced).

    Args:
        path: The file, relative to HOME or as "~/..." (e.g. "Documents/todo.txt").
        content: The whole text of the file.
    """
    script = 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"'
    target = _in_home(env, path)
    res = _xvfb(env).run(["/bin/sh", "-c", script, "sh", target], timeout=10, input=content.encode())
    return ActionResult(output=command_result(res.stdout + res.stderr, res.returncode))


def _xvfb(env: DesktopEnv) -> XvfbSession:
    """The session, which runs on this machine (a VM's desktop has no API actions)."""
    session = env._session()
    if not isinstance(session, XvfbSession):
        raise InvalidAction(f"the desktop's API actions need the xvfb backend, not {env.backend!r}")
    return session


def _in_home(env: DesktopEnv, path: str) -> str:
    """The absolute path of ``path`` inside the session's HOME, or InvalidAction when it leads out."""
    home = Path(_xvfb(env).home)
    if "\x00" in path:
        raise InvalidAction("path: a NUL character is not allowed")
    rel = path[2:] if path.startswith("~/") else "" if path == "~" else path
    pure = PurePosixPath(rel)
    if ".." in pure.parts:
        raise InvalidAction(f"path {path!r} refused: '..' would lead out of HOME")
    if pure.is_absolute():
        try:
            pure = pure.relative_to(home)
        except ValueError:
            raise InvalidAction(f"path {path!r} refused: only files in HOME ({home}) are reachable") from None
    target = home / pure
    real, real_home = os.path.realpath(target), os.path.realpath(home)
    if target == home or os.path.commonpath([real, real_home]) != real_home:
        raise InvalidAction(f"path {path!r} refused: it is HOME itself or a symlink out of HOME")
    return str(target)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    except PermissionError as e:
        raise DeviceError(f"could not stop the command's processes: {e}") from e


ACTIONS = (shell, read_file, write_file)
