"""Templates of the phone's online apps: Google Drive (folders), and Google Maps over the offline web's
seeded maps (places, postal codes, routes)."""

from __future__ import annotations

from crab_gym.core.tasks import SubTaskTemplate
from crab_gym.envs.android import web_evaluators as web
from crab_gym.tasks.templates.android.layout import DRAWER, FAB, PLATFORMS, ROWS, SAVE, step, tap

DRIVE = "com.google.android.apps.docs"


def open_drawer_app(app: str) -> list:
    """Home, the app drawer, the app's icon."""
    return [step("press", button="home"), step("open_app_drawer"), tap(DRAWER[app])]


DRIVE_CREATE_FOLDER = SubTaskTemplate(
    id="drive_create_folder",
    description=(
        "In the Google Drive app (Drive, in the app drawer), create a new folder named '{name}' in My Drive."
    ),
    attributes={"name": "foldername"},
    evaluator=lambda name: [web.drive_folder_exists(name=name)],
    solution=lambda name: [
        *open_drawer_app("drive"),
        tap(FAB),  # New
        tap((0.5, ROWS[0])),  # Folder
        step("write_text", text=name),
        tap(SAVE),  # Create
    ],
    platforms=PLATFORMS,
    apps=(DRIVE,),
)
