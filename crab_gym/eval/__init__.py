"""Evaluation: metrics per platform (desktop, Android, cross-device) and runs compared side by side."""

from crab_gym.eval.platforms import PLATFORMS, metrics_by_platform, platform_of, platform_table

__all__ = ["PLATFORMS", "metrics_by_platform", "platform_of", "platform_table"]
