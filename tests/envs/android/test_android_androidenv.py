"""The "androidenv" backend: our phone driven through DeepMind's AndroidEnv (touch/lift, pixels, adb calls).

Skipped when the optional android_env package is not installed.
"""

from __future__ import annotations

import random

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("android_env")

import crab_gym  # noqa: E402,F401
from crab_gym.baselines.oracle import OracleAgent  # noqa: E402
from crab_gym.core.tasks import Task  # noqa: E402
from crab_gym.envs.android import AndroidEnv  # noqa: E402
from crab_gym.envs.base import SubEnvConformance  # noqa: E402
from crab_gym.tasks import get_template  # noqa: E402
from crab_gym.tasks.generator import sample_attributes  # noqa: E402
from crab_gym.tasks.templates.android import ANDROID_TEMPLATES  # noqa: E402
from crab_gym.tasks.templates.android.layout import DRAWER  # noqa: E402

SHORT = [
    ("tap", {"point": (0.3, 0.775)}),  # Messages
    ("tap", {"point": (0.848, 0.8775)}),
    ("write_text", {"text": "555-010-2030"}),
    ("tap", {"point": (0.5, 0.8325)}),
    ("write_text", {"text": "It's done, café"}),
    ("tap", {"point": (0.5, 0.9025)}),
    ("press", {"button": "home"}),
    ("open_app_drawer", {}),
    ("tap", {"point": DRAWER["tasks"]}),  # Tasks (the drawer is sorted by label)
    ("long_tap", {"point": (0.5, 0.1575)}),
    ("press", {"button": "home"}),
    ("tap", {"point": (0.5, 0.775)}),  # Contacts
    ("swipe", {"direction": "up", "distance": "long"}),
]


class TestAndroidEnvConformance(SubEnvConformance):
    def make_subenv(self) -> AndroidEnv:
        return AndroidEnv("androidenv")

    def mutate(self, sub) -> None:
        for name, params in SHORT:
            sub.execute(sub.action(name), params)

    def state_fingerprint(self, sub):
        sub.invalidate_state()
        s = sub.state()
        return (
            s.foreground(),
            s.content_query("content://sms", ("address", "body")),
            s.sqlite("/data/data/com.google.android.apps.tasks/databases/tasks.db", "SELECT * FROM tasks"),
            sub.screenshot().tobytes(),
        )


def test_same_frames_and_state_as_the_in_process_phone() -> None:
    a, b = AndroidEnv("sim"), AndroidEnv("androidenv")
    try:
        for env in (a, b):
            env.reset(seed=2)
        for name, params in SHORT:
            for env in (a, b):
                env.execute(env.action(name), params)
                env.settle()
                env.invalidate_state()
            assert np.array_equal(a.screenshot(), b.screenshot()), name
            assert a.state().ui_xml() == b.state().ui_xml(), name
        sms = "SELECT address, body, date FROM sms ORDER BY _id"
        db = "/data/data/com.android.providers.telephony/databases/mmssms.db"
        assert a.state().sqlite(db, sms) == b.state().sqlite(db, sms)
    finally:
        a.close()
        b.close()


def test_every_template_solved_through_androidenv() -> None:
    env = AndroidEnv("androidenv")
    rng = random.Random(3)
    try:
        for template in ANDROID_TEMPLATES:
            sub = template.instantiate(**sample_attributes(template, rng))
            task = Task("t", sub.instruction, [sub])
            env.reset(seed=0)
            task.setup({"android": env})
            env.invalidate_state()
            graph = task.evaluator()
            graph.update({"android": env.state()})
            assert graph.completion_ratio == 0.0, template.id
            for step in task.solution():
                env.execute(env.action(step.action), dict(step.params))
                env.settle()
                graph.update({"android": env.state()})
            assert graph.success, template.id
    finally:
        env.close()


def test_crab_android_episode_through_androidenv() -> None:
    sub = get_template("notes_create").instantiate(title="Trip", body="Pack the tent")
    task = Task("note", sub.instruction, [sub])
    env = gym.make("Crab-Android-v0", tasks=[task], backends={"android": "androidenv"}, max_steps=12)
    try:
        agent = OracleAgent(env)
        obs, info = env.reset(seed=0)
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
            total += reward
            done = terminated or truncated
        assert info["termination_reason"] == "success" and total == pytest.approx(1.0)
    finally:
        env.close()
