"""Intents as `am` builds them from its arguments, printed as Android prints them, and resolved to the
phone's activities (explicit components, and the implicit intents the phone's apps handle).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

from ..shell.tokens import RawError
from .registry import APPS, LAUNCHER, short

# am's value flags: name -> (extra type, number of values)
EXTRA_TYPES = {
    "-e": "s",
    "--es": "s",
    "--esn": "null",
    "--ez": "z",
    "--ei": "i",
    "--el": "l",
    "--ef": "f",
    "--ed": "d",
    "--eu": "u",
    "--ecn": "cn",
    "--eia": "ia",
    "--eial": "ia",
    "--ela": "la",
    "--elal": "la",
    "--efa": "fa",
    "--efal": "fa",
    "--esa": "sa",
    "--esal": "sa",
}
FLAG_OPTIONS = {
    "--grant-read-uri-permission": 0x1,
    "--grant-write-uri-permission": 0x2,
    "--exclude-stopped-packages": 0x10,
    "--include-stopped-packages": 0x20,
    "--debug-log-resolution": 0x8,
    "--activity-brought-to-front": 0x400000,
    "--activity-clear-top": 0x4000000,
    "--activity-clear-when-task-reset": 0x80000,
    "--activity-exclude-from-recents": 0x800000,
    "--activity-launched-from-history": 0x100000,
    "--activity-multiple-task": 0x8000000,
    "--activity-no-animation": 0x10000,
    "--activity-no-history": 0x40000000,
    "--activity-no-user-action": 0x40000,
    "--activity-previous-is-top": 0x1000000,
    "--activity-reorder-to-front": 0x20000,
    "--activity-reset-task-if-needed": 0x200000,
    "--activity-single-top": 0x20000000,
    "--activity-clear-task": 0x8000,
    "--activity-task-on-home": 0x4000,
    "--receiver-registered-only": 0x40000000,
    "--receiver-replace-pending": 0x20000000,
    "--receiver-foreground": 0x10000000,
    "--receiver-no-abort": 0x8000000,
    "--receiver-include-background": 0x1000000,
}
IGNORED = frozenset({"--selector", "--grant-persistable-uri-permission", "--grant-prefix-uri-permission"})
FLAG_NEW_TASK = 0x10000000
FLAG_RECEIVER_FROM_SHELL = 0x400000


class IntentError(RawError):
    """A bad `am` argument: Android's exception text, exit status 255."""

    def __init__(self, verb: str, exception: str) -> None:
        super().__init__(f"Exception occurred while executing '{verb}':\n{exception}", 255)


@dataclass
class Intent:
    action: str = ""
    data: str = ""
    mime: str = ""
    categories: list[str] = field(default_factory=list)
    component: str = ""  # package/class as given
    package: str = ""
    flags: int = 0
    extras: dict[str, object] = field(default_factory=dict)

    def component_full(self) -> tuple[str, str]:
        pkg, _, cls = self.component.partition("/")
        return pkg, (pkg + cls if cls.startswith(".") else cls)

    def short(self, flags: int | None = None) -> str:
        """Intent.toShortString: act cat dat typ flg pkg cmp (has extras)."""
        f = self.flags if flags is None else flags
        parts = [
            f"act={self.action}" if self.action else "",
            f"cat=[{','.join(self.categories)}]" if self.categories else "",
            f"dat={self.data}" if self.data else "",
            f"typ={self.mime}" if self.mime else "",
            f"flg=0x{f:x}" if f else "",
            f"pkg={self.package}" if self.package else "",
            f"cmp={short(*self.component_full())}" if self.component else "",
            "(has extras)" if self.extras else "",
        ]
        return " ".join(p for p in parts if p)


def _value(verb: str, kind: str, raw: str) -> object:
    try:
        if kind == "z":
            low = raw.lower()
            if low in ("true", "t") or (low.isdigit() and int(low) != 0):
                return True
            if low in ("false", "f") or low.isdigit():
                return False
            raise IntentError(verb, f"java.lang.IllegalArgumentException: Invalid boolean value: {raw}")
        if kind in ("i", "l"):
            return int(raw, 0)
        if kind in ("f", "d"):
            return float(raw)
        if kind in ("ia", "la"):
            return [int(v) for v in raw.split(",")]
        if kind == "fa":
            return [float(v) for v in raw.split(",")]
        if kind == "sa":
            return [v.replace("\\,", ",") for v in raw.replace("\\,", "\0").split(",")]
    except ValueError as e:
        raise IntentError(verb, f'java.lang.NumberFormatException: For input string: "{raw}"') from e
    return raw


def parse(verb: str, args: list[str], options: dict[str, int]) -> tuple[Intent, dict[str, str]]:
    """The intent and the command's own options (`options`: name -> number of values it takes)."""
    intent, opts = Intent(), {}
    i = 0

    def take(n: int = 1) -> list[str]:
        nonlocal i
        if i + n >= len(args):
            raise IntentError(
                verb, f'java.lang.IllegalArgumentException: Argument expected after "{args[i]}"'
            )
        values = args[i + 1 : i + 1 + n]
        i += n
        return values

    while i < len(args):
        a = args[i]
        if a == "-a":
            intent.action = take()[0]
        elif a == "-d":
            intent.data = take()[0]
        elif a == "-t":
            intent.mime = take()[0]
        elif a == "-c":
            intent.categories.append(take()[0])
        elif a == "-n":
            intent.component = take()[0]
            if "/" not in intent.component:
                raise IntentError(
                    verb, f"java.lang.IllegalArgumentException: Bad component name: {intent.component}"
                )
        elif a in ("-p", "--package"):
            intent.package = take()[0]
        elif a == "-f":
            raw = take()[0]
            intent.flags |= cast(int, _value(verb, "i", raw))  # kind "i" parses an int
        elif a == "-i":
            take()
        elif a in EXTRA_TYPES:
            kind = EXTRA_TYPES[a]
            if kind == "null":
                intent.extras[take()[0]] = None
            else:
                key, raw = take(2)
                intent.extras[key] = _value(verb, kind, raw)
        elif a in FLAG_OPTIONS:
            intent.flags |= FLAG_OPTIONS[a]
        elif a in IGNORED:
            pass
        elif a in options:
            opts[a] = take(options[a])[-1] if options[a] else "1"
        elif a.startswith("-") and a != "-":
            raise IntentError(verb, f"java.lang.IllegalArgumentException: Unknown option: {a}")
        elif "/" in a and ":" not in a and not intent.component:
            intent.component = a
        elif ":" in a and not intent.data:
            intent.data = a
        elif not intent.package:
            intent.package = a
        i += 1
    return intent, opts


# --- resolution --------------------------------------------------------------------------------------------

ACTION_SCREENS = {
    "android.settings.SETTINGS": ("com.android.settings", "main"),
    "android.settings.WIFI_SETTINGS": ("com.android.settings", "network"),
    "android.settings.WIRELESS_SETTINGS": ("com.android.settings", "network"),
    "android.settings.AIRPLANE_MODE_SETTINGS": ("com.android.settings", "network"),
    "android.settings.BLUETOOTH_SETTINGS": ("com.android.settings", "connected"),
    "android.settings.DISPLAY_SETTINGS": ("com.android.settings", "display"),
    "android.media.action.IMAGE_CAPTURE": ("com.android.camera2", "main"),
    "android.media.action.STILL_IMAGE_CAMERA": ("com.android.camera2", "main"),
    "android.intent.action.SHOW_ALARMS": ("com.google.android.deskclock", "alarm"),
    "android.intent.action.SET_TIMER": ("com.google.android.deskclock", "timer"),
    "android.intent.action.DIAL": ("com.google.android.dialer", "keypad"),
}
CONTACT_TYPES = (
    "vnd.android.cursor.dir/contact",
    "vnd.android.cursor.dir/raw_contact",
    "vnd.android.cursor.dir/person",
)
EVENT_TYPES = ("vnd.android.cursor.dir/event", "vnd.android.cursor.item/event")


@dataclass
class Target:
    """Where an activity intent lands: a package, a screen (None: the app's task as it is), and the screen's
    initial state (prefilled fields, the focused one)."""

    package: str
    screen: str | None = None
    state: dict = field(default_factory=dict)


def resolve(intent: Intent) -> Target | None:
    """The activity an intent starts on this phone, or None when nothing handles it."""
    if intent.component:
        pkg, cls = intent.component_full()
        app = APPS.get(pkg)
        if app is None:
            return None
        screen = next((n for n in app.screens if app.activity(n) == cls), None)
        if screen is None:
            return None
        return Target(pkg, None if screen == app.main else screen)
    act, data, mime = intent.action, intent.data, intent.mime
    scheme = data.split(":", 1)[0].lower() if ":" in data else ""
    if act == "android.intent.action.MAIN":
        if intent.package in APPS:
            return Target(intent.package)
        if "android.intent.category.HOME" in intent.categories or not intent.categories:
            return Target(LAUNCHER)
        return None
    if act in ("android.intent.action.INSERT", "android.intent.action.INSERT_OR_EDIT"):
        if mime in CONTACT_TYPES or "contacts" in data:
            return Target("com.android.contacts", "edit", _contact_state(intent.extras))
        if mime in EVENT_TYPES or data.startswith("content://com.android.calendar/events"):
            return Target("com.google.android.calendar", "edit", _event_state(intent.extras))
        return None
    if act in ("android.intent.action.SENDTO", "android.intent.action.VIEW", "android.intent.action.SEND"):
        if scheme in ("sms", "smsto"):
            body = str(intent.extras.get("sms_body", "") or "")
            fields = {"to": data.split(":", 1)[1], "body": body}
            return Target("com.google.android.apps.messaging", "compose", {"fields": fields, "focus": "body"})
        if scheme == "mailto":
            fields = {
                "to": data.split(":", 1)[1].split("?")[0],
                "subject": str(intent.extras.get("android.intent.extra.SUBJECT", "") or ""),
                "body": str(intent.extras.get("android.intent.extra.TEXT", "") or ""),
            }
            return Target("com.google.android.gm", "compose", {"fields": fields, "focus": "body"})
        if scheme in ("http", "https") and act == "android.intent.action.VIEW":
            return Target("com.android.chrome", "main", {"load": data})
        if scheme == "geo" and act == "android.intent.action.VIEW":
            return Target("com.google.android.apps.maps", "main", {"load": data})
        if scheme == "tel" and act == "android.intent.action.VIEW":
            return Target("com.google.android.dialer", "keypad", {"fields": {"digits": data[4:]}})
        if scheme == "content" and act == "android.intent.action.VIEW":
            return _view_content(data)
        return None
    if act == "android.intent.action.DIAL":
        digits = data[4:] if scheme == "tel" else ""
        return Target("com.google.android.dialer", "keypad", {"fields": {"digits": digits}} if digits else {})
    if act == "android.intent.action.SET_ALARM":
        ex = intent.extras
        fields = {
            k: str(ex[e])
            for k, e in (
                ("hour", "android.intent.extra.alarm.HOUR"),
                ("minute", "android.intent.extra.alarm.MINUTES"),
                ("label", "android.intent.extra.alarm.MESSAGE"),
            )
            if ex.get(e) is not None
        }
        return Target("com.google.android.deskclock", "new_alarm", {"fields": fields, "focus": "hour"})
    if act in ACTION_SCREENS:
        pkg, screen = ACTION_SCREENS[act]
        return Target(pkg, screen)
    return None


def _view_content(uri: str) -> Target | None:
    """VIEW on a provider's uri: the contacts list or a contact (content://contacts/people/[ID],
    content://com.android.contacts/contacts/[ID]), the calendar at a time or an event
    (content://com.android.calendar/time/MS, .../events/ID)."""
    authority, _, path = uri[len("content://") :].partition("/")
    parts = [x for x in path.split("/") if x]
    last = parts[-1] if parts and parts[-1].isdigit() else None
    if (authority, parts[:1]) in (("contacts", ["people"]), ("com.android.contacts", ["contacts"])):
        if last is None:
            return Target("com.android.contacts")
        return Target("com.android.contacts", "detail", {"contact_id": int(last)})
    if authority == "com.android.calendar" and parts[:1] == ["time"]:
        return Target("com.google.android.calendar")
    if authority == "com.android.calendar" and parts[:1] == ["events"] and last is not None:
        return Target("com.google.android.calendar", "detail", {"event_id": int(last)})
    return None


def _contact_state(extras: dict[str, object]) -> dict:
    """The editor's state for an ACTION_INSERT intent: ContactsContract.Intents.Insert's extras (name,
    phone, email) prefilled, the name split as the editor shows it (last word = last name)."""
    name = str(extras.get("name") or "").strip()
    first, _, last = name.rpartition(" ") if " " in name else (name, "", "")
    values = {
        "first_name": first,
        "last_name": last,
        "phone": str(extras.get("phone") or "").strip(),
        "email": str(extras.get("email") or "").strip(),
    }
    return {"fields": {k: v for k, v in values.items() if v}, "focus": "first_name"}


def _event_state(extras: dict[str, object]) -> dict:
    import datetime as dt

    fields = {
        "title": str(extras.get("title", "") or ""),
        "location": str(extras.get("eventLocation", "") or ""),
    }
    begin = extras.get("beginTime")
    if isinstance(begin, int):
        t = dt.datetime.fromtimestamp(begin / 1000, dt.timezone.utc)
        fields.update(date=t.strftime("%Y-%m-%d"), start=t.strftime("%H:%M"))
    end = extras.get("endTime")
    if isinstance(end, int):
        fields["end"] = dt.datetime.fromtimestamp(end / 1000, dt.timezone.utc).strftime("%H:%M")
    return {"fields": {k: v for k, v in fields.items() if v}, "focus": "title"}
