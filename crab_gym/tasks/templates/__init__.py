"""Built-in sub-task templates; importing this package registers them (see crab_gym.core.tasks.TEMPLATES).

One module per platform; cross-device templates go in their own module.
"""

from crab_gym.tasks.templates import (
    android,  # noqa: F401
    ask,  # noqa: F401 - interactive: never drawn by the generator
    cross,  # noqa: F401
    desktop,  # noqa: F401
    events,  # noqa: F401 - interactive: never drawn by the generator
)
