"""Input methods, app ops and the doze whitelist: `ime list|set|enable|disable`, `appops set|get|reset`,
`dumpsys deviceidle whitelist [+-PKG]` kept where Android keeps them (Settings.Secure's
default_input_method and enabled_input_methods, /data/system/appops.xml, /data/system/deviceidle.xml), so
a reset of the phone restores them."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..shell.context import Ctx, command
from ..storage.fs import FsError
from .packages import load
from .providers import get_setting, put_setting

IMES = (  # the installed input methods: the seeded default (AOSP's keyboard) and Gboard
    "com.android.inputmethod.latin/.LatinIME",
    "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME",
)
APPOPS_XML = "/data/system/appops.xml"
DEVICEIDLE_XML = "/data/system/deviceidle.xml"
MODES = ("allow", "ignore", "deny", "default", "foreground")
# the doze whitelist every Pixel ships: (kind, package, uid)
SYSTEM_WHITELIST = (
    ("system-excidle", "com.android.shell", 2000),
    ("system-excidle", "com.android.phone", 1001),
    ("system", "com.google.android.gms", 10146),
    ("system", "com.android.providers.downloads", 10055),
)


def _uid(phone, package: str) -> int:
    found = load(phone).get(package)
    return found.uid if found is not None else -1


def _enabled(phone) -> list[str]:
    value = get_setting(phone, "secure", "enabled_input_methods")
    default = get_setting(phone, "secure", "default_input_method") or IMES[0]
    return [v for v in (value or default).split(":") if v]


def current_ime(phone) -> str:
    return get_setting(phone, "secure", "default_input_method") or IMES[0]


@command("ime")
def _ime(ctx: Ctx, args: list[str]) -> int:
    p = ctx.phone
    verb, rest = (args[0], args[1:]) if args else ("", [])
    rest = [a for k, a in enumerate(rest) if a != "--user" and (k == 0 or rest[k - 1] != "--user")]
    ids = [a for a in rest if not a.startswith("-")]
    if verb == "list":
        shown = IMES if "-a" in rest else [i for i in IMES if i in _enabled(p)]
        for ime in shown:
            if "-s" in rest:
                ctx.print(ime)
            else:
                pkg, _, cls = ime.partition("/")
                ctx.print(f"{ime}:\n  mId={ime} mSettingsActivity=null\n  Service:\n    packageName={pkg}")
        return 0
    if verb in ("set", "enable", "disable") and ids:
        ime = ids[0]
        if ime not in IMES:
            ctx.print(
                f"Unknown input method {ime} cannot be {'selected' if verb == 'set' else verb + 'd'} "
                "for user #0"
            )
            return 255
        enabled = _enabled(p)
        if verb == "set":
            put_setting(p, "secure", "default_input_method", ime)
            if ime not in enabled:
                put_setting(p, "secure", "enabled_input_methods", ":".join([*enabled, ime]))
            ctx.print(f"Input method {ime} selected for user #0")
        elif verb == "enable":
            ctx.print(f"Input method {ime}: {'already' if ime in enabled else 'now'} enabled for user #0")
            put_setting(p, "secure", "enabled_input_methods", ":".join(dict.fromkeys([*enabled, ime])))
        else:
            ctx.print(f"Input method {ime}: {'now' if ime in enabled else 'already'} disabled for user #0")
            put_setting(p, "secure", "enabled_input_methods", ":".join(e for e in enabled if e != ime))
        return 0
    if verb == "reset":
        put_setting(p, "secure", "default_input_method", IMES[0])
        put_setting(p, "secure", "enabled_input_methods", None)
        ctx.print(f"Reset current and enabled IMEs for user #0\n  Selected: {IMES[0]}\n   Enabled: {IMES[0]}")
        return 0
    ctx.eprint(
        "ime <command>:\n  list [-a] [-s]\n  enable [--user <USER_ID>] <ID>\n"
        "  disable [--user <USER_ID>] <ID>\n  set [--user <USER_ID>] <ID>\n  reset [--user <USER_ID>]"
    )
    return 255 if verb else 1


# --- app ops ----------------------------------------------------------------------------------------------


def _read_xml(ctx: Ctx, path: str, root: str) -> ET.Element:
    try:
        return ET.fromstring(ctx.fs.read_bytes(path))
    except (FsError, ET.ParseError):
        return ET.Element(root)


def _write_xml(ctx: Ctx, path: str, tree: ET.Element) -> None:
    ctx.fs.write_bytes(
        path, b"<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n" + ET.tostring(tree)
    )


@command("appops")
def _appops(ctx: Ctx, args: list[str]) -> int:
    """appops set [--uid] PKG OP MODE | get PKG [OP] | reset [PKG]."""
    args = [
        a for k, a in enumerate(args) if a not in ("--user", "--uid") and (k == 0 or args[k - 1] != "--user")
    ]
    verb, rest = (args[0], args[1:]) if args else ("", [])
    tree = _read_xml(ctx, APPOPS_XML, "app-ops")
    if verb in ("set", "get", "query-op") and rest and verb != "query-op" and _uid(ctx.phone, rest[0]) < 0:
        ctx.eprint(f"Error: Unknown package: {rest[0]}")
        return 255
    if verb == "set" and len(rest) >= 3:
        pkg, op, mode = rest[0], rest[1].upper().removeprefix("ANDROID:"), rest[2].lower()
        if mode not in MODES:
            ctx.eprint(f"Error: Mode {rest[2]} is not valid")
            return 255
        node = tree.find(f"pkg[@n='{pkg}']")
        node = ET.SubElement(tree, "pkg", n=pkg) if node is None else node
        op_node = node.find(f"op[@n='{op}']")
        (ET.SubElement(node, "op", n=op) if op_node is None else op_node).set("m", mode)
        _write_xml(ctx, APPOPS_XML, tree)
        return 0
    if verb == "get" and rest:
        node = tree.find(f"pkg[@n='{rest[0]}']")
        ops = [(o.get("n", ""), o.get("m", "allow")) for o in (node if node is not None else [])]
        if len(rest) > 1:
            want = rest[1].upper().removeprefix("ANDROID:")
            ops = [o for o in ops if o[0] == want]
        if not ops:
            ctx.print("No operations.")
        for op, mode in ops:
            ctx.print(f"{op}: {mode}")
        return 0
    if verb == "reset":
        for node in list(tree):
            if not rest or node.get("n") == rest[0]:
                tree.remove(node)
        _write_xml(ctx, APPOPS_XML, tree)
        return 0
    ctx.eprint(
        "AppOps service (appops) commands:\n  set [--user <USER_ID>] [--uid] <PACKAGE | UID> <OP> <MODE>\n"
        "  get [--user <USER_ID>] [--attribution <ATTRIBUTION_TAG>] <PACKAGE | UID> [<OP>]\n"
        "  reset [--user <USER_ID>] [<PACKAGE>]"
    )
    return 255 if verb else 1


# --- doze whitelist ---------------------------------------------------------------------------------------


def dump_deviceidle(ctx: Ctx, args: list[str]) -> None:
    """`dumpsys deviceidle whitelist [+PKG|-PKG ...]`: add, remove, or list (kind,package,uid lines)."""
    tree = _read_xml(ctx, DEVICEIDLE_XML, "config")
    if args[:1] != ["whitelist"]:
        ctx.print(
            "  mLightEnabled=true  mDeepEnabled=true\n  mForceIdle=false\n  mState=ACTIVE mLightState=ACTIVE"
        )
        return
    changes = args[1:]
    for change in changes:
        pkg = change[1:]
        found = tree.find(f"wl[@n='{pkg}']")
        if change.startswith("+"):
            if _uid(ctx.phone, pkg) < 0:
                ctx.print(f"Unknown package: {pkg}")
                continue
            if found is None:
                ET.SubElement(tree, "wl", n=pkg)
            ctx.print(f"Added: {pkg}")
        elif change.startswith("-"):
            if found is not None:
                tree.remove(found)
            ctx.print(f"Removed: {pkg}")
    if changes:
        _write_xml(ctx, DEVICEIDLE_XML, tree)
        return
    for kind, pkg, uid in SYSTEM_WHITELIST:
        ctx.print(f"{kind},{pkg},{uid}")
    for node in tree.findall("wl"):
        pkg = node.get("n", "")
        ctx.print(f"user,{pkg},{_uid(ctx.phone, pkg)}")
