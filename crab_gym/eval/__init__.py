"""Evaluation: metrics per platform (desktop, Android, cross-device), runs compared side by side, and the
run's report.html (:mod:`crab_gym.eval.report`, plots in :mod:`crab_gym.eval.plots`)."""

from crab_gym.eval.platforms import PLATFORMS, metrics_by_platform, platform_of, platform_table

__all__ = ["PLATFORMS", "metrics_by_platform", "platform_of", "platform_table"]
