"""Reports of evaluation runs, read from their folders (episodes, ``metrics.json``, ``failed.jsonl``):
metrics per platform (desktop, Android, cross-device), runs compared side by side, and the run's
report.html (:mod:`crab_gym.report.page`, plots in :mod:`crab_gym.report.plots`)."""

from crab_gym.report.platforms import PLATFORMS, metrics_by_platform, platform_of, platform_table

__all__ = ["PLATFORMS", "metrics_by_platform", "platform_of", "platform_table"]
