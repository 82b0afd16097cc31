"""Build a small APK for install tests: a zip whose AndroidManifest.xml is binary XML (AXML), written the way
aapt2 writes it (UTF-16 string pool, start/end element chunks, typed attribute values). No SDK is needed."""

from __future__ import annotations

import io
import struct
import zipfile

ANDROID_NS = "http://schemas.android.com/apk/res/android"
NO_ENTRY = 0xFFFFFFFF
TYPE_STRING, TYPE_INT_DEC = 0x03, 0x10


class _Pool:
    def __init__(self) -> None:
        self.strings: list[str] = []

    def index(self, s: str) -> int:
        if s not in self.strings:
            self.strings.append(s)
        return self.strings.index(s)

    def chunk(self) -> bytes:
        offsets, data = [], b""
        for s in self.strings:
            offsets.append(len(data))
            data += struct.pack("<H", len(s)) + s.encode("utf-16-le") + b"\0\0"
        data += b"\0" * (-len(data) % 4)
        header = 28
        start = header + 4 * len(offsets)
        body = struct.pack(f"<{len(offsets)}I", *offsets) + data
        return (
            struct.pack("<HHIIIIII", 0x0001, header, header + len(body), len(offsets), 0, 0, start, 0) + body
        )


def _axml(tree: tuple) -> bytes:
    pool = _Pool()
    chunks: list[bytes] = []

    def element(node: tuple) -> None:
        name, attrs, children = node
        body = b""
        for key, value in attrs.items():
            ns = pool.index(ANDROID_NS) if key != "package" else NO_ENTRY
            if isinstance(value, int):
                raw, dtype, data = NO_ENTRY, TYPE_INT_DEC, value
            else:
                raw = pool.index(value)
                dtype, data = TYPE_STRING, raw
            body += struct.pack("<IIIHBBI", ns, pool.index(key), raw, 8, 0, dtype, data)
        head = struct.pack("<IIHHHHHH", NO_ENTRY, pool.index(name), 20, 20, len(attrs), 0, 0, 0)
        payload = struct.pack("<II", 1, NO_ENTRY) + head + body
        chunks.append(struct.pack("<HHI", 0x0102, 16, 8 + len(payload)) + payload)
        for child in children:
            element(child)
        end = struct.pack("<IIII", 1, NO_ENTRY, NO_ENTRY, pool.index(name))
        chunks.append(struct.pack("<HHI", 0x0103, 16, 8 + len(end)) + end)

    element(tree)
    body = pool.chunk() + b"".join(chunks)
    return struct.pack("<HHI", 0x0003, 8, 8 + len(body)) + body


def build_apk(
    package: str, version_code: int = 1, version_name: str = "1.0", permissions=(), launcher: str = ""
) -> bytes:
    """An APK declaring `package`, its version, uses-permission entries and a launcher activity."""
    app: list[tuple] = []
    if launcher:
        filt = (
            "intent-filter",
            {},
            [
                ("action", {"name": "android.intent.action.MAIN"}, []),
                ("category", {"name": "android.intent.category.LAUNCHER"}, []),
            ],
        )
        app.append(("activity", {"name": launcher}, [filt]))
    manifest = (
        "manifest",
        {"versionCode": version_code, "versionName": version_name, "package": package},
        [("uses-sdk", {"minSdkVersion": 24, "targetSdkVersion": 34}, [])]
        + [("uses-permission", {"name": p}, []) for p in permissions]
        + [("application", {}, app)],
    )
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("AndroidManifest.xml", _axml(manifest))
        z.writestr("classes.dex", b"dex\n035\0" + bytes(100))
    return buf.getvalue()
