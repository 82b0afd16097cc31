"""The task's simulated user, who answers ``ask_user(question)`` from facts the instruction leaves out.

A template declares what its user knows as :class:`UserFact` entries: the hidden attribute, the words a
question about it would use, and the sentence that answers it. The user matches a question by those words
(case and a plural "s" ignored) and answers every fact the question is about; a question about nothing the
user knows gets a polite "I don't know". Answers are a pure function of the question and the attributes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["DONT_KNOW", "SimulatedUser", "UserFact"]

DONT_KNOW = "Sorry, I don't know that. I can only tell you what the task needs."
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def _words(text: str) -> list[str]:
    return [w.removesuffix("s") if len(w) > 3 else w for w in _WORD.findall(text.lower())]


@dataclass(frozen=True)
class UserFact:
    """What the user knows about one hidden ``attribute``: ``topics`` are words or phrases a question about
    it contains (any one of them will do), ``answer`` the reply, a format string over the sub-task's
    attributes ("My boss is {boss}.")."""

    attribute: str
    topics: tuple[str, ...]
    answer: str

    def __post_init__(self) -> None:
        if not self.topics or not all(_words(t) for t in self.topics):
            raise ValueError(f"user fact {self.attribute!r}: topics must be non-empty words or phrases")

    def score(self, question: Sequence[str]) -> int:
        """How many of the topics the question (as :func:`_words`) mentions; a phrase counts when its words
        appear in a row."""
        hits = 0
        for topic in self.topics:
            t = _words(topic)
            if any(question[i : i + len(t)] == t for i in range(len(question) - len(t) + 1)):
                hits += 1
        return hits


@dataclass(frozen=True)
class SimulatedUser:
    """The user of one task: ``facts`` holds (fact, the attributes of the sub-task that declared it)."""

    facts: tuple[tuple[UserFact, Mapping[str, Any]], ...] = ()

    @property
    def needed(self) -> int:
        """The fewest questions that learn every fact: one per fact."""
        return len(self.facts)

    def answer(self, question: str) -> tuple[str, tuple[str, ...]]:
        """(the reply, the attributes it told): every fact with the best topic score, in declaration order,
        or :data:`DONT_KNOW` when no fact's topic is in the question."""
        words = _words(question)
        scored = [(fact.score(words), fact, attrs) for fact, attrs in self.facts]
        best = max((s for s, _, _ in scored), default=0)
        if best == 0:
            return DONT_KNOW, ()
        told = [(fact, attrs) for s, fact, attrs in scored if s == best]
        reply = " ".join(fact.answer.format(**attrs) for fact, attrs in told)
        return reply, tuple(fact.attribute for fact, _ in told)
