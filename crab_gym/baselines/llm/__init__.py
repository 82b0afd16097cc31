"""LLM agents through the OpenAI Chat Completions API, in the agent structures of the CRAB paper.

Any server that speaks that API works (OpenAI, vLLM, llama.cpp, Ollama): ``base_url`` and ``model`` pick it.
The env must be wrapped in :class:`~crab_gym.wrappers.FunctionCalls` (over
:class:`~crab_gym.wrappers.SetOfMarks` for numbered elements). Every agent's ``act(obs, info)`` returns a
tool call (or, in JSON mode, a text holding one) for ``FunctionCalls.step``, reports every model call's
tokens to the env (so CE is computed) and tallies them per role in ``tokens_by_role``.

- ``single`` (:class:`LLMAgent`): one model sees every screen and calls the tools.
- ``by-function`` (:class:`ByFunctionAgent`): a planner writes sub-goals, a tool agent makes the calls.
- ``by-environment`` (:class:`ByEnvironmentAgent`): a main agent delegates to one sub-agent per device.
- ``reflective`` (:class:`ReflectiveAgent`): M3A-style, a summary of each step from the screens around it.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from crab_gym.baselines.llm.base import ChatAgent, image_data_url, png_data_url
from crab_gym.baselines.llm.by_environment import ByEnvironmentAgent
from crab_gym.baselines.llm.by_function import ByFunctionAgent
from crab_gym.baselines.llm.chat import RetryPolicy
from crab_gym.baselines.llm.reflective import ReflectiveAgent
from crab_gym.baselines.llm.single import SYSTEM_PROMPT, LLMAgent
from crab_gym.rollout import AgentError

STRUCTURES: dict[str, type[ChatAgent]] = {
    "single": LLMAgent,
    "by-function": ByFunctionAgent,
    "by-environment": ByEnvironmentAgent,
    "reflective": ReflectiveAgent,
}
"""The agent structures by name, as ``crab-gym eval --structure`` takes them."""


def make_llm_agent(structure: str, env: gym.Env, **options: Any) -> ChatAgent:
    """An LLM agent of the given structure (single | by-function | by-environment | reflective) over a
    FunctionCalls env; ``options`` go to its constructor (``model`` is required)."""
    cls = STRUCTURES.get(structure.strip().lower().replace("_", "-"))
    if cls is None:
        raise ValueError(f"unknown agent structure {structure!r}; choose from {', '.join(STRUCTURES)}")
    return cls(env, **options)


__all__ = [
    "STRUCTURES",
    "SYSTEM_PROMPT",
    "AgentError",
    "ByEnvironmentAgent",
    "ByFunctionAgent",
    "ChatAgent",
    "LLMAgent",
    "ReflectiveAgent",
    "RetryPolicy",
    "image_data_url",
    "make_llm_agent",
    "png_data_url",
]
