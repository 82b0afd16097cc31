"""Templates whose tasks react to a device event (filled in by the events work)."""

from __future__ import annotations

from crab_gym.core.tasks import SubTaskTemplate

EVENT_TEMPLATES: tuple[SubTaskTemplate, ...] = ()
