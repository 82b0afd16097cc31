"""A session's X server: Xvfb on a free display, as the session user, with a cookie in the run dir, and our
own (root) process let in by xhost."""

from __future__ import annotations

import os
import pwd
import secrets
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from crab_gym.envs.base import DeviceError
from crab_gym.envs.desktop.backends.session_slot import FIRST_DISPLAY, display_accepts, free_display

if TYPE_CHECKING:
    from crab_gym.envs.desktop.backends.xvfb import XvfbSession

__all__ = ["start_xvfb"]


def start_xvfb(session: XvfbSession) -> subprocess.Popen:
    """Start the session's Xvfb, set ``session.display_name`` and return once it accepts connections."""
    sockets = Path("/tmp/.X11-unix")
    if os.geteuid() == 0 and (not sockets.exists() or sockets.stat().st_uid != 0):
        # Xvfb runs as the session user: the shared socket dir must be root's, sticky, world-writable.
        sockets.mkdir(exist_ok=True)
        os.chown(sockets, 0, 0)
        os.chmod(sockets, 0o1777)
    number = free_display(FIRST_DISPLAY + session.slot.index)
    session.display_name = f":{number}"
    auth = session.run_dir / "Xauthority"
    auth.touch()
    subprocess.run(
        ["xauth", "-q", "-f", str(auth), "add", session.display_name, ".", secrets.token_hex(16)], check=True
    )
    session.chown(auth)
    w, h = session.size
    # No GLX: with it Xvfb loads Mesa's software driver and LLVM (PSS 27 -> 9 MB alone without), and so
    # does every GTK client that probes it (the panel, the apps: ~14 MB each). The apps draw without GL.
    xvfb = subprocess.Popen(
        [
            "Xvfb", session.display_name, "-screen", "0", f"{w}x{h}x24", "-noreset", "-nolisten", "tcp",
            "-auth", str(auth), "+extension", "DAMAGE", "-extension", "GLX",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=open(session.run_dir / "Xvfb.log", "wb"),  # noqa: SIM115
        env={**session.env(), "HOME": str(session.slot.dir)},
        start_new_session=True,
        **session.user_kwargs(),
    )  # fmt: skip
    try:
        session.wait_for(lambda: display_accepts(number), 10.0, f"Xvfb {session.display_name}", xvfb)
        # Let our own (root) process in without the cookie; other users stay out. xhost runs as us with the
        # cookie, outside the session's namespaces (the server's socket is a file), which spares the
        # nsenter of a session command.
        me = pwd.getpwuid(os.geteuid()).pw_name
        res = subprocess.run(
            ["xhost", f"+si:localuser:{me}"],
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "DISPLAY": session.display_name,
                 "XAUTHORITY": str(auth)},
            capture_output=True,
            timeout=5,
        )  # fmt: skip
        if res.returncode != 0:
            why = res.stderr.decode(errors="replace")
            raise DeviceError(f"xhost failed on {session.display_name}: {why}")
    except BaseException:
        xvfb.kill()
        xvfb.wait()
        raise
    return xvfb
