"""ask_user: the simulated user answers from the task's hidden facts, the root action exists when a task
needs it, episodes record the questions, the metrics count those beyond need, and the ask-user templates are
solvable only with what the user tells (their oracle asks first)."""

from __future__ import annotations

import gymnasium as gym
import pytest

import crab_gym  # noqa: F401 - registers the env ids
from crab_gym.baselines import OracleAgent
from crab_gym.core.metrics import aggregate
from crab_gym.core.tasks import SubTaskTemplate
from crab_gym.core.user import DONT_KNOW, SimulatedUser, UserFact
from crab_gym.envs.root import RootEnv
from crab_gym.rollout import rollout
from crab_gym.tasks import generate_tasks, load_tasks
from crab_gym.tasks.templates.ask import ASK_TEMPLATES
from crab_gym.tasks.validate import lint_tasks

NEIGHBOUR = (UserFact("name", ("name", "called", "who"), "My neighbour is {name}."),
             UserFact("number", ("number", "phone"), "Their number is {number}."))  # fmt: skip


def test_user_answers_the_facts_a_question_is_about() -> None:
    attrs = {"name": "Rosa", "number": "555-123-4567"}
    user = SimulatedUser(tuple((f, attrs) for f in NEIGHBOUR))
    assert user.needed == 2
    assert user.answer("What is your neighbour CALLED?") == ("My neighbour is Rosa.", ("name",))
    assert user.answer("their phone numbers, please") == ("Their number is 555-123-4567.", ("number",))
    both = user.answer("What name and number should I save?")
    assert both == ("My neighbour is Rosa. Their number is 555-123-4567.", ("name", "number"))
    assert user.answer("What is the weather like?") == (DONT_KNOW, ())
    assert SimulatedUser().answer("Who is your boss?") == (DONT_KNOW, ())
    phrase = UserFact("hour", ("get up",), "At {hour}.")
    assert phrase.score(["get", "up"]) == 1 and phrase.score(["up", "get"]) == 0
    with pytest.raises(ValueError, match="topics"):
        UserFact("x", (), "")


def test_user_facts_must_be_hidden() -> None:
    with pytest.raises(ValueError, match=r"user facts \['name'\] must be hidden"):
        SubTaskTemplate("t", "Save my neighbour.", {"name": "name"}, lambda name: [], lambda name: [],
                        user=(NEIGHBOUR[0],))  # fmt: skip


def test_ask_templates_hide_what_the_user_knows_and_the_oracle_asks_for_it() -> None:
    tasks = load_tasks("ask-user")
    assert len(ASK_TEMPLATES) >= 10 and len(tasks) == 3 * len(ASK_TEMPLATES)
    assert all(r.ok for r in lint_tasks(tasks)), [r.problems for r in lint_tasks(tasks) if not r.ok]
    for task in tasks:
        user = task.simulated_user()
        assert task.needs_user and user.needed >= 1
        for fact, attrs in user.facts:
            assert str(attrs[fact.attribute]) not in task.description, task.id
        questions = [s.params["question"] for s in task.solution() if s.action == "ask_user"]
        told = {a for q in questions for a in user.answer(q)[1]}
        assert told == {f.attribute for f, _ in user.facts}, task.id
        assert user.answer("Is it going to rain?")[0] == DONT_KNOW


def test_generator_and_v0_never_draw_interactive_templates() -> None:
    ids = {s.template.id for t in generate_tasks(seed=1, n=300) + load_tasks("v0") for s in t.subtasks}
    assert not ids & {t.id for t in ASK_TEMPLATES}
    assert {t.id for t in load_tasks("all")} >= {t.id for t in load_tasks("ask-user")}


def test_root_action_only_when_a_task_needs_the_user() -> None:
    plain = gym.make("Crab-Android-v0", tasks=["sms_send-0"])
    asking = gym.make("Crab-Android-v0", tasks=["sms_send-0", "ask_sms_boss-0"])
    forced = gym.make("Crab-Android-v0", tasks=["sms_send-0"], ask_user=True)
    try:
        names = [[a.name for a in e.unwrapped.subenvs["root"].actions] for e in (plain, asking, forced)]
        assert names[0] == ["submit", "complete", "wait"]
        assert names[1] == names[2] == ["submit", "complete", "wait", "ask_user"]
        assert "ask_user(question)" in asking.unwrapped.subenvs["root"].description
        assert "ask_user" not in RootEnv.description  # the class is untouched
        _, info = forced.reset(seed=0, options={"task": "sms_send-0"})
        _, _, _, _, info = forced.step(
            forced.unwrapped.encode_action("root", "ask_user", {"question": "Who?"})
        )
        assert info["output"] == DONT_KNOW  # this task's user knows nothing
    finally:
        for e in (plain, asking, forced):
            e.close()


class Curious(OracleAgent):
    """The oracle, after two questions the user cannot answer."""

    def act(self, obs, info):
        if info.get("steps", 0) < 2:
            return self.env.encode_action("root", "ask_user", {"question": f"Is it sunny, {info['steps']}?"})
        if info.get("steps") == 2:
            self.reset()
        return super().act(obs, {**info, "steps": 1})


def test_episodes_record_questions_and_metrics_count_extra_ones() -> None:
    env = gym.make("Crab-Android-v0", tasks=["ask_sms_boss-0", "sms_send-0"], max_steps=20)
    try:
        oracle = rollout(env, OracleAgent(env), task="ask_sms_boss-0", seed=0)
        root = env.unwrapped.subenvs["root"]
        boss = env.unwrapped.task.subtasks[0].attributes["boss"]
        assert oracle.success and oracle.extra == {"questions": 1, "questions_needed": 1}
        assert root.state().questions == (("Who is your boss?", f"My boss is {boss}."),)
        curious = rollout(env, Curious(env), task="ask_sms_boss-0", seed=0)
        assert curious.success and curious.extra == {"questions": 3, "questions_needed": 1}
        assert [a for _, a in root.state().questions][:2] == [DONT_KNOW, DONT_KNOW]
        plain = rollout(env, OracleAgent(env), task="sms_send-0", seed=0)
        assert plain.extra == {} and root.state().questions == ()  # reset forgets the last task's questions
    finally:
        env.close()
    m = aggregate([oracle, curious, plain])
    assert m.questions == pytest.approx(4 / 3) and m.extra_questions == pytest.approx(2 / 3)


def test_oracle_solves_the_phone_ask_tasks() -> None:
    from crab_gym.runs.validate import run_check

    phone = [t for t in load_tasks("ask-user") if t.platforms == ("android",)]
    results = run_check(phone)
    assert len(results) >= 21 and all(r.ok for r in results), [r.problems for r in results if not r.ok]


@pytest.mark.slow  # ~20 s: desktop sessions
def test_oracle_solves_the_desktop_and_cross_device_ask_tasks() -> None:
    from crab_gym.runs.validate import run_check

    tasks = [t for t in load_tasks("ask-user") if "ubuntu" in t.platforms]
    results = run_check(tasks)
    assert len(results) >= 12 and all(r.ok for r in results), [r.problems for r in results if not r.ok]


ASK = {  # "Who is my boss?" in each dialect that can ask (MobileWorld's JSON, UI-TARS' call_user)
    "androidworld": ('{"action_type": "ask_user", "text": "Who is my boss?"}', "ask_user"),
    "uitars": ("Thought: Who is my boss?\nAction: call_user()", "call_user"),
}


@pytest.mark.parametrize("dialect", sorted(ASK))
def test_dialects_ask_as_mobileworld_does(dialect: str) -> None:
    from crab_gym.wrappers import ActionDialect

    question, spelled = ASK[dialect]
    env = ActionDialect(gym.make("Crab-Android-v0", tasks=["ask_sms_boss-0"], max_steps=30), dialect)
    plain = ActionDialect(gym.make("Crab-Android-v0", tasks=["sms_send-0"]), dialect)
    try:
        env.unwrapped.subenvs["root"].time_scale = 0.0
        env.reset(seed=0)
        boss = env.unwrapped.task.subtasks[0].attributes["boss"]
        _, _, _, _, info = env.step(question)
        assert info["output"] == f"My boss is {boss}." and spelled in env.tool_spec()["prompt"]
        for device, name, params in [
            (s.env, s.action, dict(s.params)) for s in env.unwrapped.task.solution()
        ]:
            for text in env.translate(device, name, params):  # the oracle's question, in the dialect too
                _, _, terminated, _, info = env.step(text)
                assert "invalid_action" not in info, (text, info["invalid_action"])
        assert terminated and info["termination_reason"] == "success"
        plain.reset(seed=0)
        _, _, _, _, info = plain.step(question)
        assert "ask_user" in info["invalid_action"]  # an env whose tasks need no user has no ask_user
    finally:
        env.close()
        plain.close()


def test_llm_tools_offer_ask_user_and_tell_the_reply() -> None:
    from crab_gym.wrappers import FunctionCalls

    env = FunctionCalls(gym.make("Crab-Android-v0", tasks=["ask_call_restaurant-0"]))
    try:
        assert "ask_user" in [t["function"]["name"] for t in env.tools()]
        env.reset(seed=0)
        number = env.unwrapped.task.subtasks[0].attributes["number"]
        call = {"name": "ask_user", "arguments": {"device": "root", "question": "The restaurant's number?"}}
        *_, info = env.step(call)
        assert env.result_text(info) == f"Done. Output: The restaurant's number is {number}."
    finally:
        env.close()
