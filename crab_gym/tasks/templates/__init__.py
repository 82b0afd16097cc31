"""Built-in sub-task templates; importing this package registers them (see crab_gym.core.tasks.TEMPLATES).

One module per platform; cross-device templates go in their own module. The desktop's evaluators (and with
them Xlib and the desktop's actions) are imported when a desktop task is first built, so a process that
only drives the phone never loads them; ``EVALUATOR_MODULES`` lets a check read back from JSON find them.
"""

from crab_gym.core.evaluators import EVALUATOR_MODULES
from crab_gym.tasks.templates import (
    android,  # noqa: F401
    ask,  # noqa: F401 - interactive: never drawn by the generator
    cross,  # noqa: F401
    cross_web,  # noqa: F401 - web on both devices (for v1)
    desktop,  # noqa: F401
    events,  # noqa: F401 - interactive: never drawn by the generator
)
from crab_gym.tasks.templates.desktop import browser  # noqa: F401 - Chromium (for v1)

EVALUATOR_MODULES["ubuntu"] = ("crab_gym.envs.desktop.evaluators", "crab_gym.envs.desktop.image_evaluators")
