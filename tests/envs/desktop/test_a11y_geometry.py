"""Screen boxes from accessibility nodes: boxes are kept as reported, except a toolkit root that reports its
parent's size at another origin, which is placed on its parent together with its subtree."""

from __future__ import annotations

from crab_gym.envs.desktop.a11y_geometry import screen_boxes


def node(parent: int, box: list[int] | None) -> dict:
    return {"parent": parent, "box": box}


def test_boxes_are_kept_as_reported():
    nodes = [
        node(-1, None),  # application
        node(0, [0, 0, 1280, 800]),  # frame
        node(1, [0, 19, 200, 25]),  # menu bar
        node(2, [0, 19, 39, 25]),  # menu, open: its items lie outside it
        node(3, [0, 44, 300, 25]),
        node(1, [-1, -1, -1, -1]),  # unknown extents
    ]
    assert screen_boxes(nodes) == [
        None,
        (0, 0, 1280, 800),
        (0, 19, 200, 25),
        (0, 19, 39, 25),
        (0, 44, 300, 25),
        None,
    ]


def test_a_same_size_child_at_another_origin_is_placed_on_its_parent_with_its_subtree():
    # LibreOffice (gtk3): the VCL root pane says y=19 while the GTK panel hosting it starts below the
    # 25-pixel native menu bar, at y=44; every toolbar button under it is 25 pixels too high.
    nodes = [
        node(-1, None),
        node(0, [0, 0, 1280, 800]),  # frame
        node(1, [0, 44, 1280, 756]),  # GTK panel
        node(2, [0, 19, 1280, 756]),  # VCL root pane
        node(3, [0, 21, 1280, 35]),  # tool bar
        node(4, [4, 21, 44, 35]),  # "New"
        node(5, [-1, -1, -1, -1]),  # unknown stays unknown
        node(6, [10, 30, 5, 5]),  # under an unknown box: still shifted
        node(1, [0, 19, 1280, 25]),  # the native menu bar, outside the shifted subtree
    ]
    boxes = screen_boxes(nodes)
    assert boxes[3] == (0, 44, 1280, 756)
    assert boxes[4] == (0, 46, 1280, 35)
    assert boxes[5] == (4, 46, 44, 35)
    assert boxes[6] is None
    assert boxes[7] == (10, 55, 5, 5)
    assert boxes[8] == (0, 19, 1280, 25)


def test_a_child_as_large_as_its_parent_in_place_is_not_moved():
    nodes = [node(-1, None), node(0, [0, 44, 1280, 756]), node(1, [0, 44, 1280, 756]), node(2, [3, 50, 9, 9])]
    assert screen_boxes(nodes)[1:] == [(0, 44, 1280, 756), (0, 44, 1280, 756), (3, 50, 9, 9)]
