"""The Android commands of the shell: input, screencap, uiautomator, dumpsys, am, pm, wm, getprop, ..."""

from __future__ import annotations

from .apps import APPS, LAUNCHER
from .shell import Ctx, ShellError, command

PROPS = {
    "ro.product.model": "CrabPhone",
    "ro.product.name": "crab_phone",
    "ro.product.device": "crab",
    "ro.product.brand": "crab",
    "ro.product.manufacturer": "Crab",
    "ro.build.version.release": "14",
    "ro.build.version.sdk": "34",
    "ro.build.type": "userdebug",
    "ro.build.id": "CRAB.240315.001",
    "ro.build.fingerprint": "crab/crab_phone/crab:14/CRAB.240315.001/1:userdebug/test-keys",
    "ro.product.cpu.abi": "x86_64",
    "ro.product.cpu.abilist": "x86_64,arm64-v8a",
    "ro.debuggable": "1",
    "ro.secure": "0",
    "ro.serialno": "CRAB0001",
    "ro.boot.serialno": "CRAB0001",
    "sys.boot_completed": "1",
    "dev.bootcomplete": "1",
    "init.svc.bootanim": "stopped",
    "service.adb.root": "1",
    "persist.sys.locale": "en-US",
    "persist.sys.timezone": "UTC",
    "ro.kernel.qemu": "0",
}


def _props(ctx: Ctx) -> dict[str, str]:
    return {**PROPS, "ro.sf.lcd_density": str(ctx.phone.density)}


@command("getprop")
def _getprop(ctx: Ctx, args: list[str]) -> int:
    props = _props(ctx)
    if args:
        ctx.print(props.get(args[0], args[1] if len(args) > 1 else ""))
    else:
        for k in sorted(props):
            ctx.print(f"[{k}]: [{props[k]}]")
    return 0


@command("wm")
def _wm(ctx: Ctx, args: list[str]) -> int:
    p = ctx.phone
    if args[:1] == ["size"]:
        ctx.print(f"Physical size: {p.width}x{p.height}")
    elif args[:1] == ["density"]:
        ctx.print(f"Physical density: {p.density}")
    else:
        raise ShellError("usage: wm [size|density]", 255)
    return 0


def _num(s: str) -> float:
    try:
        return float(s)
    except ValueError as e:
        raise ShellError(f"Error: Unable to parse '{s}' as a number", 1) from e


@command("input")
def _input(ctx: Ctx, args: list[str]) -> int:
    p = ctx.phone
    while args and args[0] in ("touchscreen", "touchpad", "keyboard", "mouse", "dpad", "trackball", "stylus"):
        args = args[1:]
    if args[:1] == ["-d"]:
        args = args[2:]
    if not args:
        raise ShellError("Usage: input [<source>] <command> [<arg>...]", 1)
    verb, rest = args[0], args[1:]
    if verb == "tap" and len(rest) >= 2:
        p.tap(_num(rest[0]), _num(rest[1]))
    elif verb in ("swipe", "draganddrop") and len(rest) >= 4:
        x1, y1, x2, y2 = (_num(a) for a in rest[:4])
        p.swipe(x1, y1, x2, y2, int(_num(rest[4])) if len(rest) > 4 else 300)
    elif verb == "text" and rest:
        p.text(rest[0].replace("%s", " "))  # like Android: one argument; "%s" stands for a space
    elif verb == "keyevent" and rest:
        longpress = "--longpress" in rest
        for code in (c for c in rest if not c.startswith("--")):
            try:
                p.keyevent(int(code) if code.isdigit() else code)
            except ValueError as e:
                raise ShellError(str(e), 1) from e
        del longpress
    elif verb == "press":
        p.keyevent(23)
    elif verb == "roll":
        pass
    else:
        raise ShellError(
            f"Error: Unknown command: {verb}"
            if verb not in ("tap", "swipe", "text", "keyevent")
            else f"Error: Invalid arguments for command: {verb}",
            1,
        )
    return 0


@command("screencap")
def _screencap(ctx: Ctx, args: list[str]) -> int:
    files = [a for a in args if not a.startswith("-")]
    png = ctx.phone.screencap_png()
    if files:
        ctx.fs.write_bytes(ctx.fs.android_path(files[0], ctx.shell.cwd), png)
    elif "-p" in args:
        ctx.out += png
    else:  # raw: width, height, format (1 = RGBA_8888), colorspace, then pixels
        frame = ctx.phone.screenshot()
        import numpy as np

        rgba = np.concatenate([frame, np.full(frame.shape[:2] + (1,), 255, np.uint8)], axis=2)
        header = np.array([ctx.phone.width, ctx.phone.height, 1, 1], "<u4").tobytes()
        ctx.out += header + rgba.tobytes()
    return 0


@command("uiautomator")
def _uiautomator(ctx: Ctx, args: list[str]) -> int:
    if not args or args[0] != "dump":
        ctx.eprint(
            "Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\n"
            "dump: creates an XML dump of current UI hierarchy"
        )
        return 1
    files = [a for a in args[1:] if not a.startswith("--")]
    xml = ctx.phone.ui_xml().encode()
    if files and files[0] in ("/dev/tty", "/dev/stdout"):
        ctx.out += xml
        ctx.print("\nUI hierchary dumped to: " + files[0])
        return 0
    path = ctx.fs.android_path(files[0] if files else "/sdcard/window_dump.xml", ctx.shell.cwd)
    ctx.fs.write_bytes(path, xml)
    ctx.print(f"UI hierchary dumped to: {path}")
    return 0


def _intent_component(args: list[str]) -> tuple[str | None, str | None, dict[str, str]]:
    comp, action, extras = None, None, {}
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-n" and i + 1 < len(args):
            comp = args[i + 1]
            i += 1
        elif a == "-a" and i + 1 < len(args):
            action = args[i + 1]
            i += 1
        elif a in ("-d", "-t", "-c", "-f", "--user") and i + 1 < len(args):
            if a == "-d":
                extras["data"] = args[i + 1]
            i += 1
        elif a in ("--es", "--ez", "--ei", "--el") and i + 2 < len(args):
            extras[args[i + 1]] = args[i + 2]
            i += 2
        elif not a.startswith("-") and comp is None and "/" in a:
            comp = a
        i += 1
    return comp, action, extras


ACTION_APPS = {
    "android.settings.SETTINGS": ("com.android.settings", "main"),
    "android.settings.WIFI_SETTINGS": ("com.android.settings", "network"),
    "android.settings.BLUETOOTH_SETTINGS": ("com.android.settings", "connected"),
    "android.settings.DISPLAY_SETTINGS": ("com.android.settings", "display"),
    "android.media.action.IMAGE_CAPTURE": ("com.android.camera2", "main"),
    "android.media.action.STILL_IMAGE_CAMERA": ("com.android.camera2", "main"),
    "android.intent.action.SET_ALARM": ("com.google.android.deskclock", "new_alarm"),
    "android.intent.action.SHOW_ALARMS": ("com.google.android.deskclock", "alarm"),
    "android.intent.action.DIAL": ("com.google.android.dialer", "keypad"),
    "android.intent.action.INSERT": ("com.android.contacts", "edit"),
}


@command("am")
def _am(ctx: Ctx, args: list[str]) -> int:
    p = ctx.phone
    if not args:
        raise ShellError("usage: am [start|force-stop|kill] ...", 1)
    verb, rest = args[0], args[1:]
    if verb in ("start", "start-activity"):
        rest = [a for a in rest if a not in ("-W", "-S", "-R", "--activity-clear-top")]
        comp, action, extras = _intent_component(rest)
        ctx.print(
            f"Starting: Intent {{ {'act=' + action + ' ' if action else ''}{'cmp=' + comp if comp else ''} }}"
        )
        target: tuple[str, str | None] | None = None
        if comp:
            pkg, _, cls = comp.partition("/")
            app = APPS.get(pkg)
            if app is None:
                ctx.eprint(f"Error type 3\nError: Activity class {{{comp}}} does not exist.")
                return 1
            full = pkg + cls if cls.startswith(".") else cls
            screen = next((n for n in app.screens if app.activity(n) == full), None)
            target = (pkg, screen if screen and screen != app.main else None)
        elif action == "android.intent.action.MAIN":
            target = (LAUNCHER, None)
        elif action in ACTION_APPS:
            target = ACTION_APPS[action]
        elif action in ("android.intent.action.SENDTO", "android.intent.action.VIEW") and extras.get(
            "data", ""
        ).startswith(("sms:", "smsto:")):
            number = extras["data"].split(":", 1)[1]
            p.launch(
                "com.google.android.apps.messaging",
                "compose",
                fields={"to": number, "body": extras.get("sms_body", "")},
                focus="body",
            )
            return 0
        elif action == "android.intent.action.CALL" and extras.get("data", "").startswith("tel:"):
            from .apps.dialer import place_call

            place_call(p, extras["data"][4:])
            return 0
        if target is None:
            ctx.eprint("Error: Activity not started, unable to resolve Intent")
            return 1
        p.launch(target[0], target[1])
    elif verb in ("force-stop", "kill") and rest:
        p.force_stop(rest[-1])
    elif verb == "kill-all":
        p.home()
    elif verb == "stack" and rest[:1] == ["list"]:
        from .dumpsys import stack_list

        stack_list(ctx)
    else:
        raise ShellError(f"Error: unknown command '{verb}'", 1)
    return 0


@command("monkey")
def _monkey(ctx: Ctx, args: list[str]) -> int:
    pkg = args[args.index("-p") + 1] if "-p" in args and args.index("-p") + 1 < len(args) else None
    if pkg is None or pkg not in APPS:
        ctx.eprint("** No activities found to run, monkey aborted.")
        return 252
    ctx.phone.launch(pkg)
    ctx.print(
        "  bash arg: -p\n  bash arg: " + pkg + "\nEvents injected: 1\n## Network stats: elapsed time=2ms"
    )
    return 0


@command("pm")
def _pm(ctx: Ctx, args: list[str]) -> int:
    if args[:2] == ["list", "packages"]:
        flt = next((a for a in args[2:] if not a.startswith("-")), "")
        system = [
            "android",
            "com.android.systemui",
            "com.android.shell",
            "com.android.providers.contacts",
            "com.android.providers.telephony",
            "com.android.providers.calendar",
            "com.android.providers.settings",
        ]
        for pkg in sorted(set(APPS) | set(system)):
            if flt in pkg:
                ctx.print(f"package:{pkg}")
        return 0
    if args[:1] == ["path"] and len(args) > 1 and args[1] in APPS:
        ctx.print(f"package:/system/app/{args[1]}/{args[1]}.apk")
        return 0
    if args[:1] == ["clear"] and len(args) > 1:
        ctx.print("Success")
        return 0
    ctx.eprint("Error: unsupported pm command")
    return 1


@command("cmd")
def _cmd(ctx: Ctx, args: list[str]) -> int:
    if args[:1] == ["package"]:
        return _pm(ctx, args[1:])
    if args[:1] == ["activity"]:
        return _am(ctx, args[1:])
    if args[:1] == ["statusbar"]:
        if args[1:2] in (["expand-notifications"], ["expand-settings"]):
            ctx.phone.shade_open = True
        elif args[1:2] == ["collapse"]:
            ctx.phone.shade_open = False
        ctx.phone.invalidate()
        return 0
    if args[:1] == ["wifi"] and len(args) > 1 and args[1] == "set-wifi-enabled":
        return _svc(ctx, ["wifi", "enable" if args[2:3] == ["enabled"] else "disable"])
    ctx.eprint(f"Can't find service: {args[0] if args else ''}")
    return 20


@command("svc")
def _svc(ctx: Ctx, args: list[str]) -> int:
    from .providers import put_setting

    names = {"wifi": "wifi_on", "bluetooth": "bluetooth_on", "data": "mobile_data"}
    if len(args) >= 2 and args[0] in names and args[1] in ("enable", "disable"):
        put_setting(ctx.phone, "global", names[args[0]], "1" if args[1] == "enable" else "0")
        return 0
    ctx.eprint("usage: svc [wifi|bluetooth|data] [enable|disable]")
    return 1


@command("crab-reset")
def _crab_reset(ctx: Ctx, args: list[str]) -> int:
    """Our phone's vendor command: back to the pristine state of a seed (a named operation, no code)."""
    try:
        seed = int(args[0]) if args else None
    except ValueError:
        ctx.eprint(f"crab-reset: seed must be an integer, got {args[0]!r}")
        return 2
    ctx.phone.reset(seed)
    return 0


@command("id")
def _id(ctx: Ctx, args: list[str]) -> int:
    ctx.print("uid=0(root) gid=0(root) groups=0(root) context=u:r:su:s0")
    return 0


@command("whoami")
def _whoami(ctx: Ctx, args: list[str]) -> int:
    ctx.print("root")
    return 0


@command("date")
def _date(ctx: Ctx, args: list[str]) -> int:
    from .db import NOW_MS

    if args[:1] == ["+%s"]:
        ctx.print(str(NOW_MS // 1000))
    else:
        ctx.print("Fri Mar 15 09:30:00 UTC 2024")
    return 0


@command("uname")
def _uname(ctx: Ctx, args: list[str]) -> int:
    ctx.print("Linux" if not args else "Linux localhost 6.1.0-crab #1 SMP PREEMPT x86_64 Toybox")
    return 0


@command("log", "logcat", "setprop", "sync", "chmod", "chown", "svc_power", "am_idle")
def _noop(ctx: Ctx, args: list[str]) -> int:
    return 0
