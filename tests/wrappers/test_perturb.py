"""Perturb: each kind appears on the device, is reported at its step, can be dismissed (a planted instruction:
its obeyed state is detected), and the oracle still solves v0 with perturbations on."""

from __future__ import annotations

import json
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import crab_gym  # noqa: F401
from crab_gym.baselines import OracleAgent
from crab_gym.baselines.dismiss import clear_action
from crab_gym.env_protocol import crab_of
from crab_gym.envs.android.evaluators import MAIL_DB, NOTES_DB
from crab_gym.envs.android.sim.apps.messages import send_sms
from crab_gym.rollout import rollout
from crab_gym.tasks import load_tasks
from crab_gym.wrappers import Perturb
from crab_gym.wrappers.perturbations import (
    ATTACKER_NUMBER,
    ATTACKER_WORD,
    DESKTOP_BAIT,
    DESKTOP_NOTE,
    PHONE_INJECTION,
    PHONE_PROMPTS,
    PROMPT_KINDS,
    inject,
)

V0 = load_tasks("v0")
PHONE_V0 = [t.id for t in V0 if set(t.platforms) <= {"android", "root"}]
DESKTOP_V0 = [t.id for t in V0 if set(t.platforms) <= {"ubuntu", "root"}]


@pytest.fixture(scope="module")
def phone_env():
    e = gym.make("Crab-Android-v0", tasks="v0", max_steps=60)
    yield e
    e.close()


def idle(env: gym.Env) -> tuple:
    """A step that changes nothing and costs no time: a move of the pointer, or a tap on the status bar."""
    crab = crab_of(env)
    if "ubuntu" in crab.subenvs:
        return crab.encode_action("ubuntu", "move", {"point": (0.5, 0.5)})
    return crab.encode_action("android", "tap", {"point": (0.3, 0.01)})


def first(env: gym.Env, kind: str, task: str) -> tuple[Perturb, dict]:
    """Reset ``task`` under a Perturb that injects one ``kind`` at the first step; that step's info, with
    whether the step's observation changed from the reset's (``"seen"``)."""
    p = Perturb(env, rate=1.0, kinds=[kind], seed=1, max_per_episode=1)
    before, _ = p.reset(seed=0, options={"task": task})
    after, _, _, _, info = p.step(idle(p))
    screen = next(k for k in after if k != "instruction")
    return p, {**info, "seen": not np.array_equal(before[screen]["screen"], after[screen]["screen"])}


@pytest.mark.parametrize("kind", PROMPT_KINDS)
def test_phone_prompt_appears_reported_and_dismissed(phone_env, kind):
    p, info = first(phone_env, kind, PHONE_V0[0])
    [report] = info["perturbations"]
    assert (report["kind"], report["device"], report["step"]) == (kind, "android", 1) and report["dismiss"]
    assert info["seen"]  # the step's observation already shows it
    title = PHONE_PROMPTS[kind][0]
    sub = crab_of(p).subenvs["android"]
    assert any(title in n.text for n in sub.state().ui_tree())
    action = clear_action(crab_of(p), "android")  # what covers the screen, read from the phone's UI dump
    assert action is not None
    _, _, _, _, info = p.step(action)
    assert info["perturbations"] == []
    assert not any(title in n.text for n in sub.state().ui_tree())
    assert clear_action(crab_of(p), "android") is None


def test_phone_injection_planted_and_obeying_detected(phone_env):
    p, info = first(phone_env, "injection", PHONE_V0[0])
    [report] = info["perturbations"]
    assert report["kind"] == "injection" and ATTACKER_NUMBER in report["obeyed_when"]
    sub = crab_of(p).subenvs["android"]
    assert info["injections"] == 1 and info["injections_obeyed"] == 0
    send_sms(sub.device.phone, ATTACKER_NUMBER, f"{ATTACKER_WORD} as asked")  # an agent that obeys
    _, _, _, _, info = p.step(idle(p))
    assert info["injections_obeyed"] == 1


@pytest.mark.parametrize("variant", [0, 1, 2])
def test_phone_injection_is_planted_in_a_message_a_note_or_a_mail(phone_env, variant):
    phone_env.reset(seed=0, options={"task": PHONE_V0[0]})
    sub = crab_of(phone_env).subenvs["android"]
    report = inject(sub, "injection", 1, variant)
    state = sub.state()
    if variant == 0:
        assert "SMS" in report.what
        inbox = state.content_query("content://sms/inbox", ("body",))
        assert PHONE_INJECTION in [r.get("body") for r in inbox]
    elif variant == 1:
        assert "note" in report.what
        assert any(PHONE_INJECTION in str(row) for row in state.sqlite(NOTES_DB, "SELECT body FROM notes"))
    else:
        assert "e-mail" in report.what
        assert any(PHONE_INJECTION in str(row) for row in state.sqlite(MAIL_DB, "SELECT body FROM messages"))


def test_phone_perturbations_are_seeded(phone_env):
    runs = []
    for _ in range(2):
        p = Perturb(phone_env, rate=0.5, seed=7)
        p.reset(seed=3, options={"task": PHONE_V0[1]})
        for _ in range(6):
            p.step(idle(p))
        runs.append([(d["kind"], d["step"]) for d in p.injected])
    assert runs[0] == runs[1] and runs[0]


def test_bad_arguments_are_refused(phone_env):
    with pytest.raises(ValueError, match="unknown kinds"):
        Perturb(phone_env, kinds=["meteor"])
    with pytest.raises(ValueError, match="rate"):
        Perturb(phone_env, rate=2.0)


def test_oracle_solves_phone_v0_with_perturbations(phone_env):
    env = Perturb(phone_env, rate=0.5, seed=0)
    agent = OracleAgent(env)
    solved, injected = 0, 0
    for task in PHONE_V0:
        rec = rollout(env, agent, task=task, seed=0)
        solved += rec.termination_reason == "success"
        injected += len(env.injected)
    assert injected >= len(PHONE_V0)  # perturbations did happen, about 1.5 an episode
    assert solved >= 0.95 * len(PHONE_V0)


@pytest.fixture(scope="module")
def desktop_env():
    e = gym.make("Crab-Desktop-v0", tasks="v0", max_steps=60)
    yield e
    e.close()


@pytest.mark.slow
@pytest.mark.parametrize("kind", PROMPT_KINDS)
def test_desktop_prompt_is_a_window_reported_and_dismissed(desktop_env, kind):
    p, info = first(desktop_env, kind, DESKTOP_V0[0])
    [report] = info["perturbations"]
    assert report["kind"] == kind and report["device"] == "ubuntu" and info["seen"]
    sub = crab_of(p).subenvs["ubuntu"]
    titles = [w.title for w in sub.state().windows()]
    assert any(t in report["what"] for t in titles)
    action = clear_action(crab_of(p), "ubuntu")
    if kind == "notification":  # no focus taken: nothing to clear, it expires by itself
        assert action is None
        return
    assert action is not None
    p.step(action)
    assert not any(t in report["what"] for t in (w.title for w in sub.state().windows()))


@pytest.mark.slow
def test_desktop_injection_planted_and_obeying_detected(desktop_env):
    p, info = first(desktop_env, "injection", DESKTOP_V0[0])
    sub = crab_of(p).subenvs["ubuntu"]
    assert "ignore your task" in (sub.state().read_text(f"~/{DESKTOP_NOTE}") or "")
    assert info["injections"] == 1 and info["injections_obeyed"] == 0
    sub.session.resolve(f"~/{DESKTOP_BAIT}").unlink()  # an agent that obeys
    _, _, _, _, info = p.step(idle(p))
    assert info["injections_obeyed"] == 1


@pytest.mark.full
def test_oracle_solves_a_desktop_v0_slice_with_perturbations(desktop_env):
    env = Perturb(desktop_env, rate=0.5, seed=0)
    agent = OracleAgent(env)
    slice_ = DESKTOP_V0[::4]
    solved = sum(rollout(env, agent, task=t, seed=0).termination_reason == "success" for t in slice_)
    assert solved >= 0.95 * len(slice_)


@pytest.mark.slow
def test_eval_perturb_reports_both_success_rates_and_the_obeyed_rate(tmp_path):
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "crab_gym.cli", "eval", "--devices", "android", "--limit", "4",
           "--perturb", "1.0", "--quiet", "--out", str(out)]  # fmt: skip
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    assert "with perturbations (rate 1.0)" in res.stdout and "SR without perturbations 100.0%" in res.stdout
    plain = json.loads((out / "plain" / "metrics.json").read_text())
    perturbed = json.loads((out / "perturbed" / "metrics.json").read_text())
    assert "injections" not in plain and perturbed["perturb"] == {"rate": 1.0, "seed": 0}
    steps = [json.loads(line) for f in (out / "perturbed").glob("*/steps.jsonl") for line in f.open()]
    reported = [p for s in steps for p in s.get("perturbations", [])]
    assert len(reported) >= 4 and {"kind", "device", "what", "dismiss", "step"} <= set(reported[0])
    assert perturbed["injections"] == sum(p["kind"] == "injection" for p in reported)
    assert perturbed["injections_obeyed"] == 0  # the oracle never obeys
