"""The platform's permissions (name, group, protection level) and the phone's preinstalled packages with the
permissions each requests and the runtime ones granted out of the box."""

from __future__ import annotations

P = "android.permission."
G = "android.permission-group."

# runtime ("dangerous") permissions by group, as Android 14 groups them
RUNTIME_GROUPS = {
    "CONTACTS": ("READ_CONTACTS", "WRITE_CONTACTS", "GET_ACCOUNTS"),
    "CALENDAR": ("READ_CALENDAR", "WRITE_CALENDAR"),
    "SMS": ("SEND_SMS", "RECEIVE_SMS", "READ_SMS", "RECEIVE_MMS", "RECEIVE_WAP_PUSH"),
    "PHONE": (
        "READ_PHONE_STATE",
        "READ_PHONE_NUMBERS",
        "CALL_PHONE",
        "ADD_VOICEMAIL",
        "USE_SIP",
        "ANSWER_PHONE_CALLS",
    ),
    "CALL_LOG": ("READ_CALL_LOG", "WRITE_CALL_LOG", "PROCESS_OUTGOING_CALLS"),
    "CAMERA": ("CAMERA",),
    "MICROPHONE": ("RECORD_AUDIO",),
    "LOCATION": ("ACCESS_FINE_LOCATION", "ACCESS_COARSE_LOCATION", "ACCESS_BACKGROUND_LOCATION"),
    "STORAGE": ("READ_EXTERNAL_STORAGE", "WRITE_EXTERNAL_STORAGE"),
    "READ_MEDIA_VISUAL": ("READ_MEDIA_IMAGES", "READ_MEDIA_VIDEO"),
    "READ_MEDIA_AURAL": ("READ_MEDIA_AUDIO",),
    "NOTIFICATIONS": ("POST_NOTIFICATIONS",),
    "NEARBY_DEVICES": ("BLUETOOTH_CONNECT", "BLUETOOTH_SCAN", "BLUETOOTH_ADVERTISE", "NEARBY_WIFI_DEVICES"),
    "SENSORS": ("BODY_SENSORS",),
    "ACTIVITY_RECOGNITION": ("ACTIVITY_RECOGNITION",),
}
NORMAL = (
    "INTERNET",
    "ACCESS_NETWORK_STATE",
    "ACCESS_WIFI_STATE",
    "VIBRATE",
    "WAKE_LOCK",
    "RECEIVE_BOOT_COMPLETED",
    "FOREGROUND_SERVICE",
    "SET_ALARM",
    "NFC",
    "BLUETOOTH",
    "SCHEDULE_EXACT_ALARM",
    "USE_FULL_SCREEN_INTENT",
    "READ_SYNC_SETTINGS",
    "WRITE_SYNC_SETTINGS",
)
# signature|privileged|development: `pm grant` may grant these to any package that requests them
DEVELOPMENT = (
    "WRITE_SECURE_SETTINGS",
    "READ_LOGS",
    "DUMP",
    "SET_ANIMATION_SCALE",
    "CHANGE_CONFIGURATION",
    "SET_DEBUG_APP",
    "SET_PROCESS_LIMIT",
    "SET_ALWAYS_FINISH",
    "PACKAGE_USAGE_STATS",
)
SIGNATURE = (
    "WRITE_SETTINGS",
    "SYSTEM_ALERT_WINDOW",
    "INSTALL_PACKAGES",
    "DELETE_PACKAGES",
    "REBOOT",
    "MANAGE_EXTERNAL_STORAGE",
    "READ_PRIVILEGED_PHONE_STATE",
)

PERMISSIONS: dict[str, tuple[str, str]] = {  # name -> (group, protection)
    **{P + n: (G + g, "dangerous") for g, names in RUNTIME_GROUPS.items() for n in names},
    **{P + n: ("", "normal") for n in NORMAL},
    **{P + n: ("", "signature|privileged|development") for n in DEVELOPMENT},
    **{P + n: ("", "signature|privileged") for n in SIGNATURE},
}


def runtime(name: str) -> bool:
    return PERMISSIONS.get(name, ("", ""))[1] == "dangerous"


def changeable(name: str) -> bool:
    """What `pm grant` / `pm revoke` may change: runtime and development permissions."""
    return PERMISSIONS.get(name, ("", ""))[1] in ("dangerous", "signature|privileged|development")


def _p(*names: str) -> tuple[str, ...]:
    return tuple(P + n for n in names)


# package -> (code path, uid, requested permissions, runtime ones granted at first boot)
SYSTEM_PACKAGES: dict[str, tuple[str, int, tuple[str, ...], tuple[str, ...]]] = {
    "android": ("/system/framework/framework-res.apk", 1000, (), ()),
    "com.android.shell": (
        "/system/priv-app/Shell",
        2000,
        _p("READ_LOGS", "DUMP", "WRITE_SECURE_SETTINGS"),
        (),
    ),
    "com.android.systemui": (
        "/system_ext/priv-app/SystemUIGoogle",
        10120,
        _p("POST_NOTIFICATIONS", "CAMERA"),
        _p("POST_NOTIFICATIONS"),
    ),
    "com.android.providers.contacts": (
        "/system/priv-app/ContactsProvider",
        10002,
        _p("READ_CONTACTS", "WRITE_CONTACTS", "READ_CALL_LOG", "WRITE_CALL_LOG"),
        (),
    ),
    "com.android.providers.telephony": (
        "/system/priv-app/TelephonyProvider",
        1001,
        _p("READ_SMS", "SEND_SMS"),
        (),
    ),
    "com.android.providers.calendar": (
        "/system/priv-app/CalendarProvider",
        10003,
        _p("READ_CALENDAR", "WRITE_CALENDAR"),
        (),
    ),
    "com.android.providers.settings": ("/system/priv-app/SettingsProvider", 1000, (), ()),
    "com.android.providers.media.module": (
        "/apex/com.android.mediaprovider/priv-app/MediaProviderGoogle",
        10079,
        _p("READ_EXTERNAL_STORAGE", "WRITE_EXTERNAL_STORAGE"),
        (),
    ),
    "com.google.android.apps.nexuslauncher": (
        "/system_ext/priv-app/NexusLauncherRelease",
        10110,
        _p("INTERNET", "VIBRATE"),
        (),
    ),
    "com.android.contacts": (
        "/product/app/GoogleContacts",
        10080,
        _p(
            "READ_CONTACTS",
            "WRITE_CONTACTS",
            "GET_ACCOUNTS",
            "CALL_PHONE",
            "READ_PHONE_STATE",
            "INTERNET",
            "POST_NOTIFICATIONS",
        ),
        _p("READ_CONTACTS", "WRITE_CONTACTS", "GET_ACCOUNTS", "CALL_PHONE"),
    ),
    "com.google.android.apps.messaging": (
        "/product/app/PrebuiltBugle",
        10090,
        _p(
            "SEND_SMS",
            "RECEIVE_SMS",
            "READ_SMS",
            "RECEIVE_MMS",
            "READ_CONTACTS",
            "READ_PHONE_STATE",
            "CAMERA",
            "RECORD_AUDIO",
            "ACCESS_FINE_LOCATION",
            "POST_NOTIFICATIONS",
            "INTERNET",
        ),
        _p("SEND_SMS", "RECEIVE_SMS", "READ_SMS", "RECEIVE_MMS", "READ_CONTACTS", "READ_PHONE_STATE"),
    ),
    "com.google.android.dialer": (
        "/product/priv-app/GoogleDialer",
        10091,
        _p(
            "CALL_PHONE",
            "READ_CONTACTS",
            "WRITE_CONTACTS",
            "READ_CALL_LOG",
            "WRITE_CALL_LOG",
            "READ_PHONE_STATE",
            "RECORD_AUDIO",
            "POST_NOTIFICATIONS",
        ),
        _p(
            "CALL_PHONE",
            "READ_CONTACTS",
            "WRITE_CONTACTS",
            "READ_CALL_LOG",
            "WRITE_CALL_LOG",
            "READ_PHONE_STATE",
        ),
    ),
    "com.google.android.calendar": (
        "/product/app/CalendarGooglePrebuilt",
        10092,
        _p("READ_CALENDAR", "WRITE_CALENDAR", "READ_CONTACTS", "POST_NOTIFICATIONS", "INTERNET"),
        _p("READ_CALENDAR", "WRITE_CALENDAR"),
    ),
    "com.google.android.deskclock": (
        "/product/app/PrebuiltDeskClockGoogle",
        10093,
        _p("SET_ALARM", "VIBRATE", "WAKE_LOCK", "POST_NOTIFICATIONS", "SCHEDULE_EXACT_ALARM"),
        _p("POST_NOTIFICATIONS"),
    ),
    "com.google.android.apps.tasks": ("/product/app/Tasks", 10094, _p("INTERNET", "POST_NOTIFICATIONS"), ()),
    "com.google.android.keep": (
        "/product/app/PrebuiltKeep",
        10095,
        _p("INTERNET", "RECORD_AUDIO", "CAMERA", "POST_NOTIFICATIONS"),
        (),
    ),
    "com.google.android.documentsui": (
        "/system/priv-app/DocumentsUIGoogle",
        10096,
        _p("READ_EXTERNAL_STORAGE", "WRITE_EXTERNAL_STORAGE", "MANAGE_EXTERNAL_STORAGE"),
        _p("READ_EXTERNAL_STORAGE", "WRITE_EXTERNAL_STORAGE"),
    ),
    "com.android.settings": (
        "/system_ext/priv-app/SettingsGoogle",
        1000,
        _p("WRITE_SETTINGS", "WRITE_SECURE_SETTINGS", "BLUETOOTH_CONNECT", "ACCESS_FINE_LOCATION"),
        _p("BLUETOOTH_CONNECT", "ACCESS_FINE_LOCATION"),
    ),
    "com.google.android.gm": (
        "/product/app/PrebuiltGmail",
        10097,
        _p("INTERNET", "READ_CONTACTS", "GET_ACCOUNTS", "POST_NOTIFICATIONS", "READ_CALENDAR"),
        _p("GET_ACCOUNTS"),
    ),
    "com.android.camera2": (
        "/system/app/Camera2",
        10098,
        _p("CAMERA", "RECORD_AUDIO", "ACCESS_FINE_LOCATION", "ACCESS_COARSE_LOCATION", "READ_MEDIA_IMAGES"),
        _p("CAMERA"),
    ),
    "com.google.android.apps.docs": (
        "/product/app/Drive",
        10099,
        _p("INTERNET", "GET_ACCOUNTS", "READ_EXTERNAL_STORAGE", "POST_NOTIFICATIONS"),
        _p("GET_ACCOUNTS"),
    ),
    "com.android.chrome": (
        "/product/app/Chrome",
        10100,
        _p("INTERNET", "ACCESS_NETWORK_STATE", "CAMERA", "RECORD_AUDIO", "ACCESS_FINE_LOCATION"),
        (),
    ),
    "com.google.android.apps.maps": (
        "/product/app/Maps",
        10101,
        _p("INTERNET", "ACCESS_FINE_LOCATION", "ACCESS_COARSE_LOCATION", "POST_NOTIFICATIONS"),
        _p("ACCESS_FINE_LOCATION", "ACCESS_COARSE_LOCATION"),
    ),
}
