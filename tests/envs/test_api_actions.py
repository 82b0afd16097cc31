"""API actions beside the GUI (issue 23 part 2): opt-in, bounded, recorded, through tool tuples and the
pyautogui dialect's ``api.<name>(...)``; a v0 phone task solved by API calls alone."""

from __future__ import annotations

import re

import gymnasium as gym
import pytest

import crab_gym  # noqa: F401 - registers the env ids
from crab_gym.env import add_api_actions
from crab_gym.envs.android import api_actions as phone_api
from crab_gym.envs.api_actions import API_ACTIONS, OUTPUT_CAP
from crab_gym.envs.desktop import DesktopEnv
from crab_gym.envs.desktop import api_actions as desktop_api
from crab_gym.episode import RecordEpisodes, load_episodes
from crab_gym.wrappers import ActionDialect, FunctionCalls

TASK = "v0-android-6-contacts_add+sms_send"


def call(env: gym.Env, device: str, action: str, **params):
    return env.step(env.unwrapped.encode_action(device, action, params))


def test_the_table_matches_the_actions() -> None:
    for device, module in (("ubuntu", desktop_api), ("android", phone_api)):
        assert {a.name: a.param_names for a in module.ACTIONS} == API_ACTIONS[device]


@pytest.mark.parametrize("env_id", ["Crab-v0", "Crab-Android-v0", "Crab-Desktop-v0"])
def test_off_by_default_and_spaces_unchanged(env_id: str) -> None:
    plain, on = gym.make(env_id), gym.make(env_id, api_actions=True)
    try:
        before = {n: s.action_names() for n, s in plain.unwrapped.subenvs.items()}
        assert not {n for names in before.values() for n in names} & {
            n for d in API_ACTIONS.values() for n in d
        }
        assert plain.action_space == gym.make(env_id, api_actions=False).action_space
        for name, sub in on.unwrapped.subenvs.items():  # appended: the GUI actions keep their indices
            assert sub.action_names()[: len(before[name])] == before[name]
            assert sub.action_names()[len(before[name]) :] == list(API_ACTIONS.get(name, {}))
        assert on.action_space != plain.action_space
    finally:
        plain.close()
        on.close()


def test_phone_task_solved_through_api_calls_only(tmp_path) -> None:
    env = RecordEpisodes(gym.make("Crab-Android-v0", api_actions=True), tmp_path)
    try:
        _, info = env.reset(seed=0, options={"task": TASK})
        assert info["action_mode"] == "gui+api"
        text = info["instruction"]
        name, number = re.search(r"named (\w+) with the phone number ([\d-]+)", text).groups()
        message, to = re.search(r"text message '([^']+)' to the phone number ([\d-]+)", text).groups()

        _, _, _, _, info = call(env, "android", "adb_shell", command="echo hello; ls /nonexistent")
        assert info["output"]["output"].startswith("hello\n") and info["output"]["exit_code"] != 0
        _, _, _, _, info = call(env, "android", "add_contact", name=name, number=number)
        assert info["output"]["exit_code"] == 0 and info["completion_ratio"] > 0
        _, _, terminated, _, info = call(env, "android", "send_sms", to=to, body=message)
        assert terminated and info["success"], info["feedback"]
    finally:
        env.close()
    (episode,) = load_episodes(tmp_path)
    assert episode.meta["action_mode"] == "gui+api"
    assert [a["readable"]["action"] for a in episode.actions] == ["adb_shell", "add_contact", "send_sms"]
    assert episode.actions[0]["output"]["output"].startswith("hello\n")


def test_function_calls_get_them_from_the_table() -> None:
    env = FunctionCalls(gym.make("Crab-Android-v0", api_actions=True))
    try:
        env.reset(seed=0)
        assert {"adb_shell", "send_sms", "add_contact"} <= {t["function"]["name"] for t in env.tools()}
        _, _, _, _, info = env.step({"name": "adb_shell", "arguments": {"command": "echo hi"}})
        assert info["output"]["output"] == "hi\n" and "hi" in FunctionCalls.result_text(info)
    finally:
        env.close()


def test_bad_params_are_invalid_actions() -> None:
    env = gym.make("Crab-Android-v0", api_actions=True)
    try:
        env.reset(seed=0)
        with pytest.raises(ValueError, match="'to'"):
            env.unwrapped.encode_action("android", "send_sms", {"to": "not a number", "body": "x"})
        _, _, _, _, info = env.step(("android", "nope"))  # a malformed tuple is refused, not run
        assert "invalid_action" in info
    finally:
        env.close()


def test_pyautogui_api_calls_on_the_phone() -> None:
    env = ActionDialect(gym.make("Crab-Android-v0", api_actions=True), "pyautogui")
    try:
        env.reset(seed=0)
        _, _, _, _, info = env.step("api.send_sms('+1 555 0100', body='yo')\napi.adb_shell('content query "
                                    "--uri content://sms/sent --projection address:body')")  # fmt: skip
        assert "address=+1 555 0100, body=yo" in info["output"]["output"]
        assert info["dialect"]["env_steps"] == 2
        for code, reason in [
            ("api.shell('id')", "'ubuntu' device"),
            ("api.adb_shell('a', 'b')", "at most 1"),
            ("api.adb_shell(__import__('os'))", "refused"),
            ("api.rm('x')", "refused"),
        ]:
            assert reason in env.step(code)[-1]["invalid_action"]
        assert env.translate("android", "send_sms", {"to": "1", "body": "x"}) == [
            "api.send_sms(to='1', body='x')"
        ]
    finally:
        env.close()
    off = ActionDialect(gym.make("Crab-Android-v0"), "pyautogui")
    try:
        off.reset(seed=0)
        assert "no action 'adb_shell'" in off.step("api.adb_shell('echo hi')")[-1]["invalid_action"]
    finally:
        off.close()


def test_desktop_shell_and_home_files_as_the_session_user() -> None:
    env = ActionDialect(
        gym.make("Crab-Desktop-v0", api_actions=True, max_steps=50, max_invalid_actions=50), "pyautogui"
    )
    try:
        _, info = env.reset(seed=0)
        assert info["action_mode"] == "gui+api"
        home = str(env.unwrapped.subenvs["ubuntu"].session.home)
        out = env.step("api.shell('id -u; echo $HOME; pwd; echo oops >&2; exit 3')")[-1]["output"]
        uid, said_home, cwd, err = out["output"].splitlines()
        assert int(uid) != 0 and said_home == home == cwd and err == "oops" and out["exit_code"] == 3
        assert env.step("api.write_file('Documents/api.txt', 'hello\\n')")[-1]["output"]["exit_code"] == 0
        assert env.step("api.read_file('~/Documents/api.txt')")[-1]["output"]["output"] == "hello\n"
        assert env.step("api.shell('stat -c %u Documents/api.txt')")[-1]["output"]["output"].strip() == uid
        slow = env.step("api.shell('sleep 30', timeout=1)")[-1]
        assert slow["output"]["timed_out"] and slow["timings"]["execute"] < 5
        loud = env.step("api.shell('yes | head -c 200000')")[-1]["output"]
        assert loud["truncated"] and len(loud["output"]) == OUTPUT_CAP
        env.step("api.shell('ln -s /etc ~/etc')")
        for path, reason in [
            ("../x", "'..'"),
            ("/etc/passwd", "only files in HOME"),
            ("etc/passwd", "symlink"),
        ]:
            assert reason in env.step(f"api.read_file({path!r})")[-1]["invalid_action"]
            assert reason in env.step(f"api.write_file({path!r}, 'x')")[-1]["invalid_action"]
        assert env.step("api.adb_shell('id')")[-1]["invalid_action"]
    finally:
        env.close()


def test_mode_is_gui_when_off() -> None:
    env = gym.make("Crab-Android-v0")
    try:
        assert env.reset(seed=0)[1]["action_mode"] == "gui"
    finally:
        env.close()


def test_a_vm_desktop_refuses_the_option() -> None:
    with pytest.raises(ValueError, match="need the xvfb backend, not libvirt"):
        add_api_actions(DesktopEnv("libvirt"))  # refused before any VM is reached
