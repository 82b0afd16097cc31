"""The in-session agent executes named operations only: code, unknown operations, odd arguments and paths
outside the session are refused, and nothing they ask for happens. Its client, in turn, takes whatever
comes back from inside the session (whose user we do not trust) as a device fault, never a crash.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from crab_gym.envs.base import DeviceError
from crab_gym.envs.desktop import DesktopEnv
from crab_gym.envs.desktop.backends.agent_client import AgentClient

PLANTED = "/tmp/crab-gym-agent-pwned"

HOSTILE = [
    {"op": "exec", "args": {"code": f"open({PLANTED!r}, 'w')"}},
    {"op": f"__import__('os').system('touch {PLANTED}')"},
    {"op": "eval", "args": {"expr": f"open({PLANTED!r}, 'w')"}},
    {"op": "read_file", "args": {"path": "/root/.bashrc"}},
    {"op": "read_file", "args": {"path": "../../s0/home/Documents/secret.txt"}},
    {"op": "write_file", "args": {"path": PLANTED, "data": "x"}},
    {"op": "run", "args": {"argv": ["touch", PLANTED]}},
    {"op": "atspi_tree", "args": {"max_nodes": 1, "__import__": "os"}},
    {"op": "ping", "args": {"cmd": f"touch {PLANTED}"}},
    {"op": "gsettings_get", "args": {"schema": "--schemadir=/root", "key": "x"}},
    {"op": "gsettings_get", "args": {"schema": "org.gnome.desktop.interface", "key": "../../x"}},
    {"op": "gsettings_get", "args": {"schema": ["org"], "key": {"a": 1}}},
    {"op": ["ping"]},
    {"op": {"ping": 1}},
    {"op": "ping", "args": [f"touch {PLANTED}"]},
    {"op": "__class__"},
    ["ping"],
    "ping",
]


@pytest.fixture(scope="module")
def agent():
    env = DesktopEnv()
    try:
        env.reset()
        yield env.session, env.session.agent_client()
    finally:
        env.close()


def _ask(client: AgentClient, line: str) -> dict:
    assert client.proc.stdin is not None and client.proc.stdout is not None
    client.proc.stdin.write(line.encode() + b"\n")
    client.proc.stdin.flush()
    return json.loads(client.proc.stdout.readline())


@pytest.mark.parametrize("request_", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_requests_are_refused(agent, request_):
    session, client = agent
    reply = _ask(client, json.dumps(request_))
    assert reply["ok"] is False and reply["error"], reply
    assert not os.path.exists(PLANTED)
    assert client.call("ping") == "pong"  # and the agent goes on serving


@pytest.mark.parametrize(
    "line", ["not json", "{", "\x00\xff", "[]", "null", "1e999", '{"op": "ping"' + " " * 100_000]
)
def test_malformed_lines_are_refused(agent, line):
    _, client = agent
    assert _ask(client, line)["ok"] is False
    assert client.call("ping") == "pong"


def test_the_agent_runs_as_the_session_user(agent):
    session, client = agent
    assert os.stat(f"/proc/{client.proc.pid}").st_uid == session.user.uid
    if session.user.dedicated:
        assert session.user.uid != 0


def _fake_agent(script: str) -> AgentClient:
    """A real process that speaks the agent's line protocol badly (as a tampered agent would)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    return AgentClient(proc, timeout=5)


@pytest.mark.parametrize(
    "answer", ["not json", "[1, 2]", '{"result": 1}', '{"ok": false}', '"ok"', "null", '{"ok": true}']
)
def test_the_client_takes_a_bad_answer_as_a_device_fault(answer):
    client = _fake_agent(f"import sys\nfor _ in sys.stdin:\n    print({answer!r}, flush=True)")
    try:
        with pytest.raises(DeviceError, match="session agent"):
            client.call("ping")
    finally:
        client.close()


def test_the_client_takes_a_dead_or_silent_agent_as_a_device_fault():
    for script in ("pass", "import time; time.sleep(30)"):
        client = _fake_agent(script)
        try:
            with pytest.raises(DeviceError, match="session agent"):
                client.call("ping")
        finally:
            client.close()
