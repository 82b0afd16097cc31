"""How processes run inside a desktop session: as its user, in its slot's namespaces, with its environment
and marker; which processes are the session's; waiting on one to be ready."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from crab_gym.envs.base import DeviceError
from crab_gym.envs.desktop.backends.a11y_bus import a11y_bus_address
from crab_gym.envs.desktop.backends.session_reap import MARKER
from crab_gym.envs.desktop.backends.session_slot import SessionUser, Slot
from crab_gym.envs.desktop.backends.session_web import SessionWeb
from crab_gym.envs.desktop.primitives.procs import Process, marker_pids, process_table, user_pids


class SessionProcesses:
    """The process side of a session (:class:`~crab_gym.envs.desktop.backends.xvfb.XvfbSession` is one)."""

    slot: Slot
    user: SessionUser
    token: str
    home: Path
    run_dir: Path
    keep_dir: Path
    display_name: str
    web: SessionWeb | None
    _web_pending: bool
    _xvfb: subprocess.Popen | None
    _children: list[subprocess.Popen]

    def env(self) -> dict[str, str]:
        """The environment every session process gets."""
        return {
            "HOME": str(self.home),
            "USER": self.user.name,
            "LOGNAME": self.user.name,
            "SHELL": "/bin/bash",
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "DISPLAY": self.display_name,
            "XAUTHORITY": str(self.run_dir / "Xauthority"),
            "XDG_RUNTIME_DIR": str(self.run_dir),
            "XDG_SESSION_TYPE": "x11",
            "DBUS_SESSION_BUS_ADDRESS": f"unix:path={self.run_dir / 'bus'}",
            "AT_SPI_BUS_ADDRESS": a11y_bus_address(self.keep_dir),
            "GDK_BACKEND": "x11",
            "NO_AT_BRIDGE": "0",
            "GNOME_ACCESSIBILITY": "1",
            # GTK 2 apps (GIMP 2.10) reach AT-SPI through these modules; GTK 3 has both built in, skips them
            "GTK_MODULES": "gail:atk-bridge",
            "QT_ACCESSIBILITY": "1",
            "SAL_USE_VCLPLUGIN": "gtk3",
            "LIBGL_ALWAYS_SOFTWARE": "1",
            "GSETTINGS_BACKEND": "dconf",
            "MOZ_LEGACY_PROFILES": "1",  # Firefox takes the profile profiles.ini marks (session_web.py)
            MARKER: self.token,
        } | (SessionWeb.env(self.home) if self.web or self._web_pending else {})

    def _as_session(self, argv: Sequence[str], cwd: Path) -> tuple[list[str], dict]:
        """The command line and Popen arguments that run ``argv`` in ``cwd`` as the session user, inside the
        slot's network (and /etc/hosts) namespaces when it has them (nsenter enters them, then drops to the
        user: no supplementary groups, no capabilities)."""
        netns, mnt = self.slot.netns, self.slot.mntns
        if netns is None:
            return list(argv), self.user_kwargs()
        u, nsenter = self.user, shutil.which("nsenter") or "/usr/bin/nsenter"
        ns = [f"--net={netns}", *([f"--mount={mnt}", f"--wdns={cwd}"] if mnt else [])]
        return [nsenter, *ns, f"--setgid={u.gid}", f"--setuid={u.uid}", "--", *argv], {}

    def user_kwargs(self) -> dict:
        if not self.user.dedicated:
            return {}
        return {"user": self.user.uid, "group": self.user.gid, "extra_groups": []}

    def spawn(
        self,
        argv: Sequence[str],
        *,
        log: str | None = None,
        cwd: Path | None = None,
        pipes: bool = False,
        env: dict[str, str] | None = None,
    ) -> subprocess.Popen:
        """Start a process inside the session, as the session user, detached from us. ``log`` names its log
        file under the run dir; ``pipes`` gives it our pipes as stdin and stdout; ``env`` adds variables."""
        logfile = open(self.run_dir / f"{log or Path(argv[0]).name}.log", "ab")  # noqa: SIM115
        cmd, as_user = self._as_session(argv, cwd or self.home)
        proc = subprocess.Popen(
            cmd,
            env={**self.env(), **(env or {})},
            cwd=cwd or self.home,
            stdin=subprocess.PIPE if pipes else subprocess.DEVNULL,
            stdout=subprocess.PIPE if pipes else logfile,
            stderr=logfile if pipes else subprocess.STDOUT,
            start_new_session=True,
            **as_user,
        )
        logfile.close()  # the child has its own descriptor; ours would pile up, one per spawn (every reset)
        self._children.append(proc)
        return proc

    def run(self, argv: Sequence[str], timeout: float = 10.0, input: bytes | None = None):
        """Run a named command inside the session and wait for it (used for setup and state reads)."""
        cwd = self.home if self.home.exists() else self.run_dir
        cmd, as_user = self._as_session(argv, cwd)
        return subprocess.run(
            cmd,
            env=self.env(),
            cwd=cwd,
            input=input,
            capture_output=True,
            timeout=timeout,
            **as_user,
        )

    def session_pids(self) -> list[int]:
        """Processes that belong to this session (by uid when it has its own user, else by marker)."""
        exclude = {os.getpid(), self._xvfb.pid if self._xvfb else -1}
        if self.user.dedicated:
            return user_pids(self.user.uid, exclude)
        return marker_pids(f"{MARKER}={self.token}".encode(), exclude)

    def processes(self) -> list[Process]:
        return process_table(self.session_pids())

    def kill(self, pid: int, sig: int) -> bool:
        if pid not in self.session_pids():
            return False
        try:
            os.kill(pid, sig)
            return True
        except ProcessLookupError:
            return False

    def wait_for(self, cond, timeout: float, what: str, proc: subprocess.Popen | None = None) -> None:
        deadline = time.monotonic() + timeout
        while not cond():
            if proc is not None and proc.poll() is not None:
                logs = sorted(self.run_dir.glob("*.log"), key=lambda f: f.stat().st_mtime)
                tail = logs[-1].read_text(errors="replace")[-300:].strip() if logs else ""
                raise DeviceError(f"{what} exited with {proc.returncode}: {tail}")
            if time.monotonic() > deadline:
                raise DeviceError(f"{what} not ready after {timeout:.0f} s")
            time.sleep(0.005)

    def chown(self, path: Path) -> None:
        """Give a file (or a tree) we created to the session user."""
        if not self.user.dedicated:
            return
        os.chown(path, self.user.uid, self.user.gid, follow_symlinks=False)
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                for n in dirs + files:
                    os.chown(os.path.join(root, n), self.user.uid, self.user.gid, follow_symlinks=False)
