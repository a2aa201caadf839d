"""Where a reading looks, laid out in board millimetres once, turned into pixel indices.

Reading a frame never warps it: every place we look at (field centre patches, a grid of
bare board, the disc art) is a small array of flat pixel indices into the frame, computed
from the homography at calibration and again only when the camera is seen to move.
"""
from __future__ import annotations

import math

import numpy as np

from vision.markers import project

CENTRE_RADIUS = 0.38  # of the field radius: inside a piece even when it stands 2 mm off-centre
CENTRE_POINTS = 21
MARKED_RADIUS = 0.6  # royal boards: the patch reaches the body around the marked head, still on a 2 mm off piece
MARKED_POINTS = 45
STRUCTURE_RADIUS = 1.1  # of the field radius: the whole field and its rim, short of a neighbour's piece
STRUCTURE_POINTS = 121
CELL_RINGS = (0.28, 0.56, 0.83)  # field radii: the centre disc's edge and the rings' (structure_cells)
STRUCTURE_CELLS = 1 + 4 * len(CELL_RINGS)
GRID_STEP_MM = 12.0
GRID_CLEARANCE = 1.75  # field radii kept clear around every field (pieces, their shadows, LED rings)
DISC_RADII_MM = (12.0, 20.0, 28.0, 36.0, 44.0)
DISC_ANGLES = 36  # a multiple of 4, so that a quarter turn maps the pattern onto itself


def centre_offsets(n: int = CENTRE_POINTS) -> np.ndarray:
    """A sunflower (Vogel) spiral: evenly spread points in the unit disc, deterministic."""
    k = np.arange(n) + 0.5
    r = np.sqrt(k / n)
    a = k * math.pi * (3 - math.sqrt(5))
    return np.stack([r * np.cos(a), r * np.sin(a)], axis=1)


def centre_points_mm(centres_mm: np.ndarray, field_radius_mm: float, marked: bool = False) -> np.ndarray:
    """(fields, points, 2) board positions of every field's centre patch.

    `marked`: pieces carry a white or black rank mark on the head (royal: a crown covers
    most of a small patch), so a wider patch is read, in which the mark is a minority
    and the median is the body's colour.
    """
    if marked:
        return centres_mm[:, None, :] + centre_offsets(MARKED_POINTS)[None, :, :] * (MARKED_RADIUS * field_radius_mm)
    return centres_mm[:, None, :] + centre_offsets()[None, :, :] * (CENTRE_RADIUS * field_radius_mm)


def structure_points_mm(centres_mm: np.ndarray, field_radius_mm: float) -> np.ndarray:
    """(fields, points, 2): a denser spiral over each whole field, for telling a pale piece from an empty field."""
    return centres_mm[:, None, :] + centre_offsets(STRUCTURE_POINTS)[None, :, :] * (STRUCTURE_RADIUS * field_radius_mm)


def structure_cells() -> np.ndarray:
    """(STRUCTURE_POINTS,) which of STRUCTURE_CELLS patches of a field each structure point lies in.

    A disc at the centre and three rings (to STRUCTURE_RADIUS), the rings cut in quarters:
    a pale piece differs from its field in patches this size (its shading, its colour, its
    shadow), sensor noise from point to point; a patch's mean keeps the one and averages the
    other away.
    """
    p = centre_offsets(STRUCTURE_POINTS)  # unit disc, scaled by STRUCTURE_RADIUS field radii
    r = np.hypot(p[:, 0], p[:, 1]) * STRUCTURE_RADIUS
    quarter = (np.floor((np.arctan2(p[:, 1], p[:, 0]) + math.pi) / (math.pi / 2)).astype(np.int64)) % 4
    ring = np.searchsorted(np.array(CELL_RINGS), r, side="right")  # 0 = the centre disc
    return np.where(ring == 0, 0, 1 + 4 * (ring - 1) + quarter)


def disc_points_mm() -> np.ndarray:
    """(radii * angles, 2); index = ring * DISC_ANGLES + angle step."""
    a = np.arange(DISC_ANGLES) * 2 * math.pi / DISC_ANGLES
    return np.concatenate([np.stack([r * np.cos(a), r * np.sin(a)], axis=1) for r in DISC_RADII_MM])


def disc_turn_index(quarters: int) -> np.ndarray:
    """Index map: point i after `quarters` clockwise quarter turns lands on point out[i]."""
    q = DISC_ANGLES // 4
    idx = np.arange(len(DISC_RADII_MM) * DISC_ANGLES)
    ring, step = divmod(idx, DISC_ANGLES)
    return ring * DISC_ANGLES + (step + q * quarters) % DISC_ANGLES


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


def flat_index(H: np.ndarray, points_mm: np.ndarray, width: int, height: int) -> np.ndarray | None:
    """Flat pixel indices (same leading shape as points_mm) or None if any point leaves the frame."""
    shape = points_mm.shape[:-1]
    px = project(H, points_mm.reshape(-1, 2))
    xy = np.rint(px).astype(np.int64)
    if (xy[:, 0] < 0).any() or (xy[:, 0] >= width).any() or (xy[:, 1] < 0).any() or (xy[:, 1] >= height).any():
        return None
    return (xy[:, 1] * width + xy[:, 0]).reshape(shape)
