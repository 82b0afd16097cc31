"""Baseline agents: ``agent.act(obs, info) -> action``."""

from crab_gym.baselines.llm import (
    ByEnvironmentAgent,
    ByFunctionAgent,
    LLMAgent,
    ReflectiveAgent,
    RetryPolicy,
    make_llm_agent,
)
from crab_gym.baselines.oracle import OracleAgent
from crab_gym.baselines.random_agent import RandomAgent
from crab_gym.rollout import AgentError

__all__ = [
    "AgentError",
    "ByEnvironmentAgent",
    "ByFunctionAgent",
    "LLMAgent",
    "OracleAgent",
    "RandomAgent",
    "ReflectiveAgent",
    "RetryPolicy",
    "make_llm_agent",
]
