"""The activity manager's shell commands: `am start|broadcast|force-stop|kill|stack list|...`, `monkey`, and
`cmd activity`, answering as Android 14 does.

Broadcasts reach the receivers the phone has (RECEIVERS); a broadcast nobody receives is delivered to
nobody and still completes with result=0, as on Android.
"""

from __future__ import annotations

from ..shell.context import Ctx, command
from ..shell.tokens import ShellError
from . import intents, logcat, monkey
from .activitydump import stack_remove
from .alarms import start_timer
from .dumpsys import stack_list
from .intents import FLAG_NEW_TASK, FLAG_RECEIVER_FROM_SHELL, Intent, IntentError
from .media import scan
from .packages import is_enabled
from .providers import get_setting
from .registry import APPS, LAUNCHER, short, uri_handler

START_OPTIONS = {
    "-W": 0,
    "-S": 0,
    "-D": 0,
    "-N": 0,
    "--user": 1,
    "-R": 1,
    "-P": 1,
    "--start-profiler": 1,
    "--sampling": 1,
    "--streaming": 0,
    "--track-allocation": 0,
    "--display": 1,
    "--windowingMode": 1,
    "--activityType": 1,
    "--task": 1,
    "--task-overlay": 0,
    "--lock-task": 0,
    "--allow-background-activity-starts": 0,
}
BROADCAST_OPTIONS = {
    "--user": 1,
    "--receiver-permission": 1,
    "--allow-background-activity-starts": 0,
    "--async": 0,
}
# action -> packages with a receiver for it
RECEIVERS = {
    "android.intent.action.AIRPLANE_MODE": ("com.android.systemui", "com.android.settings"),
    "android.intent.action.MEDIA_SCANNER_SCAN_FILE": ("com.android.providers.media.module",),
    "android.intent.action.TIME_SET": ("com.google.android.deskclock", "com.android.systemui"),
    "android.intent.action.TIMEZONE_CHANGED": ("com.google.android.deskclock", "com.android.systemui"),
    "android.intent.action.LOCALE_CHANGED": ("com.android.systemui",),
    "android.intent.action.BOOT_COMPLETED": (
        "com.google.android.deskclock",
        "com.google.android.calendar",
        "com.google.android.apps.messaging",
    ),
}
USAGE = (
    "Activity manager (activity) commands:\n  help\n      Print this help text.\n"
    "  start-activity [-D] [-N] [-W] [-P <FILE>] [--start-profiler <FILE>] [-S] "
    "[--user <USER_ID> | current] <INTENT>\n  broadcast [--user <USER_ID> | all | current] <INTENT>\n"
    "  force-stop [--user <USER_ID> | all | "
    "current] <PACKAGE>\n  kill [--user <USER_ID> | all | current] <PACKAGE>\n  kill-all\n  stack list\n"
    "  get-current-user"
)


def _disabled(phone, package: str) -> bool:
    return not is_enabled(phone, package)


def start_activity(ctx: Ctx, args: list[str], verb: str = "start") -> int:
    intent, opts = intents.parse(verb, args, START_OPTIONS)
    p = ctx.phone
    ctx.print(f"Starting: Intent {{ {intent.short()} }}")
    call = intent.action == "android.intent.action.CALL" and intent.data.startswith("tel:")
    place_call = uri_handler("tel") if call else None  # the dialer's
    if place_call:
        logcat.expect_intent(p, intent.short(intent.flags | FLAG_NEW_TASK), uid=0)
        place_call(p, intent.data[4:])  # the in-call screen, and a row in the call log
        return 0
    target = intents.resolve(intent)
    if target is not None and _disabled(p, target.package):
        target = None
    if target is None:
        if intent.component:
            pkg, cls = intent.component_full()
            ctx.eprint(f"Error type 3\nError: Activity class {{{pkg}/{cls}}} does not exist.")
        else:
            shown = intent.short(intent.flags | FLAG_NEW_TASK)
            ctx.eprint(f"Error: Activity not started, unable to resolve Intent {{ {shown} }}")
        return 1
    length = intent.extras.get("android.intent.extra.alarm.LENGTH")  # AlarmClock.EXTRA_LENGTH, seconds
    if intent.action == "android.intent.action.SET_TIMER" and isinstance(length, int) and length > 0:
        start_timer(p, length * 1000, str(intent.extras.get("android.intent.extra.alarm.MESSAGE") or ""))
    if "-S" in opts:
        p.force_stop(target.package)
    running = [a for a in p.stack if a.package == target.package]
    warning = ""
    if target.screen is None and running and target.package != LAUNCHER:
        warning = (
            "intent has been delivered to currently running top-most instance."
            if p.current.package == target.package
            else "its current task has been brought to the front"
        )
    logcat.expect_intent(p, intent.short(intent.flags | FLAG_NEW_TASK), uid=0)
    p.launch(target.package, target.screen, **target.state)
    if "load" in target.state:
        p.ui_tree()  # Chrome and Maps load what a VIEW intent names when their screen is first built
    if warning:
        ctx.print(f"Warning: Activity not started, {warning}")
    if "-W" in opts:
        pkg, cls = p.focused_component()
        ctx.print("Status: ok")
        ctx.print(f"LaunchState: {'HOT' if running else 'COLD'}")
        ctx.print(f"Activity: {short(pkg, cls)}")
        ctx.print(f"TotalTime: {180 + len(cls) * 3}")
        ctx.print(f"WaitTime: {190 + len(cls) * 3}")
        ctx.print("Complete")
    return 0


def broadcast(ctx: Ctx, args: list[str]) -> int:
    intent, _ = intents.parse("broadcast", args, BROADCAST_OPTIONS)
    ctx.print(f"Broadcasting: Intent {{ {intent.short(intent.flags | FLAG_RECEIVER_FROM_SHELL)} }}")
    receivers = list(RECEIVERS.get(intent.action, ()))
    only = intent.package or intent.component.partition("/")[0]
    if only:
        receivers = [r for r in receivers if r == only]
    if receivers:
        deliver(ctx, intent)
    logcat.log(
        ctx.phone,
        "D",
        "BroadcastQueue",
        f"Delivered {intent.action or intent.short()} to {len(receivers)} receiver(s)",
    )
    ctx.print("Broadcast completed: result=0")
    return 0


def deliver(ctx: Ctx, intent: Intent) -> None:
    """What the phone's receivers do with a broadcast they get."""
    p = ctx.phone
    if intent.action == "android.intent.action.AIRPLANE_MODE":
        on = get_setting(p, "global", "airplane_mode_on") == "1"
        logcat.log(p, "I", "AirplaneModeEnabler", f"Airplane mode {'on' if on else 'off'} (from settings)")
        p.invalidate()  # the quick settings tile and the Settings app read the setting again
    elif intent.action == "android.intent.action.MEDIA_SCANNER_SCAN_FILE" and intent.data:
        scan(p, intent.data)


def _stop(ctx: Ctx, rest: list[str], reason: str) -> int:
    pkgs = [a for k, a in enumerate(rest) if not a.startswith("--") and (k == 0 or rest[k - 1] != "--user")]
    if not pkgs:
        raise IntentError(reason, 'java.lang.IllegalArgumentException: Argument expected after "--user"')
    for pkg in pkgs:
        if pkg in APPS:
            logcat.log(
                ctx.phone, "I", "ActivityManager", f"Force stopping {pkg} appid=10085 user=0: from pid 4242"
            )
        ctx.phone.force_stop(pkg)
    return 0


@command("am")
def _am(ctx: Ctx, args: list[str]) -> int:
    p = ctx.phone
    if not args or args[0] in ("help", "-h"):
        ctx.print(USAGE)
        return 0
    verb, rest = args[0], args[1:]
    if verb in ("start", "start-activity"):
        return start_activity(ctx, rest, verb)
    if verb in ("broadcast", "send-broadcast"):
        return broadcast(ctx, rest)
    if verb in ("startservice", "start-service", "start-foreground-service", "startforegroundservice"):
        intent, _ = intents.parse(verb, rest, {"--user": 1})
        ctx.print(f"Starting service: Intent {{ {intent.short()} }}")
        ctx.eprint("Error: Not found; no service started.")
        return 255
    if verb in ("force-stop", "kill"):
        return _stop(ctx, rest, verb)
    if verb == "kill-all":
        p.home()
        return 0
    if verb == "stack" and rest[:1] == ["list"]:
        stack_list(ctx)
        return 0
    if verb in ("stack", "task") and rest[:1] == ["remove"]:
        return stack_remove(ctx, rest[1:])
    if verb == "get-current-user":
        ctx.print("0")
        return 0
    raise ShellError(f"Error: Unknown command: {verb}", 255)


@command("monkey")
def _monkey(ctx: Ctx, args: list[str]) -> int:
    """monkey -p PKG [-c CATEGORY] [-v] N: the app's launcher activity (the event count is not replayed)."""
    pkg = args[args.index("-p") + 1] if "-p" in args and args.index("-p") + 1 < len(args) else None
    if pkg is None or not monkey.launch(ctx.phone, pkg):
        ctx.eprint(monkey.NO_ACTIVITIES)
        return monkey.EXIT_NO_ACTIVITIES
    ctx.print(monkey.report(pkg))
    return 0
