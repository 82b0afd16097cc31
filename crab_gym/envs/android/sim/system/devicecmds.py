"""The Android commands of the shell: input, screencap, uiautomator, wm, getprop, svc, `cmd SERVICE`,
`service` (the binder services' list), settings' neighbours.

`am` and `monkey` live in am.py, `pm` in pm.py, `dumpsys` in dumpsys.py, `date` in date.py, `logcat` and
`log` in logcatcmd.py, `settings`, `content` and `sqlite3` in providercmds.py, `uname`, `uptime`, `df` and
`nproc` in kernelcmds.py."""

from __future__ import annotations

from ..shell.context import Ctx, command
from ..shell.tokens import ShellError
from . import power
from .am import _am
from .keycodes import KEYCODES
from .logcat import log
from .network import cmd_bluetooth, cmd_connectivity, cmd_location, cmd_phone, cmd_wifi
from .notifications import notification_cmd
from .pm import _pm
from .power import unlock
from .providers import put_setting

SERVICES = {
    "wifi": cmd_wifi,
    "connectivity": cmd_connectivity,
    "location": cmd_location,
    "phone": cmd_phone,
    "bluetooth_manager": cmd_bluetooth,
    "notification": notification_cmd,
}

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
    return {**PROPS, "ro.sf.lcd_density": str(ctx.phone.density), **ctx.phone.props}


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
    elif args[:1] == ["dismiss-keyguard"]:
        unlock(p)
    else:
        raise ShellError("usage: wm [size|density|dismiss-keyguard]", 255)
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
        x, y = _num(rest[0]), _num(rest[1])
        _log_motion(ctx, x, y)
        p.tap(x, y)
    elif verb in ("swipe", "draganddrop") and len(rest) >= 4:
        x1, y1, x2, y2 = (_num(a) for a in rest[:4])
        _log_motion(ctx, x1, y1)
        p.swipe(x1, y1, x2, y2, int(_num(rest[4])) if len(rest) > 4 else 300)
    elif verb == "text" and rest:
        p.text(rest[0].replace("%s", " "))  # like Android: one argument; "%s" stands for a space
    elif verb == "keyevent" and rest:
        longpress = "--longpress" in rest
        for code in (c for c in rest if not c.startswith("--")):
            try:
                _log_key(ctx, code)
                if not (longpress and power.long_press(p, _keycode(code))):
                    p.keyevent(int(code) if code.isdigit() else code)
            except ValueError as e:
                raise ShellError(str(e), 1) from e
    elif verb == "keycombination" and rest:
        return _keycombination(
            ctx, [c for k, c in enumerate(rest) if c != "-t" and rest[k - 1 : k] != ["-t"]]
        )
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


def _keycode(code: str) -> int:
    number = int(code) if code.isdigit() else KEYCODES.get(code.upper().removeprefix("KEYCODE_"), -1)
    if number < 0:
        raise ValueError(f"Unknown keycode: {code}")
    return number


MODIFIERS = {57, 58, 59, 60, 113, 114, 117, 118}  # ALT, SHIFT, CTRL and META, left and right


def _keycombination(ctx: Ctx, names: list[str]) -> int:
    """`input keycombination KEY...`: the keys pressed together. POWER with VOLUME_DOWN takes a screenshot
    (into /sdcard/Pictures/Screenshots, as SystemUI does); otherwise the keys that are not modifiers act as
    pressed one after the other."""
    try:
        codes = [_keycode(n) for n in names]
    except ValueError as e:
        raise ShellError(str(e), 1) from e
    p = ctx.phone
    if set(codes) == {power.POWER, 25}:
        if power.awake(p):
            stamp = p.now_ms() // 1000
            path = f"/sdcard/Pictures/Screenshots/Screenshot_{stamp}.png"
            ctx.fs.write_bytes(path, p.screencap_png())
        return 0
    if set(codes) == {power.POWER, 24}:  # Pixel: power and volume up open the power menu
        power.long_press(p, power.POWER)
        return 0
    for code in codes:
        if code not in MODIFIERS:
            p.keyevent(code)
    return 0


def _log_motion(ctx: Ctx, x: float, y: float) -> None:
    """The `input` tool's own log line for an injected touch (tag Input, main buffer)."""
    t = ctx.phone.counter * 1000
    log(
        ctx.phone,
        "I",
        "Input",
        f"injectMotionEvent: MotionEvent {{ action=ACTION_DOWN, actionButton=0, id[0]=0, x[0]={x:.1f}, "
        f"y[0]={y:.1f}, toolType[0]=TOOL_TYPE_FINGER, buttonState=0, classification=NONE, metaState=0, "
        f"flags=0x0, edgeFlags=0x0, pointerCount=1, historySize=0, eventTime={t}, downTime={t}, "
        "deviceId=-1, source=0x1002, displayId=0 }",
        pid=4100 + ctx.phone.counter % 800,
        buffer_name="main",
    )


def _log_key(ctx: Ctx, code: str) -> None:
    number = int(code) if code.isdigit() else KEYCODES.get(code.upper().removeprefix("KEYCODE_"), -1)
    name = next((k for k, v in KEYCODES.items() if v == number), str(number))
    t = ctx.phone.counter * 1000
    log(
        ctx.phone,
        "I",
        "Input",
        f"injectKeyEvent: KeyEvent {{ action=ACTION_DOWN, keyCode=KEYCODE_{name}, scanCode=0, metaState=0, "
        f"flags=0x0, repeatCount=0, eventTime={t}, downTime={t}, deviceId=-1, source=0x101, displayId=-1 }}",
        pid=4100 + ctx.phone.counter % 800,
        buffer_name="main",
    )


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


def statusbar(ctx: Ctx, args: list[str]) -> int:
    """`cmd statusbar expand-notifications|expand-settings|collapse`."""
    if args[:1] in (["expand-notifications"], ["expand-settings"]):
        ctx.phone.shade_open = True
    elif args[:1] == ["collapse"]:
        ctx.phone.shade_open = False
    ctx.phone.invalidate()
    return 0


@command("svc")
def svc(ctx: Ctx, args: list[str]) -> int:
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


@command("setprop", "sync", "chmod", "chown")
def _noop(ctx: Ctx, args: list[str]) -> int:
    return 0


@command("cmd")
def _cmd(ctx: Ctx, args: list[str]) -> int:
    """`cmd [-w] SERVICE ...`: package, activity, statusbar, wifi, connectivity, location, window, appops,
    input_method and deviceidle, as their own commands answer."""
    if args[:1] == ["-w"]:  # wait for the service to be published: ours always are
        args = args[1:]
    service, rest = (args[0], args[1:]) if args else ("", [])
    if service == "package":
        return _pm(ctx, rest)
    if service == "activity":
        return _am(ctx, rest)
    if service == "statusbar":
        return statusbar(ctx, rest)
    if service in SERVICES:
        return SERVICES[service](ctx, rest)
    if service == "window":
        return _wm(ctx, rest)
    ctx.eprint(f"Can't find service: {service}")
    return 20


BINDER_SERVICES = ("activity", "alarm", "clipboard", "input", "notification", "package", "power", "window")


@command("service")
def _service(ctx: Ctx, args: list[str]) -> int:
    """`service list|check NAME|call alarm 3 s16 TZ`: the binder services; only the time zone call (which
    android_world makes) is understood, and only UTC is kept."""
    if args[:1] == ["list"]:
        ctx.print(f"Found {len(BINDER_SERVICES)} services:")
        for k, name in enumerate(BINDER_SERVICES):
            ctx.print(f"{k}\t{name}: [android.app.I{name.capitalize()}Manager]")
        return 0
    if args[:1] == ["check"] and len(args) > 1:
        ctx.print(f"Service {args[1]}: {'found' if args[1] in BINDER_SERVICES else 'not found'}")
        return 0
    if args[:1] == ["call"] and len(args) > 2 and args[1] in BINDER_SERVICES:
        ctx.print("Result: Parcel(00000000    '....')")
        return 0
    if args[:1] == ["call"] and len(args) > 1:
        ctx.print(f"service: Service {args[1]} does not exist")
        return 255
    ctx.eprint(
        "Usage: service [-h|-?]\n       service list\n       service check SERVICE\n"
        "       service call SERVICE CODE [i32 N | i64 N | f N | d N | s16 STR | null | fd f"
        " | nfd n | afd f ] ..."
    )
    return 1
