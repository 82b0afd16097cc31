"""What `pm install` reads from an APK: the zip's binary AndroidManifest.xml (Android's AXML chunk format),
decoded far enough for the package name, version, SDK levels, requested permissions and launcher activity.
A file that is not an APK gets Android's parse failure, never an exception out of the command.
"""

from __future__ import annotations

import io
import struct
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field

RES_STRING_POOL, RES_XML, RES_XML_START_ELEMENT, RES_XML_END_ELEMENT, RES_XML_RESOURCE_MAP = (
    0x0001,
    0x0003,
    0x0102,
    0x0103,
    0x0180,
)
UTF8_FLAG = 0x100
NO_ENTRY = 0xFFFFFFFF
TYPE_STRING, TYPE_INT_DEC, TYPE_INT_HEX, TYPE_BOOLEAN = 0x03, 0x10, 0x11, 0x12
# attribute resource ids, for manifests whose attribute names were stripped
ATTR_IDS = {
    0x01010003: "name",
    0x0101021B: "versionCode",
    0x0101021C: "versionName",
    0x0101020C: "minSdkVersion",
    0x01010270: "targetSdkVersion",
}


class ApkError(ValueError):
    """Not an installable APK; the message is pm's failure reason."""


@dataclass
class Manifest:
    package: str
    version_code: int = 1
    version_name: str = ""
    min_sdk: int = 1
    target_sdk: int = 1
    permissions: list[str] = field(default_factory=list)
    launcher: str = ""  # the activity with a MAIN/LAUNCHER filter (fully qualified), if any


def _pool(chunk: bytes) -> list[str]:
    header_size = struct.unpack_from("<H", chunk, 2)[0]
    count, _styles, flags, start, _ = struct.unpack_from("<5I", chunk, 8)
    offsets = struct.unpack_from(f"<{count}I", chunk, header_size)
    out = []
    for off in offsets:
        p = start + off
        if flags & UTF8_FLAG:
            p += 2 if chunk[p] & 0x80 else 1  # length in characters, then in bytes
            n = chunk[p]
            if n & 0x80:
                n = ((n & 0x7F) << 8) | chunk[p + 1]
                p += 1
            out.append(chunk[p + 1 : p + 1 + n].decode("utf-8", "replace"))
        else:
            n = struct.unpack_from("<H", chunk, p)[0]
            p += 2
            if n & 0x8000:
                n = ((n & 0x7FFF) << 16) | struct.unpack_from("<H", chunk, p)[0]
                p += 2
            out.append(chunk[p : p + 2 * n].decode("utf-16-le", "replace"))
    return out


def _elements(axml: bytes) -> Iterator[tuple[int, str, dict[str, str | int | bool]]]:
    """(depth, element name, {attribute: value}) for each start tag, in document order."""
    if len(axml) < 8 or struct.unpack_from("<H", axml, 0)[0] != RES_XML:
        raise ApkError("INSTALL_PARSE_FAILED_MANIFEST_MALFORMED: Failed to parse AndroidManifest.xml")
    strings: list[str] = []
    ids: tuple[int, ...] = ()
    pos, depth = struct.unpack_from("<H", axml, 2)[0], 0
    while pos + 8 <= len(axml):
        kind, header, size = struct.unpack_from("<HHI", axml, pos)
        if size < 8:
            break
        chunk = axml[pos : pos + size]
        if kind == RES_STRING_POOL:
            strings = _pool(chunk)
        elif kind == RES_XML_RESOURCE_MAP:
            ids = struct.unpack_from(f"<{(size - header) // 4}I", chunk, header)
        elif kind == RES_XML_START_ELEMENT:
            _ns, name, attr_start, attr_size, count = struct.unpack_from("<IIHHH", chunk, header)
            attrs: dict[str, str | int | bool] = {}
            for k in range(count):
                a = header + attr_start + k * attr_size
                _ans, aname, raw, _sz, _res0, dtype, data = struct.unpack_from("<IIIHBBI", chunk, a)
                key = strings[aname] if aname < len(strings) else ""
                if not key and aname < len(ids):
                    key = ATTR_IDS.get(ids[aname], "")
                if raw != NO_ENTRY and raw < len(strings):
                    attrs[key] = strings[raw]
                elif dtype == TYPE_STRING and data < len(strings):
                    attrs[key] = strings[data]
                elif dtype == TYPE_BOOLEAN:
                    attrs[key] = data != 0
                else:
                    attrs[key] = data
            depth += 1
            yield depth, strings[name], attrs
        elif kind == RES_XML_END_ELEMENT:
            depth -= 1
        pos += size


def read_manifest(apk: bytes) -> Manifest:
    """The manifest of an APK's bytes; raises ApkError with pm's failure reason."""
    try:
        with zipfile.ZipFile(io.BytesIO(apk)) as z:
            axml = z.read("AndroidManifest.xml")
    except (zipfile.BadZipFile, KeyError, OSError) as e:
        raise ApkError("INSTALL_PARSE_FAILED_NOT_APK: Failed to parse APK: no AndroidManifest.xml") from e
    try:
        return _manifest(axml)
    except (struct.error, IndexError, UnicodeDecodeError) as e:
        raise ApkError("INSTALL_PARSE_FAILED_MANIFEST_MALFORMED: Failed to parse AndroidManifest.xml") from e


def _manifest(axml: bytes) -> Manifest:
    m: Manifest | None = None
    activity, in_filter = "", False
    actions: set[str | int | bool | None] = set()
    categories: set[str | int | bool | None] = set()
    for depth, name, attrs in _elements(axml):
        if name == "manifest" and depth == 1:
            m = Manifest(str(attrs.get("package", "")))
            m.version_code = int(attrs.get("versionCode", 1))
            m.version_name = str(attrs.get("versionName", ""))
        elif m is None:
            continue
        elif name == "uses-sdk":
            m.min_sdk = int(attrs.get("minSdkVersion", 1))
            m.target_sdk = int(attrs.get("targetSdkVersion", m.min_sdk))
        elif name == "uses-permission":
            m.permissions.append(str(attrs.get("name", "")))
        elif name in ("activity", "activity-alias"):
            cls = str(attrs.get("name", ""))
            activity, in_filter = (m.package + cls if cls.startswith(".") else cls), False
        elif name == "intent-filter":
            in_filter, actions, categories = True, set(), set()
        elif name == "action" and in_filter:
            actions.add(attrs.get("name"))
        elif name == "category" and in_filter:
            categories.add(attrs.get("name"))
            if "android.intent.action.MAIN" in actions and "android.intent.category.LAUNCHER" in categories:
                m.launcher = m.launcher or activity
    if m is None or not m.package or "." not in m.package:
        raise ApkError("INSTALL_PARSE_FAILED_BAD_MANIFEST: <manifest> has no valid package name")
    return m
