"""Built-in sub-task templates; importing this package registers them (see crab_gym.core.tasks.TEMPLATES).

One module per platform; cross-device templates go in their own module.
"""

from crab_gym.tasks.templates import desktop  # noqa: F401
