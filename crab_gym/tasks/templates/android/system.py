"""Settings, camera and files templates."""

from __future__ import annotations

import datetime as dt
import posixpath
from collections.abc import Mapping
from typing import Any

from crab_gym.core.tasks import V0_SETS, V1_SETS, Step, SubTaskTemplate
from crab_gym.envs.android import evaluators as ev
from crab_gym.tasks.templates.android.layout import (
    ACTION,
    BLUETOOTH_NAME_ROW,
    DRAWER,
    NETWORK_SWITCHES,
    PLATFORMS,
    ROWS,
    SDCARD,
    SDCARD_DOWNLOAD_ROW,
    SWITCH,
    android,
    day_of,
    launch,
    sdcard_path,
    step,
    tap,
)

# ---- settings ---------------------------------------------------------------------------------------------

SETTINGS_DARK_THEME = SubTaskTemplate(
    id="settings_dark_theme",
    sets=V0_SETS,
    description="In the Settings app, turn on the dark theme (under Display).",
    attributes={},
    evaluator=lambda: [ev.dark_theme(on=True)],
    solution=lambda: [*launch("settings"), tap((0.5, ROWS[2])), tap(SWITCH)],
    platforms=PLATFORMS,
    apps=("com.android.settings",),
)

SETTINGS_BLUETOOTH_ON = SubTaskTemplate(
    id="settings_bluetooth_on",
    sets=V0_SETS,
    description="In the Settings app, turn Bluetooth on (under Connected devices).",
    attributes={},
    evaluator=lambda: [ev.setting_equals(namespace="global", key="bluetooth_on", value="1")],
    solution=lambda: [*launch("settings"), tap((0.5, ROWS[1])), tap(SWITCH)],
    platforms=PLATFORMS,
    apps=("com.android.settings",),
)

# ---- camera and files -------------------------------------------------------------------------------------

CAMERA_TAKE_PHOTO = SubTaskTemplate(
    id="camera_take_photo",
    sets=V0_SETS,
    description="Open the Camera app and take a photo (it is saved under /sdcard/DCIM/Camera).",
    attributes={},
    evaluator=lambda: [ev.app_in_foreground(package="com.android.camera2"), ev.photo_taken(at_least=1)],
    solution=lambda: [*launch("camera"), tap((0.5, 0.8583))],
    platforms=PLATFORMS,
    apps=("com.android.camera2",),
)


def _files_delete_setup(envs: Mapping[str, Any], filename: str) -> None:
    android(envs).write_file(f"/sdcard/Download/{filename}", f"Contents of {filename}\n")


FILES_DELETE = SubTaskTemplate(
    id="files_delete",
    sets=V0_SETS,
    description=(
        "Using the Files app (in the app drawer), delete the file {filename} from the Download folder of "
        "the phone's internal storage (touch and hold a file to delete it)."
    ),
    attributes={"filename": "filename"},
    evaluator=lambda filename: [ev.file_absent(path=f"/sdcard/Download/{filename}")],
    setup=_files_delete_setup,
    solution=lambda filename: [
        step("open_app_drawer"),
        tap(DRAWER["files"]),
        tap((0.5, ROWS[SDCARD_DOWNLOAD_ROW])),
        step("long_tap", point=(0.5, ROWS[0])),  # the only file in Download
    ],
    platforms=PLATFORMS,
    apps=("com.google.android.documentsui",),
)


SETTINGS_WIFI_OFF = SubTaskTemplate(
    id="settings_wifi_off",
    sets=V0_SETS,
    description="In the Settings app, turn Wi-Fi off (under Network & internet).",
    attributes={},
    evaluator=lambda: [ev.setting_equals(namespace="global", key="wifi_on", value="0")],
    solution=lambda: [*launch("settings"), tap((0.5, ROWS[0])), tap(NETWORK_SWITCHES["wifi"])],
    platforms=PLATFORMS,
    apps=("com.android.settings",),
)

SETTINGS_AIRPLANE_MODE = SubTaskTemplate(
    id="settings_airplane_mode",
    sets=V0_SETS,
    description="In the Settings app, turn on airplane mode (under Network & internet).",
    attributes={},
    evaluator=lambda: [ev.setting_equals(namespace="global", key="airplane_mode_on", value="1")],
    solution=lambda: [*launch("settings"), tap((0.5, ROWS[0])), tap(NETWORK_SWITCHES["airplane"])],
    platforms=PLATFORMS,
    apps=("com.android.settings",),
)


SETTINGS_BLUETOOTH_RENAME = SubTaskTemplate(
    id="settings_bluetooth_rename",
    sets=V1_SETS,
    description=(
        "In the Settings app, rename this phone as other Bluetooth devices see it to '{name}' "
        "(Connected devices, Device name)."
    ),
    attributes={"name": "word"},
    evaluator=lambda name: [ev.setting_equals(namespace="secure", key="bluetooth_name", value=name)],
    solution=lambda name: [
        *launch("settings"),
        tap((0.5, ROWS[1])),  # Connected devices
        tap(BLUETOOTH_NAME_ROW),
        step("write_text", text=name),
        tap(ACTION),  # Rename
    ],
    platforms=PLATFORMS,
    apps=("com.android.settings",),
    inputs=("name",),
)


def _dated_file_setup(envs: Mapping[str, Any], path: str, date: str) -> None:
    phone, where = android(envs), sdcard_path(path)
    noon = dt.datetime.combine(day_of(date), dt.time(12), dt.timezone.utc)
    phone.write_file(where, f"{posixpath.basename(where)}\n")
    phone.set_mtime(where, int(noon.timestamp()))


def _open_file(path: str) -> list[Step]:
    """Folder by folder from the top of the shared storage; the file is the only one in its folder."""
    folder = sdcard_path(path).removeprefix("/sdcard/").split("/")[0]
    return [
        step("open_app_drawer"),
        tap(DRAWER["files"]),
        tap((0.5, ROWS[SDCARD.index(folder)])),
        tap((0.5, ROWS[0])),
    ]


def _day_text(date: str) -> str:
    day = day_of(date)
    return f"{day.day} {day:%B %Y}"  # as the Files app's details show it: 4 June 2024


FILES_FIND_DATE = SubTaskTemplate(
    id="files_find_date",
    sets=V1_SETS,
    description=(
        "Using the Files app (in the app drawer), find when the file {path} of the phone's internal storage "
        "was created, and open its details."
    ),
    attributes={"path": "phone_file", "date": "date"},
    evaluator=lambda path, date: [
        ev.app_in_foreground(package="com.google.android.documentsui"),
        ev.element_shown(resource_id="title", text=posixpath.basename(path))
        & ev.element_shown(resource_id="date_modified", text=_day_text(date)),
    ],
    setup=_dated_file_setup,
    solution=lambda path, date: _open_file(path),
    platforms=PLATFORMS,
    apps=("com.google.android.documentsui",),
    output_type="date",
    output=lambda path, date: date,
    hidden=("date",),
)
