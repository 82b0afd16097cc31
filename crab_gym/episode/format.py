"""The native on-disk episode format: one folder per episode, a JSON-lines step log and frame files.

```
RUN/
  <episode id>/              a closed episode (``episode.json`` says complete or incomplete)
    episode.json             task, seed, instruction, env id and kwargs, spaces, versions, how it ended
    steps.jsonl              line 0 is the reset, then one line per step (see docs/episode-format.md)
    frames/<hash>.npy.zst    device screens and image observations, Zstandard-compressed .npy (or .png)
    arrays/<hash>.npy        other observation arrays (the instruction bytes, Set-of-Marks boxes)
  <episode id>.partial/      an episode being written, or one whose writer was killed
```

Files are content-addressed, so an unchanged screen is written once. Every file but ``steps.jsonl`` is
written to a temporary name and renamed; ``steps.jsonl`` grows a whole line at a time and a reader drops a
cut last line; the folder is renamed from ``.partial`` when the episode closes. A reader never sees half a
file, and a killed writer leaves a readable partial episode.

Writing is :mod:`crab_gym.episode.writer`, reading :mod:`crab_gym.episode.reader`; their names are here too.
"""

from __future__ import annotations

from crab_gym.episode.reader import Episode, episode_dirs, finished_ids, load_episode, load_episodes
from crab_gym.episode.writer import (
    FORMAT,
    FRAME_FORMATS,
    PARTIAL,
    EpisodeFormatError,
    EpisodeWriter,
    is_image,
    jsonable,
    safe_id,
)

__all__ = [
    "FORMAT",
    "FRAME_FORMATS",
    "PARTIAL",
    "Episode",
    "EpisodeFormatError",
    "EpisodeWriter",
    "episode_dirs",
    "finished_ids",
    "is_image",
    "jsonable",
    "load_episode",
    "load_episodes",
    "safe_id",
]
