"""Client side of the in-session agent: send a named operation, read one JSON answer."""

from __future__ import annotations

import json
import select
import subprocess
from typing import Any

from crab_gym.envs.base import DeviceError


class AgentClient:
    def __init__(self, proc: subprocess.Popen, timeout: float = 20.0) -> None:
        self.proc = proc
        self.timeout = timeout

    def alive(self) -> bool:
        return self.proc.poll() is None

    def call(self, op: str, **args: Any) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.write((json.dumps({"op": op, "args": args}) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError as e:
            raise DeviceError(f"session agent is gone ({op})") from e
        ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
        if not ready:
            self.close()
            raise DeviceError(f"session agent did not answer {op!r} within {self.timeout:.0f} s")
        line = self.proc.stdout.readline()
        if not line:
            raise DeviceError(f"session agent exited during {op!r}")
        try:  # the agent runs as the session user, whom we do not trust: a bad answer is a device fault
            reply = json.loads(line)
            ok, answer = reply["ok"], reply["result" if reply["ok"] else "error"]
        except (ValueError, KeyError, TypeError):
            raise DeviceError(f"session agent sent a malformed answer to {op!r}: {line[:100]!r}") from None
        if not ok:
            raise DeviceError(f"session agent {op}: {answer}")
        return answer

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            if f is not None:
                f.close()
