from __future__ import annotations

import json

import cv2
import pytest

from companion.cli import main


def test_calibrate_and_read(h, tmp_path, table, capsys) -> None:
    empty, start = tmp_path / "empty.png", tmp_path / "start.png"
    cv2.imwrite(str(empty), table.render(h.empty_of(h.start_position()), frame_index=0))
    cv2.imwrite(str(start), table.render(h.start_position(), frame_index=1))
    cal = tmp_path / "cal.json"
    assert main(["vision", "calibrate", "--image", str(empty), "--start", str(start), "--out", str(cal)]) == 0
    pic = tmp_path / "pos.png"
    pos = h.some_position()
    cv2.imwrite(str(pic), table.render(pos, frame_index=2))
    capsys.readouterr()
    assert main(["vision", "read", str(pic), "--calibration", str(cal)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["occupancy"] == pos.field_occupancy()
    assert out["covered"] is False


@pytest.mark.parametrize(
    "args, message",
    [
        (["vision", "read", "nope.png", "--calibration", "nope.json"], "does not exist"),
        (["vision", "calibrate"], "give --image"),
        (["vision", "calibrate", "--image", "{bad}"], "unreadable"),
        (["vision", "calibrate", "--image", "{markers}"], "markers 2 (bottom-right), 3 (bottom-left) not found"),
        (["vision", "calibrate", "--simulate", "--out", "{dir}"], "is a folder: give a file name"),
        (["vision", "calibrate", "--image", "{markers}", "--out", "{dir}/no/cal.json"], "does not exist"),
        (["vision", "enrol-cards", "--calibration", "c.json", "--empty", "e.png", "--out", "{dir}"], "is a folder"),
    ],
)
def test_clear_errors(h, tmp_path, capsys, args, message) -> None:
    bad = tmp_path / "bad.png"
    bad.write_text("not a picture")
    markers = tmp_path / "m.png"
    cv2.imwrite(str(markers), h.marker_canvas(ids=(0, 1)))
    args = [a.replace("{bad}", str(bad)).replace("{markers}", str(markers)).replace("{dir}", str(tmp_path)) for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
