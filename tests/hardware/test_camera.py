"""Camera sources: files (OpenCV images and video), the simulated table, unavailable backends."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.camera import FileSource, OpenCvCamera, PiCamera2Source
from hardware.errors import DeviceUnavailable


def test_image_file_is_returned_every_read(tmp_path) -> None:
    img = np.zeros((40, 60, 3), np.uint8)
    img[:, :30] = (255, 0, 0)
    p = tmp_path / "board.png"
    cv2.imwrite(str(p), img)
    src = FileSource(str(p))
    a, b = src.read(), src.read()
    assert np.array_equal(a, img) and np.array_equal(b, img)
    assert FileSource(str(p), 30, 20).read().shape == (20, 30, 3)


def test_video_file_loops(tmp_path) -> None:
    p = tmp_path / "clip.avi"
    out = cv2.VideoWriter(str(p), cv2.VideoWriter_fourcc(*"MJPG"), 5, (32, 24))
    for v in (0, 120, 240):
        out.write(np.full((24, 32, 3), v, np.uint8))
    out.release()
    src = FileSource(str(p))
    levels = [int(src.read().mean()) for _ in range(4)]
    assert levels[0] < 20 and levels[2] > 220 and levels[3] < 20
    src.close()


def test_missing_sources_are_unavailable_not_crashes(tmp_path) -> None:
    with pytest.raises(DeviceUnavailable, match="no such file"):
        FileSource(str(tmp_path / "nope.png"))
    with pytest.raises(DeviceUnavailable, match="no such device"):
        OpenCvCamera(str(tmp_path / "video9"))
    with pytest.raises(DeviceUnavailable, match="not available on this machine"):
        PiCamera2Source(model="")
