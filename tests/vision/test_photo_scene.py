"""Vision on the photo-like scene (scripts/photo_scene.py), written apart from hardware/simtable.

A small seeded version of scripts/bench_vision_photo.py: calibrate from a few JPEG pictures
of a tilted board under a lamp (leaning 3D pawns, hard shadows, barrel distortion, noise,
exposure drift), then read boards: never a wrong read, no hand where there is none, a real
hand caught.
"""
from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path

import pytest

import engine
from vision.calibration import calibrate
from vision.reader import BoardReader

_PATH = Path(__file__).resolve().parents[2] / "scripts" / "photo_scene.py"


@pytest.fixture(scope="module")
def photo():
    spec = importlib.util.spec_from_file_location("photo_scene", _PATH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["photo_scene"] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def scene_and_cal(photo):
    setup = dataclasses.replace(photo.setup_named("lamp-linen-10"), name="test")
    scene = photo.PhotoScene(setup, seed=3)
    start = photo.start_position(setup)
    empties = [scene.render(photo.empty_of(start), frame_index=i) for i in range(3)]
    starts = [scene.render(start, frame_index=10 + i) for i in range(3)]
    cal = calibrate(empties, setup.segments, setup.board, starts, start.field_occupancy())
    return scene, cal


@pytest.fixture
def scene_and_reader(scene_and_cal):
    """A reader of its own for each test: a reader follows the camera from frame to frame, so one
    shared by the module read differently with the tests that had run before it in that worker."""
    scene, cal = scene_and_cal
    return scene, BoardReader(cal)


def test_scene_is_deterministic_and_a_jpeg_photo(photo) -> None:
    setup = photo.setup_named("window-band-12")
    pos = photo.start_position(setup)
    a = photo.PhotoScene(setup, seed=3).render(pos, frame_index=4)
    b = photo.PhotoScene(setup, seed=3).render(pos, frame_index=4)
    c = photo.PhotoScene(setup, seed=3).render(pos, frame_index=5)
    assert a.shape == (720, 1280, 3) and (a == b).all()
    assert (a != c).mean() > 0.3  # noise and exposure drift differ from frame to frame


def test_calibrates_and_reads_without_wrong_reads_or_false_covers(photo, scene_and_reader) -> None:
    scene, reader = scene_and_reader
    base = photo.start_position(scene.setup)
    layouts = [
        [["T0", "T7", "H1", "K"], ["T16", "T33", "K", "K"], ["T40", "K", "K", "K"], ["T50", "T9", "K", "K"]],
        [["T3", "H0", "H2", "K"], ["T20", "T21", "T60", "K"], ["K", "K", "K", "K"], ["T44", "T45", "H3", "K"]],
    ]
    read = total = 0
    for i, pieces in enumerate(layouts):
        pos = dataclasses.replace(engine.parse_position({"variant": "classic", "pieces": pieces}), board=base.board)
        truth = pos.field_occupancy()
        r = reader.read(scene.render(pos, frame_index=100 + i))
        assert not r.covered and r.problem is None
        wrong = [(f, lab, truth.get(f, "empty")) for f, lab in zip(r.field_ids, r.labels)
                 if lab not in ("unknown", truth.get(f, "empty"))]
        assert wrong == []
        read += sum(lab != "unknown" for lab in r.labels)
        total += len(r.labels)
    assert read >= 0.9 * total


def test_a_hand_is_caught(photo, scene_and_reader) -> None:
    scene, reader = scene_and_reader
    pos = photo.start_position(scene.setup)
    r = reader.read(scene.render(pos, frame_index=200, hand=photo.PhotoHand(target="T12", edge="left")))
    assert r.covered
