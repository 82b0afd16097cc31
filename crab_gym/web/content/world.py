"""WebWorld: every site's content for one seed, the object tasks draw attributes from and the oracle reads."""

from __future__ import annotations

import re
from functools import cached_property
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from .apidocs import PAGES, DocPage, doc_page
from .encyclopedia import Country, Encyclopedia
from .files import DOWNLOAD_HOSTS, file_bytes
from .images import IMAGE_HOST, ImageResult, image_png, image_results
from .places import Maps, Place, Route
from .repos import Repo, Repos

if TYPE_CHECKING:
    from .planted import Planted


class WebWorld:
    """The offline web's content for ``seed``: ``.maps`` (and ``.places``, ``.route(a, b)``), ``.countries``,
    ``.repos``, ``.images(keyword)``, ``.docs``, ``.file_bytes(url)``."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.planted: Planted | None = None  # an instruction planted in every page (web/content/planted.py)

    @cached_property
    def maps(self) -> Maps:
        return Maps(self.seed)

    @property
    def places(self) -> tuple[Place, ...]:
        return self.maps.places

    def route(self, origin: str, destination: str) -> Route | None:
        return self.maps.route(origin, destination)

    @cached_property
    def encyclopedia(self) -> Encyclopedia:
        return Encyclopedia(self.seed)

    @property
    def countries(self) -> tuple[Country, ...]:
        return self.encyclopedia.countries

    def country(self, name: str) -> Country | None:
        return self.encyclopedia.country(name)

    @cached_property
    def code(self) -> Repos:
        return Repos(self.seed)

    @property
    def repos(self) -> tuple[Repo, ...]:
        return self.code.repos

    def images(self, keyword: str) -> list[ImageResult]:
        return image_results(keyword)

    @property
    def docs(self) -> tuple[DocPage, ...]:
        return PAGES

    def doc(self, name: str) -> DocPage | None:
        return doc_page(name)

    def file_bytes(self, url: str) -> bytes:
        """What downloading ``url`` from a download host gives (the URL alone decides it)."""
        return file_bytes(url)

    def download(self, url: str) -> bytes | None:
        """What fetching ``url`` gives when it names a file (a picture on the image host, any path of a
        download host); None for a page or a host the web does not serve."""
        parts = urlsplit(url.strip())
        if parts.scheme not in ("http", "https"):
            return None
        if parts.hostname == IMAGE_HOST:
            found = re.fullmatch(r"/images/([^/]+)\.png", parts.path)
            return image_png(self.seed, unquote(parts.path)) if found else None
        return file_bytes(url) if parts.hostname in DOWNLOAD_HOSTS else None
