"""The simulated table's pixels: pieces, markers, disc, LEDs, cards and hands where expected."""
from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

import engine
from hardware.simtable import CameraPose, Hand, SceneEffects, SimTable, piece_fields
from hardware.simtable.look import load_look

H, K = engine.HOME, engine.KENNEL
POSES = [CameraPose(), CameraPose(tilt_deg=0.0, yaw_deg=0.0), CameraPose(tilt_deg=15.0, yaw_deg=-12.0, height_mm=950)]


def classic() -> engine.Position:
    return engine.parse_position({
        "variant": "classic",
        "pieces": [["T0", "T5", "H1", "K"], ["T16", "T30", "K", "K"], ["T40", "T45", "K", "K"],
                   ["T60", "T50", "H0", "H3"]],
    })


def black(disc: int = 0, dog: int | None = 24) -> engine.Position:
    return engine.Position(engine.get_variant("classic"), engine.load_board("black", 4),
                           ((0, 7, H + 1, K), (16, 30, K, K), (40, K, K, K), (60, 50, H, H + 3)), None, dog, disc)


def sample(frame: np.ndarray, xy: tuple[float, float], r: int = 1) -> np.ndarray:
    x, y = int(round(xy[0])), int(round(xy[1]))
    return frame[y - r : y + r + 1, x - r : x + r + 1].reshape(-1, 3).mean(axis=0)


def close_to(bgr: np.ndarray, ref: tuple[int, int, int], tol: float = 60.0) -> bool:
    return float(np.linalg.norm(bgr - np.array(ref, float))) < tol


@pytest.mark.parametrize("pose", POSES)
def test_each_piece_is_drawn_in_its_seat_colour_where_pixel_of_says(pose: CameraPose) -> None:
    pos = classic()
    table = SimTable(segments=4, seed=0, pose=pose, effects=SceneEffects.clean())
    frame = table.render(pos)
    assert frame.shape == (720, 1280, 3) and frame.dtype == np.uint8
    look = load_look()
    for field, owner in pos.field_occupancy().items():
        seat = int(owner[1:])
        want = look.seat_bgr(pos.board.colours[seat])
        got = sample(frame, table.pixel_of(field))
        assert close_to(got, want, 70), (field, got, want)
    # Empty track fields show the light hole colour, not a piece colour.
    hole = look.board["hole_inner"]
    for field in ("T3", "T20", "T33", "T55"):
        assert close_to(sample(frame, table.pixel_of(field)), hole, 45), field


def test_seats_are_where_the_geometry_says_seat_0_at_the_bottom() -> None:
    table = SimTable(pose=CameraPose(tilt_deg=0.0))
    x0, y0 = table.pixel_of("T0")
    x1, y1 = table.pixel_of("T16")
    assert abs(x0 - 639.5) < 1 and y0 > 500  # bottom centre
    assert x1 < 500 and abs(y1 - 359.5) < 1  # seat 1 on the left: clockwise order


def test_renders_are_deterministic_per_seed_and_frame() -> None:
    pos = classic()
    fx = dataclasses.replace(SceneEffects.harsh())
    a = SimTable(seed=3, effects=fx).render(pos, card="7", hand=Hand(target="T5"), frame_index=4)
    b = SimTable(seed=3, effects=fx).render(pos, card="7", hand=Hand(target="T5"), frame_index=4)
    c = SimTable(seed=3, effects=fx).render(pos, card="7", hand=Hand(target="T5"), frame_index=5)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_jittered_pose_moves_pieces_and_pixel_of_follows_the_frame() -> None:
    pos = classic()
    fx = dataclasses.replace(SceneEffects.clean(), camera_jitter_deg=0.4, camera_jitter_mm=4.0)
    table = SimTable(effects=fx)
    look = load_look()
    red = look.seat_bgr("red")
    for i in range(3):
        frame = table.render(pos, frame_index=i)
        assert close_to(sample(frame, table.pixel_of("T0", frame_index=i)), red, 70)
    assert table.pixel_of("T0", 1) != table.pixel_of("T0", 2)


def test_aruco_markers_are_found_at_their_geometry_positions() -> None:
    table = SimTable(effects=SceneEffects(), pose=CameraPose(tilt_deg=12, yaw_deg=5))
    frame = table.render(classic())
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    corners, ids, _ = detector.detectMarkers(frame)
    assert ids is not None and sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    for c, mid in zip(corners, ids.ravel()):
        want = table.pixel_of_mm(table.geometry.markers[int(mid)][0])
        assert np.hypot(*(c[0].mean(axis=0) - want)) < 2.0


def test_black_dog_is_dark_with_a_white_ring() -> None:
    table = SimTable(effects=SceneEffects.clean(), pose=CameraPose(tilt_deg=0, height_mm=500))
    pos = black(dog=20)  # T20 is off the disc
    frame = table.render(pos)
    centre = table.geometry.centre("T20")
    assert sample(frame, table.pixel_of("T20")).mean() > 150  # the white centre dot
    ring = table.pixel_of_mm((centre[0] + 0.72 * 8.2, centre[1]))
    between = table.pixel_of_mm((centre[0] + 0.45 * 8.2, centre[1]))
    assert sample(frame, ring, 0).mean() > 150
    assert sample(frame, between, 0).mean() < 70
    assert ("T20", -1, 0) in piece_fields(pos)


def test_disc_art_turns_with_the_disc_but_fields_stay() -> None:
    table = SimTable(effects=SceneEffects.clean(), pose=CameraPose(tilt_deg=0, height_mm=500))
    look = load_look()
    orange = look.disc["index"]
    tip = table.geometry.centre_radius * 0.75 + 8  # inside the index arrow
    where = [(0, tip), (-tip, 0), (0, -tip), (tip, 0)]  # seat 0, 1, 2, 3 directions
    for disc in range(4):
        frame = table.render(black(disc=disc, dog=None))
        hits = [close_to(sample(frame, table.pixel_of_mm(p), 0), orange, 60) for p in where]
        assert hits == [q == disc for q in range(4)], (disc, hits)
        # The red piece on disc field T7 stays on T7 whatever the turn.
        assert close_to(sample(frame, table.pixel_of("T7")), look.seat_bgr("red"), 70)


def test_royal_pieces_carry_distinct_rank_marks() -> None:
    royal = dataclasses.replace(engine.get_variant("classic"), name="royal")
    pos = engine.Position(royal, engine.load_board("royal", 4), ((6, 7, 9, 10), None, (38, 39, 41, 42), None))
    table = SimTable(effects=SceneEffects.clean(), pose=CameraPose(tilt_deg=0, height_mm=400), px_per_mm=4)
    frame = table.render(pos)
    patches = []
    for f in ("T6", "T7", "T9", "T10"):
        x, y = (int(round(v)) for v in table.pixel_of(f))
        patches.append(frame[y - 5 : y + 6, x - 5 : x + 6].astype(int))
    for i in range(4):
        for j in range(i + 1, 4):
            assert np.abs(patches[i] - patches[j]).mean() > 8, (i, j)


def test_led_glow_rings_the_field_in_its_colour() -> None:
    table = SimTable(effects=SceneEffects.clean(), pose=CameraPose(tilt_deg=0, height_mm=600))
    pos = classic()
    plain = table.render(pos)
    lit = table.render(pos, lit={"T3": (0, 255, 0), "T5": (255, 0, 0)})
    x, y = table.geometry.centre("T3")
    ring = table.pixel_of_mm((x + table.geometry.field_radius + 1.2, y))
    diff = sample(lit, ring).astype(float) - sample(plain, ring)
    assert diff[1] > 60 and diff[1] > 3 * max(diff[0], diff[2], 1)
    x, y = table.geometry.centre("T5")
    ring = table.pixel_of_mm((x, y - table.geometry.field_radius - 1.2))
    diff = sample(lit, ring).astype(float) - sample(plain, ring)
    assert diff[2] > 60
    # The centre of the occupied field keeps the piece's colour.
    assert close_to(sample(lit, table.pixel_of("T5")), load_look().seat_bgr("red"), 80)


def test_every_card_has_its_own_face_on_the_discard_zone() -> None:
    table = SimTable(effects=SceneEffects.clean(), pose=CameraPose(tilt_deg=0, height_mm=500))
    pos = classic()
    centre = table.pixel_of_mm(table.geometry.discard_centre)
    x, y = (int(round(v)) for v in centre)
    crops = {}
    for card in engine.ALL_CARDS:
        frame = table.render(pos, card=card)
        crops[card] = frame[y - 60 : y + 60, x - 40 : x + 40].astype(int)
    cards = list(crops)
    for i, a in enumerate(cards):
        for b in cards[i + 1 :]:
            assert np.abs(crops[a] - crops[b]).mean() > 4, (a, b)
    frame = table.render(pos, card="swap")
    swap = load_look().cards["swap"].colour
    assert close_to(sample(frame, (x - 25, y - 55), 1), swap, 60)


def test_hand_covers_its_target_field_and_comes_in_from_its_edge() -> None:
    table = SimTable(effects=SceneEffects.clean())
    pos = classic()
    skin = load_look().skin_tones[0]
    frame = table.render(pos, hand=Hand(edge="right", target="T40"))
    assert close_to(sample(frame, table.pixel_of("T40"), 1), skin, 40)
    tip, d = Hand(edge="right", target="T40").tip_and_direction(table.geometry)
    entry = np.array([table.geometry.size[0] / 2, 0.0])
    arm = table.pixel_of_mm(tuple(entry + (entry - tip) * 0.3))
    assert arm[0] > 1000 and close_to(sample(frame, arm, 1), skin, 60)
    # Reaching out again: the field is visible.
    frame = table.render(pos, hand=Hand(edge="right", reach=0.05))
    assert close_to(sample(frame, table.pixel_of("T40")), load_look().seat_bgr("green"), 70)


def test_bad_inputs_are_named() -> None:
    table = SimTable()
    with pytest.raises(ValueError, match="card"):
        table.render(classic(), card="nope")
    with pytest.raises(ValueError, match="segment"):
        SimTable(segments=6).render(classic())
    with pytest.raises(ValueError, match="edge"):
        Hand(edge="middle")
    with pytest.raises(engine.DataError, match="T99"):
        table.pixel_of("T99")
