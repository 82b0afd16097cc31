"""Wrappers grouped by what they change: SetOfMarks the observations and actions (numbered marks),
FunctionCalls the action interface (tool calls), FlattenActions the spaces (MultiDiscrete actions, a flat
Dict of Boxes) for RL libraries; ActionDialect the action format (an agent's own: computer-use tools, UI-TARS,
pyautogui code, AndroidWorld JSON); Perturb the devices (pop-ups, planted instructions: robustness and
safety); RecordEpisodes only observes (it writes episodes to disk). Each is a
gymnasium.Wrapper; they stack."""

from crab_gym.episode.record import RecordEpisodes  # lives with the episode format it writes
from crab_gym.wrappers.action_dialect import ActionDialect
from crab_gym.wrappers.flatten import FlattenActions, text_candidates
from crab_gym.wrappers.function_calls import FunctionCalls, ParsedCall, ToolCallSpace, ToolTable
from crab_gym.wrappers.perturb import Perturb
from crab_gym.wrappers.set_of_marks import SetOfMarks

__all__ = [
    "ActionDialect",
    "FlattenActions",
    "FunctionCalls",
    "ParsedCall",
    "Perturb",
    "RecordEpisodes",
    "SetOfMarks",
    "ToolCallSpace",
    "ToolTable",
    "text_candidates",
]
