"""Checks of the phone's online apps (Drive, Chrome, Maps), written as ``sqlite3`` queries of each app's own
database at its Android path, as :mod:`crab_gym.envs.android.evaluators` reads Keep or Tasks. Text
comparisons ignore case and surrounding whitespace."""

from __future__ import annotations

from crab_gym.core.evaluators import evaluator
from crab_gym.envs.android.evaluators import _same
from crab_gym.envs.android.state import AndroidState

ENV = "android"

DRIVE_DB = "/data/data/com.google.android.apps.docs/databases/DocList.db"
FOLDER_MIME = "application/vnd.google-apps.folder"


@evaluator(env=ENV)
def drive_folder_exists(state: AndroidState, name: str) -> bool:
    """a folder named {name!r} is in the phone's Google Drive (not in the trash)"""
    rows = state.sqlite(
        DRIVE_DB, f"SELECT title FROM entries WHERE trashed = 0 AND mime_type = '{FOLDER_MIME}'"
    )
    return any(_same(t, name) for t, *_ in rows)


@evaluator(env=ENV)
def drive_file_exists(state: AndroidState, name: str) -> bool:
    """a file named {name!r} is in the phone's Google Drive (not in the trash)"""
    rows = state.sqlite(
        DRIVE_DB, f"SELECT title FROM entries WHERE trashed = 0 AND mime_type != '{FOLDER_MIME}'"
    )
    return any(_same(t, name) for t, *_ in rows)


__all__ = ["drive_file_exists", "drive_folder_exists"]
