"""The media store's files table (MediaProvider's external.db) and the scan a MEDIA_SCANNER_SCAN_FILE
broadcast asks for: a file on shared storage gets (or updates) its row; a file that is gone loses it."""

from __future__ import annotations

import mimetypes
import posixpath
from urllib.parse import unquote, urlparse

from ..storage import db
from .clock import now_ms
from .logcat import log

MEDIA_TYPES = {"image": 1, "audio": 2, "video": 3}  # MediaStore.Files.FileColumns.MEDIA_TYPE_*


def scan(phone, uri: str) -> int | None:
    """Index the file a file:// uri (or path) names; its row id, or None if it is not on shared storage."""
    path = unquote(urlparse(uri).path) if uri.startswith("file:") else uri
    try:
        path = phone.fs.android_path(path)
        host = phone.fs.resolve(path)
    except OSError:
        return None
    if not path.startswith("/sdcard/"):
        return None
    shown = "/storage/emulated/0" + path[len("/sdcard") :]
    with phone.lock, db.connect(phone.fs, db.MEDIA_DB) as c:
        if not host.is_file():
            c.execute("DELETE FROM files WHERE _data = ?", (shown,))
            log(phone, "I", "MediaProvider", f"Deleted {shown}: file is gone")
            return None
        mime = mimetypes.guess_type(path)[0] or "application/octet-stream"
        name = posixpath.basename(path)
        parent = posixpath.dirname(path)
        phone.fs.times.settle()
        stat = host.stat()
        values = (
            shown,
            stat.st_size,
            int(stat.st_mtime),
            mime,
            name.rsplit(".", 1)[0],
            name,
            MEDIA_TYPES.get(mime.split("/")[0], 0),
            parent[len("/sdcard/") :] + "/" if parent != "/sdcard" else "",
            posixpath.basename(parent),
        )
        c.execute(
            "INSERT INTO files (_data, _size, date_modified, mime_type, title, _display_name, media_type, "
            "relative_path, bucket_display_name, date_added) VALUES (?,?,?,?,?,?,?,?,?,?) "
            "ON CONFLICT(_data) DO UPDATE SET _size = excluded._size, date_modified = excluded.date_modified",
            (*values, now_ms(phone) // 1000),
        )
        row = c.execute("SELECT _id FROM files WHERE _data = ?", (shown,)).fetchone()
    log(phone, "I", "MediaProvider", f"Scanned {shown} as {mime}")
    return int(row[0])
