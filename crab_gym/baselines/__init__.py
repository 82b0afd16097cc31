"""Baseline agents: ``agent.act(obs, info) -> action``."""

from crab_gym.baselines.llm import LLMAgent
from crab_gym.baselines.oracle import OracleAgent
from crab_gym.baselines.random_agent import RandomAgent

__all__ = ["LLMAgent", "OracleAgent", "RandomAgent"]
