"""WebWorld: every site's content for one seed, the object tasks draw attributes from and the oracle reads."""

from __future__ import annotations

from functools import cached_property

from .apidocs import PAGES, DocPage, doc_page
from .encyclopedia import Country, Encyclopedia
from .files import file_bytes
from .images import ImageResult, image_results
from .places import Maps, Place, Route
from .repos import Repo, Repos


class WebWorld:
    """The offline web's content for ``seed``: ``.maps`` (and ``.places``, ``.route(a, b)``), ``.countries``,
    ``.repos``, ``.images(keyword)``, ``.docs``, ``.file_bytes(url)``."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

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
