"""`dumpsys` and `am stack list`: the window, input, activity and display state, as Android 14 prints it."""

from __future__ import annotations

import zlib

from ..shell.context import Ctx, command
from . import network, power
from .activitydump import dump_activity, record
from .ime import current_ime, dump_deviceidle
from .packages import load
from .pm import dump_package
from .registry import APPS, short


@command("dumpsys")
def _dumpsys(ctx: Ctx, args: list[str]) -> int:
    """The services automation reads; any other service answers nothing, with status 0."""
    p = ctx.phone
    pkg, cls = p.focused_component()
    what = args[0] if args else ""
    if what == "window":
        sub = args[1] if len(args) > 1 else ""
        if sub in ("", "policy", "p"):
            power.dump_policy(ctx)
            ctx.print()
        if sub in ("", "windows", "w"):
            _windows(ctx)
            ctx.print()
        if sub in ("", "displays", "d"):
            _displays(ctx)
    elif what == "input":
        _input(ctx)
    elif what == "activity":
        dump_activity(ctx, args[1] if len(args) > 1 else "activities")
    elif what == "wifi":
        network.dump_wifi(ctx)
    elif what == "deviceidle":
        dump_deviceidle(ctx, args[1:])
    elif what == "display":
        ctx.print(
            f'  mBaseDisplayInfo=DisplayInfo{{"Built-in Screen", displayId 0, real {p.width} x {p.height}, '
            f"rotation 0, density {p.density}}}"
        )
        ctx.print(
            f'  DisplayDeviceInfo{{"Built-in Screen": {p.width} x {p.height}, density {p.density}, '
            "orientation=0}"
        )
        ctx.print("  mCurrentOrientation=0")
    elif what == "power":
        power.dump_power(ctx)
    elif what == "battery":
        ctx.print(
            "Current Battery Service state:\n  AC powered: true\n  level: 100\n  scale: 100\n  status: 2"
        )
    elif what == "package" and len(args) > 1:
        found = load(p).get(args[-1])
        if found is not None:
            dump_package(ctx, found)
    elif what == "telephony.registry":
        calling = power.in_call(p)
        ctx.print(f"  mCallState={2 if calling else 0}")
        ctx.print(f"  mCallIncomingNumber={p.current.state.get('number', '') if calling else ''}")
    elif what == "input_method":
        ctx.print("Input method service state:")
        ctx.print(f"  mCurMethodId={current_ime(p)}")
        ctx.print("  mInputShown=false")
        ctx.print("  mIsInteractive=" + ("true" if power.awake(p) else "false"))
    elif what in ("SurfaceFlinger",):
        ctx.print('Display 0 (HWC display 0): port=0 pnpId=CRB displayName="Crab display"')
    return 0


def _focus_lines(ctx: Ctx, indent: str) -> None:
    """mCurrentFocus (the keyguard's or the shade's window while they show) and mFocusedApp."""
    p = ctx.phone
    pkg, cls = p.focused_component()
    locked = power.locked(p) and power.awake(p)
    focus = "NotificationShade" if p.shade_open or locked else f"{pkg}/{cls}"
    ctx.print(f"{indent}mCurrentFocus=Window{{{_hash(focus)} u0 {focus}}}")
    ctx.print(f"{indent}mFocusedApp={record(ctx)}")


def _hash(title: str) -> str:
    """A window's identity hash: the same for the same window in every dump (mCurrentFocus names it)."""
    return f"{zlib.crc32(title.encode()) & 0xFFFFFFF:07x}"


def _window_list(ctx: Ctx) -> list[tuple[str, str, str, bool]]:
    """(title, owner package, type, visible) of every window, top of the z-order first."""
    p = ctx.phone
    system = "com.android.systemui"
    wins = [
        ("NavigationBar0", system, "NAVIGATION_BAR", power.awake(p)),
        ("NotificationShade", system, "NOTIFICATION_SHADE", p.shade_open or power.locked(p)),
        ("StatusBar", system, "STATUS_BAR", power.awake(p)),
    ]
    top = True
    for act in reversed(p.stack):
        cls = APPS[act.package].activity(act.screen)
        shown = top and power.awake(p) and not power.locked(p)  # the keyguard hides the app
        wins.append((f"{act.package}/{cls}", act.package, "BASE_APPLICATION", shown))
        top = False
    wins.append(("com.android.systemui.wallpapers.ImageWallpaper", system, "WALLPAPER", False))
    return wins


def _windows(ctx: Ctx) -> None:
    p = ctx.phone
    pkg, cls = p.focused_component()
    ctx.print("WINDOW MANAGER WINDOWS (dumpsys window windows)")
    for k, (title, owner, kind, visible) in enumerate(_window_list(ctx)):
        ctx.print(f"  Window #{k} Window{{{_hash(title)} u0 {title}}}:")
        ctx.print(
            f"    mDisplayId=0 rootTaskId=1 mSession=Session{{{_hash(owner)} 560:1000}} "
            f"mClient=android.os.BinderProxy@{_hash(title + kind)}"
        )
        ctx.print(
            f"    mOwnerUid=10120 showForAllUsers={'true' if owner != pkg else 'false'} "
            f"package={owner} appop=NONE"
        )
        ctx.print(f"    mAttrs={{(0,0)(fillxfill) sim={{adjust=resize}} ty={kind} fmt=TRANSLUCENT}}")
        shown = "true" if visible else "false"
        ctx.print(f"    mViewVisibility=0x{0 if visible else 8} mHaveFrame=true mObscured=false")
        ctx.print(f"    mHasSurface={shown} isReadyForDisplay()={shown}")
        ctx.print(f"    isOnScreen={shown}")
        ctx.print(f"    isVisible={shown}")
    ctx.print()
    ctx.print("  mGlobalConfiguration={1.0 ?mcc?mnc [en_US] ldltr sw411dp w411dp h914dp 420dpi nrml port}")
    ctx.print("  mHasPermanentDpad=false")
    ctx.print("  mTopFocusedDisplayId=0")
    _focus_lines(ctx, "  ")
    ctx.print(f"  mTopFullscreenOpaqueWindowState=Window{{0 u0 {pkg}/{cls}}}")
    ctx.print(f"  mDisplayInfo: app {p.width} x {p.height} real {p.width} x {p.height} density {p.density}")


def _displays(ctx: Ctx) -> None:
    p = ctx.phone
    ctx.print("WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)")
    ctx.print("  Display: mDisplayId=0 rootTasks=1")
    ctx.print(
        f"    init={p.width}x{p.height} {p.density}dpi cur={p.width}x{p.height} app={p.width}x{p.height}"
    )
    ctx.print("    mCurrentRotation=ROTATION_0")
    ctx.print("    mCurrentAppOrientation=SCREEN_ORIENTATION_UNSPECIFIED")
    ctx.print("    mRotation=0 mDeferredRotationPauseCount=0")
    _focus_lines(ctx, "    ")  # Android 10+ prints the focus per display (appium-adb reads it here)
    for line in power.display_policy_lines(ctx):
        ctx.print(line)


def _input(ctx: Ctx) -> None:
    """The display viewport (logical and physical frames) and the touchscreen's surface, as InputReader
    dumps them."""
    w, h = ctx.phone.width, ctx.phone.height
    viewport = (
        "Viewport INTERNAL: displayId=0, uniqueId=local:4619827259835644672, port=0, orientation=0, "
        f"logicalFrame=[0, 0, {w}, {h}], physicalFrame=[0, 0, {w}, {h}], deviceSize=[{w}, {h}], isActive=[1]"
    )
    ctx.print("INPUT MANAGER (dumpsys input)")
    ctx.print()
    ctx.print("Input Manager State:")
    ctx.print(f"  Interactive: {'true' if power.awake(ctx.phone) else 'false'}")
    ctx.print("  Show Touches: false")
    ctx.print("  Display Viewports:")
    ctx.print(f"    {viewport}")
    ctx.print()
    ctx.print("Input Reader State (Nums of device: 1):")
    ctx.print("  Device 2: virtio_input_multi_touch_1")
    ctx.print("    Sources: TOUCHSCREEN")
    ctx.print("    Touch Input Mapper (mode - DIRECT):")
    ctx.print(f"      {viewport}")
    for key, value in (
        ("SurfaceWidth", f"{w}px"),
        ("SurfaceHeight", f"{h}px"),
        ("SurfaceLeft", "0"),
        ("SurfaceTop", "0"),
        ("SurfaceRight", str(w)),
        ("SurfaceBottom", str(h)),
        ("PhysicalWidth", f"{w}px"),
        ("PhysicalHeight", f"{h}px"),
        ("PhysicalLeft", "0"),
        ("PhysicalTop", "0"),
        ("SurfaceOrientation", "0"),
    ):
        ctx.print(f"      {key}: {value}")


def stack_list(ctx: Ctx) -> None:
    """`am stack list`: one RootTask per task, top first, as Android 12 and later print them."""
    p = ctx.phone
    w, h = p.width, p.height
    seen: set[int] = set()
    for act in reversed(p.stack):
        if act.task_id in seen:
            continue
        seen.add(act.task_id)
        cls = APPS[act.package].activity(act.screen)
        top = f"{act.package}/{cls}"
        ctx.print(f"RootTask id={act.task_id} bounds=[0,0][{w},{h}] displayId=0 userId=0")
        ctx.print(
            f"  taskId={act.task_id}: {short(act.package, cls)} bounds=[0,0][{w},{h}] userId=0 "
            f"visible={'true' if act is p.current else 'false'} topActivity=ComponentInfo{{{top}}}"
        )
        ctx.print()
