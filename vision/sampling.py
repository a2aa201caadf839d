"""Pixel sample patterns, fixed at calibration, read from each frame by numpy fancy indexing.

Reading a frame never warps it: every place we look at (field centres, the ring of board
around each field, a grid of bare board, the markers) is a small set of pixel indices into
the flattened frame, computed once from the homography. Patterns are laid out in board
millimetres and projected, so perspective squeezes them the way it squeezes the board.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision.markers import project

# Fractions of the field radius. The centre patch stays well inside a piece even when the
# piece stands a little off-centre; the ring lies on bare board outside the field outline
# but closer than half-way to the next field (pitch 24 mm, radius 9 mm on printed boards).
CENTRE_RADIUS = 0.42
RING_INNER = 1.18
RING_OUTER = 1.42
CENTRE_POINTS = 21
RING_POINTS = 24
# Bare-board grid: spacing and how far it keeps from fields, cards and the disc.
GRID_STEP_MM = 14.0
GRID_CLEARANCE = 1.75  # field radii


def centre_offsets(n: int = CENTRE_POINTS) -> np.ndarray:
    """A sunflower (Vogel) spiral: evenly spread points in the unit disc, deterministic."""
    k = np.arange(n) + 0.5
    r = np.sqrt(k / n)
    a = k * math.pi * (3 - math.sqrt(5))
    return np.stack([r * np.cos(a), r * np.sin(a)], axis=1)


def ring_offsets(n: int = RING_POINTS) -> np.ndarray:
    # Two interleaved circles so the ring sees both its inner and outer edge.
    a = np.arange(n) * 2 * math.pi / n
    r = np.where(np.arange(n) % 2 == 0, RING_INNER, RING_OUTER)
    return np.stack([r * np.cos(a), r * np.sin(a)], axis=1)


@dataclass(frozen=True, eq=False)
class SamplePlan:
    """Flat pixel indices (into frame.reshape(-1, 3)) for everything a reading looks at."""

    width: int
    height: int
    centre_idx: np.ndarray  # (fields, CENTRE_POINTS)
    ring_idx: np.ndarray  # (fields, RING_POINTS)
    grid_idx: np.ndarray  # (grid points,)
    grid_mm: np.ndarray  # (grid points, 2) board position of each grid point

    def gather(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        flat = frame.reshape(-1, 3)
        return flat[self.centre_idx], flat[self.ring_idx], flat[self.grid_idx]


def to_flat_index(points_px: np.ndarray, width: int, height: int) -> np.ndarray:
    xy = np.rint(points_px).astype(np.int64)
    if (xy[..., 0] < 0).any() or (xy[..., 0] >= width).any() or (xy[..., 1] < 0).any() or (xy[..., 1] >= height).any():
        raise ValueError("sample point outside the frame")
    return xy[..., 1] * width + xy[..., 0]


def pattern_pixels(
    H: np.ndarray, centres_mm: np.ndarray, offsets: np.ndarray, radius_mm: float, shift_px: np.ndarray | None = None
) -> np.ndarray:
    """(fields, points, 2) pixel positions of `offsets` (unit radius) around each centre."""
    pts = centres_mm[:, None, :] + offsets[None, :, :] * radius_mm
    px = project(H, pts.reshape(-1, 2)).reshape(len(centres_mm), len(offsets), 2)
    if shift_px is not None:
        px = px + shift_px[:, None, :]
    return px


def bare_board_grid(
    centres_mm: np.ndarray,
    field_radius: float,
    extent: tuple[float, float, float, float],
    keep_out: list[tuple[float, float, float, float]],
    round_keep_out: list[tuple[float, float, float]],
) -> np.ndarray:
    """Grid points on bare board: away from fields, from rectangles and from circles (x, y, r)."""
    x0, y0, x1, y1 = extent
    xs = np.arange(x0, x1 + 1e-9, GRID_STEP_MM)
    ys = np.arange(y0, y1 + 1e-9, GRID_STEP_MM)
    g = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    d = np.linalg.norm(g[:, None, :] - centres_mm[None, :, :], axis=2).min(axis=1)
    keep = d > GRID_CLEARANCE * field_radius
    for (rx0, ry0, rx1, ry1) in keep_out:
        keep &= ~((g[:, 0] >= rx0) & (g[:, 0] <= rx1) & (g[:, 1] >= ry0) & (g[:, 1] <= ry1))
    for (cx, cy, r) in round_keep_out:
        keep &= np.hypot(g[:, 0] - cx, g[:, 1] - cy) > r
    return g[keep]
