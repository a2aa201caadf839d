from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from hardware.simtable import Hand, SceneEffects, SimTable
from vision.reader import BoardReader

PERTURBATIONS = {
    "dim": SceneEffects(light_level=0.55),
    "bright": SceneEffects(light_level=1.3),
    "uneven": SceneEffects(light_gradient=0.5, vignette=0.35),
    "tint": SceneEffects(tint_rgb=(1.1, 1.0, 0.8)),
    "shadows": SceneEffects(shadow_strength=0.75),
    "noise": SceneEffects(noise_sigma=7.0),
    "blur": SceneEffects(blur_sigma=1.4),
    "wobble": SceneEffects(camera_jitter_deg=0.25, camera_jitter_mm=3.0, piece_jitter_mm=2.0),
    "harsh": SceneEffects.harsh(),
}


def wrong_fields(reader: BoardReader, reading, pos) -> dict[str, tuple[str, str]]:
    truth = pos.field_occupancy()
    return {f: (lab, truth.get(f, "empty")) for f, lab in zip(reader.cal.field_ids, reading.labels)
            if lab != truth.get(f, "empty")}


def test_reads_every_field(h, table, cal) -> None:
    reader = BoardReader(cal)
    pos = h.some_position()
    reading = reader.read(table.render(pos, frame_index=5))
    assert not reading.covered and reading.problem is None
    assert reading.occupancy() == pos.field_occupancy()


@pytest.mark.parametrize("name", list(PERTURBATIONS))
def test_colours_hold_under_each_perturbation(h, name: str) -> None:
    # Calibration happens under the same conditions (one setup), reading on later frames.
    table = SimTable(4, seed=7, effects=PERTURBATIONS[name])
    reader = BoardReader(h.calibrated(table))
    pos = h.some_position()
    for k in range(2):
        reading = reader.read(table.render(pos, frame_index=20 + k))
        assert reading.problem is None
        assert wrong_fields(reader, reading, pos) == {}


def test_led_glow_does_not_change_readings(h, table, cal) -> None:
    reader = BoardReader(cal)
    pos = h.some_position()
    lit = {"T0": (0, 255, 0), "T5": (255, 0, 0), "T16": (255, 255, 255), "S0H2": (0, 0, 255)}
    reading = reader.read(table.render(pos, lit=lit, frame_index=6), lit=lit)
    assert not reading.covered
    assert reading.occupancy() == pos.field_occupancy()


def test_hand_is_reported_as_cover(h, table, cal) -> None:
    reader = BoardReader(cal)
    for hand in (Hand(target="T40", skin=0), Hand(edge="left", reach=0.3, skin=2), Hand(edge="top", target="S2K0", skin=3)):
        reading = reader.read(table.render(h.some_position(), hand=hand, frame_index=9))
        assert reading.covered, hand


def test_disc_orientation_cross_check(h) -> None:
    table = SimTable(4, seed=2)
    reader = BoardReader(h.calibrated(table, "black"))
    for q in range(4):
        pos = h.some_position("black", disc=q)
        reading = reader.read(table.render(pos, frame_index=30 + q), disc=q)
        assert reading.disc_seen == q
        assert reading.problem is None
        assert reading.occupancy() == pos.field_occupancy()
    wrong = reader.read(table.render(h.some_position("black", disc=1), frame_index=40), disc=3)
    assert wrong.problem is not None and "encoder says 3" in wrong.problem


def test_hidden_marker_and_moved_camera(h, table, cal) -> None:
    from hardware.simtable import CameraPose

    reader = BoardReader(cal)
    frame = table.render(h.some_position(), frame_index=11).copy()
    x, y = (int(v) for v in reader.cal.marker_centres_px()[2])
    frame[y - 30 : y + 30, x - 30 : x + 30] = (90, 120, 160)
    reading = reader.read(frame)
    assert reading.problem is not None and "marker 2 (bottom-right) is hidden" in reading.problem, reading.problem
    # The camera is bumped by a few centimetres: the reader re-aligns from the markers.
    moved = SimTable(4, seed=3, pose=CameraPose(target_mm=(25.0, -15.0)))
    pos = h.some_position()
    reading = reader.read(moved.render(pos, frame_index=12))
    assert reading.problem is None
    assert reading.occupancy() == pos.field_occupancy()
