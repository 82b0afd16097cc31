"""Recorded episodes: the native on-disk format (:mod:`.format`), the recorder that writes it
(:class:`RecordEpisodes`), and what only reads episode folders: the HTML viewer and the exporters (Minari,
Hugging Face datasets, derived datasets). A low layer: it runs no episodes and imports nothing of
:mod:`crab_gym.runs` (collect, eval, replay, Ray), which builds on it."""

from crab_gym.episode.format import Episode, EpisodeFormatError, load_episode, load_episodes
from crab_gym.episode.record import RecordEpisodes

__all__ = ["Episode", "EpisodeFormatError", "RecordEpisodes", "load_episode", "load_episodes"]
