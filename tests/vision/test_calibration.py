from __future__ import annotations

import json

import cv2

import numpy as np
import pytest

import engine
from hardware.simtable import Hand, SimTable
from vision.calibration import calibrate, load_calibration
from vision.errors import CalibrationError, CalibrationFileError
from vision.markers import detect_markers, homography_from_markers, project


def test_homography_from_drawn_markers(h) -> None:
    img = h.marker_canvas()
    found = detect_markers(img)
    assert sorted(found) == [0, 1, 2, 3]
    H = homography_from_markers(engine.load_geometry(4), found)
    # The canvas maps mm to pixels by x*0.8 + 400, y*0.8 + 300.
    p = project(H, np.array([[0.0, 0.0], [100.0, -50.0]]))
    assert np.allclose(p, [[399.5, 299.5], [479.5, 259.5]], atol=1.0)


@pytest.mark.parametrize("pose", ["straight", "tilted", "turned", "low"])
def test_calibration_finds_every_field_at_several_poses(h, pose: str) -> None:
    table = SimTable(4, seed=1, pose=h.POSES[pose])
    cal = h.calibrated(table)
    truth = project(table.homography(), cal.centres_mm)
    got = project(cal.homography, cal.centres_mm)
    assert np.abs(got - truth).max() < 1.0  # pixels; a field is ~16 px across
    assert cal.report["refined"] and cal.report["fields_found"] > 80
    assert sorted(cal.seat_features) == [0, 1, 2, 3]


def test_missing_markers_are_named(h) -> None:
    img = h.marker_canvas(ids=(0, 1))
    with pytest.raises(CalibrationError, match=r"markers 2 \(bottom-right\), 3 \(bottom-left\) not found"):
        calibrate(img)


def test_no_markers_at_all() -> None:
    with pytest.raises(CalibrationError, match="no markers found"):
        calibrate(np.full((480, 640, 3), 128, np.uint8))


def test_not_a_picture() -> None:
    with pytest.raises(CalibrationError, match="colour picture"):
        calibrate(np.zeros((10, 10), np.float32))  # type: ignore[arg-type]


def test_hand_in_the_empty_frame_is_refused(h, table: SimTable) -> None:
    empty = table.render(h.empty_of(h.start_position()), frame_index=0)
    start = table.render(h.start_position(), hand=Hand(edge="left", reach=0.4), frame_index=1)
    with pytest.raises(CalibrationError, match="cover"):
        calibrate(empty, start=start)


def test_save_load_roundtrip_and_validation(h, cal, tmp_path) -> None:
    path = tmp_path / "cal.json"
    cal.save(path)
    back = load_calibration(path)
    assert back.field_ids == cal.field_ids
    assert np.allclose(back.homography, cal.homography)
    assert back.seat_features.keys() == cal.seat_features.keys()
    data = json.loads(path.read_text())
    data["version"] = 99
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationFileError, match="version 99"):
        load_calibration(path)
    data["version"] = 1
    data["homography"] = [[1, 2], [3, 4]]
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationFileError, match="'homography' has shape"):
        load_calibration(path)
    path.write_text("{not json")
    with pytest.raises(CalibrationFileError, match="not valid JSON"):
        load_calibration(path)
    with pytest.raises(CalibrationFileError, match="does not exist"):
        load_calibration(tmp_path / "nope.json")


def test_a_marker_lost_in_glare_is_named_with_what_to_do(h, table: SimTable, cal) -> None:
    empty = table.render(h.empty_of(h.start_position()), frame_index=0).copy()
    x, y = (int(round(v)) for v in cal.marker_centres_px()[1])  # top-right
    cv2.circle(empty, (x, y), 40, (255, 255, 255), -1)  # a lamp's reflection, clipped white
    with pytest.raises(CalibrationError, match=r"marker 1 \(top-right\) is in glare.*move the lamp"):
        calibrate(empty)


def test_several_noisy_pictures_calibrate_and_name_a_bad_piece(h, table: SimTable) -> None:
    start = h.start_position()
    empties = [table.render(h.empty_of(start), frame_index=i) for i in range(3)]
    starts = [table.render(start, frame_index=10 + i) for i in range(3)]
    cal = calibrate(empties, 4, "standard", starts, start.field_occupancy())
    assert sorted(cal.seat_features) == [0, 1, 2, 3]
    # the start position claims a red piece on S1K0, where the picture shows a blue one
    occ = dict(start.field_occupancy(), S1K0="s0")
    with pytest.raises(CalibrationError, match=r"piece on S1K0 does not look like the other seat 0's .*looks more like seat 1"):
        calibrate(empties, 4, "standard", starts, occ)
