"""Built-in sub-task templates; importing this package registers them (see crab_gym.core.tasks.TEMPLATES).

One module per platform; cross-device templates go in their own module.
"""

from crab_gym.tasks.templates import (
    android,  # noqa: F401
    desktop,  # noqa: F401
)

# Android and cross-device templates register here too when their modules exist:
# from crab_gym.tasks.templates import cross  # noqa: F401
