"""The offline web of one desktop session: its server inside the slot's network namespace, the host names
resolved to it, and browser profiles in HOME that trust the session's CA.

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
from typing import TYPE_CHECKING

from crab_gym.envs.base import DeviceError

if TYPE_CHECKING:  # the web's server (starlette, uvicorn, cryptography) is imported when a session starts it
    from crab_gym.web.content.world import WebWorld

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
    from crab_gym.web.app import HOSTS

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


def install_profiles(home: Path, ca_pem: Path) -> None:
    """Firefox and Chromium profiles in ``home`` that trust the CA at ``ca_pem`` (NSS databases made with
    certutil: Firefox's in its profile, Chromium's in ~/.pki/nssdb) and skip their first-run screens; the CA
    as a PEM file for the other programs (wget through ~/.wgetrc, the rest through :meth:`SessionWeb.env`)."""
    certutil = shutil.which("certutil")
    if certutil is None:
        raise DeviceError("the offline web needs certutil (Debian package libnss3-tools; scripts/setup.sh)")
    firefox = home / FIREFOX_PROFILE
    nssdb = home / ".pki/nssdb"

    def make_db(db: Path) -> None:
        db.mkdir(parents=True, exist_ok=True)
        for args in (["-N", "--empty-password"], ["-A", "-n", CA_NAME, "-t", "C,,", "-i", str(ca_pem)]):
            res = subprocess.run([certutil, "-d", f"sql:{db}", *args], capture_output=True, text=True)
            if res.returncode != 0:
                raise DeviceError(f"certutil {args[0]} on {db}: {res.stderr.strip() or res.stdout.strip()}")

    with ThreadPoolExecutor(2, thread_name_prefix="certutil") as pool:  # two databases, made side by side
        for done in [pool.submit(make_db, db) for db in (firefox, nssdb)]:
            done.result()  # re-raises a DeviceError
    (firefox.parent / "profiles.ini").write_text(
        "[General]\nStartWithLastProfile=1\nVersion=2\n\n"
        f"[Profile0]\nName=default\nIsRelative=1\nPath={firefox.name}\nDefault=1\n"
    )
    (firefox / "user.js").write_text(
        "".join(f'user_pref("{k}", {_js(v)});\n' for k, v in FIREFOX_PREFS.items())
    )
    shutil.copyfile(ca_pem, home / CA_FILE)
    (home / ".wgetrc").write_text(f"ca_certificate = ~/{CA_FILE}\n")
    chromium = home / ".config/chromium"
    chromium.mkdir(parents=True, exist_ok=True)
    (chromium / "First Run").touch()


def _js(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if isinstance(value, int) else f'"{value}"'


class SessionWeb:
    """The web server of one session (started once, kept across resets) and its CA in the session's HOME."""

    def __init__(self, state_dir: Path, netns: str | None, seed: int = 0) -> None:
        from crab_gym.web.server import WebServer

        self.server = WebServer(seed, state_dir)
        self.netns = netns

    @classmethod
    def start_or_warn(
        cls, state_dir: Path, netns: str, pristine_home: Path, chown: Callable[[Path], None]
    ) -> SessionWeb | None:
        """A started web for a session, or None with a warning saying why (no certutil, port taken):
        the session then runs without the web rather than not at all."""
        web = cls(state_dir, netns)
        try:
            web.start(pristine_home, chown)
            return web
        except (DeviceError, OSError, RuntimeError) as exc:
            web.close()
            warnings.warn(f"the session runs without the offline web: {exc}", stacklevel=2)
            return None

    @property
    def world(self) -> WebWorld:
        """What the sites show now: tasks draw attributes from it, evaluators read the answers."""
        return self.server.world

    @staticmethod
    def env(home: Path) -> dict[str, str]:
        """Variables that point curl, python (ssl, requests) and OpenSSL at the session CA."""
        ca = str(home / CA_FILE)
        return {"SSL_CERT_FILE": ca, "CURL_CA_BUNDLE": ca, "REQUESTS_CA_BUNDLE": ca}

    def start(self, pristine_home: Path, chown: Callable[[Path], None]) -> None:
        write_hosts_file()
        install_profiles(pristine_home, self.server.certs.ca_pem)
        for sub in (".mozilla", ".pki", ".config", ".wgetrc"):
            chown(pristine_home / sub)
        self.server.start(self.netns)

    def set_seed(self, seed: int) -> None:
        """Serve the world of ``seed`` from the next request on (the server and its CA stay)."""
        self.server.set_seed(seed)

    def close(self) -> None:
        self.server.stop()
