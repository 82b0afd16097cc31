"""Recorded episodes as data: the native on-disk format, exporters (Minari, Hugging Face datasets),
derived datasets (grounding, inverse dynamics, success detection), replay and the HTML viewer."""

from crab_gym.data.episode import Episode, EpisodeFormatError, load_episode, load_episodes

__all__ = ["Episode", "EpisodeFormatError", "load_episode", "load_episodes"]
