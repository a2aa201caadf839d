"""Disc encoder: real gpiozero RotaryEncoder on mock pins, quarter turns with bounce and missed steps."""
from __future__ import annotations

import pytest

from hardware.bridge import LoopbackLink
from hardware.encoder import (BridgeDiscEncoder, GpioDiscEncoder, QuadratureDriver, QuarterTurnTracker,
                              steps_per_quarter_from)


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def rig(mock_factory):
    clock = Clock()
    enc = GpioDiscEncoder(17, 27, steps_per_quarter=6, settle_s=0.25, pin_factory=mock_factory, clock=clock)
    drive = QuadratureDriver(mock_factory, 17, 27)
    yield enc, drive, clock
    enc.close()


def test_quadrature_edges_count_steps_both_ways(rig) -> None:
    enc, drive, _ = rig
    drive.turn(3)
    assert enc.steps == 3 and enc.device.steps == 3
    drive.turn(-5)
    assert enc.steps == -2


def test_a_quarter_of_steps_is_one_quarter_turn_with_direction(rig) -> None:
    enc, drive, clock = rig
    drive.turn(6)
    turns = enc.read()
    assert [t.direction for t in turns] == [1] and turns[0].clockwise
    drive.turn(-12)
    assert [t.direction for t in enc.read()] == [-1, -1]


def test_missed_steps_snap_to_the_nearest_quarter_when_the_disc_rests(rig) -> None:
    enc, drive, clock = rig
    drive.turn(4)  # two of six steps lost while turning fast
    assert enc.read() == []
    clock.t += 0.3
    assert [t.direction for t in enc.read()] == [1]
    # And the count starts afresh: the next full quarter is one event, not two.
    drive.turn(6)
    clock.t += 0.3
    assert [t.direction for t in enc.read()] == [1]


def test_bounce_and_small_nudges_do_not_turn_the_disc(rig) -> None:
    enc, drive, clock = rig
    drive.bounce(5)
    drive.turn(2)
    drive.turn(-1)
    clock.t += 1.0
    assert enc.read() == []
    assert enc.tracker.residual == 0


def test_bounce_at_the_detent_does_not_double_count(rig) -> None:
    enc, drive, clock = rig
    drive.turn(6)
    drive.turn(-1)
    drive.turn(1)
    drive.bounce(3)
    clock.t += 1.0
    assert [t.direction for t in enc.read()] == [1]


def test_reverse_and_callback(mock_factory) -> None:
    clock = Clock()
    enc = GpioDiscEncoder(5, 6, steps_per_quarter=4, reverse=True, pin_factory=mock_factory, clock=clock)
    seen = []
    enc.when_quarter_turn = seen.append
    QuadratureDriver(mock_factory, 5, 6).turn(4)
    assert [t.direction for t in seen] == [-1]
    enc.close()


def test_tracker_is_pure_and_calibration_rounds() -> None:
    t = QuarterTurnTracker(24, settle_s=0.1)
    assert t.step(13, 0.0) == []
    assert [q.direction for q in t.poll(0.2)] == [1]
    assert t.step(-10, 1.0) == [] and t.poll(1.05) == [] and t.poll(1.2) == []  # 10 of 24: not a quarter
    assert steps_per_quarter_from(95, 4) == 24
    assert steps_per_quarter_from(-48, -2) == 24
    with pytest.raises(ValueError):
        steps_per_quarter_from(10, 0)


def test_bridge_encoder_takes_deltas_from_the_link() -> None:
    clock = Clock()
    link = LoopbackLink(clock)
    enc = BridgeDiscEncoder(link, steps_per_quarter=6, clock=clock)
    link.spin(3)
    link.spin(3)
    link.spin(-7)
    assert [t.direction for t in enc.read()] == [1, -1]
