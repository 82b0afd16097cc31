"""`dumpsys activity top|activities|recents|processes|<package>` and `am stack remove`, in Android 14's
shape: the lines tools parse (ACTIVITY ... pid=, mResumedActivity, Recent #N with taskId=,
ProcessRecord{...})."""

from __future__ import annotations

from ..shell.context import Ctx
from ..shell.proccmds import processes
from .registry import APPS, short


def _hash(task_id: int) -> str:
    return f"{task_id * 7919 % 0xFFFFFFF:07x}"


def record(ctx: Ctx) -> str:
    """ActivityRecord{hash u0 com.pkg/.Cls tN} of the focused activity."""
    pkg, cls = ctx.phone.focused_component()
    act = ctx.phone.current
    return f"ActivityRecord{{{_hash(act.task_id)} u0 {short(pkg, cls)} t{act.task_id}}}"


def tasks(phone) -> list:
    """The top activity of each task, top task first."""
    seen: dict[int, object] = {}
    for act in reversed(phone.stack):
        seen.setdefault(act.task_id, act)
    return list(seen.values())


def _top(ctx: Ctx, package: str | None = None) -> bool:
    found = False
    for act in reversed(tasks(ctx.phone)):  # bottom to top: the resumed activity comes last, as on Android
        if package and act.package != package:
            continue
        cls = APPS[act.package].activity(act.screen)
        ctx.print(f"TASK {act.package} id={act.task_id} userId=0")
        ctx.print(f"  ACTIVITY {short(act.package, cls)} {_hash(act.task_id)} pid={1000 + act.task_id}")
        found = True
    return found


def _recents(ctx: Ctx) -> None:
    ctx.print("ACTIVITY MANAGER RECENT TASKS (dumpsys activity recents)")
    ctx.print("  mRecentsUid=10120")
    ctx.print(
        "  mRecentsComponent=ComponentInfo{com.google.android.apps.nexuslauncher/"
        "com.android.quickstep.RecentsActivity}"
    )
    ctx.print("  Recent tasks:")
    for k, act in enumerate(tasks(ctx.phone)):
        cls = APPS[act.package].activity(act.screen)
        kind = "home" if act.screen == "home" else "standard"
        top = act is ctx.phone.current
        ctx.print(
            f"  * Recent #{k}: Task{{{_hash(act.task_id)} #{act.task_id} type={kind} A=10120:{act.package} "
            f"U=0 visible={'true' if top else 'false'} mode=fullscreen translucent=false sz=1}}"
        )
        ctx.print(
            f"    taskId={act.task_id} rootTaskId={act.task_id} userId=0 effectiveUid=10120 mCallingUid=2000"
        )
        ctx.print(f"    affinity={act.package}")
        ctx.print(
            f"    intent={{act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] "
            f"flg=0x10200000 cmp={short(act.package, cls)}}}"
        )
        ctx.print(f"    realActivity={short(act.package, cls)}")
        ctx.print(f"    mActivityComponent={short(act.package, cls)}")


def _processes(ctx: Ctx) -> None:
    apps = [(pid, user, name) for pid, _pp, user, name in processes(ctx) if "." in name]
    ctx.print("ACTIVITY MANAGER RUNNING PROCESSES (dumpsys activity processes)")
    ctx.print("  All known processes:")
    for pid, user, name in apps:
        uid = 10000 + int(user[4:]) if user.startswith("u0_a") else 1001
        ctx.print(f"  *APP* UID {uid} ProcessRecord{{{_hash(pid)} {pid}:{name}/{user.replace('_', '')}}}")
        ctx.print(f"    user #0 uid={uid} gids={{50{uid % 1000}, 20{uid % 1000}, 9997}}")
        ctx.print(f"    pid={pid} processName={name}")
    ctx.print(f"  Process LRU list (sorted by oom_adj, {len(apps)} total, non-act at 0, non-svc at 0):")
    top = ctx.phone.current.package
    for k, (pid, user, name) in enumerate(apps):
        state = "fg     T/A/TOP  LCM " if name == top else "vis    F/ /BFGS --- "
        ctx.print(
            f"    Proc #{k:2d}: {state} t: 0 {pid}:{name}/{user.replace('_', '')} "
            f"({'top-activity' if name == top else 'service'})"
        )
    ctx.print("  PID mappings:")
    for pid, user, name in sorted(apps):
        ctx.print(f"    PID #{pid}: ProcessRecord{{{_hash(pid)} {pid}:{name}/{user.replace('_', '')}}}")


def dump_activity(ctx: Ctx, sub: str) -> None:
    p = ctx.phone
    if sub == "top":
        _top(ctx)
    elif sub in ("recents", "r"):
        _recents(ctx)
    elif sub in ("processes", "p"):
        _processes(ctx)
    elif sub in ("activities", "a"):
        ctx.print("ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)")
        ctx.print("Display #0 (activities from top to bottom):")
        for act in reversed(p.stack):
            cls = short(act.package, APPS[act.package].activity(act.screen))
            ctx.print(f"  * Hist #{act.task_id}: ActivityRecord{{0 u0 {cls} t{act.task_id}}}")
        ctx.print(f"    mResumedActivity: {record(ctx)}")
        ctx.print(f"  topResumedActivity={record(ctx)}")
        ctx.print(f"  ResumedActivity: {record(ctx)}")
    elif sub in APPS or "." in sub:  # `dumpsys activity <package>`: that app's tasks, as `top` prints them
        if not _top(ctx, sub.partition("/")[0]):
            ctx.print(f"No activities found for: {sub}")


def stack_remove(ctx: Ctx, ids: list[str]) -> int:
    """`am stack remove ID...` (also `am task remove`): close each root task, as swiping it away does."""
    p = ctx.phone
    for spec in ids:
        if not spec.isdigit():
            ctx.eprint(f"Error: bad task id '{spec}'")
            return 255
        doomed = [a for a in p.stack if a.task_id == int(spec) and a.screen != "home"]
        if doomed:
            rest = [a for a in p.stack if a not in doomed]
            if rest:
                p.stack = rest
                p.invalidate()
            else:
                p.home()
    return 0
