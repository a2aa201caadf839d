from __future__ import annotations

import dataclasses

import pytest

import engine
from hardware.simtable import CameraPose, Hand, SceneEffects, SimTable
from vision.calibration import calibrate, load_calibration
from vision.reader import BoardReader, impossible_classes

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


@pytest.mark.parametrize("skin", [0, 1, 2, 3])
def test_every_skin_tone_is_a_cover_in_harsh_light(h, harsh_table, harsh_cal, skin: int) -> None:
    # skin 2 is nearly the board's own colour: only its hue (a few noise widths per point in
    # harsh light) and its shadow give it away.
    reader = BoardReader(harsh_cal)
    pos = h.some_position()
    hands = (Hand(edge="left", reach=0.12, skin=skin), Hand(edge="right", target="T40", skin=skin, height_mm=30),
             Hand(edge="bottom", reach=0.35, angle=20, skin=skin), Hand(edge="top", target="S2K0", skin=skin))
    for k, hand in enumerate(hands):
        reading = reader.read(harsh_table.render(pos, hand=hand, frame_index=60 + k))
        assert reading.covered, hand


def test_harsh_frames_without_hands_are_not_covers(h, harsh_table, harsh_cal) -> None:
    reader = BoardReader(harsh_cal)
    pos = h.some_position()
    lit = {"T3": (0, 255, 0), "T20": (255, 255, 255), "S1H0": (255, 0, 0)}
    for k in range(6):
        reading = reader.read(harsh_table.render(pos, lit=lit if k % 2 else None, card="7", frame_index=70 + k),
                              lit=lit if k % 2 else None)
        assert not reading.covered, reading.cover_message()
        assert wrong_fields(reader, reading, pos) == {}


def test_six_segments_white_pieces_are_told_from_empty_fields(h, tmp_path) -> None:
    table = SimTable(6, seed=5, pose=CameraPose(height_mm=1500.0))
    cal = h.calibrated(table)
    white = [s for s, c in enumerate(h.start_position(6).board.colours) if c == "white"]
    assert list(cal.pale_seats) == white
    cal.save(tmp_path / "cal6.json")
    reader = BoardReader(load_calibration(tmp_path / "cal6.json"))
    pos = engine.parse_position({"variant": "classic", "board": 6, "pieces": [
        ["T1", "K", "K", "K"], ["T20", "K", "K", "K"], ["T33", "H0", "K", "K"],
        ["T50", "K", "K", "K"], ["T66", "T67", "H2", "K"], ["T90", "K", "K", "K"]]})
    for k in range(2):
        reading = reader.read(table.render(pos, frame_index=10 + k))
        assert not reading.covered and reading.problem is None
        assert wrong_fields(reader, reading, pos) == {}


def test_royal_pieces_with_rank_marks(h) -> None:
    # A crown, bars or a ring on the head must not turn a piece into an empty field.
    table = SimTable(4, seed=6)
    royal = engine.get_variant("royal")
    start = dataclasses.replace(h.start_position(4, "royal"), variant=royal)
    reader = BoardReader(calibrate(table.render(h.empty_of(start), frame_index=0), 4, "royal",
                                   table.render(start, frame_index=1), start.field_occupancy()))
    pos = engine.parse_position({"variant": "royal", "pieces": [
        ["T0", "T5", "T9", "K"], ["T16", "T20", "K", "K"], ["T33", "H1", "T40", "T44"], ["T50", "T52", "T60", "K"]]})
    for k in range(2):
        reading = reader.read(table.render(pos, frame_index=10 + k))
        assert wrong_fields(reader, reading, pos) == {}


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


def test_a_seat_s_kennel_and_home_fields_can_hold_only_that_seat_s_pieces() -> None:
    labels = ["empty", "s0", "s1", "dog"]
    out = impossible_classes(("T3", "S0K1", "S1H2"), labels)
    assert out.tolist() == [[False, False, False, False], [False, False, True, True], [False, True, False, True]]
