"""Where each field's pattern points lie against the other fields and the lit rings.

Distances between field centres and from every field's pattern points (vision.sampling) to
every field centre, worked out once per calibration; and, for a set of lit rings, which of a
field's points no other lit ring's light reaches (calibration measured that reach:
`Calibration.glow_reach_mm`). Both the pale-piece rules (vision.pale) and the lit-ring
pattern (vision.lit_pattern) judge a field on such points.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from vision.calibration_record import Calibration


class FieldLayout:
    """`structure_points` (fields, points, 2): each field's pattern points in board millimetres."""

    def __init__(self, calibration: Calibration, structure_points: np.ndarray) -> None:
        cal = calibration
        self.cal = cal
        self.structure_points = structure_points
        self.field_dist = np.linalg.norm(cal.centres_mm[:, None, :] - cal.centres_mm[None, :, :], axis=2)
        self.index_of = {f: i for i, f in enumerate(cal.field_ids)}
        self._struct_dist: np.ndarray | None = None
        self._dist_by_centre: np.ndarray | None = None

    def structure_distances(self) -> np.ndarray:
        """(fields, points, fields): each structure point's distance from every field centre (worked out once)."""
        if self._struct_dist is None:
            self._struct_dist = np.linalg.norm(self.structure_points[:, :, None, :]
                                               - self.cal.centres_mm[None, None, :, :], axis=3).astype(np.float32)
        return self._struct_dist

    def unlit_rows(self, rows: np.ndarray, lit_colour: Mapping[int, int | None]) -> np.ndarray:
        """(rows, points) `unlit_by_others` of several fields at once."""
        if self._dist_by_centre is None:  # (centres, fields, points): a few lit centres are one slice
            self._dist_by_centre = np.ascontiguousarray(self.structure_distances().transpose(2, 0, 1))
        lit = np.fromiter(lit_colour, np.int64, len(lit_colour))
        far = self._dist_by_centre[lit][:, rows] >= self.cal.glow_reach_mm  # (lit, rows, points)
        far |= (lit[:, None, None] == rows[None, :, None])  # a field's own ring does not count
        return far.all(axis=0)

    def unlit_by_others(self, j: int, lit_colour: Mapping[int, int | None]) -> np.ndarray:
        """(points,) field j's structure points that no other lit ring's light reaches."""
        dist = self.structure_distances()
        out = np.ones(self.structure_points.shape[1], bool)
        for i in lit_colour:
            if i != j:
                out &= dist[j][:, i] >= self.cal.glow_reach_mm
        return out
