"""The package manager's state: the preinstalled packages and the ones `pm install` / `adb install` added,
each with its runtime permissions and enabled state.

The state lives at Android's path /data/system/packages.xml in the phone's sandbox, written when a command
changes it; without that file the phone is as it left the factory, so a reset (which restores the sandbox)
restores the packages too.
"""

from __future__ import annotations

import hashlib
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from ..storage.fs import FsError
from .clock import now_ms
from .permissions import SYSTEM_PACKAGES, runtime
from .registry import APPS

STATE = "/data/system/packages.xml"
ENABLED_STATES = {0: "default", 1: "enabled", 2: "disabled", 3: "disabled-user"}
FIRST_UID = 10120  # installed apps get uids from here on


@dataclass
class Package:
    name: str
    system: bool
    code_path: str  # a directory (or the framework's apk)
    uid: int
    version_code: int = 34
    version_name: str = "14"
    target_sdk: int = 34
    min_sdk: int = 34
    requested: list[str] = field(default_factory=list)
    granted: set[str] = field(default_factory=set)  # runtime and development permissions granted
    enabled: int = 0
    installer: str = "null"
    installed_ms: int = 0
    updated_ms: int = 0
    launcher: str = ""  # a third-party package's launcher activity

    @property
    def apk(self) -> str:
        if self.code_path.endswith(".apk"):
            return self.code_path
        return (
            f"{self.code_path}/base.apk"
            if not self.system
            else f"{self.code_path}/{self.code_path.rsplit('/', 1)[-1]}.apk"
        )


def factory(phone) -> dict[str, Package]:
    """The packages as they are before any command changed them."""
    out = {}
    for name, (path, uid, requested, granted) in SYSTEM_PACKAGES.items():
        t = 1230768000000  # 2009-01-01, as a system image stamps its apps
        out[name] = Package(
            name,
            True,
            path,
            uid,
            requested=list(requested),
            granted=set(granted),
            installed_ms=t,
            updated_ms=t,
        )
    for name in APPS:  # every app the phone runs is installed
        out.setdefault(name, Package(name, True, f"/system/app/{name.rsplit('.', 1)[-1]}", 10150 + len(out)))
    return out


def load(phone) -> dict[str, Package]:
    """The current packages (the state file over the factory ones)."""
    pkgs = factory(phone)
    try:
        data = phone.fs.read_bytes(STATE)
    except FsError:
        return pkgs
    try:
        root = ET.fromstring(data)
    except ET.ParseError:
        return pkgs  # a damaged state file is ignored, as the package manager falls back on a scan
    for el in root.iter("package"):
        a = el.attrib
        name = a.get("name", "")
        system = a.get("system") == "true"
        if system and name not in pkgs:
            continue
        p = (
            pkgs[name]
            if system
            else Package(name, False, a.get("codePath", ""), int(a.get("userId", FIRST_UID)))
        )
        if not system:
            p.version_code, p.version_name = int(a.get("version", 1)), a.get("versionName", "")
            p.target_sdk, p.min_sdk = int(a.get("targetSdk", 1)), int(a.get("minSdk", 1))
            p.installer, p.launcher = a.get("installer", "null"), a.get("launcher", "")
            p.installed_ms, p.updated_ms = int(a.get("ft", 0)), int(a.get("ut", 0))
            p.requested = [u.get("name", "") for u in el.iter("uses-permission")]
        p.enabled = int(a.get("enabled", 0))
        p.granted = {g.get("name", "") for g in el.iter("perm") if g.get("granted") == "true"}
        pkgs[name] = p
    removed = {el.get("name", "") for el in root.iter("removed")}
    return {k: v for k, v in pkgs.items() if k not in removed}


def save(phone, pkgs: dict[str, Package]) -> None:
    root = ET.Element("packages")
    for name in sorted(set(factory(phone)) - set(pkgs)):
        ET.SubElement(root, "removed", name=name)
    for p in sorted(pkgs.values(), key=lambda p: p.name):
        el = ET.SubElement(
            root,
            "package",
            name=p.name,
            system=str(p.system).lower(),
            codePath=p.code_path,
            userId=str(p.uid),
            version=str(p.version_code),
            versionName=p.version_name,
            targetSdk=str(p.target_sdk),
            minSdk=str(p.min_sdk),
            installer=p.installer,
            launcher=p.launcher,
            ft=str(p.installed_ms),
            ut=str(p.updated_ms),
            enabled=str(p.enabled),
        )
        for perm in p.requested:
            ET.SubElement(el, "uses-permission", name=perm)
        for perm in sorted(p.granted):
            ET.SubElement(el, "perm", name=perm, granted="true")
    phone.fs.write_bytes(STATE, ET.tostring(root, encoding="utf-8", xml_declaration=True))


def is_enabled(phone, name: str) -> bool:
    """Installed and not disabled (a quick answer without the state file when nothing was changed)."""
    if not phone.fs.exists(STATE):
        return True
    p = load(phone).get(name)
    return p is not None and p.enabled in (0, 1)


def add_installed(
    phone, pkgs: dict[str, Package], manifest, apk: bytes, installer: str, grant_all: bool
) -> str:
    """Install (or update) a package from its manifest and APK bytes; returns its code path."""
    old = pkgs.get(manifest.package)
    # Android names the directories with random base64; a hash of the name keeps installs reproducible
    tag = hashlib.sha256(manifest.package.encode()).hexdigest()
    path = (
        old.code_path
        if old and not old.system
        else f"/data/app/~~{tag[:22]}==/{manifest.package}-{tag[22:44]}=="
    )
    phone.fs.write_bytes(f"{path}/base.apk", apk)
    uid = old.uid if old else max([FIRST_UID - 1] + [p.uid for p in pkgs.values() if not p.system]) + 1
    t = now_ms(phone)
    p = Package(
        manifest.package,
        False,
        path,
        uid,
        manifest.version_code,
        manifest.version_name or "null",
        manifest.target_sdk,
        manifest.min_sdk,
        list(manifest.permissions),
        old.granted if old else set(),
        0,
        installer,
        old.installed_ms if old else t,
        t,
        manifest.launcher,
    )
    if grant_all:
        p.granted |= {perm for perm in p.requested if runtime(perm)}
    pkgs[p.name] = p
    return path
