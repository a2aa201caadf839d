"""Cover detection (vision/cover.py): a hand is a clump of points the smooth light cannot explain.

On photo-like JPEG frames (scripts/photo_scene.py, written apart from our renderer): a lamp's
glare near a marker at JPEG quality 60 reads no cover, a hand does, and the marker in the
glare is found. On the grid directly:
glare (near white, brighter) is not a hand, a dark patch at the same place is; scattered
JPEG-like outliers are not a hand, one connected patch of them is.
"""
from __future__ import annotations

import dataclasses
import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

from vision.calibration import calibrate
from vision.cover import CoverDetector
from vision.light import SATURATED_LOG
from vision.markers import detect_markers
from vision.reader import BoardReader
from vision.tuning import COVER_MIN_POINTS

_SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


@pytest.fixture(scope="module")
def photo():
    """scripts/photo_scene.py (a script, not a package: imported from its folder)."""
    sys.path.insert(0, str(_SCRIPTS))
    try:
        return importlib.import_module("photo_scene")
    finally:
        sys.path.remove(str(_SCRIPTS))


@pytest.fixture(scope="module")
def glare_scene(photo):
    """The glare-marker setup at JPEG quality 60: glare and JPEG blocks together, no hand."""
    setup = dataclasses.replace(photo.setup_named("glare-marker"), name="test-glare", jpeg=60)
    scene = photo.PhotoScene(setup, seed=5)
    start = photo.start_position(setup)
    empties = [scene.render(photo.empty_of(start), frame_index=i) for i in range(3)]
    starts = [scene.render(start, frame_index=10 + i) for i in range(3)]
    cal = calibrate(empties, setup.segments, setup.board, starts, start.field_occupancy())
    return scene, BoardReader(cal), start


def test_a_marker_in_lamp_glare_at_jpeg_60_is_found(photo, glare_scene) -> None:
    """The fixture calibrated from these pictures: the lamp's glare washes out marker 1, which the
    highlight passes (vision/markers.py `_highlights`) find all the same."""
    scene, reader, start = glare_scene
    for i in range(4):
        found = detect_markers(scene.render(photo.empty_of(start), frame_index=400 + i))
        assert sorted(found) == [0, 1, 2, 3]


def test_lamp_glare_at_jpeg_60_is_no_hand_and_a_hand_is(photo, glare_scene) -> None:
    scene, reader, start = glare_scene
    positions = [start, photo.empty_of(start)]
    for i in range(6):
        r = reader.read(scene.render(positions[i % 2], frame_index=200 + i))
        assert not r.covered, f"frame {i}: a cover read near {r.covered_fields}"
    for skin, target in enumerate(("T3", "T20", "T37", "T52")):
        hand = photo.PhotoHand(target=target, edge="bottom", height_mm=60.0, skin=skin)
        r = reader.read(scene.render(start, frame_index=300 + skin, hand=hand))
        assert r.covered, f"hand of skin {skin} over {target} not seen"


def _grid_case(cal, centre_mm: tuple[float, float], radius_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """(patch mask, expected log colour) for a round patch of the grid, expected near white there."""
    d = np.linalg.norm(cal.grid_mm - np.array(centre_mm), axis=1)
    patch = d < radius_mm
    expected = np.full((len(cal.grid_mm), 3), np.log(150.0), np.float32)
    expected[patch] = SATURATED_LOG + 0.05  # a glare spot: the model expects near white there
    return patch, expected


def test_glare_is_judged_only_by_being_darker(cal) -> None:
    det = CoverDetector(cal)
    rng = np.random.default_rng(3)
    feats = cal.empty_features
    patch, expected = _grid_case(cal, (250.0, -260.0), 45.0)
    assert patch.sum() > COVER_MIN_POINTS
    noise = rng.normal(0, 0.01, (len(cal.grid_mm), 3)).astype(np.float32)
    # brighter and bluish in the glare (a clipped red and green): not a hand
    glare = noise.copy()
    glare[patch] += np.array([0.08, -0.02, -0.02], np.float32)
    assert not det.judge(glare, expected, feats).covered
    # the same spot darker (a hand blocks the lamp): a hand
    dark = noise.copy()
    dark[patch] -= 0.3
    assert det.judge(dark, expected, feats).covered


def test_a_hand_is_one_clump_not_scattered_points(cal) -> None:
    det = CoverDetector(cal)
    rng = np.random.default_rng(4)
    feats = cal.empty_features
    expected = np.full((len(cal.grid_mm), 3), np.log(150.0), np.float32)
    res = rng.normal(0, 0.01, (len(cal.grid_mm), 3)).astype(np.float32)
    # 30 strongly off-hue points scattered over the whole board (JPEG blocks at hard edges)
    scattered = res.copy()
    far = rng.choice(len(cal.grid_mm), 30, replace=False)
    scattered[far, 2] += 0.2
    assert not det.judge(scattered, expected, feats).covered
    # 30 such points in one patch: something lies there
    d = np.linalg.norm(cal.grid_mm - cal.grid_mm[far[0]], axis=1)
    near = np.argsort(d)[:30]
    clump = res.copy()
    clump[near, 2] += 0.2
    cover = det.judge(clump, expected, feats)
    assert cover.covered and det.largest_clump(cover.foreign) >= 25


def test_a_pale_arm_seen_near_white_over_ordinary_board_is_a_hand(cal) -> None:
    """Only where the light model expects near white is colour ignored: a pale arm under a lamp
    reads near white over board the model expects at mid grey, and that is a hand."""
    det = CoverDetector(cal)
    rng = np.random.default_rng(5)
    expected = np.full((len(cal.grid_mm), 3), np.log(150.0), np.float32)
    d = np.linalg.norm(cal.grid_mm - np.array([150.0, -150.0]), axis=1)  # bare board between two arms of the track
    arm = d < 40.0
    assert arm.sum() > COVER_MIN_POINTS
    res = rng.normal(0, 0.01, (len(cal.grid_mm), 3)).astype(np.float32)
    res[arm] += np.array([0.35, 0.45, 0.52], np.float32)  # (b, g, r): red seen at ~250 of 255
    assert (expected[arm] + res[arm] > SATURATED_LOG).any(axis=1).all()
    assert det.judge(res, expected, cal.empty_features).covered
