"""Desktop ("ubuntu") sub-task templates, one module per app: terminal, files, editors (Mousepad, vim),
office (LibreOffice), images (GIMP) and settings. Importing this package registers them, in the order of
``DESKTOP_TEMPLATES`` (the generator samples in registration order, so it stays fixed).

Every template states in its instruction what its checks look at, prepares its own state in ``setup`` and
comes with a scripted solution made only of agent actions (keyboard first; clicks only where the setup fixes
the layout). Paths in attributes are session paths: ``~`` is the session's HOME.

Attribute type names used here: ``path`` (a ``~/...`` file path), ``folder`` (a ``~/...`` folder path),
``filename`` (a bare file name), ``foldername`` (a bare folder name), ``text`` (one line of text without
newlines), ``word`` (one word), ``number`` (an integer), ``scale`` (a decimal factor), ``font`` (a font
family name), ``color_scheme`` (``"dark"`` or ``"light"``).
"""

from __future__ import annotations

from crab_gym.core.tasks import SubTaskTemplate, register
from crab_gym.tasks.templates.desktop import (
    crab_extra,
    crab_office,
    editors,
    files,
    images,
    office,
    settings,
    terminal,
    web,
)

DESKTOP_TEMPLATES: tuple[SubTaskTemplate, ...] = (
    terminal.TERMINAL_CREATE_FOLDER,
    terminal.TERMINAL_COUNT_LINES,
    files.FILES_RENAME,
    files.FILES_MOVE,
    editors.TEXT_EDITOR_WRITE_FILE,
    editors.TEXT_EDITOR_APPEND_LINE,
    editors.TEXT_EDITOR_COPY_TEXT,
    editors.VIM_WRITE_FILE,
    office.WRITER_CREATE_DOCUMENT,
    office.CALC_SUM_COLUMN,
    office.IMPRESS_CREATE_SLIDES,
    settings.SETTINGS_COLOR_SCHEME,
    settings.SETTINGS_TEXT_SCALING,
    settings.SETTINGS_FONT,
    terminal.TERMINAL_COPY_FILE,
    terminal.TERMINAL_ARCHIVE,
    terminal.TERMINAL_MAKE_EXECUTABLE,
    terminal.TERMINAL_SORT_LINES,
    terminal.TERMINAL_GREP_LINES,
    terminal.TERMINAL_REPLACE_WORD,
    settings.SETTINGS_CURSOR_SIZE,
    settings.SETTINGS_ANIMATIONS_OFF,
    settings.SETTINGS_CLOCK_FORMAT,
    terminal.TERMINAL_DELETE_FILE,
)
# For CRAB v0's UUIDs (pictures, clipboard, the web): not drawn by the generator (their sets).
CRAB_ONLY = (
    crab_extra.CRAB_EXTRA
    + crab_office.CRAB_OFFICE
    + web.WEB_TEMPLATES
    + (images.GIMP_BRIGHTEN_IMAGE, images.GIMP_COMBINE_LEFT_RIGHT)
)
for _template in DESKTOP_TEMPLATES + CRAB_ONLY:
    register(_template)

__all__ = ["CRAB_ONLY", "DESKTOP_TEMPLATES"]
