"""The search engine's image results: PNG pictures drawn with Pillow from the keyword and the seed."""

from __future__ import annotations

import io
import random
import re
from dataclasses import dataclass
from functools import lru_cache

from .places import norm

IMAGE_HOST = "encrypted-tbn0.gstatic.com"
PER_QUERY = 6
SIZE = (320, 220)


@dataclass(frozen=True)
class ImageResult:
    keyword: str
    index: int
    title: str

    @property
    def path(self) -> str:
        return (
            f"/images/{re.sub(r'[^0-9a-z]+', '-', norm(self.keyword)).strip('-') or 'image'}-{self.index}.png"
        )

    @property
    def url(self) -> str:
        """Where the picture itself lives (the image host serves it)."""
        return f"https://{IMAGE_HOST}{self.path}"


def image_results(keyword: str) -> list[ImageResult]:
    """The image results for ``keyword``: every keyword has some, named after it."""
    styles = ("photo", "drawing", "poster", "map", "close-up", "panorama")
    return [ImageResult(keyword, i, f"{keyword} {styles[i % len(styles)]}") for i in range(PER_QUERY)]


@lru_cache(maxsize=256)
def image_png(seed: int, path: str) -> bytes:
    """The PNG bytes at ``path`` on the image host: shapes and colours drawn from (seed, path), the
    keyword written on it. The same bytes every time."""
    from PIL import Image, ImageDraw  # here: importing the web's content draws nothing

    rng = random.Random(f"{seed}:image:{path}")
    img = Image.new("RGB", SIZE, tuple(rng.randrange(40, 220) for _ in range(3)))
    draw = ImageDraw.Draw(img)
    for _ in range(rng.randint(3, 7)):
        x0, y0 = rng.randrange(SIZE[0]), rng.randrange(SIZE[1])
        box = (x0, y0, x0 + rng.randint(20, 140), y0 + rng.randint(20, 120))
        fill = tuple(rng.randrange(256) for _ in range(3))
        (draw.ellipse if rng.random() < 0.5 else draw.rectangle)(box, fill=fill)
    label = path.rsplit("/", 1)[-1].removesuffix(".png").rsplit("-", 1)[0].replace("-", " ")
    draw.rectangle((0, SIZE[1] - 28, SIZE[0], SIZE[1]), fill=(0, 0, 0))
    draw.text((8, SIZE[1] - 22), label[:40], fill=(255, 255, 255))
    out = io.BytesIO()
    img.save(out, "PNG")
    return out.getvalue()
