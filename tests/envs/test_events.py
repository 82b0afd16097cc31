"""Device events during episodes: declared in tasks and task files (malformed ones named by field), fired
after their step or at their second of episode time in lock-step, on a timer thread in real time, applied
through the phone's providers, `cmd notification post` and the desktop session's files, recorded in the
step's info; the event templates are solved by their oracle, which waits for the event."""

from __future__ import annotations

import json
import time

import gymnasium as gym
import pytest

import crab_gym  # noqa: F401 - registers the env ids
from crab_gym.core.events import DeviceEvent, EventError
from crab_gym.core.tasks import Task, TaskFileError, task_from_json, tasks_from_file
from crab_gym.envs.android.evaluators import MAIL_DB
from crab_gym.tasks import generate_tasks, get_template, load_tasks
from crab_gym.tasks.templates.events import EVENT_TEMPLATES

SMS_TASK = {
    "id": "reply-when-it-comes",
    "description": "When a message comes, send 'hi' to 555-111-2222.",
    "tasks": [{"task": "sms_send", "attribute": {"number": "555-111-2222", "message": "hi"}}],
    "adjlist": {},
    "events": [
        {"kind": "sms", "at_step": 2, "params": {"sender": "555-999-0000", "body": "Your code is 4711"}},
        {
            "kind": "email",
            "at_seconds": 5,
            "params": {"sender": "a@example.org", "subject": "Hi", "body": "x"},
        },
    ],
}


def wait(env, seconds: int = 1):
    return env.step(env.unwrapped.encode_action("root", "wait", {"seconds": seconds}))


@pytest.mark.parametrize("bad, field", [
    ({"kind": "fax", "at_step": 1}, "kind"),
    ({"kind": "sms", "at_step": 1, "params": {"sender": "1"}}, "params"),
    ({"kind": "sms", "at_step": 1, "params": {"sender": "1", "body": 2}}, "params"),
    ({"kind": "call", "params": {"number": "1"}}, "at_step or at_seconds"),
    ({"kind": "call", "at_step": 0, "params": {"number": "1"}}, "at_step"),
    ({"kind": "call", "at_step": 1.5, "params": {"number": "1"}}, "at_step"),
    ({"kind": "call", "at_seconds": -1, "params": {"number": "1"}}, "at_seconds"),
    ({"kind": "file", "at_step": 1, "params": {"device": "vm", "path": "a", "content": ""}}, "params.device"),
    ({"kind": "calendar_reminder", "at_step": 1,
      "params": {"title": "t", "date": "2024-13-01", "start": "9"}}, "params.date"),
    ({"kind": "call", "at_step": 1, "params": {"number": "1"}, "when": 3}, "unknown fields"),
    ("sms", "must be an object"),
])  # fmt: skip
def test_malformed_events_name_the_file_and_field(tmp_path, bad, field) -> None:
    with pytest.raises(EventError, match=field):
        DeviceEvent.from_json(bad)
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps([{**SMS_TASK, "events": [SMS_TASK["events"][0], bad]}]))
    with pytest.raises(TaskFileError, match=rf"tasks.json\[0\]: events\[1\]: .*{field}"):
        tasks_from_file(path)


def test_events_round_trip_through_task_files() -> None:
    import crab_gym.tasks  # noqa: F401 - registers the templates

    task = task_from_json(SMS_TASK)
    assert [e.kind for e in task.all_events()] == ["sms", "email"]
    assert task.to_json()["events"] == SMS_TASK["events"]
    assert task_from_json(task.to_json()).all_events() == task.all_events()
    assert "events" not in load_tasks("v0")[0].to_json()  # task files without events keep their shape
    file_event = DeviceEvent("file", {"device": "ubuntu", "path": "~/a.txt", "content": "x"}, at_step=1)
    assert Task("t", "d", task.subtasks, events=[file_event]).platforms == ("android", "ubuntu")


def test_event_templates_are_interactive_and_hide_what_the_event_brings() -> None:
    tasks = load_tasks("events")
    assert len(EVENT_TEMPLATES) >= 20 and len(tasks) == 3 * len(EVENT_TEMPLATES)
    assert {e.kind for t in tasks for e in t.all_events()} == {
        "sms", "call", "notification", "email", "calendar_reminder", "file"}  # fmt: skip
    assert {e.device for t in tasks for e in t.all_events() if e.kind == "file"} == {"android", "ubuntu"}
    generated = {s.template.id for t in generate_tasks(seed=1, n=300) for s in t.subtasks}
    assert not generated & {t.id for t in EVENT_TEMPLATES}
    derived = get_template("event_sms_code_to_file").instantiate(
        sender="555-000-1111", code=42, path="~/c.txt"
    )
    (event,) = derived.events()
    assert (event.kind, event.at_step, event.params["body"].count("42")) == ("sms", 2, 1)


def test_lock_step_fires_after_the_step_and_at_the_second() -> None:
    env = gym.make("Crab-Android-v0", tasks=[task_from_json(SMS_TASK)], max_steps=10)
    try:
        env.reset(seed=0)
        android = env.unwrapped.subenvs["android"]
        env.unwrapped.subenvs["root"].time_scale = 0.0
        inbox = "content://sms/inbox"
        before = len(android.state().content_query(inbox, ("address",)))
        *_, info = wait(env)  # step 1, 2 s of episode time
        assert "events" not in info and len(android.state().content_query(inbox, ("address",))) == before
        *_, info = wait(env)  # step 2, 4 s: the text message
        assert [e["kind"] for e in info["events"]] == ["sms"] and info["events"][0]["fired_after_step"] == 2
        rows = android.state().content_query(inbox, ("address", "body"))
        assert {"address": "555-999-0000", "body": "Your code is 4711"} in rows
        notes = android.device.shell("cmd notification list")[0].decode()
        assert "crab-event-1" in notes
        *_, info = wait(env, 3)  # step 3 waits 3 s: 8 s >= 5 s
        assert [e["kind"] for e in info["events"]] == ["email"]
        assert android.state().sqlite(MAIL_DB, "SELECT subject FROM messages WHERE sender = 'a@example.org'")
        env.reset(seed=0)  # a new episode: the events again, none fired yet
        assert [e.kind for e in env.unwrapped.events.pending] == ["sms", "email"]
    finally:
        env.close()


def test_real_time_fires_while_the_agent_thinks() -> None:
    soon = {"kind": "sms", "at_seconds": 1, "params": {"sender": "555-999-0000", "body": "soon"}}
    task = task_from_json({**SMS_TASK, "events": [soon]})
    env = gym.make("Crab-Android-v0", tasks=[task], realtime=True)
    try:
        env.reset(seed=0)
        for _ in range(300):  # no step: the timer thread fires it
            if not env.unwrapped.events.pending:
                break
            time.sleep(0.1)
        assert not env.unwrapped.events.pending
        rows = env.unwrapped.subenvs["android"].state().content_query("content://sms/inbox", ("body",))
        assert {"body": "soon"} in rows
        *_, info = env.step(env.unwrapped.encode_action("android", "press", {"button": "home"}))
        assert [e["kind"] for e in info["events"]] == ["sms"] and info["events"][0]["fired_at_seconds"] >= 1
    finally:
        env.close()


def test_an_event_on_a_missing_device_is_an_env_error_the_next_reset_recovers_from() -> None:
    import crab_gym.tasks  # noqa: F401

    stray = DeviceEvent("file", {"device": "ubuntu", "path": "~/a.txt", "content": "x"}, at_step=1)
    task = Task("stray", "d", task_from_json(SMS_TASK).subtasks, events=[stray])
    env = gym.make("Crab-Android-v0", tasks=["sms_send-0"])
    try:
        env.reset(seed=0, options={"task": task})
        _, _, terminated, truncated, info = wait(env)
        assert truncated and not terminated and info["termination_reason"] == "env_error"
        assert "which this env does not have" in info["error"]
        env.reset(seed=0, options={"task": "sms_send-0"})
        *_, info = wait(env)
        assert "error" not in info
    finally:
        env.close()


def test_notification_command_and_shade() -> None:
    env = gym.make("Crab-Android-v0", tasks=["sms_send-0"])
    try:
        env.reset(seed=0)
        shell = env.unwrapped.subenvs["android"].device.shell
        assert shell("cmd notification post -t 'Taxi' taxi 'Arrives at 18:45'")[2] == 0
        assert shell("cmd notification post -t 'Taxi' taxi 'Arrives at 18:50'")[2] == 0  # same tag: replaced
        assert shell("cmd notification post onlytag")[2] == 1 and b"usage" in shell("cmd notification")[1]
        assert shell("cmd notification list")[0].decode().count("|taxi|") == 1
        shell("cmd statusbar expand-notifications")
        texts = env.unwrapped.subenvs["android"].state().ui_texts()
        assert "Taxi: Arrives at 18:50" in texts and "Taxi: Arrives at 18:45" not in texts
        env.reset(seed=0)
        assert shell("cmd notification list")[0] == b""  # the system's memory: a reset clears it
    finally:
        env.close()


def test_episodes_record_the_events(tmp_path) -> None:
    from crab_gym.baselines import OracleAgent
    from crab_gym.episode import RecordEpisodes
    from crab_gym.episode.format import load_episodes
    from crab_gym.rollout import rollout

    env = RecordEpisodes(gym.make("Crab-Android-v0", tasks=["event_sms_code_answer-0"]), out_dir=tmp_path)
    try:
        env.unwrapped.subenvs["root"].time_scale = 0.0
        assert rollout(env, OracleAgent(env), task="event_sms_code_answer-0", seed=0).success
    finally:
        env.close()
    (episode,) = load_episodes(tmp_path, complete_only=True)
    fired = [s["events"] for s in episode.steps if "events" in s]
    assert len(fired) == 1 and fired[0][0]["kind"] == "sms"


def _oracle_check(tasks) -> list:
    from crab_gym.runs.validate import run_check

    devices = ["ubuntu", "android"] if any("ubuntu" in t.platforms for t in tasks) else ["android"]
    env = gym.make("Crab-v0", devices=devices, tasks=list(tasks), backends={"android": "sim"}, max_steps=40)
    env.unwrapped.subenvs["root"].time_scale = 0.0  # waits count as time without sleeping
    try:
        return run_check(tasks, env=env)
    finally:
        env.close()


def test_oracle_solves_the_phone_event_tasks() -> None:
    results = _oracle_check([t for t in load_tasks("events") if t.platforms == ("android",)])
    assert len(results) >= 30 and all(r.ok for r in results), [
        (r.task_id, r.problems) for r in results if not r.ok
    ]


@pytest.mark.slow  # ~2 min: desktop sessions
def test_oracle_solves_the_desktop_and_cross_device_event_tasks() -> None:
    results = _oracle_check([t for t in load_tasks("events") if "ubuntu" in t.platforms])
    assert len(results) >= 30 and all(r.ok for r in results), [
        (r.task_id, r.problems) for r in results if not r.ok
    ]


def test_oracle_solves_a_timed_event_task_in_real_time() -> None:
    from crab_gym.baselines import OracleAgent
    from crab_gym.rollout import rollout

    env = gym.make("Crab-Android-v0", tasks=["event_reminder_to_sms-0"], realtime=True, max_steps=20)
    try:  # its reminder is due at 5 s; the oracle's wait(5) sleeps that long, and the timer thread fires it
        record = rollout(env, OracleAgent(env), task="event_reminder_to_sms-0", seed=0)
        assert record.success and not env.unwrapped.events.pending
    finally:
        env.close()
