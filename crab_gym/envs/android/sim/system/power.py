"""Screen and lock state: the power key puts the phone to sleep and locks it, POWER or WAKEUP wakes it onto
the keyguard, MENU (82), a swipe up or `wm dismiss-keyguard` unlocks it (no credential is set). While asleep
the screen is black and takes no input; while locked the keyguard covers the app.

Also what `dumpsys power` and `dumpsys window policy` print of that state, in Android 14's shape (the lines
tools parse: mWakefulness, Display Power, mHoldingDisplaySuspendBlocker, mScreenOnFully, mDreamingLockscreen,
KeyguardServiceDelegate's showing/screenState and KeyguardStateMonitor's mIsShowing).
"""

from __future__ import annotations

from ..ui.view import View
from . import logcat
from .clock import status_bar_time
from .providers import get_setting

HOME, BACK, ENDCALL, POWER, MENU, SLEEP, WAKEUP = 3, 4, 6, 26, 82, 223, 224
END_BUTTON_HOME, END_BUTTON_SLEEP = 1, 2  # Settings.System.end_button_behavior bits (default: sleep)
PKG = "com.android.systemui"
BLACK = (0, 0, 0)


def awake(phone) -> bool:
    return getattr(phone, "awake", True)


def locked(phone) -> bool:
    return getattr(phone, "locked", False)


def in_call(phone) -> bool:
    act = phone.current
    return act.package == "com.google.android.dialer" and act.screen == "incall"


def sleep(phone, why: str = "power_button") -> None:
    if awake(phone):
        logcat.log(phone, "I", "PowerManagerService", f"Going to sleep due to {why} (uid 1000)...")
    phone.awake, phone.locked, phone.shade_open = False, True, False
    phone.invalidate()


def wake(phone, why: str = "WAKE_REASON_POWER_BUTTON") -> None:
    if not awake(phone):
        logcat.log(
            phone,
            "I",
            "PowerManagerService",
            f"Waking up from Asleep (uid=1000, reason={why}, details=android.policy:POWER)...",
        )
    phone.awake = True
    phone.invalidate()


def unlock(phone) -> None:
    if awake(phone) and locked(phone):
        phone.locked = False
        logcat.log(phone, "I", "KeyguardViewMediator", "keyguardDone", buffer_name="main")
        phone.invalidate()


def power_menu(phone) -> bool:
    return getattr(phone, "power_menu", False)


def close_menu(phone) -> None:
    phone.power_menu = False
    phone.invalidate()


def long_press(phone, code: int) -> bool:
    """A long press of POWER opens the power menu (GlobalActions) over whatever shows; True if handled."""
    if code != POWER:
        return False
    if not awake(phone):
        wake(phone)
    phone.power_menu, phone.shade_open = True, False
    logcat.log(phone, "D", "GlobalActionsDialogLite", "showing power menu")
    phone.invalidate()
    return True


def _end_call(phone) -> None:
    """ENDCALL: hangs up a call; with none, does what end_button_behavior says (home, then sleep by default,
    as PhoneWindowManager does on the key's release). Asleep, it is not a wake key."""
    if in_call(phone):
        phone.back()  # hangs up: the in-call screen closes
        return
    if not awake(phone):
        return
    raw = get_setting(phone, "system", "end_button_behavior")
    behavior = int(raw) if raw and raw.isdigit() else END_BUTTON_SLEEP
    if behavior & END_BUTTON_HOME and not locked(phone):
        phone.home()
    if behavior & END_BUTTON_SLEEP:
        sleep(phone, "end_call_button")


def key(phone, code: int) -> bool:
    """Handle a key the power state decides; True when the key was consumed here."""
    if power_menu(phone) and code in (HOME, BACK, POWER, ENDCALL, 111):
        close_menu(phone)  # the menu is a dialog: back, home or a power press dismiss it
        if code not in (POWER, ENDCALL):
            return True
    if code == ENDCALL:
        _end_call(phone)
        return True
    if code == POWER:
        (sleep if awake(phone) else wake)(phone)
        return True
    if code == SLEEP:
        sleep(phone)
        return True
    if code == WAKEUP:
        wake(phone, "WAKE_REASON_WAKE_KEY")
        return True
    if not awake(phone):
        return True  # the screen is off: other keys reach no window
    if locked(phone):
        if code == MENU:
            unlock(phone)
        return True
    return False


def swipe(phone, x1: float, y1: float, x2: float, y2: float) -> bool:
    """A swipe while asleep does nothing; on the keyguard, a swipe up unlocks. True when consumed."""
    if not awake(phone):
        return True
    if locked(phone):
        if y1 - y2 > phone.height / 8:
            unlock(phone)
        return True
    return False


def blocks_input(phone) -> bool:
    """Typed text reaches no app while the screen is off or the keyguard shows."""
    return not awake(phone) or locked(phone)


def cover(phone, root: View) -> bool:
    """Build what hides the app: black when asleep, the keyguard when locked. True when it did (the phone
    then draws SystemUI's status bar over the keyguard)."""
    if not awake(phone):
        root.bg, root.package = BLACK, PKG
        return True
    if not locked(phone):
        return False
    w, h, s = phone.width, phone.height, phone.width / 1080
    root.package = PKG
    panel = root.add(
        View(
            cls="android.widget.FrameLayout",
            package=PKG,
            rid=f"{PKG}:id/keyguard_root_view",
            bounds=(0, 0, w, h),
        )
    )
    panel.add(
        View(
            cls="android.widget.TextView",
            package=PKG,
            rid=f"{PKG}:id/lockscreen_clock_view",
            text=status_bar_time(phone),
            bounds=(0, int(420 * s), w, int(700 * s)),
            size=int(200 * s),
            align="center",
        )
    )
    panel.add(
        View(
            cls="android.widget.TextView",
            package=PKG,
            rid=f"{PKG}:id/keyguard_indication_text",
            text="Swipe up to open",
            bounds=(0, h - int(420 * s), w, h - int(320 * s)),
            size=int(40 * s),
            align="center",
        )
    )
    return True


# --- dumpsys ----------------------------------------------------------------------------------------------


def dump_power(ctx) -> None:
    on = awake(ctx.phone)
    ctx.print("POWER MANAGER (dumpsys power)\n\nPower Manager State:")
    for line in (
        "mDirty=0x0",
        f"mWakefulness={'Awake' if on else 'Asleep'}",
        "mWakefulnessChanging=false",
        "mIsPowered=true",
        "mPlugType=1",
        "mBatteryLevel=100",
        "mStayOn=false",
        "mProximityPositive=false",
        "mBootCompleted=true",
        "mSystemReady=true",
        f"mHoldingWakeLockSuspendBlocker={'true' if on else 'false'}",
        f"mHoldingDisplaySuspendBlocker={'true' if on else 'false'}",
        "mScreenOffTimeoutSetting=60000",
        "mStayOnWhilePluggedInSetting=0",
    ):
        ctx.print(f"  {line}")
    ctx.print()
    ctx.print(f"Display Power: state={'ON' if on else 'OFF'}")


def dump_policy(ctx) -> None:
    """`dumpsys window policy` (also part of `dumpsys window`)."""
    on, shown = awake(ctx.phone), locked(ctx.phone)
    t, f = "true", "false"
    ctx.print("WINDOW MANAGER POLICY STATE (dumpsys window policy)")
    for line in (
        "mSafeMode=false mSystemReady=true mSystemBooted=true",
        "mCameraLensCoverState=LENS_COVER_ABSENT",
        "mWakeGestureEnabledSetting=true",
        "mSupportAutoRotation=true mOrientationSensorEnabled=false",
        "mUiMode=UI_MODE_TYPE_NORMAL mDockMode=EXTRA_DOCK_STATE_UNDOCKED",
        "mLidState=LID_ABSENT mLidOpenRotation=-1",
        "mShortPressOnPowerBehavior=SHORT_PRESS_POWER_GO_TO_SLEEP",
        f"mScreenOnEarly={t if on else f} mScreenOnFully={t if on else f}",
        "mKeyguardDrawComplete=true mWindowManagerDrawComplete=true",
        "mHomePressed=false",
    ):
        ctx.print(f"    {line}")
    ctx.print("    KeyguardServiceDelegate")
    for line in (
        f"showing={t if shown else f}",
        f"inputRestricted={t if shown else f}",
        "occluded=false",
        "secure=false",
        "dreaming=false",
        "systemIsReady=true",
        "deviceHasKeyguard=true",
        "enabled=true",
        "offReason=OFF_BECAUSE_OF_USER",
        "currentUser=0",
        "bootCompleted=true",
        f"screenState={'SCREEN_STATE_ON' if on else 'SCREEN_STATE_OFF'}",
        f"interactiveState={'INTERACTIVE_STATE_AWAKE' if on else 'INTERACTIVE_STATE_SLEEP'}",
    ):
        ctx.print(f"      {line}")
    ctx.print("      KeyguardStateMonitor")
    for line in (
        f"mIsShowing={t if shown else f}",
        "mSimSecure=false",
        f"mInputRestricted={t if shown else f}",
        "mTrusted=false",
        "mCurrentUserId=0",
    ):
        ctx.print(f"        {line}")


def display_policy_lines(ctx) -> list[str]:
    """DisplayPolicy's lines in `dumpsys window displays`: awake, screen on, and mDreamingLockscreen (the
    keyguard shown and not occluded)."""
    on, shown = awake(ctx.phone), locked(ctx.phone)
    t, f = "true", "false"
    return [
        "  DisplayPolicy",
        f"    mAwake={t if on else f} mScreenOnEarly={t if on else f} mScreenOnFully={t if on else f}",
        "    mKeyguardDrawComplete=true mWindowManagerDrawComplete=true",
        f"    mShowingDream=false mDreamingLockscreen={t if shown else f}",
        f"    mTopIsFullscreen={f if shown else t}",
    ]
