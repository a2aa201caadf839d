"""The light on the board: a smooth per-channel model fitted to bare-board grid points.

Camera light is uneven (gradient, vignette, tint, flicker) but smooth across the board, so
a cubic polynomial in board coordinates, fitted in log space, captures it. Everything that
the smooth model cannot explain on bare board is something on the board: a hand, an arm,
its shadow. Colours of fields are divided by the model at the field, which makes them
comparable across the board and across frames (a red piece reads the same in a dim corner
as under the lamp).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Board coordinates are scaled into about [-1, 1] before taking powers.
COORD_SCALE_MM = 350.0
LOG_OFFSET = 4.0  # keeps log() of black pixels finite and damps sensor noise on dark colours
SATURATED_LOG = float(np.log(235.0 + LOG_OFFSET))  # log grey level above which a channel may clip
CLIP_LOG = float(np.log(255.0 + LOG_OFFSET))


def basis(points_mm: np.ndarray) -> np.ndarray:
    u = points_mm[:, 0] / COORD_SCALE_MM
    v = points_mm[:, 1] / COORD_SCALE_MM
    return np.stack([np.ones_like(u), u, v, u * u, u * v, v * v, u**3, u * u * v, u * v * v, v**3], axis=1)


def log_colour(values: np.ndarray) -> np.ndarray:
    return np.log(values.astype(np.float32) + np.float32(LOG_OFFSET))


@dataclass(frozen=True)
class LightFit:
    coef: np.ndarray  # (terms, 3)
    residual: np.ndarray  # (grid, 3) observed minus model, log units
    inlier: np.ndarray  # (grid,) bool


def robust_fit(A: np.ndarray, y: np.ndarray, pinv: np.ndarray | None = None, rounds: int = 2,
               tol: float = 0.07) -> LightFit:
    """Least squares, then refits (normal equations: cheap) without points off by more than `tol`.

    A fixed tolerance rather than a robust sigma: the sensor noise on a grid point is a few
    percent at worst, and a hand or shadow is far beyond that; medians here cost more than
    the whole rest of a reading.
    """
    coef = (pinv if pinv is not None else np.linalg.pinv(A)) @ y
    res = y - A @ coef
    inlier = np.ones(len(y), dtype=bool)
    for _ in range(rounds):
        new = (np.abs(res) <= tol).all(axis=1)
        if new.sum() < A.shape[1] * 3 or (new == inlier).all():
            break
        inlier = new
        Ai = A[inlier]
        coef = np.linalg.solve(Ai.T @ Ai, Ai.T @ y[inlier])
        res = y - A @ coef
    return LightFit(coef.astype(np.float32), res.astype(np.float32), inlier)
