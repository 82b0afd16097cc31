"""How the phone's apps reach the offline web: one small interface (`Fetcher.fetch(url) -> Response`) and its
real implementation, HTTPS to the web's server on loopback, checked against the session's CA.

Every stand-in host (``crab_gym.web.app.HOSTS``) resolves to the server, as each desktop session's
/etc/hosts makes them; any other name does not resolve, as in a world without the internet. Errors come back
as a Response whose ``error`` is Chrome's net error name (``ERR_NAME_NOT_RESOLVED``,
``ERR_CERT_AUTHORITY_INVALID``), never as an exception.
"""

from __future__ import annotations

import http.client
import socket
import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from urllib.parse import urlencode, urljoin, urlsplit

MAX_REDIRECTS = 8
MAX_BODY = 4 << 20  # bytes a page may have; more is cut (the phone renders a few screens of it anyway)
TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Response:
    url: str  # the final URL, after redirects
    status: int = 0  # 0 when no answer came
    content_type: str = ""
    body: bytes = b""
    error: str = ""  # a Chrome net error name when the page could not be fetched

    @property
    def text(self) -> str:
        charset = "utf-8"
        for part in self.content_type.split(";")[1:]:
            k, _, v = part.strip().partition("=")
            if k.lower() == "charset" and v:
                charset = v.strip('"')
        try:
            return self.body.decode(charset, "replace")
        except LookupError:
            return self.body.decode("utf-8", "replace")


class Fetcher(Protocol):
    def fetch(self, url: str, form: dict[str, str] | None = None) -> Response:
        """GET ``url`` (POST the form when given), following redirects."""
        ...


def normalise(url: str) -> str | None:
    """An absolute https URL (http is upgraded, as the web's port 80 redirects), or None when ``url`` is not
    an http(s) URL with a host."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return parts._replace(scheme="https").geturl()


class TlsFetcher:
    """HTTPS to the web server at 127.0.0.1:``port`` for every name in ``hosts``, trusting only ``cafile``.

    A plain http:// URL goes over TLS too (the web's port 80 only redirects there)."""

    def __init__(self, port: int, cafile: str | Path, hosts: tuple[str, ...]) -> None:
        self.port, self.hosts = port, frozenset(h.lower() for h in hosts)
        self.context = ssl.create_default_context(cafile=str(cafile))

    def fetch(self, url: str, form: dict[str, str] | None = None) -> Response:
        current = normalise(url)
        if current is None:
            return Response(url, error="ERR_UNKNOWN_URL_SCHEME")
        body = urlencode(form).encode() if form is not None else None
        for _ in range(MAX_REDIRECTS):
            res, location = self._once(current, body)
            if location is None:
                return res
            current, body = urljoin(current, location), None
        return Response(current, error="ERR_TOO_MANY_REDIRECTS")

    def _once(self, url: str, body: bytes | None) -> tuple[Response, str | None]:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        if host not in self.hosts:
            return Response(url, error="ERR_NAME_NOT_RESOLVED"), None
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        conn = _Loopback(host, self.port, timeout=TIMEOUT_S, context=self.context)
        try:
            headers = {"Host": host, "User-Agent": USER_AGENT, "Accept": "text/html,*/*"}
            if body is not None:
                headers["Content-Type"] = "application/x-www-form-urlencoded"
            conn.request("POST" if body is not None else "GET", path, body=body, headers=headers)
            r = conn.getresponse()
            data = r.read(MAX_BODY)
            if r.status in (301, 302, 303, 307, 308) and r.getheader("Location"):
                return Response(url, r.status), r.getheader("Location")
            return Response(url, r.status, r.getheader("Content-Type", ""), data), None
        except ssl.SSLCertVerificationError:
            return Response(url, error="ERR_CERT_AUTHORITY_INVALID"), None
        except (OSError, http.client.HTTPException) as e:
            name = (
                "ERR_CONNECTION_REFUSED" if isinstance(e, ConnectionRefusedError) else "ERR_CONNECTION_FAILED"
            )
            return Response(url, error="ERR_TIMED_OUT" if isinstance(e, socket.timeout) else name), None
        finally:
            conn.close()


class _Loopback(http.client.HTTPSConnection):
    """An HTTPS connection to a site's name whose socket goes to the web server on 127.0.0.1 (the name
    resolves there); TLS sends and checks the site's name."""

    def connect(self) -> None:
        raw = socket.create_connection(("127.0.0.1", self.port), self.timeout)
        self.sock = self._context.wrap_socket(raw, server_hostname=self.host)  # type: ignore[attr-defined]  # HTTPSConnection keeps its context there


class Offline:
    """No web attached: every fetch fails as a phone without a network does."""

    def fetch(self, url: str, form: dict[str, str] | None = None) -> Response:
        return Response(url, error="ERR_INTERNET_DISCONNECTED")


USER_AGENT = (
    "Mozilla/5.0 (Linux; Android 14; CrabPhone) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/124.0.0.0 Mobile Safari/537.36"
)
