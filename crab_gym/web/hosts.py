"""Every host name the offline web answers, without its sites' code: the certificate names them all and each
desktop session resolves them to its server (its hosts file is written from here, in the env process, which
need not import starlette for it). ``crab_gym.web.app.site_routes`` answers exactly these (a test checks)."""

from __future__ import annotations

from .content.files import DOWNLOAD_HOSTS
from .content.images import IMAGE_HOST
from .content.places import SHARE_HOST

SITE_HOSTS: tuple[str, ...] = (
    "www.google.com",
    "google.com",
    "maps.google.com",
    SHARE_HOST,
    IMAGE_HOST,
    "github.com",
    "www.github.com",
    "en.wikipedia.org",
    "www.wikipedia.org",
    "pytorch.org",
    "www.pytorch.org",
)
HOSTS: tuple[str, ...] = (*SITE_HOSTS, *DOWNLOAD_HOSTS)
