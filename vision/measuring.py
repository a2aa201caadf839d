"""Measuring a frame: the light model, every field's colour and pattern, cover, disc colours.

`FrameSampler.measure(frame, lit)` follows the camera (vision.tracking), fits the smooth light
model to the bare-board grid (vision.light), and returns a `Measurement`: each field's colour
feature (vision.features), a cover verdict (vision.cover), the disc art's colours, and for
boards with pale seats each field's whole pattern and its distance from the empty look. What
stands on a field is not decided here (vision.reader and its stages decide it).
One measurement costs a few thousand fancy-indexed pixels, not a warp of the frame.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.calibration_record import Calibration
from vision.cover import CoverDetector
from vision.features import field_features
from vision.light import basis, log_colour, robust_fit
from vision.markers import project
from vision.sampling import centre_points_mm, disc_points_mm, structure_points_mm
from vision.tracking import CameraTracker


@dataclass(frozen=True, eq=False)
class Measurement:
    """Everything a frame says before classification."""

    features: np.ndarray  # (fields, 3)
    light: float  # mean brightness gain of the board relative to the empty frame
    foreign: np.ndarray  # (grid,) bool: bare-board points that look covered
    covered: bool
    covered_fields: tuple[str, ...]
    disc_colours: np.ndarray | None
    problem: str | None
    notices: tuple[str, ...]
    light_fields: np.ndarray | None = None  # (fields, 3) log light model at each field
    structure: np.ndarray | None = None  # (fields,) pattern distance from the empty field (pale seats only)
    pattern: np.ndarray | None = None  # (fields, STRUCTURE_POINTS, 3) the patterns themselves (pale seats only)


class FrameSampler:
    """Samples frames of one calibrated setup where its fields, bare board and disc are.

    `marked`: royal pieces carry their rank on the head (a wider patch is read, vision.sampling);
    `has_disc`: the board has a turning disc whose art tells its orientation.
    """

    def __init__(self, calibration: Calibration, marked: bool, has_disc: bool) -> None:
        cal = calibration
        self.cal = cal
        self.width, self.height = cal.resolution
        self._marked = marked
        # sampled where a standing piece's body appears (its height, the camera's pose: calibration)
        sampled = cal.centres_mm if cal.sample_shift_mm is None else cal.centres_mm + cal.sample_shift_mm
        field_pts = centre_points_mm(sampled, cal.field_radius_mm, marked=marked)
        self._A = basis(cal.grid_mm).astype(np.float32)
        self._pinv = np.linalg.pinv(self._A).astype(np.float32)
        self._B_fields = basis(cal.centres_mm).astype(np.float32)
        disc_pts = disc_points_mm() if has_disc else None
        self._B_disc = basis(disc_pts).astype(np.float32) if disc_pts is not None else None
        self._cover = CoverDetector(cal)
        # the pattern window follows the piece's body too: a neighbour's leaning head then stays
        # in the neighbour's own window, not in this field's
        self.structure_points = structure_points_mm(sampled, cal.field_radius_mm)  # (fields, points, 2)
        self._smap: tuple[np.ndarray, np.ndarray, tuple[int, int, int, int]] | None = None
        self._smap_H: np.ndarray | None = None
        self._box: np.ndarray | None = None  # the last frame's 3x3 means around the fields (float32)
        self.tracker = CameraTracker(cal, field_pts, disc_pts)

    def measure(self, frame: np.ndarray, lit: Iterable[str] | Mapping[str, Any] | None = None) -> Measurement:
        """What `frame` shows; `lit`: fields whose LED rings are on (the cover test leaves their glow out)."""
        if frame.shape[1] != self.width or frame.shape[0] != self.height:
            return Measurement(np.zeros_like(self.cal.empty_features), 0.0, np.zeros(0, bool), True, (), None,
                               f"the frame is {frame.shape[1]}x{frame.shape[0]} but the calibration is for "
                               f"{self.width}x{self.height}: calibrate at this resolution", ())
        frame = np.ascontiguousarray(frame)
        problem, notices = self.tracker.track(frame)
        flat = frame.reshape(-1, 3)
        # each grid point's 3x3 mean: the exact integer sum, then / 9 in float32, as .mean(dtype=float32) gives
        block = np.take(frame.reshape(-1), self.tracker.grid_bytes).sum(axis=0, dtype=np.uint16)
        y = log_colour(block.astype(np.float32) / np.float32(9)) - self.cal.grid_reflect
        fit = robust_fit(self._A, y, self._pinv)
        light_fields = self._B_fields @ fit.coef
        feats = field_features(flat[self.tracker.field_index], light_fields, marked=self._marked)
        cover = self._cover.judge(fit.residual, self._A @ fit.coef + self.cal.grid_reflect, feats, lit)
        foreign, covered, covered_fields = cover.foreign, cover.covered, cover.fields
        disc = None
        if self.tracker.disc_index is not None and self._B_disc is not None:
            disc = (log_colour(flat[self.tracker.disc_index]) - self._B_disc @ fit.coef).astype(np.float32)
        light = float(np.exp(fit.coef[0].mean()))
        structure = pattern = None
        if self.cal.empty_pattern is not None:
            pattern = self.pattern(frame, light_fields)
            diff = pattern - self.cal.empty_pattern
            structure = np.sqrt((diff * diff).mean(axis=(1, 2)))
        return Measurement(feats, light, foreign, covered, covered_fields, disc, problem, tuple(notices),
                           light_fields, structure, pattern)

    def pattern(self, frame: np.ndarray, light_fields: np.ndarray) -> np.ndarray:
        """(fields, STRUCTURE_POINTS, 3) light-corrected log colours of 3x3 pixel means over each whole field.

        Each point's mean is interpolated at its sub-pixel place in this frame: a field's rim
        and a lit ring's light are sharp edges, and a point rounded to the nearest pixel would
        jump across them as the camera wobbles by a fraction of one.
        """
        H = self.tracker.now
        if self._smap_H is not H:
            pts = project(H, self.structure_points.reshape(-1, 2))
            x0 = int(max(np.floor(pts[:, 0].min()) - 2, 0))
            y0 = int(max(np.floor(pts[:, 1].min()) - 2, 0))
            x1 = int(min(np.ceil(pts[:, 0].max()) + 3, self.width))
            y1 = int(min(np.ceil(pts[:, 1].max()) + 3, self.height))
            mx = (pts[:, 0] - x0).astype(np.float32).reshape(-1, 1)
            my = (pts[:, 1] - y0).astype(np.float32).reshape(-1, 1)
            self._smap, self._smap_H = (mx, my, (x0, y0, x1, y1)), H
        assert self._smap is not None
        mx, my, (x0, y0, x1, y1) = self._smap
        box = cv2.boxFilter(frame[y0:y1, x0:x1], cv2.CV_32F, (3, 3), borderType=cv2.BORDER_REPLICATE)
        # the map as (fields, points), not (fields * points, 1): remap goes row by row, and rows of one
        # point cost it half again as much; each point's value is the same either way
        shape = self.structure_points.shape[:2]
        vals = cv2.remap(box, mx.reshape(shape), my.reshape(shape), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        self._box = box  # for `slope`, this frame only
        return log_colour(vals) - light_fields[:, None, :]

    def slope(self, j: int) -> np.ndarray:
        """(2, points, 3) grey levels per pixel of field j's 3x3 means in this frame, along x and y."""
        assert self._smap is not None and self._box is not None
        box = self._box
        mx, my, _ = self._smap
        n = self.structure_points.shape[1]
        x, y = mx[j * n:(j + 1) * n], my[j * n:(j + 1) * n]
        h = np.float32(0.5)
        z = np.float32(0.0)

        def at(dx: np.float32, dy: np.float32) -> np.ndarray:
            return cv2.remap(box, x + dx, y + dy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)[:, 0, :]

        return np.stack([at(h, z) - at(-h, z), at(z, h) - at(z, -h)])
