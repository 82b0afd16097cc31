"""Pictures found in a PDF by their pixels, their boxes compared: a PDF of two pages written by Pillow."""

from __future__ import annotations

import io

from PIL import Image

from crab_gym.envs.desktop.pdf_layout import lies, pictures_placed, placed_images, same_picture
from crab_gym.tasks.templates.desktop.crab_extra import seeded_picture


def picture(name: str) -> Image.Image:
    return Image.open(io.BytesIO(seeded_picture(name)))


def test_pages_stack_top_down_and_pictures_match_by_pixels() -> None:
    fox, owl, cat = picture("fox.png"), picture("owl.jpg"), picture("cat.png")
    out = io.BytesIO()
    fox.convert("RGB").save(out, "PDF", save_all=True, append_images=[owl.convert("RGB")], resolution=72)
    placed = placed_images(out.getvalue())
    assert [p.box for p in placed] == [(0, 0, 320, 240), (0, 240, 320, 480)]  # page 2 below page 1
    assert same_picture(placed[0].image, fox) and not same_picture(placed[0].image, owl)
    assert pictures_placed(placed, fox, owl, "above") and pictures_placed(placed, owl, fox, "below")
    assert not pictures_placed(placed, fox, owl, "below") and not pictures_placed(placed, fox, owl, "left")
    assert not pictures_placed(placed, cat, owl, "above")  # a picture the PDF does not hold


def test_boxes_must_not_overlap_beyond_a_shared_edge() -> None:
    left, right = (0, 0, 100, 50), (101, 0, 200, 50)
    assert lies(right, left, "right") and lies(left, right, "left")
    assert not lies((90, 0, 190, 50), left, "right")  # overlapping by 10 points
    assert placed_images(b"%PDF-1.4 not really") == []
