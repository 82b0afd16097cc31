"""The phone's real Fetcher: HTTPS to the offline web's server on loopback, checked against the session's CA
(the interface and Response are in net/fetch.py)."""

from __future__ import annotations

import http.client
import socket
import ssl
from pathlib import Path
from urllib.parse import urlencode, urljoin, urlsplit

from .fetch import MAX_BODY, MAX_REDIRECTS, TIMEOUT_S, USER_AGENT, Response, normalise

__all__ = ["TlsFetcher"]


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
