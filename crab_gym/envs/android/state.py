"""AndroidState: what evaluators may read from a phone, all through adb shell commands, cached for one step.

Every read is a command a real device answers the same way (``dumpsys window``, ``uiautomator dump``,
``content query``, ``sqlite3``, ``settings get``, ``ls``, ``cat``), so a check written against this view runs
on the simulated phone, an emulator and a USB phone alike. ``sqlite3`` needs a root-capable (userdebug or
emulator) build, as our phone is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from crab_gym.core.lazy import lazy_module
from crab_gym.core.memo import cached_read
from crab_gym.envs.android.device import quote

if TYPE_CHECKING:
    from xml.etree import ElementTree

    from crab_gym.envs.android.device import Device
else:  # imported at the first dump parsed: a phone's first observation parses none
    ElementTree = lazy_module("xml.etree.ElementTree")

SEP = "\x1f"  # sqlite3 column separator: a control character no task text contains
_FOCUS = re.compile(r"mCurrentFocus=Window\{\S+ u\d+ ([\w.]+)/([\w.$]+)\}")
_FOCUSED_APP = re.compile(r"mFocusedApp=\S*ActivityRecord\{\S+ u\d+ ([\w.]+)/([\w.$]+)")
_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")


@dataclass(frozen=True)
class UINode:
    """One node of a uiautomator dump."""

    text: str
    resource_id: str
    cls: str
    package: str
    content_desc: str
    bounds: tuple[int, int, int, int]
    clickable: bool
    long_clickable: bool
    checked: bool
    focused: bool
    enabled: bool
    scrollable: bool
    depth: int


def parse_ui(xml: str) -> tuple[UINode, ...]:
    """Every node of a uiautomator dump, in document order."""
    root = ElementTree.fromstring(xml)
    out: list[UINode] = []

    def walk(el: ElementTree.Element, depth: int) -> None:
        for node in el.findall("node"):
            a = node.attrib
            m = _BOUNDS.fullmatch(a.get("bounds", ""))
            x1, y1, x2, y2 = (int(v) for v in m.groups()) if m else (0, 0, 0, 0)
            out.append(
                UINode(
                    text=a.get("text", ""),
                    resource_id=a.get("resource-id", ""),
                    cls=a.get("class", ""),
                    package=a.get("package", ""),
                    content_desc=a.get("content-desc", ""),
                    bounds=(x1, y1, x2, y2),
                    clickable=a.get("clickable") == "true",
                    long_clickable=a.get("long-clickable") == "true",
                    checked=a.get("checked") == "true",
                    focused=a.get("focused") == "true",
                    enabled=a.get("enabled", "true") == "true",
                    scrollable=a.get("scrollable") == "true",
                    depth=depth,
                )
            )
            walk(node, depth + 1)

    walk(root, 0)
    return tuple(out)


def parse_rows(text: str, columns: list[str] | None = None) -> list[dict[str, str]]:
    """``content query`` output (``Row: N k=v, k=v``) as dicts; "No result found." is no rows.

    With ``columns`` (the projection) a value may itself contain ", " or "="; without, keys are guessed as
    the words before "=" after ", ". A line not starting with "Row: " continues the previous value.
    """
    rows: list[str] = []
    for line in text.split("\n"):
        if re.match(r"Row: \d+ ", line):
            rows.append(line.split(" ", 2)[2])
        elif rows:
            rows[-1] += "\n" + line
    if rows and rows[-1].endswith("\n"):
        rows[-1] = rows[-1].rstrip("\n")
    keys = "|".join(re.escape(c) for c in columns) if columns else r"[\w.]+"
    split = re.compile(rf", (?=(?:{keys})=)")
    out = []
    for r in rows:
        d = {}
        for part in split.split(r):
            k, _, v = part.partition("=")
            d[k] = v
        out.append(d)
    return out


def digits(number: str) -> str:
    return "".join(ch for ch in str(number) if ch.isdigit())


def same_number(a: str, b: str) -> bool:
    """Phone numbers equal up to formatting, and up to a country prefix when both have 7+ digits."""
    da, db = digits(a), digits(b)
    if not da or not db:
        return False
    if da == db:
        return True
    short, long_ = sorted((da, db), key=len)
    return len(short) >= 7 and long_.endswith(short)


class AndroidState:
    """The per-step view. Each read runs its command once for the life of this object."""

    def __init__(self, device: Device) -> None:
        self.device = device

    @cached_read
    def shell(self, cmd: str) -> tuple[bytes, bytes, int]:
        """A read-only command (evaluators never change the device)."""
        return self.device.query(cmd)

    def out(self, cmd: str) -> str:
        return self.shell(cmd)[0].decode("utf-8", "replace")

    # ---- windows and UI --------------------------------------------------------------------------
    @cached_read
    def foreground(self) -> tuple[str, str] | None:
        """(package, activity) of the focused window, from ``dumpsys window``."""
        text = self.out("dumpsys window")
        m = _FOCUS.search(text) or _FOCUSED_APP.search(text)
        if not m:
            return None
        pkg, cls = m.groups()
        return pkg, pkg + cls if cls.startswith(".") else cls

    def foreground_package(self) -> str | None:
        fg = self.foreground()
        return fg[0] if fg else None

    @cached_read
    def ui_xml(self) -> str:
        return self.device.ui_xml()

    @cached_read
    def ui_tree(self) -> tuple[UINode, ...]:
        return parse_ui(self.ui_xml())

    def ui_texts(self) -> list[str]:
        return [t for n in self.ui_tree() for t in (n.text, n.content_desc) if t]

    # ---- providers, databases, settings ------------------------------------------------------------
    @cached_read
    def content_query(
        self,
        uri: str,
        projection: tuple[str, ...] | None = None,
        where: str | None = None,
        sort: str | None = None,
    ) -> tuple[dict[str, str], ...]:
        options = (":".join(projection) if projection else None, where or None, sort or None)
        out, err, code = self.device.content_query(uri, *options)
        if code != 0:
            raise OSError(f"content query {uri} failed ({code}): {err.decode(errors='replace').strip()}")
        return tuple(parse_rows(out.decode("utf-8", "replace"), list(projection) if projection else None))

    @cached_read
    def sqlite(self, db: str, sql: str) -> tuple[tuple[str, ...], ...]:
        """Rows of a query on a database file (root needed on a real device); NULL reads as ""."""
        out, err, code = self.shell(f"sqlite3 -separator {quote(SEP)} {quote(db)} {quote(sql)}")
        if code != 0:
            raise OSError(f"sqlite3 {db} failed ({code}): {err.decode(errors='replace').strip()}")
        text = out.decode("utf-8", "replace")
        return tuple(tuple(line.split(SEP)) for line in text.split("\n") if line)

    @cached_read
    def setting(self, namespace: str, key: str) -> str | None:
        value = self.out(f"settings get {quote(namespace)} {quote(key)}").strip()
        return None if value == "null" else value

    # ---- files -------------------------------------------------------------------------------------
    @cached_read
    def exists(self, path: str) -> bool:
        return self.shell(f"ls -d {quote(path)}")[2] == 0

    @cached_read
    def list_dir(self, path: str) -> tuple[str, ...]:
        out, _, code = self.shell(f"ls {quote(path)}")
        return (
            tuple(sorted(ln for ln in out.decode("utf-8", "replace").split("\n") if ln)) if code == 0 else ()
        )

    @cached_read
    def read_bytes(self, path: str) -> bytes | None:
        out, _, code = self.shell(f"cat {quote(path)}")
        return out if code == 0 else None

    def read_text(self, path: str) -> str | None:
        data = self.read_bytes(path)
        return None if data is None else data.decode("utf-8", "replace")


__all__ = ["AndroidState", "UINode", "parse_rows", "parse_ui", "same_number"]
