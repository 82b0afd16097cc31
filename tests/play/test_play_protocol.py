"""The play server's WebSocket protocol without a browser: malformed messages, separate envs per player, the
session cap, freeing an env when its page closes, task marks and ``crab-gym review``."""

from __future__ import annotations

import argparse
import json
import time

import pytest
from websockets.sync.client import connect

from crab_gym.play.commands import add_parsers
from crab_gym.play.review import append_mark, format_review, load_marks
from crab_gym.play.session import PlayConfig
from crab_gym.tasks import load_tasks

from .conftest import Client, running_server, ws_url

TASK = "contacts_add-0"


def wait_until(predicate, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def solve(client: Client) -> dict:
    msg: dict = {}
    for step in {t.id: t for t in load_tasks("v0")}[TASK].solution():
        msg = client.act(step.env, step.action, **step.params)
        assert msg["type"] == "state", msg
    return msg


MALFORMED = [
    ("garbage", "not JSON"),
    (b"\x00\x01binary", "binary messages"),
    ("[1, 2]", "a message is a JSON object"),
    ({"no": "type"}, "a message is a JSON object"),
    ({"type": "shell", "cmd": "rm -rf ~"}, "unknown message type 'shell'"),
    ({"type": "action", "device": "android"}, 'needs "device" and "action"'),
    ({"type": "action", "device": "android", "action": "tap", "params": [0.5, 0.5]}, '"params" must be'),
    ({"type": "action", "device": "kernel", "action": "tap", "params": {}}, "unknown device 'kernel'"),
    ({"type": "action", "device": "android", "action": "reboot"}, "android has no action 'reboot'"),
    ({"type": "action", "device": "android", "action": "tap", "params": {"point": [2, 0.5]}}, "point"),
    ({"type": "action", "device": "android", "action": "tap", "params": {"point": "x"}}, "point"),
    (
        {"type": "action", "device": "android", "action": "tap", "params": {"point": [0.5, 0.5], "x": 1}},
        "unknown parameter 'x'",
    ),  # fmt: skip
    ({"type": "action", "device": "android", "action": "press", "params": {"button": "power"}}, "button"),
    (
        {"type": "action", "device": "ubuntu", "action": "click", "params": {"point": [0.5, 0.5]}},
        "unknown device",
    ),
    ({"type": "action", "device": "root", "action": "submit", "params": {"answer": ""}}, "answer"),
    ({"type": "reset", "task": "no-such-task"}, "unknown task 'no-such-task'"),
    ({"type": "reset", "task": 7}, '"task" must be'),
    ({"type": "mark", "verdict": "great", "note": ""}, "verdict must be one of fair, unclear"),
    ("x" * 70_000, "message too long"),
]


def test_malformed_messages_get_an_error_and_nothing_else(phone_server):
    base, app, _ = phone_server
    c = Client(base)
    try:
        first = c.recv()
        assert first["type"] == "state" and first["steps"] == 0
        for message, expected in MALFORMED:
            c.send(message)
            reply = c.recv()
            assert reply["type"] == "error" and expected in reply["message"], (message, reply)
            assert not reply["fatal"]
        c.send({"type": "ping"})
        assert c.recv(("pong",))["type"] == "pong"
        state = c.act("android", "press", button="home")  # the session still works
        assert state["type"] == "state" and state["steps"] == 1 and state["action"]["name"] == "press"
    finally:
        c.close()


def test_two_players_get_separate_envs(phone_server):
    base, app, _ = phone_server
    hub = app.state.hub
    a, b = Client(base), Client(base)
    try:
        sa, sb = a.recv(), b.recv()
        assert a.hello and b.hello and a.hello["session"] != b.hello["session"]
        assert sa["episode_id"] != sb["episode_id"]
        envs = [hub.sessions[a.hello["session"]].env, hub.sessions[b.hello["session"]].env]
        assert envs[0] is not envs[1]
        phones = [e.unwrapped.subenvs["android"] for e in envs]
        assert phones[0] is not phones[1] and phones[0].device is not phones[1].device
        done = solve(a)
        assert done["done"] and done["success"] and done["nodes"][0]["status"] == "passed"
        other = b.act("android", "press", button="home")
        assert not other["done"] and other["completion_ratio"] == 0.0
        assert other["nodes"][0]["status"] == "active"
        assert a.act("android", "press", button="home")["message"].startswith("the episode is over")
        a.send({"type": "reset", "task": TASK})
        fresh = a.recv()
        assert fresh["steps"] == 0 and fresh["completion_ratio"] == 0.0 and not fresh["done"]
    finally:
        a.close()
        b.close()
    wait_until(lambda: not hub.sessions)


def test_session_cap_and_closing_the_page_frees_the_env(tmp_path):
    config = PlayConfig(tasks="v0", task=TASK, out=tmp_path, max_sessions=1)
    with running_server(config) as (base, app):
        hub = app.state.hub
        a = Client(base)
        assert a.recv()["type"] == "state"
        session = next(iter(hub.sessions.values()))
        phone = session.env.unwrapped.subenvs["android"]
        b = Client(base)
        refused = b.recv()
        assert refused["type"] == "error" and refused["fatal"] and "full" in refused["message"]
        b.close()
        a.act("android", "press", button="home")
        a.close()  # the tab closes: the env is closed and the slot is free
        wait_until(lambda: not hub.sessions)
        assert session.env is None
        assert phone._device is None  # the phone was closed
        c = Client(base)
        try:
            assert c.recv()["type"] == "state"
        finally:
            c.close()
        wait_until(lambda: not hub.sessions)
    # the unfinished episode was recorded as incomplete, with its step
    from crab_gym.episode import load_episodes

    episodes = list(load_episodes(tmp_path))
    assert len(episodes) == 2 and not any(ep.complete for ep in episodes)
    assert sorted(len(ep.actions) for ep in episodes) == [0, 1]


def test_other_sites_cannot_drive_the_devices(phone_server):
    base, app, _ = phone_server
    with connect(ws_url(base), origin="http://evil.example", open_timeout=10) as ws:
        refused = json.loads(ws.recv(timeout=10))
    assert (
        refused["type"] == "error" and refused["fatal"] and "only serves the play page" in refused["message"]
    )
    assert not app.state.hub.sessions


def test_marks_and_review(phone_server, tmp_path, capsys):
    base, app, _ = phone_server
    c = Client(base)
    try:
        c.recv()
        c.send({"type": "mark", "verdict": "fair", "note": "clear enough"})
        mark = c.recv(("marked", "error"))["mark"]
        assert mark["task_id"] == TASK and mark["verdict"] == "fair" and mark["note"] == "clear enough"
        assert mark["episode_id"].startswith(f"play-{TASK}-") and not mark["episode_over"]
        assert mark["time"]
    finally:
        c.close()
    out = tmp_path / "marks"
    append_mark(out, "a-1", "fair", "fine", episode_id="e1")
    append_mark(out, "a-1", "unclear", "which folder?", episode_id="e2")
    append_mark(out, "b-2", "fair", "", episode_id="e3")
    with open(out / "marks.jsonl", "a") as f:
        f.write('{"cut in ha')  # a killed writer's last line is skipped
    marks = load_marks(out)
    assert [(m["task_id"], m["verdict"], m["episode_id"]) for m in marks] == [
        ("a-1", "fair", "e1"), ("a-1", "unclear", "e2"), ("b-2", "fair", "e3")
    ]  # fmt: skip
    text = format_review(marks)
    assert "a-1" in text and "unclear: which folder?" in text and "2 tasks, 2 fair and 1 unclear" in text
    assert "b-2" not in format_review(marks, unclear_only=True)
    parser = argparse.ArgumentParser()
    add_parsers(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["review", "--out", str(out)])
    assert args.func(args) == 0
    assert "fair  unclear" in capsys.readouterr().out
    args = parser.parse_args(["review", "--out", str(out), "--unclear", "--json"])
    args.func(args)
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(x)["episode_id"] for x in lines] == ["e2"]
    with pytest.raises(ValueError):
        append_mark(out, "a-1", "maybe")
