"""The code-hosting site's content: repositories (owner/name, description, topics, stars, files, releases)."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from .places import norm

# topic -> (repository name stems, a description pattern); a keyword outside the table gets repos made from it
TOPICS: dict[str, tuple[tuple[str, ...], str]] = {
    "segment-anything": (("segment-anything", "sam-lite", "sam-video"), "Promptable segmentation"),
    "reinforcement learning": (("rl-baselines", "gridworld-rl", "policy-zoo"), "RL agents and environments"),
    "pytorch": (("pytorch-recipes", "torch-utils", "pytorch-lightning-lite"), "PyTorch utilities"),
    "object detection": (("mmdetection", "detector-zoo", "yolo-tiny"), "Object detection models and tools"),
    "web scraping": (("scrapekit", "crawl-lite", "html-harvest"), "Web scraping helpers"),
    "language model": (("tiny-lm", "camel", "chat-agents"), "Language models and agents"),
    "data visualization": (("plotkit", "chart-garden", "viz-notebook"), "Plotting and visual analysis"),
    "gui agent": (("crab", "desktop-agent", "screen-pilot"), "Agents that operate graphical interfaces"),
}  # fmt: skip
OWNERS = (
    "open-lab",
    "camel-ai",
    "facebookresearch",
    "deepmind-lab",
    "tinyml",
    "openmmlab",
    "data-forge",
    "zeta-ai",
)
LANGUAGES = ("Python", "Python", "C++", "Rust", "TypeScript", "Go")


@dataclass(frozen=True)
class Repo:
    owner: str
    name: str
    description: str
    topics: tuple[str, ...]
    language: str
    stars: int
    version: str  # its latest release tag, e.g. "v3.3.0"

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    @property
    def url(self) -> str:
        return f"https://github.com/{self.full_name}"

    @property
    def archive_url(self) -> str:
        """The release archive's download URL (the files site serves its bytes)."""
        return f"{self.url}/archive/refs/tags/{self.version}.zip"

    @property
    def readme(self) -> str:
        return f"# {self.name}\n\n{self.description}.\n\nTopics: {', '.join(self.topics)}.\n"

    def about(self, keyword: str) -> bool:
        """Whether the repository is about ``keyword``: it names it in its name, description or topics."""
        key = norm(keyword)
        return bool(key) and key in norm(f"{self.name} {self.description} {' '.join(self.topics)}")


class Repos:
    """``Repos(seed).repos``, ``.search(keyword)`` (repos about it, most stars first), ``.repo(name)``."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.repos: tuple[Repo, ...] = tuple(r for topic in TOPICS for r in self._for_topic(topic))
        self._made: dict[str, Repo] = {}

    def _for_topic(self, topic: str) -> list[Repo]:
        stems, desc = TOPICS.get(topic) or ((_slug(topic), f"{_slug(topic)}-tools"), f"Tools for {topic}")
        rng = random.Random(f"{self.seed}:repos:{norm(topic)}")
        return [
            Repo(
                owner=rng.choice(OWNERS),
                name=stem,
                description=f"{desc}: {topic}" if i else desc + f" ({topic})",
                topics=(_slug(topic), rng.choice(("machine-learning", "python", "tools", "research"))),
                language=rng.choice(LANGUAGES),
                stars=rng.randint(40, 52000),
                version=f"v{rng.randint(0, 3)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}",
            )
            for i, stem in enumerate(stems)
        ]

    def search(self, keyword: str) -> list[Repo]:
        hits = [r for r in self.repos if r.about(keyword)]
        if not hits and norm(keyword):  # a real site finds something for any topic: make its repos, stably
            hits = self._for_topic(keyword.strip())
            self._made.update((r.full_name, r) for r in hits)
        return sorted(hits, key=lambda r: (-r.stars, r.full_name))

    def repo(self, full_name: str) -> Repo | None:
        found = next((r for r in self.repos if r.full_name == full_name), None)
        return found or self._made.get(full_name)


def _slug(text: str) -> str:
    return re.sub(r"\s+", "-", norm(text)) or "project"
