"""The installed apps' manifests: what the system knows of an app before its code loads, as Android knows an
app from its AndroidManifest.xml (package, label, icon colour, activities, the uri schemes it takes). The
launcher, am, pm, intents and dumpsys read these; an app's module (apps/) imports when one of its screens is
first built or a uri handler of it first runs. tests/envs/android/sim/test_sim_manifest.py checks that each
manifest says what its app's AppSpec says."""

from __future__ import annotations

from dataclasses import dataclass, field

LAUNCHER = "com.google.android.apps.nexuslauncher"  # the home app


@dataclass(frozen=True)
class Manifest:
    package: str
    label: str
    color: tuple[int, int, int]
    modules: tuple[str, ...]  # the app's modules under apps/; the first defines its AppSpec, APP
    activities: dict[str, str] = field(default_factory=dict)  # screen name -> activity class, as declared
    main: str = "main"
    in_drawer: bool = True
    schemes: tuple[str, ...] = ()  # the uri schemes the app handles

    @property
    def screens(self) -> tuple[str, ...]:
        return tuple(self.activities)

    def activity(self, screen: str) -> str:
        """The fully qualified activity class of a screen."""
        cls = self.activities[screen]
        return self.package + cls if cls.startswith(".") else cls


def _app(package: str, label: str, color: tuple[int, int, int], *modules: str, **kw) -> Manifest:
    return Manifest(package, label, color, modules, **kw)


# in install order: the factory packages take their uids in this order (system/packages.py)
MANIFESTS: tuple[Manifest, ...] = (
    _app(
        LAUNCHER,
        "Pixel Launcher",
        (66, 133, 244),
        "launcher",
        activities={
            "home": "com.google.android.apps.nexuslauncher.NexusLauncherActivity",
            "recents": "com.android.quickstep.RecentsActivity",
        },
        in_drawer=False,
    ),
    _app(
        "com.android.contacts",
        "Contacts",
        (26, 115, 232),
        "contacts",
        activities={
            "main": ".activities.PeopleActivity",
            "search": ".activities.PeopleActivity",
            "edit": ".activities.ContactEditorActivity",
            "detail": ".quickcontact.QuickContactActivity",
        },
    ),
    _app(
        "com.google.android.apps.messaging",
        "Messages",
        (11, 87, 208),
        "messages",
        activities={
            "main": ".ui.ConversationListActivity",
            "conversation": ".ui.conversation.ConversationActivity",
            "compose": ".ui.conversation.ConversationActivity",
        },
    ),
    _app(
        "com.google.android.dialer",
        "Phone",
        (26, 115, 232),
        "dialer",
        activities={
            "main": ".extensions.GoogleDialtactsActivity",
            "keypad": ".extensions.GoogleDialtactsActivity",
            "incall": "com.android.incallui.InCallActivity",
        },
        schemes=("tel",),
    ),
    _app(
        "com.google.android.calendar",
        "Calendar",
        (66, 133, 244),
        "calendar",
        activities={
            "main": "com.android.calendar.AllInOneActivity",
            "edit": "com.android.calendar.event.EditEventActivity",
            "detail": "com.android.calendar.EventInfoActivity",
        },
    ),
    _app(
        "com.google.android.deskclock",
        "Clock",
        (26, 115, 232),
        "clock",
        "worldclock",
        activities={
            "alarm": "com.android.deskclock.DeskClock",
            "new_alarm": ".alarms.AlarmEditActivity",
            "timer": "com.android.deskclock.DeskClock",
            "clock": ".DeskClock",
            "cities": ".worldclock.CitySelectionActivity",
        },
        main="alarm",
    ),
    _app(
        "com.google.android.apps.tasks",
        "Tasks",
        (26, 115, 232),
        "tasks",
        activities={"main": ".ui.TaskListsActivity", "new": ".ui.AddTaskActivity"},
    ),
    _app(
        "com.google.android.keep",
        "Keep Notes",
        (251, 188, 4),
        "notes",
        activities={"main": ".activities.BrowseActivity", "edit": ".activities.EditorActivity"},
    ),
    _app(
        "com.google.android.documentsui",
        "Files",
        (26, 115, 232),
        "files",
        activities={
            "main": "com.android.documentsui.files.FilesActivity",
            "inspector": "com.android.documentsui.inspector.InspectorActivity",
        },
    ),
    _app(
        "com.android.settings",
        "Settings",
        (95, 99, 104),
        "settings",
        activities={
            "main": ".Settings",
            "network": ".SubSettings",
            "connected": ".SubSettings",
            "rename": ".SubSettings",
            "display": ".SubSettings",
        },
    ),
    _app(
        "com.google.android.gm",
        "Gmail",
        (234, 67, 53),
        "mail",
        activities={
            "main": ".ConversationListActivityGmail",
            "read": ".ConversationListActivityGmail",
            "compose": ".ComposeActivityGmail",
        },
    ),
    _app(
        "com.android.camera2",
        "Camera",
        (60, 64, 67),
        "camera",
        activities={"main": "com.android.camera.CameraActivity"},
    ),
    _app(
        "com.google.android.apps.docs",
        "Drive",
        (30, 142, 62),
        "drive",
        activities={
            "main": ".app.NewMainProxyActivity",
            "new": ".create.CreateNewDocActivity",
            "folder": ".doclist.dialogs.CreateFolderActivity",
            "upload": "com.google.android.apps.docs.app.PickActivity",
            "detail": ".detailspanel.DetailActivity",
        },
    ),
    _app(
        "com.android.chrome",
        "Chrome",
        (26, 115, 232),
        "chrome",
        activities={
            "main": "com.google.android.apps.chrome.Main",
            "menu": "org.chromium.chrome.browser.contextmenu.ContextMenuDialog",
        },
    ),
    _app(
        "com.google.android.apps.maps",
        "Maps",
        (234, 67, 53),
        "maps",
        activities={
            "main": "com.google.android.maps.MapsActivity",
            "share": "com.google.android.apps.gmm.sharing.ShareActivity",
            "directions": "com.google.android.apps.gmm.directions.DirectionsActivity",
        },
    ),
)
