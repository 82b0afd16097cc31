"""Android ("android") sub-task templates, one module per group of apps: communication (contacts, SMS,
phone, mail), organizer (calendar, clock, notes, tasks), system (settings, camera, files) and online (Drive,
Maps). Importing this package registers them, in the order of ``ANDROID_TEMPLATES`` (the generator samples
in registration order, so it stays fixed).

Every instruction says what its checks look at; setups use the sub-env's named operations (launch, add_task,
add_contact, write_file); scripted solutions use only Android actions, with tap points taken from the
simulated phone's deterministic layout (:mod:`.layout`). Seeds change the phone's contents but not the counts
the solutions rely on (3 notes, 3 tasks, the folders of /sdcard).

Attribute types used here beyond the generator's own: ``phone_number`` ("555-123-4567"), ``date``
("2024-05-17", or as CRAB writes one: "1 January 2025"), ``clock_time`` ("14:30"), ``hour`` (an int, 9-22:
never one of the seeded alarms), ``minute`` (an int, a multiple of 5), ``phone_file`` (a file under the
shared storage, "Download/a.txt") and ``city`` (a world clock city).
"""

from __future__ import annotations

from crab_gym.core.tasks import SubTaskTemplate, register
from crab_gym.tasks.templates.android import chrome, communication, online, organizer, system, web

ANDROID_TEMPLATES: tuple[SubTaskTemplate, ...] = (
    communication.CONTACTS_ADD,
    communication.SMS_SEND,
    communication.SMS_SEND_TO_CONTACT,
    communication.PHONE_CALL,
    organizer.CALENDAR_ADD_EVENT,
    organizer.CLOCK_SET_ALARM,
    organizer.NOTES_CREATE,
    organizer.TASKS_ADD,
    organizer.TASKS_COMPLETE,
    system.SETTINGS_DARK_THEME,
    system.SETTINGS_BLUETOOTH_ON,
    system.CAMERA_TAKE_PHOTO,
    system.FILES_DELETE,
    organizer.CLOCK_START_TIMER,
    organizer.CLOCK_TURN_OFF_ALARM,
    system.SETTINGS_WIFI_OFF,
    system.SETTINGS_AIRPLANE_MODE,
    organizer.TASKS_DELETE,
    organizer.NOTES_EDIT,
    organizer.NOTES_DELETE,
    communication.SMS_REPLY,
    communication.PHONE_CALL_BACK,
    communication.MAIL_SEND,
    online.DRIVE_CREATE_FOLDER,
    online.MAPS_FIND_ADDRESS,
    online.MAPS_POSTAL_CITY,
    online.MAPS_ROUTE_DISTANCE,
)
# CRAB v0's phone sub-tasks (crab_gym/tasks/crab_v0.py): in v1 but not drawn by the generator (their sets).
CRAB_PHONE: tuple[SubTaskTemplate, ...] = (
    organizer.NOTES_CREATE_UNTITLED,
    organizer.CALENDAR_ADD_ALL_DAY,
    organizer.CALENDAR_FIND_EVENT,
    communication.CONTACTS_ADD_EMAIL,
    communication.CONTACTS_FIND_EMAIL,
    system.SETTINGS_BLUETOOTH_RENAME,
    system.FILES_FIND_DATE,
    organizer.CLOCK_ADD_CITY,
)
# For v1, not v0: Chrome on the offline web (searches, sites: `chrome`); facts read in Chrome written into
# other apps, the world clock and recents (`web`).
CHROME_TEMPLATES: tuple[SubTaskTemplate, ...] = (chrome.CHROME_SEARCH, chrome.CHROME_OPEN_SITE)
WEB_TEMPLATES: tuple[SubTaskTemplate, ...] = web.WEB_TEMPLATES
for _template in ANDROID_TEMPLATES + CRAB_PHONE + CHROME_TEMPLATES + WEB_TEMPLATES:
    register(_template)

__all__ = ["ANDROID_TEMPLATES", "CHROME_TEMPLATES", "CRAB_PHONE", "WEB_TEMPLATES"]
