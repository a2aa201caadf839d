"""Noticing a cover: a hand, an arm or an object over the board.

`CoverDetector(calibration).judge(residual, expected, features, lit)` takes what the light
model (vision.light) could not explain on the bare-board grid points and says whether
something covers the board, and near which fields. Everything else a reading does (the
fields' colours and patterns) lives in vision.reader, which calls this once a frame. Its
thresholds (COVER_*, the noise floors, a shadow's reach) live in vision.tuning.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.calibration_record import Calibration
from vision.features import distances
from vision.light import CLIP_LOG, SATURATED_LOG
from vision.medians import median, median_columns
from vision.sampling import GRID_STEP_MM
from vision.tuning import (
    AREA_FLOOR_C, AREA_FLOOR_L, COVER_CLIP, COVER_CLUMP_MM, COVER_MIN_NEIGHBOURS, COVER_MIN_POINTS, COVER_NEAR_MM,
    COVER_Z_AREA, COVER_Z_BRIGHT, COVER_Z_POINT, LIT_CLEARANCE_MM, MIN_MARGIN, NOISE_FLOOR_C, NOISE_FLOOR_L, NOISE_STRIDE,
    SHADOW_MAX_HUE_Z, SHADOW_REACH_MM,
)


@dataclass(frozen=True, eq=False)
class Cover:
    """One frame's verdict."""

    foreign: np.ndarray  # (grid,) bool: bare-board points that look covered
    covered: bool
    fields: tuple[str, ...]  # fields near the foreign points (when covered)


class CoverDetector:
    """Judges the bare-board grid points of one calibrated setup, frame by frame."""

    def __init__(self, calibration: Calibration) -> None:
        cal = calibration
        self.cal = cal
        self._field_grid_dist = np.linalg.norm(cal.centres_mm[:, None, :] - cal.grid_mm[None, :, :], axis=2)
        self._lat_x, self._lat_y, self._lattice_shape = grid_lattice(cal.grid_mm)
        # each point's pixel in the lattice image, flat: one take/put instead of a 2-D fancy index
        self._lat_flat = self._lat_y * self._lattice_shape[1] + self._lat_x

    def judge(self, residual: np.ndarray, expected: np.ndarray, features: np.ndarray,
              lit: Iterable[str] | Mapping[str, Any] | None = None) -> Cover:
        """`residual` (grid, 3): observed minus the light model, log units; `expected` (grid, 3): the
        model's log colour at each point; `features`: the fields' colours (standing pieces cast
        shadows); `lit`: fields whose LED rings are on (their glow is light the model does not know)."""
        valid = None
        if lit:
            rows = [i for i, f in enumerate(self.cal.field_ids) if f in set(lit)]
            if rows:
                valid = ~(self._field_grid_dist[rows] < LIT_CLEARANCE_MM).any(axis=0)
        # Near white (a lamp's glare, a strong tint, a flicker upwards) the camera clips at
        # 255: compare with what the camera can show, min(expected, 255), so that clipping is
        # not taken for a darker, other-hued patch, while a hand (darker) still shows fully.
        # Clipping points do not count when measuring the frame's noise.
        clipping = expected > SATURATED_LOG
        res = residual
        if clipping.any():
            shown = np.minimum(expected, CLIP_LOG)
            res = (res + (expected - shown)).astype(np.float32)
        # Where the light model itself expects a channel near white (a lamp's glare), the
        # camera's response bends and clips: the colour there is not the board's, and a glare
        # spot is sharper than the smooth model can follow. Such a point tells only by being
        # darker (a hand blocks the glare), never by its hue or by being brighter. (Only where
        # the model expects it: a pale arm seen near white over ordinary board is a hand.)
        saturated = clipping.any(axis=1)
        # Sensor noise is a fixed number of grey levels: in log units it is larger on dark print
        # (the brown centre circle) than on the pale board. Scale each point's residual to what
        # it would be on the board's typical brightness (expected, not observed: a dark hand on
        # pale board keeps its full weight).
        weight = np.clip(np.exp(expected - median_columns(expected)), 0.25, 1.5)
        res = res * weight
        foreign, shade_only = self._foreign(res, valid, ~clipping.any(axis=1), saturated)
        if foreign.any():
            foreign &= ~self._piece_shadows(features, shade_only)
        covered = self.largest_clump(foreign) >= COVER_MIN_POINTS
        fields: tuple[str, ...] = ()
        if covered:
            near = (self._field_grid_dist[:, foreign] < COVER_NEAR_MM).any(axis=1)
            fields = tuple(f for f, c in zip(self.cal.field_ids, near) if c)
        return Cover(foreign, covered, fields)

    def largest_clump(self, foreign: np.ndarray) -> int:
        """How many foreign points the largest clump holds: points chained to each other by gaps
        under COVER_CLUMP_MM (a hand or arm is one such clump; the lattice has holes where the
        fields are, so touching points alone would split a hand)."""
        if not foreign.any():
            return 0
        lattice = np.zeros(self._lattice_shape[:2], np.uint8)
        lattice[self._lat_y[foreign], self._lat_x[foreign]] = 1
        reach = int(COVER_CLUMP_MM // GRID_STEP_MM)
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach + 1, reach + 1))
        # dilating every point by half the reach links points up to the reach apart
        n, labels = cv2.connectedComponents(cv2.dilate(lattice, disc), connectivity=8)
        if n <= 1:
            return 0
        return int(np.bincount(labels[self._lat_y[foreign], self._lat_x[foreign]], minlength=n)[1:].max())

    def _foreign(self, res: np.ndarray, valid: np.ndarray | None = None, quiet: np.ndarray | None = None,
                 saturated: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(grid,) bool: bare-board points whose residual (grid, 3) is far beyond this frame's noise;
        and (grid,) bool: points only darker, of the board's own hue (what a shadow does).

        `valid`: points to judge at all (LED glow leaves some out); `quiet`: points whose
        spread measures the frame's noise (not clipping); `saturated`: points judged only by
        being darker.
        """
        n = len(res)
        vals = np.empty((n, 4), np.float32)
        vals[:, 0] = res.mean(axis=1)
        vals[:, 1] = res[:, 2] - res[:, 1]  # red-green
        vals[:, 2] = res[:, 0] - res[:, 1]  # blue-green
        vals[:, 3] = 1.0
        if saturated is not None and saturated.any():
            vals[saturated, 0] = np.minimum(vals[saturated, 0], 0.0)
            vals[saturated, 1:3] = 0.0
        use = np.ones(n, bool) if valid is None else valid.copy()
        if valid is not None:
            vals[~valid] = 0.0
        if quiet is not None and (use & quiet).sum() >= n // 4:
            use &= quiet
        # The noise: robust spread of (every NOISE_STRIDE-th) usable point; a hand covers far
        # fewer than half of them.
        sample = vals[use][::NOISE_STRIDE]
        sl, sc = _spread(sample, NOISE_FLOOR_L, NOISE_FLOOR_C)
        foreign = _z(vals[:, 0], vals[:, 1:3], sl, sc) > COVER_Z_POINT
        rg, bg = vals[:, 1], vals[:, 2]
        shade_only = (vals[:, 0] < 0) & (np.sqrt(rg * rg + bg * bg) < SHADOW_MAX_HUE_Z * sc)
        # The same test on each point's neighbourhood mean (3x3 lattice neighbours): a pale
        # hand in harsh light is only a few noise widths off per point, but it is off on
        # dozens of neighbouring points. The means' own spread is measured too: neighbours'
        # noise is not independent. Each point counts for at most COVER_CLIP noise widths:
        # one stray point (a printed edge, a speck) must not make its neighbourhood foreign.
        clipped = vals
        clipped[:, 0] = np.clip(vals[:, 0], -COVER_CLIP * sl, COVER_CLIP * sl)
        clipped[:, 1:3] = np.clip(vals[:, 1:3], -COVER_CLIP * sc, COVER_CLIP * sc)
        lattice = np.zeros(self._lattice_shape, np.float32)
        lattice.reshape(-1, 4)[self._lat_flat] = clipped
        area = cv2.boxFilter(lattice, -1, (3, 3), normalize=False, borderType=cv2.BORDER_CONSTANT)
        area = np.take(area.reshape(-1, 4), self._lat_flat, axis=0)
        k = area[:, 3]
        ok = k >= COVER_MIN_NEIGHBOURS - 0.5
        mean = area[:, :3] / np.maximum(k, 1)[:, None]
        ok_use = ok & use if (ok & use).any() else ok
        al, ac = _spread(mean[ok_use][::NOISE_STRIDE], AREA_FLOOR_L, AREA_FLOOR_C)
        foreign |= ok & (_z(mean[:, 0], mean[:, 1:], al, ac) > COVER_Z_AREA)
        if valid is not None:
            foreign &= valid
        return foreign, shade_only

    def _piece_shadows(self, feats: np.ndarray, shade_only: np.ndarray) -> np.ndarray:
        """(grid,) bool: points that are only darker, within a standing piece's shadow reach.

        A real pawn is ~25 mm tall: under a lamp its hard shadow falls well beyond the
        field, onto bare board, darker but of the board's own hue. A hand is skin (another
        hue) over dozens of points; its shadow alone near pieces is not counted.
        """
        occupied = distances(feats, self.cal.empty_features[:, None, :])[:, 0] > 2 * MIN_MARGIN
        if not occupied.any():
            return np.zeros(len(self.cal.grid_mm), bool)
        near = (self._field_grid_dist[occupied] < SHADOW_REACH_MM).any(axis=0)
        return near & shade_only


def grid_lattice(grid_mm: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple[int, int, int]]:
    """Each grid point's column and row on the GRID_STEP_MM lattice, and the lattice image's shape (with 4 channels)."""
    key = np.rint((grid_mm - grid_mm.min(axis=0)) / GRID_STEP_MM).astype(np.int64)
    return key[:, 0], key[:, 1], (int(key[:, 1].max()) + 1, int(key[:, 0].max()) + 1, 4)


def _z(lum: np.ndarray, chroma: np.ndarray, sl: float, sc: float) -> np.ndarray:
    """How many noise widths each residual is from bare board: darker, another hue, or far brighter."""
    dark = -lum / sl
    bright = lum / sl * (COVER_Z_POINT / COVER_Z_BRIGHT)
    c0, c1 = chroma[:, 0], chroma[:, 1]
    hue = np.sqrt(c0 * c0 + c1 * c1) / sc  # as (chroma * chroma).sum(axis=1), without a reduction over 2
    return np.maximum(np.maximum(dark, bright), hue)


def _spread(vals: np.ndarray, floor_l: float, floor_c: float) -> tuple[float, float]:
    """Robust standard deviations (1.4826 x median absolute value) of brightness and of hue."""
    if len(vals) == 0:
        return floor_l, floor_c
    a = np.abs(vals[:, :3])
    return (max(1.4826 * float(median(a[:, 0])), floor_l),
            max(1.4826 * float(median(a[:, 1:3].ravel())), floor_c))
