"""The clipboard: the primary clip's text, set by the apps' copy actions (Chrome's "Copy link address",
Maps' "Copy link"), kept until the next copy or reset, read by `dumpsys clipboard`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..shell.context import Ctx


def copy(phone, text: str) -> None:
    """Make ``text`` the primary clip (as ClipboardManager.setPrimaryClip with a text/plain clip)."""
    phone.clipboard = text


def dump(ctx: Ctx) -> None:
    """`dumpsys clipboard`: the primary clip of user 0, its text on the clip line."""
    ctx.print("Clipboard Service state:")
    text = ctx.phone.clipboard
    if text:
        ctx.print(f'  mPrimaryClip=ClipData {{ text/plain "Copied text" {{T({len(text)}):{text}}} }}')
    else:
        ctx.print("  mPrimaryClip=null")
