"""Wrappers grouped by what they change: SetOfMarks the observations and actions (numbered marks)."""

from crab_gym.wrappers.set_of_marks import SetOfMarks

__all__ = ["SetOfMarks"]
