"""Following the camera: where the board is in each frame, from the four markers.

`CameraTracker` keeps the homography the reader's pixel indices were made for and, frame by
frame, finds the markers again by template matching near where they were. A small move is
followed to the sub-pixel (`now`); a larger one re-indexes the samples; a marker not found
(covered, or the camera moved) needs a full marker detection, which tells the two apart.
"""
from __future__ import annotations

import logging

import cv2
import numpy as np

import engine
from vision.calibration_record import Calibration
from vision.markers import MARKER_IDS, MARKER_NAMES, detect_markers, marker_board_corners, project
from vision.sampling import flat_index
from vision.tuning import MOVED_NOTICE_PX, RETRACK_PX, TRACK_MARGIN_PX, TRACK_MIN_SCORE

log = logging.getLogger(__name__)


class CameraTracker:
    """Where the board is in the current frame, and the flat pixel indices of what a reading samples there.

    `field_points` (fields, points, 2) and `disc_points` (points, 2) or None: board millimetres
    sampled each frame (one pixel each); the bare-board grid points are sampled as 3x3 means.
    """

    def __init__(self, calibration: Calibration, field_points: np.ndarray, disc_points: np.ndarray | None) -> None:
        cal = calibration
        self.cal = cal
        self.geometry = engine.load_geometry(cal.segments)
        self.width, self.height = cal.resolution
        self._field_pts = field_points
        self._disc_pts = disc_points
        self._marker_cal = cal.marker_centres_px()
        self.now = cal.homography  # where the board is in this frame, to the sub-pixel (field patterns follow it)
        self.field_index: np.ndarray  # (fields, points) flat pixel indices, set by `index`
        self.grid_index: np.ndarray  # (grid, 9): each grid point's 3x3 pixel block
        # (9, grid, 3) the same blocks as indices into the frame's bytes: one `np.take` per frame
        # gathers them channel by channel, ten times faster than indexing pixel rows
        self.grid_bytes: np.ndarray
        self.disc_index: np.ndarray | None
        w = self.width
        # the 3x3 block's bytes around a pixel's first byte, (9, 3); int32 indices: the frame has < 2**31 bytes
        self._block_bytes = (3 * np.array([-w - 1, -w, -w + 1, -1, 0, 1, w - 1, w, w + 1])[:, None]
                             + np.arange(3)).astype(np.int32)
        self._cal_inv = np.linalg.inv(cal.homography)  # constant: inverted once, not every frame
        self._expected: tuple[np.ndarray, np.ndarray] | None = None  # (homography, marker centres there)
        self._centres: tuple[np.ndarray, np.ndarray] | None = None  # (homography, field centres there)
        self._cal_centres_px = project(cal.homography, cal.centres_mm)
        self.homography = cal.homography.copy()  # the one the indices were made for
        self.index(self.homography)

    def index(self, H: np.ndarray) -> bool:
        """Make the pixel indices for homography H; False (nothing changed) if a sample leaves the frame."""
        fidx = flat_index(H, self._field_pts, self.width, self.height)
        gidx = flat_index(H, self.cal.grid_mm, self.width, self.height)
        didx = flat_index(H, self._disc_pts, self.width, self.height) if self._disc_pts is not None else None
        if fidx is None or gidx is None or (self._disc_pts is not None and didx is None):
            return False
        # Each grid point is the mean of a 3x3 pixel block: one pixel's sensor noise is as
        # large as the colour change of a pale hand.
        w = self.width
        block = np.array([-w - 1, -w, -w + 1, -1, 0, 1, w - 1, w, w + 1])
        if (gidx < w + 1).any() or (gidx >= w * (self.height - 1) - 1).any():
            return False
        self.field_index, self.grid_index, self.disc_index = fidx, gidx[:, None] + block[None, :], didx
        self.grid_bytes = (3 * gidx).astype(np.int32)[None, :, None] + self._block_bytes[:, None, :]
        self.homography = H
        self.now = H
        return True

    def box(self) -> tuple[slice, slice]:
        """The rows and columns of the frame a reading looks at where the camera now is: every sample,
        and each marker with the window it is searched in."""
        markers = project(self.homography @ self._cal_inv, self._marker_cal)
        reach = max(max(t.shape) for t in self.cal.marker_templates) // 2 + TRACK_MARGIN_PX + 2
        flat = np.concatenate([self.field_index.ravel(), self.grid_index.ravel()]
                              + ([self.disc_index.ravel()] if self.disc_index is not None else []))
        ys, xs = flat // self.width, flat % self.width
        y0 = max(0, min(int(ys.min()), int(markers[:, 1].min()) - reach))
        y1 = min(self.height, max(int(ys.max()) + 1, int(markers[:, 1].max()) + reach + 1))
        x0 = max(0, min(int(xs.min()), int(markers[:, 0].min()) - reach))
        x1 = min(self.width, max(int(xs.max()) + 1, int(markers[:, 0].max()) + reach + 1))
        return slice(y0, y1), slice(x0, x1)

    def track(self, frame: np.ndarray) -> tuple[str | None, list[str]]:
        """Follow the markers with template matching; returns (problem, notices)."""
        notices: list[str] = []
        if self._expected is None or self._expected[0] is not self.homography:
            # where the markers should be changes only when the indices do (`index`)
            self._expected = (self.homography, project(self.homography @ self._cal_inv, self._marker_cal))
        expected = self._expected[1]
        found_src, found_dst, hidden, lost = [], [], [], []
        for mid, tmpl, (ex, ey), cal_c in zip(MARKER_IDS, self.cal.marker_templates, expected, self._marker_cal):
            th, tw = tmpl.shape
            x0 = int(round(ex)) - tw // 2 - TRACK_MARGIN_PX
            y0 = int(round(ey)) - th // 2 - TRACK_MARGIN_PX
            x1, y1 = x0 + tw + 2 * TRACK_MARGIN_PX, y0 + th + 2 * TRACK_MARGIN_PX
            if x0 < 0 or y0 < 0 or x1 > self.width or y1 > self.height:
                lost.append(mid)
                continue
            win = cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
            score = cv2.matchTemplate(win, tmpl, cv2.TM_CCOEFF_NORMED)
            _, best, _, (bx, by) = cv2.minMaxLoc(score)
            if best < TRACK_MIN_SCORE:
                hidden.append(mid)
                continue
            if bx in (0, score.shape[1] - 1) or by in (0, score.shape[0] - 1):
                lost.append(mid)
                continue
            dx = _subpixel(score[by, bx - 1], best, score[by, bx + 1])
            dy = _subpixel(score[by - 1, bx], best, score[by + 1, bx])
            cx = x0 + bx + dx + (tw - 1) / 2 + (self.cal.marker_templates[mid].shape[1] % 1)
            cy = y0 + by + dy + (th - 1) / 2
            # Template centre in the empty frame was the rounded marker centre; keep its fraction.
            fx, fy = cal_c - np.rint(cal_c)
            found_src.append(cal_c)
            found_dst.append((cx + fx, cy + fy))
        if lost or hidden:
            # A marker is not where it was: covered, or the camera moved. Only a full
            # detection can tell which.
            return self._realign(frame), notices
        src, dst = np.array(found_src), np.array(found_dst)
        C, _ = cv2.findHomography(src, dst, 0)
        if C is None:
            return ("cannot follow the markers: calibrate again", notices)
        H = C @ self.cal.homography
        H = H / H[2, 2]
        self.now = H
        move = np.abs(project(H, self.cal.centres_mm) - self._centres_px()).max()
        if move > RETRACK_PX and not self.index(H):
            return ("the board has moved partly out of the picture: move the camera back and calibrate again", notices)
        drift = np.abs(self._centres_px() - self._cal_centres_px).max()
        if drift > MOVED_NOTICE_PX:
            notices.append(f"the camera or board has moved {drift:.0f} px since calibration (following it)")
        return None, notices

    def _centres_px(self) -> np.ndarray:
        """The field centres where the indices were made for (`homography`), projected once per `index`."""
        if self._centres is None or self._centres[0] is not self.homography:
            self._centres = (self.homography, project(self.homography, self.cal.centres_mm))
        return self._centres[1]

    def _realign(self, frame: np.ndarray) -> str | None:
        found = detect_markers(frame)
        if len(found) < 4:
            missing = [m for m in MARKER_IDS if m not in found]
            return (f"{_markers(missing)} hidden or out of view: uncover the board's corners "
                    "so the camera can check its position")
        cal_px = np.concatenate([project(self.cal.homography, marker_board_corners(self.geometry, m)) for m in MARKER_IDS])
        now_px = np.concatenate([found[m] for m in MARKER_IDS])
        C, _ = cv2.findHomography(cal_px, now_px, 0)
        if C is None or not self.index((C @ self.cal.homography) / (C @ self.cal.homography)[2, 2]):
            return "the camera or board has moved too far: calibrate again"
        log.info("camera moved: re-aligned from the markers")
        return None


def _subpixel(a: float, b: float, c: float) -> float:
    den = a - 2 * b + c  # float32, as the scores are
    if abs(den) < 1e-9:
        return 0.0
    # min/max, not np.clip: on a scalar np.clip costs more than the rest (NaN stays NaN either way)
    return float(min(max(0.5 * (a - c) / den, -0.5), 0.5))


def _markers(ids: list[int]) -> str:
    names = ", ".join(f"{i} ({MARKER_NAMES[i]})" for i in ids)
    return f"marker{'s' if len(ids) > 1 else ''} {names} {'are' if len(ids) > 1 else 'is'}".rsplit(" ", 1)[0] + (
        " are" if len(ids) > 1 else " is")
