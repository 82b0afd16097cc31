"""Agent action formats for :class:`crab_gym.wrappers.ActionDialect`, one module each, over a shared base
(the parsed :class:`Act`, screens and coordinates, key names, lowering onto our actions)."""

from __future__ import annotations

from crab_gym.wrappers.dialects.androidworld import AndroidWorld
from crab_gym.wrappers.dialects.anthropic import Anthropic
from crab_gym.wrappers.dialects.base import Act, Context, Dialect, Element, Planned, Screen, lift, lower
from crab_gym.wrappers.dialects.openai import OpenAI
from crab_gym.wrappers.dialects.pyautogui import PyAutoGUI
from crab_gym.wrappers.dialects.uitars import UITars

DIALECTS: dict[str, type[Dialect]] = {d.name: d for d in (Anthropic, OpenAI, UITars, PyAutoGUI, AndroidWorld)}

__all__ = ["DIALECTS", "Act", "Context", "Dialect", "Element", "Planned", "Screen", "lift", "lower"]
