"""Files to download: every URL on a download host has fixed bytes, made from the URL alone (the same in every
world, so a task file's URL has one answer), whose type follows the extension (a PNG, a zip, a PDF, text).
The oracle knows them: ``file_bytes(url)``."""

from __future__ import annotations

import io
import random
import zipfile
from functools import lru_cache
from urllib.parse import urlsplit

from .images import image_png

# The neutral download host, then hosts CRAB's download tasks name (each answers with files of its own).
DOWNLOAD_HOSTS = (
    "files.example.org",
    "raw.githubusercontent.com",
    "upload.wikimedia.org",
    "arxiv.org",
    "res.cloudinary.com",
    "media.cntraveller.com",
    "images.top1market.com",
    "cemse.kaust.edu.sa",
)
TYPES = {".png": "image/png", ".jpg": "image/png", ".zip": "application/zip", ".pdf": "application/pdf"}


def content_type(path: str) -> str:
    ext = "." + path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
    if path.startswith("/pdf/"):
        return "application/pdf"
    return TYPES.get(ext, "text/plain; charset=utf-8")


@lru_cache(maxsize=256)
def file_bytes(url: str) -> bytes:
    """The bytes a download of ``url`` gives (host and path; query ignored), the same every time."""
    parts = urlsplit(url)
    key = f"{parts.hostname}{parts.path}"
    kind, rng = content_type(parts.path), random.Random(f"file:{key}")
    if kind == "image/png":
        return image_png(0, "/images/" + parts.path.rsplit("/", 1)[-1].rsplit(".", 1)[0] + ".png")
    words = ["offline", "web", "file", "seed", "crab", "gym", "download", "page", "data", "note"]
    text = f"{parts.path.rsplit('/', 1)[-1]}\n\n" + " ".join(rng.choice(words) for _ in range(60)) + "\n"
    if kind == "application/zip":
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as z:
            info = zipfile.ZipInfo("README.md", date_time=(2024, 1, 1, 0, 0, 0))
            z.writestr(info, text)
        return out.getvalue()
    if kind == "application/pdf":
        return _pdf(text)
    return text.encode()


def _pdf(text: str) -> bytes:
    """A one-page PDF that shows the first line of ``text`` (a real PDF, readers open it)."""
    line = text.splitlines()[0].replace("\\", "").replace("(", "").replace(")", "")
    stream = f"BT /F1 14 Tf 72 720 Td ({line}) Tj ET".encode()
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)
