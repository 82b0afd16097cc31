"""The "rl-phone" task set: short, dense-reward phone tasks in families, for training policies.

Each family is a sub-task template whose attributes are drawn from a seed; a task is one seed of one family,
id ``rl-<family>-<seed>``. Seeds below :data:`HELDOUT_SEED` are the training split, seeds from it on the
held-out split, and each family draws its held-out attributes from a pool training never sees:

- ``open_app`` — "Open the {app} app." The phone starts on the home screen or inside another app (the
  ``start`` attribute; 11 apps, 121 (app, start) pairs). Held out: a third of the (app, start) pairs; every
  app and every start screen appears in training, never together.
- ``toggle_setting`` — "In the Settings app, turn {setting} {state}." Settings opens on its main page with
  the setting the other way. Checks: the setting's page is shown, then its value. Held out: three of the
  ten (setting, state) pairs.
- ``create_item`` — "In {app}, create a new {item} named '{title}'." (a note, a to-do or a contact). Checks:
  the editor is open, the name is typed in it, the item is saved. Held out: the names (training draws nouns,
  held-out seeds adjectives, so the typed text was never seen).
- ``dial_number`` — "Using the Phone app's keypad, call {number}." Checks: the keypad is open, the number is
  typed, the call is in the log. Held out: numbers (training 555-1xx-xxxx to 555-6xx-xxxx, held-out
  555-7xx-xxxx to 555-9xx-xxxx).

The templates are not registered (as handmade tasks are not), so the generator never draws them; use
``load_tasks("rl-phone")`` (both splits), ``"rl-phone:train"`` or ``"rl-phone:heldout"``, or
:func:`rl_phone_tasks`. A named set is a :class:`~crab_gym.tasks.lazy.LazyTasks`: a task is built when the
env draws it (a cold start builds one, not 512), the same tasks in the same order as the eager list.
Scripted solutions tap the layout points of :mod:`crab_gym.tasks.templates.android.layout`, imported at
the first solution (it sits in the package that registers every built-in template).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from crab_gym.core.lazy import lazy_module
from crab_gym.core.tasks import Step, SubTaskTemplate, Task
from crab_gym.envs.android import evaluators as ev
from crab_gym.tasks.lazy import LazyTasks
from crab_gym.tasks.words import ADJECTIVES, NOUNS

if TYPE_CHECKING:  # imported at the first scripted solution: drawing and checking a task never needs it
    from crab_gym.tasks.templates.android import layout
else:
    layout = lazy_module("crab_gym.tasks.templates.android.layout")

__all__ = ["FAMILIES", "HELDOUT_SEED", "SPLITS", "Family", "load_rl_phone", "rl_phone_set", "rl_phone_tasks"]

ENV = "android"
HELDOUT_SEED = 100_000
SPLITS = ("train", "heldout")
KEYPAD_CALL = (0.5, 0.5808)  # the keypad's Call button (as the phone_call template taps it)

# ---- open_app -------------------------------------------------------------------------------------------
APPS = {
    "Calendar": "com.google.android.calendar",
    "Clock": "com.google.android.deskclock",
    "Keep Notes": "com.google.android.keep",
    "Gmail": "com.google.android.gm",
    "Phone": "com.google.android.dialer",
    "Messages": "com.google.android.apps.messaging",
    "Contacts": "com.android.contacts",
    "Settings": "com.android.settings",
    "Camera": "com.android.camera2",
    "Files": "com.google.android.documentsui",
    "Tasks": "com.google.android.apps.tasks",
}
_ICON = {
    "Calendar": "calendar",
    "Clock": "clock",
    "Keep Notes": "keep",
    "Gmail": "gmail",
    "Phone": "phone",
    "Messages": "messages",
    "Contacts": "contacts",
    "Settings": "settings",
    "Camera": "camera",
    "Files": "files",
    "Tasks": "tasks",
}
HOME_SCREEN = "home"


@functools.cache
def _open_app_pairs() -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """(train, held-out) (app, start) pairs: every third pair of a fixed shuffle is held out. Computed once
    (each of the 128 open_app tasks a set builds draws from them)."""
    pairs = [(a, s) for a in APPS for s in (HOME_SCREEN, *APPS) if s != a]
    random.Random("rl-phone:open_app:pairs").shuffle(pairs)
    held = pairs[::3]
    kept = set(held)
    train = [p for p in pairs if p not in kept]
    assert {a for a, _ in train} == set(APPS) and {s for _, s in train} == {HOME_SCREEN, *APPS}
    return tuple(train), tuple(held)


def _open_app_setup(envs: Mapping[str, Any], app: str, start: str) -> None:
    if start != HOME_SCREEN:
        envs[ENV].launch(APPS[start])


def _open_app_solution(app: str, start: str) -> list[Step]:
    icon = _ICON[app]
    if icon in layout.HOME:
        return [Step(ENV, "press", {"button": "home"}), Step(ENV, "tap", {"point": layout.HOME[icon]})]
    return [Step(ENV, "open_app_drawer"), Step(ENV, "tap", {"point": layout.DRAWER[icon]})]


OPEN_APP = SubTaskTemplate(
    id="rl_open_app",
    description="Open the {app} app.",
    attributes={"app": "word", "start": "word"},
    evaluator=lambda app, start: [ev.app_in_foreground(package=APPS[app])],
    setup=_open_app_setup,
    solution=_open_app_solution,
    platforms=(ENV,),
    apps=tuple(APPS.values()),
)

# ---- toggle_setting -------------------------------------------------------------------------------------
# setting -> (page row on Settings' main page, its switch among layout.NETWORK_SWITCHES or "" for the page's
# one layout.SWITCH, resource id, namespace, key, on value, off value)
SETTINGS: dict[str, tuple[int, str, str, str, str, str, str]] = {
    "Wi-Fi": (0, "wifi", "wifi_switch", "global", "wifi_on", "1", "0"),
    "Mobile data": (
        0,
        "mobile_data",
        "mobile_data_switch",
        "global",
        "mobile_data",
        "1",
        "0",
    ),
    "Airplane mode": (
        0,
        "airplane",
        "airplane_mode_switch",
        "global",
        "airplane_mode_on",
        "1",
        "0",
    ),
    "Bluetooth": (1, "", "bluetooth_switch", "global", "bluetooth_on", "1", "0"),
    "Dark theme": (2, "", "dark_theme_switch", "secure", "ui_night_mode", "2", "1"),
}
SETTING_HELDOUT = (("Wi-Fi", "on"), ("Airplane mode", "off"), ("Bluetooth", "off"))


def _value(setting: str, state: str) -> tuple[str, str, str]:
    _, _, _, ns, key, on, off = SETTINGS[setting]
    return ns, key, on if state == "on" else off


def _toggle_setup(envs: Mapping[str, Any], setting: str, state: str) -> None:
    ns, key, value = _value(setting, "off" if state == "on" else "on")
    envs[ENV].set_setting(ns, key, value)
    envs[ENV].launch("com.android.settings")


def _toggle_checks(setting: str, state: str) -> list:
    ns, key, value = _value(setting, state)
    return [
        ev.element_shown(resource_id=SETTINGS[setting][2]),
        ev.setting_equals(namespace=ns, key=key, value=value),
    ]


def _toggle_solution(setting: str, state: str) -> list[Step]:
    row, switch = SETTINGS[setting][:2]
    point = layout.NETWORK_SWITCHES[switch] if switch else layout.SWITCH
    return [Step(ENV, "tap", {"point": (0.5, layout.ROWS[row])}), Step(ENV, "tap", {"point": point})]


TOGGLE_SETTING = SubTaskTemplate(
    id="rl_toggle_setting",
    description="In the Settings app, turn {setting} {state}.",
    attributes={"setting": "word", "state": "word"},
    evaluator=_toggle_checks,
    setup=_toggle_setup,
    solution=_toggle_solution,
    platforms=(ENV,),
    apps=("com.android.settings",),
)

# ---- create_item ----------------------------------------------------------------------------------------
# app -> (item, package, editor field resource id, the check that the item was saved)
ITEMS: dict[str, tuple[str, str, str, Callable[[str], Any]]] = {
    "Keep Notes": ("note", "com.google.android.keep", "editable_title", lambda t: ev.note_exists(title=t)),
    "Tasks": ("to-do", "com.google.android.apps.tasks", "add_task_title", lambda t: ev.task_exists(title=t)),
    "Contacts": ("contact", "com.android.contacts", "first_name", lambda t: ev.contact_exists(name=t)),
}


def _create_setup(envs: Mapping[str, Any], app: str, item: str, title: str) -> None:
    envs[ENV].launch(ITEMS[app][1])


def _create_checks(app: str, item: str, title: str) -> list:
    _, _, field, saved = ITEMS[app]
    return [
        ev.element_shown(resource_id=field),
        ev.element_shown(resource_id=field, text=title),
        saved(title),
    ]


CREATE_ITEM = SubTaskTemplate(
    id="rl_create_item",
    description="In {app}, create a new {item} named '{title}'.",
    attributes={"app": "word", "item": "word", "title": "word"},
    evaluator=_create_checks,
    setup=_create_setup,
    solution=lambda app, item, title: [
        Step(ENV, "tap", {"point": layout.FAB}),
        Step(ENV, "write_text", {"text": title}),
        Step(ENV, "tap", {"point": layout.SAVE}),
    ],
    platforms=(ENV,),
    apps=tuple(v[1] for v in ITEMS.values()),
)

# ---- dial_number ----------------------------------------------------------------------------------------


def _dial_setup(envs: Mapping[str, Any], number: str) -> None:
    envs[ENV].launch("com.google.android.dialer")


DIAL_NUMBER = SubTaskTemplate(
    id="rl_dial_number",
    description="Using the Phone app's keypad, call {number}.",
    attributes={"number": "phone_number"},
    evaluator=lambda number: [
        ev.element_shown(resource_id="digits"),
        ev.element_shown(resource_id="digits", text=number),
        ev.call_made(number=number),
    ],
    setup=_dial_setup,
    solution=lambda number: [
        Step(ENV, "tap", {"point": layout.FAB}),
        Step(ENV, "write_text", {"text": number}),
        Step(ENV, "tap", {"point": KEYPAD_CALL}),
    ],
    platforms=(ENV,),
    apps=("com.google.android.dialer",),
)


# ---- families and the task set ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Family:
    """A template and how a seed draws its attributes on either split (``heldout``: the held-out pool)."""

    name: str
    template: SubTaskTemplate
    draw: Callable[[random.Random, bool], dict[str, Any]]
    heldout: str  # what is held out, in words


def _draw_open_app(rng: random.Random, heldout: bool) -> dict[str, Any]:
    train, held = _open_app_pairs()
    app, start = rng.choice(held if heldout else train)
    return {"app": app, "start": start}


def _draw_toggle(rng: random.Random, heldout: bool) -> dict[str, Any]:
    pairs = [(s, v) for s in SETTINGS for v in ("on", "off")]
    pool = [p for p in pairs if (p in SETTING_HELDOUT) == heldout]
    setting, state = rng.choice(pool)
    return {"setting": setting, "state": state}


def _draw_create(rng: random.Random, heldout: bool) -> dict[str, Any]:
    app = rng.choice(sorted(ITEMS))
    title = rng.choice(ADJECTIVES if heldout else NOUNS).capitalize()
    return {"app": app, "item": ITEMS[app][0], "title": title}


def _draw_dial(rng: random.Random, heldout: bool) -> dict[str, Any]:
    area = rng.randint(7, 9) if heldout else rng.randint(1, 6)
    return {"number": f"555-{area}{rng.randint(0, 99):02d}-{rng.randint(1000, 9999)}"}


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family("open_app", OPEN_APP, _draw_open_app, "a third of the (app, start screen) pairs"),
        Family("toggle_setting", TOGGLE_SETTING, _draw_toggle, "three of the ten (setting, state) pairs"),
        Family(
            "create_item",
            CREATE_ITEM,
            _draw_create,
            "the names typed (nouns in training, adjectives held out)",
        ),
        Family(
            "dial_number",
            DIAL_NUMBER,
            _draw_dial,
            "the numbers (555-1xx..6xx in training, 7xx..9xx held out)",
        ),
    )
}


def family_task(family: str, seed: int) -> Task:
    """Task ``seed`` of ``family``: held out when ``seed >= HELDOUT_SEED``."""
    fam = FAMILIES[family]
    attrs = fam.draw(random.Random(f"rl-phone:{family}:{seed}"), seed >= HELDOUT_SEED)
    sub = fam.template.instantiate(**attrs)
    return Task(f"rl-{family}-{seed}", sub.instruction, [sub])


def _keys(split: str, families: Sequence[str] | None, n: int) -> list[tuple[str, int]]:
    """(family, seed) of ``n`` tasks of each family on ``split``, in the set's order."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    names = list(families) if families is not None else list(FAMILIES)
    unknown = [f for f in names if f not in FAMILIES]
    if unknown:
        raise ValueError(f"unknown rl-phone families {unknown}; families: {', '.join(FAMILIES)}")
    base = HELDOUT_SEED if split == "heldout" else 0
    return [(f, base + k) for f in names for k in range(n)]


def _build(key: tuple[str, int]) -> Task:
    return family_task(*key)


def _id(key: tuple[str, int]) -> str:  # family_task's id, unbuilt
    return f"rl-{key[0]}-{key[1]}"


def _platforms(key: tuple[str, int]) -> tuple[str, ...]:  # Task.platforms: its one sub-task's, no events
    return tuple(dict.fromkeys(FAMILIES[key[0]].template.platforms))


def _needs_user(key: tuple[str, int]) -> bool:  # Task.needs_user
    return bool(FAMILIES[key[0]].template.user)


def rl_phone_set(
    splits: Sequence[str] = SPLITS, families: Sequence[str] | None = None, n: int = 64
) -> LazyTasks[tuple[str, int]]:
    """``n`` tasks of each family on each of ``splits``, in that order, each built when first read."""
    keys = [key for split in splits for key in _keys(split, families, n)]
    return LazyTasks(keys, _build, _id, _platforms, _needs_user)


def rl_phone_tasks(split: str = "train", families: Sequence[str] | None = None, n: int = 64) -> list[Task]:
    """``n`` tasks of each family on ``split`` ("train": seeds 0..n-1, "heldout": seeds HELDOUT_SEED..)."""
    return list(rl_phone_set((split,), families, n))


def load_rl_phone(name: str) -> LazyTasks[tuple[str, int]]:
    """The set by name: "rl-phone" (both splits), "rl-phone:train" or "rl-phone:heldout"; built lazily."""
    _, _, split = name.partition(":")
    if not split:
        return rl_phone_set()
    if split not in SPLITS:
        raise ValueError(f"unknown task set {name!r}: use rl-phone, rl-phone:train or rl-phone:heldout")
    return rl_phone_set((split,))
