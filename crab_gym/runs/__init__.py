"""Runs of many episodes, the high layer: the worker pool (:mod:`.pool`), ``collect``, ``eval``, ``replay``,
the run check of ``tasks validate`` and Ray (:mod:`.distributed`). Everything here drives
:func:`crab_gym.rollout`; nothing below this package imports it."""
