"""`pm` (and `cmd package`): list, path, dump, grant/revoke, clear, enable/disable, install/uninstall and
resolve-activity, with Android 14's output and errors (a failed binder call prints the Java exception and
exits 255).
"""

from __future__ import annotations

import shutil
import time

from ..shell.context import Ctx, command
from ..shell.tokens import RawError, ShellError
from ..storage import db
from ..storage.apk import ApkError, read_manifest
from . import logcat
from .packages import ENABLED_STATES, Package, add_installed, load, save
from .permissions import PERMISSIONS, changeable, runtime
from .registry import APPS

TRACE = (
    "\tat com.android.server.pm.permission.PermissionManagerServiceImpl.{}"
    "(PermissionManagerServiceImpl.java:{})"
)


def _exception(
    verb: str, text: str, where: str = "grantRuntimePermissionInternal", line: int = 1391
) -> ShellError:
    return RawError(
        f"Exception occurred while executing '{verb}':\n{text}\n{TRACE.format(where, line)}\n"
        "\tat com.android.server.pm.PackageManagerShellCommand.onCommand"
        "(PackageManagerShellCommand.java:289)",
        255,
    )


def _strip_user(args: list[str]) -> list[str]:
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a == "--user":
            skip = True
        else:
            out.append(a)
    return out


def _list_packages(ctx: Ctx, args: list[str]) -> int:
    flags = {a for a in args if a.startswith("-")}
    words = [a for a in args if not a.startswith("-")]
    flt = words[0] if words else ""
    for p in sorted(load(ctx.phone).values(), key=lambda p: p.name):
        enabled = p.enabled in (0, 1)
        if ("-s" in flags and not p.system) or ("-3" in flags and p.system):
            continue
        if ("-e" in flags and not enabled) or ("-d" in flags and enabled) or flt not in p.name:
            continue
        line = f"package:{p.apk}={p.name}" if "-f" in flags else f"package:{p.name}"
        if "--show-versioncode" in flags:
            line += f" versionCode:{p.version_code}"
        if "-i" in flags:
            line += f"  installer={p.installer}"
        if "-U" in flags:
            line += f" uid:{p.uid}"
        ctx.print(line)
    return 0


def _list_permissions(ctx: Ctx, args: list[str]) -> int:
    groups = "-g" in args
    dangerous = "-d" in args
    ctx.print("All Permissions:" if not dangerous else "Dangerous Permissions:")
    ctx.print()
    by_group: dict[str, list[str]] = {}
    for name, (group, level) in sorted(PERMISSIONS.items()):
        if dangerous and level != "dangerous":
            continue
        by_group.setdefault(group if groups else "", []).append(name)
    for group in sorted(by_group, key=lambda g: (g == "", g)):
        if groups:
            ctx.print(f"group:{group}" if group else "ungrouped:")
        for name in by_group[group]:
            ctx.print(f"{'  ' if groups else ''}permission:{name}")
        if groups:
            ctx.print()
    return 0


def _grant(ctx: Ctx, verb: str, args: list[str]) -> int:
    args = _strip_user(args)
    if len(args) < 2:
        raise RawError(f"Error: no {'package' if not args else 'permission'} specified", 1)
    name, perm = args[0], args[1]
    pkgs = load(ctx.phone)
    p = pkgs.get(name)
    where = "grantRuntimePermissionInternal" if verb == "grant" else "revokeRuntimePermissionInternal"
    if p is None:
        raise _exception(verb, f"java.lang.IllegalArgumentException: Unknown package: {name}", where)
    if perm not in PERMISSIONS:
        raise _exception(verb, f"java.lang.IllegalArgumentException: Unknown permission: {perm}", where)
    if perm not in p.requested:
        raise _exception(
            verb, f"java.lang.SecurityException: Package {name} has not requested permission {perm}", where
        )
    if not changeable(perm):
        raise _exception(
            verb,
            f"java.lang.SecurityException: Permission {perm} requested by {name} is not a changeable "
            "permission type",
            where,
        )
    (p.granted.add if verb == "grant" else p.granted.discard)(perm)
    save(ctx.phone, pkgs)
    logcat.log(
        ctx.phone,
        "I",
        "PermissionManager",
        f"{verb.capitalize()}ed {perm} {'to' if verb == 'grant' else 'from'} {name} (shell)",
    )
    if verb == "revoke" and runtime(perm):
        ctx.phone.force_stop(name)  # Android kills an app whose runtime permission is revoked
    return 0


def clear(ctx: Ctx, name: str) -> bool:
    """`pm clear`: the package's data (its databases back to empty, its files gone) and the app stopped."""
    phone = ctx.phone
    if name not in load(phone):
        return False
    phone.force_stop(name)
    logcat.log(phone, "I", "ActivityManager", f"Force stopping {name} appid=10085 user=0: clear data")
    databases = db.PACKAGE_DATABASES.get(name, ())
    for path in (f"/data/data/{name}", f"/sdcard/Android/data/{name}"):
        host = phone.fs.resolve(path)
        if host.is_dir():
            shutil.rmtree(host)
    for path in databases:
        db.create_database(phone.fs, path)
    if not databases:
        phone.fs.resolve(f"/data/data/{name}").mkdir(parents=True, exist_ok=True)
    phone.invalidate()
    return True


def _install(ctx: Ctx, args: list[str]) -> int:
    """pm install [-r] [-t] [-g] [-d] [-i INSTALLER] [-S SIZE] [PATH]: from a file on the phone, or streamed
    on stdin with -S (what `adb install` sends)."""
    installer, grant_all, size, path = "null", False, None, None
    i = 0
    while i < len(args):
        a = args[i]
        if a in (
            "-i",
            "--installer",
            "-S",
            "--user",
            "--install-location",
            "-p",
            "--originating-uri",
            "--referrer",
            "--abi",
            "--install-reason",
        ) and i + 1 < len(args):
            installer = args[i + 1] if a in ("-i", "--installer") else installer
            size = args[i + 1] if a == "-S" else size
            i += 1
        elif a == "-g":
            grant_all = True
        elif not a.startswith("-"):
            path = a
        i += 1
    if size is not None:
        data = ctx.input.read_exact(int(size)) if size.isdigit() else b""
        if not size.isdigit() or len(data) != int(size):
            ctx.print(f"Failure [INSTALL_FAILED_INVALID_APK: Expected {size} bytes, got {len(data)}]")
            return 1
    elif path is not None:
        try:
            data = ctx.read_input(path)
        except ShellError:
            ctx.print(f"Failure [INSTALL_FAILED_INVALID_URI: Unable to open file: {path}]")
            return 1
    else:
        ctx.eprint("Error: must either specify a package size or an APK file")
        return 1
    try:
        manifest = read_manifest(data)
    except ApkError as e:
        ctx.print(f"Failure [{e}]")
        return 1
    pkgs = load(ctx.phone)
    old = pkgs.get(manifest.package)
    if old is not None and old.system:
        ctx.print(
            f"Failure [INSTALL_FAILED_UPDATE_INCOMPATIBLE: Package {manifest.package} signatures do not "
            "match previously installed version; ignoring!]"
        )
        return 1
    add_installed(ctx.phone, pkgs, manifest, data, installer, grant_all)
    save(ctx.phone, pkgs)
    logcat.log(
        ctx.phone, "I", "PackageManager", f"Installed package {manifest.package} ({manifest.version_name})"
    )
    ctx.print("Success")
    return 0


def _uninstall(ctx: Ctx, args: list[str]) -> int:
    args = _strip_user([a for a in args if a != "-k"])
    if not args:
        raise RawError("Error: package name not specified", 1)
    pkgs = load(ctx.phone)
    p = pkgs.get(args[0])
    if p is None or p.system:  # system packages stay (Android's `--user 0` hiding is not modelled)
        ctx.print("Failure [DELETE_FAILED_INTERNAL_ERROR]")
        return 1
    ctx.phone.force_stop(p.name)
    del pkgs[p.name]
    if not p.system:
        shutil.rmtree(ctx.fs.resolve(p.code_path).parent, ignore_errors=True)
    save(ctx.phone, pkgs)
    ctx.print("Success")
    return 0


def _enable(ctx: Ctx, verb: str, args: list[str]) -> int:
    args = _strip_user(args)
    pkgs = load(ctx.phone)
    p = pkgs.get(args[0]) if args else None
    if p is None:
        raise _exception(
            verb,
            f"java.lang.IllegalArgumentException: Unknown package: {args[0] if args else ''}",
            "setEnabledSetting",
            4103,
        )
    p.enabled = {"enable": 1, "disable": 2, "disable-user": 3, "default-state": 0}[verb]
    save(ctx.phone, pkgs)
    if p.enabled in (2, 3):
        ctx.phone.force_stop(p.name)
    ctx.print(f"Package {p.name} new state: {ENABLED_STATES[p.enabled]}")
    return 0


def _resolve(ctx: Ctx, args: list[str]) -> int:
    """resolve-activity [--brief] ... PACKAGE: the package's launcher activity."""
    name = next((a for a in reversed(args) if not a.startswith("-")), "")
    p = load(ctx.phone).get(name)
    app = APPS.get(name)
    cls = app.activity(app.main) if app is not None and p is not None else (p.launcher if p else "")
    if not cls:
        ctx.print("No activity found")
        return 0
    short = f"{name}/{cls[len(name) :]}" if cls.startswith(name + ".") else f"{name}/{cls}"
    if "--brief" in args:
        ctx.print("priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false")
        ctx.print(short)
    else:
        ctx.print(f"Activity #0:\n  ActivityInfo:\n    name={cls}\n    packageName={name}\n    enabled=true")
    return 0


def _stamp(ms: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ms / 1000))


def dump_package(ctx: Ctx, p: Package) -> None:
    """`dumpsys package PKG`'s package section, as Android 14 prints it."""
    flags = (
        "SYSTEM HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP"
        if p.system
        else "HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP"
    )
    code_dir = p.code_path if not p.code_path.endswith(".apk") else p.code_path.rsplit("/", 1)[0]
    lines = [
        "Packages:",
        f"  Package [{p.name}] ({p.uid * 7919 % 0xFFFFFFF:07x}):",
        f"    userId={p.uid}",
        f"    pkg=Package{{{p.uid * 104729 % 0xFFFFFFF:07x} {p.name}}}",
        f"    codePath={code_dir}",
        f"    resourcePath={code_dir}",
        f"    versionCode={p.version_code} minSdk={p.min_sdk} targetSdk={p.target_sdk}",
        f"    versionName={p.version_name}",
        "    splits=[base]",
        "    apkSigningVersion=3",
        f"    flags=[ {flags} ]",
        f"    dataDir=/data/user/0/{p.name}",
        f"    timeStamp={_stamp(p.updated_ms)}",
        f"    lastUpdateTime={_stamp(p.updated_ms)}",
        f"    installerPackageName={p.installer}",
        f"    signatures=PackageSignatures{{{p.uid * 31 % 0xFFFFFFF:07x} version:3, "
        f"signatures:[{p.uid * 17 % 0xFFFFFFFF:08x}], past signatures:[]}}",
        "    installPermissionsFixed=true",
        f"    pkgFlags=[ {flags} ]",
        "    requested permissions:",
        *(f"      {perm}" for perm in p.requested),
        "    install permissions:",
        *(
            f"      {perm}: granted=true"
            for perm in p.requested
            if not changeable(perm) and perm in PERMISSIONS
        ),
        "    User 0: ceDataInode=0 installed=true hidden=false suspended=false distractionFlags=0 "
        "stopped=false "
        f"notLaunched=false enabled={p.enabled} instant=false virtual=false quarantined=false",
        f"      firstInstallTime={_stamp(p.installed_ms)}",
        "      runtime permissions:",
        *(
            f"        {perm}: granted={str(perm in p.granted).lower()}, "
            "flags=[ USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED]"
            for perm in p.requested
            if changeable(perm)
        ),
    ]
    for line in lines:
        ctx.print(line)


@command("pm")
def _pm(ctx: Ctx, args: list[str]) -> int:
    verb, rest = (args[0], args[1:]) if args else ("", [])
    if args[:2] == ["list", "packages"]:
        return _list_packages(ctx, _strip_user(rest[1:]))
    if args[:2] == ["list", "permissions"]:
        return _list_permissions(ctx, rest[1:])
    if args[:2] == ["list", "permission-groups"]:
        for group in sorted({g for g, _ in PERMISSIONS.values() if g}):
            ctx.print(f"permission-group:{group}")
        return 0
    if args[:2] == ["list", "users"]:
        ctx.print("Users:\n\tUserInfo{0:Owner:c13} running")
        return 0
    if args[:2] == ["list", "features"]:
        for feature in (
            "android.hardware.camera",
            "android.hardware.telephony",
            "android.hardware.touchscreen",
            "android.hardware.wifi",
            "android.software.home_screen",
        ):
            ctx.print(f"feature:{feature}")
        return 0
    if args[:2] in (["list", "instrumentation"], ["list", "libraries"]):
        return 0
    if verb == "path":
        p = load(ctx.phone).get(_strip_user(rest)[0]) if _strip_user(rest) else None
        if p is None:
            return 1
        ctx.print(f"package:{p.apk}")
        return 0
    if verb == "dump":
        p = load(ctx.phone).get(rest[0]) if rest else None
        if p is not None:
            dump_package(ctx, p)
        return 0
    if verb in ("grant", "revoke"):
        return _grant(ctx, verb, rest)
    if verb == "clear":
        names = _strip_user(rest)
        ok = bool(names) and clear(ctx, names[0])
        ctx.print("Success" if ok else "Failed")
        return 0 if ok else 1
    if verb in ("enable", "disable", "disable-user", "default-state"):
        return _enable(ctx, verb, rest)
    if verb == "install":
        return _install(ctx, rest)
    if verb == "uninstall":
        return _uninstall(ctx, rest)
    if verb == "resolve-activity":
        return _resolve(ctx, rest)
    if verb == "get-install-location":
        ctx.print("0[auto]")
        return 0
    ctx.eprint(
        f"Unknown command: {verb}" if verb else "usage: pm [list|path|dump|grant|revoke|clear|install|...]"
    )
    return 1 if verb else 0
