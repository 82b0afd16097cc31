"""Built-in sub-task templates; importing this package registers them (see crab_gym.core.tasks.TEMPLATES).

One module per platform; cross-device templates go in their own module.
"""

from crab_gym.tasks.templates import (
    android,  # noqa: F401
    ask,  # noqa: F401 - interactive: never drawn by the generator
    cross,  # noqa: F401
    cross_web,  # noqa: F401 - web on both devices (for v1)
    desktop,  # noqa: F401
    events,  # noqa: F401 - interactive: never drawn by the generator
)
from crab_gym.tasks.templates.desktop import browser  # noqa: F401 - Chromium (for v1)
