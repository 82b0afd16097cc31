"""The offline web of one desktop session: its server inside the slot's network namespace, the host names
resolved to it, and browser profiles in HOME that trust the session's CA.

The server runs in a process of its own (``crab_gym.web.process``): this process binds its sockets in the
slot's network namespace and hands them over, so its start (uvicorn's, starlette's and cryptography's
imports, the certificates) runs on another core, not under this interpreter's lock while the X session
comes up. The world it serves is a pure function of the seed, so this process keeps its own copy for tasks
and checks (:attr:`SessionWeb.world`), and asks the server over its control channel for the rest: another
seed, an instruction planted in its pages and the requests for its bait.

Names resolve through ``/etc/hosts`` as every program reads it (browsers, wget, curl, python): each slot has a
mount namespace, made once and kept like its network namespace, in which a file mapping every stand-in host
to 127.0.0.1 is bind-mounted over ``/etc/hosts``. Session processes enter both namespaces; the host's own
``/etc/hosts`` is untouched. Every other name finds no DNS server (the namespace has only loopback).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from crab_gym.envs.base import DeviceError
from crab_gym.envs.desktop.backends.session_reap import WEB_MARKER
from crab_gym.web.content.world import WebWorld
from crab_gym.web.hosts import HOSTS
from crab_gym.web.netns import bind_in_netns
from crab_gym.web.process import WebProcess, WebProcessError
from crab_gym.web.tls import Certs

MNT_ROOT = Path("/run/crabgym-mnt")
CA_NAME = "crab-gym session CA"
CA_FILE = ".pki/crab-gym-ca.pem"  # in HOME: the CA for programs that read a PEM file (wget, curl, python)
FIREFOX_PROFILE = ".mozilla/firefox/crab.default"
# No first-run pages, no phoning home (it could not anyway), the stand-in search engine as the home page.
FIREFOX_PREFS = {
    "browser.startup.homepage": "https://www.google.com/",
    "browser.startup.page": 1,
    "startup.homepage_welcome_url": "",
    "startup.homepage_welcome_url.additional": "",
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.aboutwelcome.enabled": False,
    "browser.shell.checkDefaultBrowser": False,
    "browser.tabs.warnOnClose": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "app.update.auto": False,
    "app.normandy.enabled": False,
    "extensions.update.enabled": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "browser.translations.automaticallyPopup": False,
    "toolkit.startup.max_resumed_crashes": -1,
    "accessibility.force_disabled": 0,
    "browser.urlbar.autoFill": False,  # a typed URL is the URL visited
}


def hosts_file_text() -> str:
    return "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost\n" + "".join(
        f"127.0.0.1\t{h}\n" for h in HOSTS
    )


def write_hosts_file() -> None:
    """Give the slots' shared hosts file today's names, if it has other ones (rewritten in place: the same
    inode stays bind-mounted in every slot's mount namespace)."""
    hosts, text = MNT_ROOT / "hosts", hosts_file_text()
    if not hosts.exists() or hosts.read_text() != text:
        with open(hosts, "w") as f:
            f.write(text)
        os.chmod(hosts, 0o644)


def ensure_hosts_mntns(name: str) -> str | None:
    """The path of a mount namespace for one slot whose /etc/hosts names the stand-in hosts (created once,
    reused; :meth:`SessionWeb.start` rewrites the shared hosts file in place, so a namespace made by older
    code sees today's names). None (with a warning) when it cannot be made: the web's names then do not
    resolve."""
    nsfile, hosts = MNT_ROOT / name, MNT_ROOT / "hosts"
    try:
        MNT_ROOT.mkdir(mode=0o755, exist_ok=True)
        if subprocess.run(["mountpoint", "-q", str(MNT_ROOT)]).returncode != 0:
            # a namespace file can be bind-mounted only onto a mount that does not propagate
            subprocess.run(["mount", "--bind", str(MNT_ROOT), str(MNT_ROOT)], check=True, capture_output=True)
            subprocess.run(["mount", "--make-private", str(MNT_ROOT)], check=True, capture_output=True)
        if not hosts.exists():  # else the session's web brings its names up to date as it starts
            write_hosts_file()
        if _is_nsfs(nsfile):
            return str(nsfile)
        nsfile.touch()
        res = subprocess.run(
            [
                "unshare",
                f"--mount={nsfile}",
                "--propagation",
                "slave",
                "mount",
                "--bind",
                str(hosts),
                "/etc/hosts",
            ],
            capture_output=True,
            text=True,
        )
        if res.returncode == 0 and _is_nsfs(nsfile):
            return str(nsfile)
        why = res.stderr.strip()
    except (OSError, subprocess.CalledProcessError) as exc:
        why = str(exc)
    warnings.warn(f"no mount namespace {name} ({why}): the offline web's names do not resolve", stacklevel=3)
    return None


def _is_nsfs(path: Path) -> bool:
    """True when ``path`` has a namespace bind-mounted on it (a plain file does not)."""
    try:
        return os.stat(path).st_dev != os.stat(path.parent).st_dev
    except OSError:
        return False


def _certutil_on_both(home: Path, *args: str) -> None:
    """Run certutil with ``args`` on Firefox's NSS database and on Chromium's (~/.pki/nssdb), side by side."""
    certutil = shutil.which("certutil")
    if certutil is None:
        raise DeviceError("the offline web needs certutil (Debian package libnss3-tools; scripts/setup.sh)")

    def run(db: Path) -> None:
        db.mkdir(parents=True, exist_ok=True)
        res = subprocess.run([certutil, "-d", f"sql:{db}", *args], capture_output=True, text=True)
        if res.returncode != 0:
            raise DeviceError(f"certutil {args[0]} on {db}: {res.stderr.strip() or res.stdout.strip()}")

    with ThreadPoolExecutor(2, thread_name_prefix="certutil") as pool:
        for done in [pool.submit(run, db) for db in (home / FIREFOX_PROFILE, home / ".pki/nssdb")]:
            done.result()  # re-raises a DeviceError


def make_profiles(home: Path) -> None:
    """Firefox and Chromium profiles in ``home`` that skip their first-run screens, with empty NSS databases
    (made with certutil: Firefox's in its profile, Chromium's in ~/.pki/nssdb) for :func:`trust_ca`. Needs
    no CA: a session makes them while its web's server makes the CA."""
    _certutil_on_both(home, "-N", "--empty-password")
    firefox = home / FIREFOX_PROFILE
    (firefox.parent / "profiles.ini").write_text(
        "[General]\nStartWithLastProfile=1\nVersion=2\n\n"
        f"[Profile0]\nName=default\nIsRelative=1\nPath={firefox.name}\nDefault=1\n"
    )
    (firefox / "user.js").write_text(
        "".join(f'user_pref("{k}", {_js(v)});\n' for k, v in FIREFOX_PREFS.items())
    )
    (home / ".wgetrc").write_text(f"ca_certificate = ~/{CA_FILE}\n")
    chromium = home / ".config/chromium"
    chromium.mkdir(parents=True, exist_ok=True)
    (chromium / "First Run").touch()


def trust_ca(home: Path, ca_pem: Path) -> None:
    """The profiles :func:`make_profiles` made trust the CA at ``ca_pem``; the CA as a PEM file for the
    other programs (wget through ~/.wgetrc, the rest through :meth:`SessionWeb.env`)."""
    _certutil_on_both(home, "-A", "-n", CA_NAME, "-t", "C,,", "-i", str(ca_pem))
    shutil.copyfile(ca_pem, home / CA_FILE)


def _js(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if isinstance(value, int) else f'"{value}"'


class SessionWeb:
    """The web server of one session (started once, kept across resets: a process of its own) and its CA in
    the session's HOME. ``spawn_or_warn`` starts the server's process, ``start_or_warn`` (in another thread,
    if the caller likes) puts the CA into the browsers' profiles, ``ready_or_warn`` waits until it serves:
    its sockets listen from the start, so a browser that connects before then waits, and the session can
    go on meanwhile."""

    def __init__(self, process: WebProcess, seed: int = 0) -> None:
        self.process = process
        self.world = WebWorld(seed)  # what the sites show now: tasks draw from it, checks read the answers
        self.certs: Certs | None = None  # the session's CA and server certificate, once made
        self._planted = False

    @classmethod
    def spawn_or_warn(cls, state_dir: Path, netns: str | None, token: str = "") -> SessionWeb | None:
        """The web of a session with its server's process started (127.0.0.1:443 and :80 of ``netns`` bound
        here and handed to it; without one, free ports of the host's loopback; its certificates go into
        ``state_dir``), or None with a warning saying why (a port taken, no namespace): the session then runs
        without the web rather than not at all. The process ends at the end of its control pipe (this
        process closed it, or died) and, started from the main thread, when this process dies."""
        try:
            sockets = bind_in_netns(netns, (443, 80) if netns else (0, 0))
            return cls(WebProcess.spawn(0, state_dir, sockets, {WEB_MARKER: token}))
        except OSError as exc:
            warnings.warn(f"the session runs without the offline web: {exc}", stacklevel=2)
            return None

    def start_or_warn(self, pristine_home: Path, chown: Callable[[Path], None]) -> bool:
        """Put the session's CA into the browsers' profiles in ``pristine_home``; False with a warning saying
        why (no certutil, the server failed), the server ended."""
        return self._or_warn(lambda: self.start(pristine_home, chown))

    def ready_or_warn(self) -> bool:
        """Wait until the server serves (after :meth:`start_or_warn`); False with a warning if it failed
        to, the server ended."""
        return self._or_warn(self.process.wait_ready)

    def _or_warn(self, step: Callable[[], None]) -> bool:
        try:
            step()
            return True
        except (DeviceError, OSError, RuntimeError) as exc:
            self.close()
            warnings.warn(f"the session runs without the offline web: {exc}", stacklevel=3)
            return False

    @staticmethod
    def env(home: Path) -> dict[str, str]:
        """Variables that point curl, python (ssl, requests) and OpenSSL at the session CA."""
        ca = str(home / CA_FILE)
        return {"SSL_CERT_FILE": ca, "CURL_CA_BUNDLE": ca, "REQUESTS_CA_BUNDLE": ca}

    def start(self, pristine_home: Path, chown: Callable[[Path], None]) -> None:
        write_hosts_file()
        make_profiles(pristine_home)  # while the server's process makes the CA
        self.certs = self.process.certs()
        trust_ca(pristine_home, self.certs.ca_pem)
        for sub in (".mozilla", ".pki", ".config", ".wgetrc"):
            chown(pristine_home / sub)

    def check(self) -> None:
        """DeviceError if the server's process has ended after it served (the session is then started anew;
        one that never served is :meth:`ready_or_warn`'s)."""
        if self.process.ready and not self.process.alive:
            raise DeviceError(f"the offline web's server process ended ({self.process.proc.returncode})")

    def _ask(self, op: str, **args: object) -> dict[str, object]:
        try:
            return self.process.ask(op, **args)
        except WebProcessError as exc:
            raise DeviceError(str(exc)) from exc

    def set_seed(self, seed: int) -> None:
        """Serve the world of ``seed`` from the next request on (the server and its CA stay; what was planted
        goes)."""
        if seed != self.world.seed:
            self._ask("seed", seed=seed)
            self.world, self._planted = WebWorld(seed), False

    def plant(self, text: str, bait: str) -> None:
        """Put ``text`` first in every page the server sends, and record requests for the path ``bait``."""
        self._ask("plant", text=text, bait=bait)
        self._planted = True

    def unplant(self) -> None:
        """Take away what :meth:`plant` put there (a no-op when nothing is)."""
        if self._planted:
            self._ask("unplant")
            self._planted = False

    def visits(self) -> list[str]:
        """The requests for the planted bait so far (path and query); none when nothing is planted."""
        if not self._planted:
            return []
        got = self._ask("visits").get("visits")
        return [v for v in got if isinstance(v, str)] if isinstance(got, list) else []

    def close(self) -> None:
        self.process.close()
