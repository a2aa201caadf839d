"""The camera's hints on the page: a board too dim to read says "more light on the board".

`TableDevices.process` passes vision's reason codes (`FrameReading.hints`) to the page as lines in
every language, held for a while after the last frame that gave one, so that a dim board's line
does not flicker; here with stand-ins for the camera's reader and the settle filter.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from companion.devices import HINT_HOLD_FRAMES, TableDevices
from companion.texts import both

own_colour = pytest.importorskip("vision.own_colour")
reader = pytest.importorskip("vision.reader")


def Reading(hints: tuple[str, ...] = ()):
    """A clean reading of a one-field board, with `hints`."""
    return reader.FrameReading(("T0",), ("empty",), np.zeros((1, 3), np.float32), 1.0, False, (), hints=hints)


class Page:
    """The service as the devices see it: what they last told the page."""

    def __init__(self) -> None:
        self.status: dict = {}
        self.state = SimpleNamespace()

    def subscribe(self, name, callback):
        return SimpleNamespace(close=lambda: None)

    def set_devices_status(self, **changes) -> None:
        self.status.update(changes)


def test_a_dim_board_asks_for_more_light_until_the_light_is_back() -> None:
    page = Page()
    td = TableDevices(page, SimpleNamespace(encoder=None, leds=None), settings=None)
    td.hint_keys = dict(own_colour.HINT_TEXT_KEYS)
    readings: list = []
    td.reader = SimpleNamespace(read=lambda frame, disc=None, lit=None: readings.pop(0))
    td.stack = SimpleNamespace(read=lambda frame, reading, disc=None, lit=None: reading, doubted=())
    td.calibration = SimpleNamespace(resolution=(8, 6))
    td.settle = SimpleNamespace(feed=lambda reading, t: SimpleNamespace(kind="waiting", message="", committed=False),
                                forget=lambda fields: None)
    td.referee = SimpleNamespace(tell=lambda settle: None)
    frame = np.zeros((6, 8, 3), np.uint8)

    def feed(reading) -> None:
        readings.append(reading)
        td.process(frame, 0.0)

    feed(Reading())
    assert not page.status.get("hints")
    feed(Reading(hints=(own_colour.MORE_LIGHT,)))
    assert page.status["hints"] == [both("vision_more_light")]
    assert page.status["hints"][0]["en"].startswith("more light on the board")
    for _ in range(HINT_HOLD_FRAMES):  # a few frames read without it: the line stays
        feed(Reading())
        assert page.status["hints"] == [both("vision_more_light")]
    feed(Reading())
    assert page.status["hints"] is None
