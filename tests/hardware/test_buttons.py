"""Buttons on gpiozero mock pins and over the bridge."""
from __future__ import annotations

from hardware.bridge import LoopbackLink
from hardware.buttons import BridgeButtons, ButtonDriver, GpioButtons

PINS = {"confirm": 5, "undo": 6, "hint": 16, "mode": 26}


def test_presses_and_releases_arrive_by_name(mock_factory) -> None:
    buttons = GpioButtons(PINS, bounce_ms=0, pin_factory=mock_factory)
    drive = ButtonDriver(mock_factory, PINS)
    got = []
    buttons.when_pressed = got.append
    drive.set("undo", True)
    assert buttons.is_pressed("undo") and buttons.devices["undo"].is_pressed
    drive.set("undo", False)
    drive.press("confirm")
    events = [(e.name, e.kind) for e in buttons.read()]
    assert events == [("undo", "press"), ("undo", "release"), ("confirm", "press"), ("confirm", "release")]
    assert [e.name for e in got] == ["undo", "confirm"]
    assert buttons.read() == []
    buttons.close()


def test_pull_down_wiring(mock_factory) -> None:
    buttons = GpioButtons({"mode": 26}, pull_up=False, bounce_ms=0, pin_factory=mock_factory)
    ButtonDriver(mock_factory, {"mode": 26}, pull_up=False).press("mode")
    assert [e.kind for e in buttons.read()] == ["press", "release"]
    buttons.close()


def test_bridge_buttons_by_index() -> None:
    link = LoopbackLink()
    buttons = BridgeButtons(link, {"confirm": 0, "undo": 1, "hint": 2, "mode": 3})
    link.press(2)
    link.press(2, False)
    link.press(9)  # not a configured button: ignored
    assert [(e.name, e.kind) for e in buttons.read()] == [("hint", "press"), ("hint", "release")]
