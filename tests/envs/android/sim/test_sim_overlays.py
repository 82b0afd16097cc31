"""System windows over the app (system/overlays.py): a dialog is modal and cancelled by BACK, a heads-up
notification is swiped or tapped away and lands in the shade, and a saved state keeps both."""

from __future__ import annotations

import pytest

from crab_gym.envs.android.sim import Phone
from crab_gym.envs.android.sim.system import overlays
from crab_gym.envs.android.sim.system.notifications import posted

MESSAGES = "com.google.android.apps.messaging"


def centre(v) -> tuple[float, float]:
    x1, y1, x2, y2 = v.bounds
    return (x1 + x2) / 2, (y1 + y2) / 2


@pytest.fixture
def phone():
    p = Phone()
    p.launch(MESSAGES)
    yield p
    p.close()


def test_a_dialog_is_modal_and_back_cancels_it(phone):
    dialog = overlays.Overlay("permission", "Allow Messages to send texts?", "", ("Don't allow", "Allow"))
    overlays.show(phone, dialog)
    xml = phone.ui_xml()
    assert "com.google.android.permissioncontroller" in xml and "Allow Messages to send texts?" in xml
    screen = phone.ui_tree()
    fab = [v for v in screen.walk() if v.package == MESSAGES and v.clickable][-1]  # an app button under it
    phone.tap(*centre(fab))
    assert phone.current.screen == "main" and overlays.shown(phone) == [dialog]  # the app got no touch
    phone.keyevent("BACK")
    assert overlays.shown(phone) == [] and phone.current.package == MESSAGES  # BACK went to the dialog only


def test_a_dialog_button_closes_it(phone):
    overlays.show(phone, overlays.Overlay("update", "System update available", "", ("Later", "Install now")))
    later = next(v for v in phone.ui_tree().walk() if v.text == "Later")
    phone.tap(*centre(later))
    assert overlays.shown(phone) == []


def test_a_heads_up_is_swiped_away_and_stays_in_the_shade(phone):
    overlays.show(phone, overlays.Overlay("notification", "Mia", "Running late"))
    heads = next(v for v in phone.ui_tree().walk() if v.rid.endswith(":id/heads_up"))
    assert "Running late" in heads.text and [n.text for n in posted(phone)] == ["Running late"]
    x, y = centre(heads)
    phone.swipe(x, y, x, y - 300)
    assert overlays.shown(phone) == [] and posted(phone)


def test_a_saved_state_keeps_the_windows_and_a_reset_clears_them(phone):
    overlays.show(phone, overlays.Overlay("popup", "Enjoying this app?", "", ("Not now",)))
    saved = phone.save_state()
    phone.keyevent("BACK")
    phone.load_state(saved)
    assert [o.title for o in overlays.shown(phone)] == ["Enjoying this app?"]
    phone.reset()
    assert overlays.shown(phone) == []


def test_an_unknown_kind_is_refused(phone):
    with pytest.raises(ValueError, match="unknown overlay kind"):
        overlays.show(phone, overlays.Overlay("meteor", "x"))
