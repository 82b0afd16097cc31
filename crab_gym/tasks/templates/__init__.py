"""Built-in sub-task templates; importing this package registers them (see crab_gym.core.tasks.TEMPLATES):
``crab_gym.tasks`` defers that to the first template lookup.

One module per platform; cross-device templates go in their own module. The desktop's evaluators (and with
them Xlib and the desktop's actions) are imported when a desktop task is first built, so a process that
only drives the phone never loads them (``crab_gym.tasks`` names their modules in ``EVALUATOR_MODULES`` for
a check read back from JSON).
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
