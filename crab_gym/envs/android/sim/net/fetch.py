"""How the phone's apps reach the offline web: one small interface (`Fetcher.fetch(url) -> Response`) and its
real implementation, HTTPS to the web's server on loopback, checked against the session's CA (`TlsFetcher`,
in net/tls.py: http.client and ssl are imported when the phone first goes online).

Every stand-in host (``crab_gym.web.app.HOSTS``) resolves to the server, as each desktop session's
/etc/hosts makes them; any other name does not resolve, as in a world without the internet. Errors come back
as a Response whose ``error`` is Chrome's net error name (``ERR_NAME_NOT_RESOLVED``,
``ERR_CERT_AUTHORITY_INVALID``), never as an exception.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from .tls import TlsFetcher

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


class Offline:
    """No web attached: every fetch fails as a phone without a network does."""

    def fetch(self, url: str, form: dict[str, str] | None = None) -> Response:
        return Response(url, error="ERR_INTERNET_DISCONNECTED")


USER_AGENT = (
    "Mozilla/5.0 (Linux; Android 14; CrabPhone) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/124.0.0.0 Mobile Safari/537.36"
)


def __getattr__(name: str) -> Any:
    """``TlsFetcher``, from net/tls.py when first asked for."""
    if name == "TlsFetcher":
        from .tls import TlsFetcher

        return TlsFetcher
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "MAX_BODY",
    "MAX_REDIRECTS",
    "TIMEOUT_S",
    "USER_AGENT",
    "Fetcher",
    "Offline",
    "Response",
    "TlsFetcher",
]
