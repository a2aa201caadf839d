"""Camera pose and the homography from the board plane (millimetres) to image pixels.

World frame: the board's own (x right, y towards seat 0) with z pointing *into* the board,
so that a camera looking straight down with yaw 0 has its image axes along x and y and
seat 0 at the bottom of the picture.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np


@dataclass(frozen=True)
class CameraPose:
    """Where the camera hangs and how it looks at the board.

    height_mm: camera height above the board plane. tilt_deg: angle of the optical axis
    from vertical; the camera then sits on seat 0's side looking back at `target_mm`.
    yaw_deg: rotation about the vertical (positive turns the picture clockwise).
    focal_px: focal length in pixels (a Pi Camera v2 at 1280x720 is about 1000).
    target_mm: board point that lands at the principal point (image centre).
    """

    height_mm: float = 1100.0
    tilt_deg: float = 8.0
    yaw_deg: float = 0.0
    focal_px: float = 1000.0
    target_mm: tuple[float, float] = (0.0, 0.0)

    @classmethod
    def fitting(cls, board_size_mm: float, resolution: tuple[int, int] = (1280, 720), margin: float = 0.12,
                **changes: float) -> CameraPose:
        """A pose whose height shows a board of `board_size_mm` with `margin` of the frame spare
        (the default pose suits the 4-segment board; the 6-segment one is larger)."""
        pose = cls(**changes)  # type: ignore[arg-type]
        height = pose.focal_px * board_size_mm / (min(resolution) * (1 - margin))
        return replace(pose, height_mm=round(height, 1))

    def jittered(self, rng: np.random.Generator, deg: float, mm: float) -> CameraPose:
        """A slightly moved copy (a camera arm that wobbles, a bumped table)."""
        if deg <= 0 and mm <= 0:
            return self
        d = rng.normal(0.0, 1.0, 5)
        return replace(
            self,
            height_mm=self.height_mm + mm * d[0],
            tilt_deg=self.tilt_deg + deg * d[1],
            yaw_deg=self.yaw_deg + deg * d[2],
            target_mm=(self.target_mm[0] + mm * d[3], self.target_mm[1] + mm * d[4]),
        )

    def rotation(self) -> np.ndarray:
        """Camera-to-world rotation."""
        t, y = math.radians(self.tilt_deg), math.radians(self.yaw_deg)
        rx = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
        # Turning the camera by -yaw about the optical axis turns the picture by +yaw.
        rz = np.array([[math.cos(-y), -math.sin(-y), 0], [math.sin(-y), math.cos(-y), 0], [0, 0, 1]])
        return rz @ rx

    def centre(self) -> np.ndarray:
        """Camera position in the world frame (z negative: above the board)."""
        forward = self.rotation() @ np.array([0.0, 0.0, 1.0])
        d = self.height_mm / forward[2]
        tx, ty = self.target_mm
        return np.array([tx, ty, 0.0]) - d * forward

    def homography(self, resolution: tuple[int, int]) -> np.ndarray:
        """3x3 matrix taking board points [x_mm, y_mm, 1] to image pixels (homogeneous)."""
        w, h = resolution
        k = np.array([[self.focal_px, 0, (w - 1) / 2], [0, self.focal_px, (h - 1) / 2], [0, 0, 1]])
        r_w2c = self.rotation().T
        t = -r_w2c @ self.centre()
        m = k @ np.column_stack([r_w2c[:, 0], r_w2c[:, 1], t])
        return m / m[2, 2]


def project(h: np.ndarray, points_mm: np.ndarray) -> np.ndarray:
    """Board points (N, 2) in mm -> image points (N, 2) in pixels."""
    pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
    hom = np.column_stack([pts, np.ones(len(pts))]) @ h.T
    return hom[:, :2] / hom[:, 2:3]
