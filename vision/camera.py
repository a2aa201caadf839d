"""The camera's pose from the board homography, and where a standing piece's body appears.

A pawn is ~25 mm tall. A camera tilted over the board sees its head displaced from its foot
along the view direction (away from the point under the camera), by up to half a field on
the far side of the board at 25 deg: sampling the field's printed centre then reads half
piece, half board. So reading samples each field where a piece's body appears at the
height that calibration found best (`sample_height_mm`), given the camera's pose.

The pose comes from the board-to-picture homography H = K [r1 r2 t] (Zhang), with the
principal point at the picture's centre and square pixels; the focal length from the
homography's own constraints (r1 . r2 = 0, |r1| = |r2|), or a typical webcam's when the
camera looks straight down and the homography cannot tell it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import cv2

from vision.markers import project

TYPICAL_FOCAL = 0.8  # of the picture width: a 64 deg wide webcam lens
MIN_FOCAL, MAX_FOCAL = 0.3, 4.0  # of the picture width: outside this the estimate is noise


def focal_from_homography(H: np.ndarray, size: tuple[int, int]) -> float:
    """Focal length in pixels from one plane's homography (principal point at the centre)."""
    w, h = size
    T = np.array([[1, 0, -(w - 1) / 2], [0, 1, -(h - 1) / 2], [0, 0, 1]], float)
    G = T @ H
    g1, g2 = G[:, 0], G[:, 1]
    # rows: a * (1/f^2) + b = 0 for the two constraints
    a = np.array([g1[0] * g2[0] + g1[1] * g2[1], g1[0] ** 2 + g1[1] ** 2 - g2[0] ** 2 - g2[1] ** 2])
    b = np.array([g1[2] * g2[2], g1[2] ** 2 - g2[2] ** 2])
    # a's scale is pixels^2, b's is 1: weigh both constraints alike
    scale = np.abs(a).max() + 1e-12
    an, bn = a / scale, b
    denom = float((bn * bn).sum())
    if denom > 1e-18:
        u = -float((an * bn).sum()) / float((an * an).sum() + 1e-18) / scale
        if u > 0:
            f = 1 / np.sqrt(u)
            if MIN_FOCAL * w <= f <= MAX_FOCAL * w:
                return float(f)
    return TYPICAL_FOCAL * w


def pose_from_homography(H: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(K, R, t) of a pinhole camera that maps board mm (z = 0) as H does (nearly)."""
    w, h = size
    f = focal_from_homography(H, size)
    K = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]], float)
    M = np.linalg.inv(K) @ H
    lam = 2.0 / (np.linalg.norm(M[:, 0]) + np.linalg.norm(M[:, 1]))
    if M[2, 2] * lam < 0:  # the board lies in front of the camera
        lam = -lam
    r1, r2, t = M[:, 0] * lam, M[:, 1] * lam, M[:, 2] * lam
    r1 /= np.linalg.norm(r1)
    r2 = r2 - r1 * (r1 @ r2)
    r2 /= np.linalg.norm(r2)
    R = np.stack([r1, r2, np.cross(r1, r2)], axis=1)
    return K, R, t


def raised_points_mm(H: np.ndarray, size: tuple[int, int], points_mm: np.ndarray, height_mm: float) -> np.ndarray:
    """Board points whose picture under H is where points `height_mm` above them appear.

    The shift is taken from the pinhole model as a difference (raised minus foot), added
    to H's own projection of the foot, so that H's fit to the markers and field circles
    (and whatever lens distortion it absorbed) still places the foot.
    """
    pts = np.asarray(points_mm, float).reshape(-1, 2)
    if height_mm == 0:
        return pts.copy()
    K, R, t = pose_from_homography(H, size)
    n = R[:, 2]
    centre = -R.T @ t
    if n[2] * centre[2] < 0 or (centre @ n) < 0:  # the normal must point towards the camera
        n = -n
    foot = np.concatenate([pts, np.zeros((len(pts), 1))], axis=1)
    # world z is along R's third column in board coordinates: raise along the board normal
    up = np.array([0.0, 0.0, 1.0]) if (centre[2] > 0) else np.array([0.0, 0.0, -1.0])
    top = foot + height_mm * up

    def proj(X: np.ndarray) -> np.ndarray:
        c = X @ R.T + t
        p = c @ K.T
        return p[:, :2] / p[:, 2:3]

    px = project(H, pts) + (proj(top) - proj(foot))
    back = project(np.linalg.inv(H), px)
    return back


# --- lens distortion ---------------------------------------------------------------------
MIN_LENS_POINTS = 30  # field circles (and marker corners) needed to fit the lens
MAX_K = 1.0  # |k1|, |k2| beyond this is a bad fit, not a lens


@dataclass(frozen=True)
class Lens:
    """A pinhole camera with radial distortion (k1, k2), fitted to one view of the board."""

    K: np.ndarray
    dist: np.ndarray  # (k1, k2, p1, p2, k3) with p1 = p2 = k3 = 0
    rvec: np.ndarray
    tvec: np.ndarray
    rms_px: float

    def pixels(self, points_mm: np.ndarray, height_mm: float = 0.0) -> np.ndarray:
        """Where board points (raised by `height_mm` towards the camera) appear in the picture."""
        pts = np.asarray(points_mm, float).reshape(-1, 2)
        R, _ = cv2.Rodrigues(self.rvec)
        centre = -R.T @ self.tvec.reshape(3)
        up = 1.0 if centre[2] > 0 else -1.0
        obj = np.concatenate([pts, np.full((len(pts), 1), up * height_mm)], axis=1)
        px, _ = cv2.projectPoints(obj, self.rvec, self.tvec, self.K, self.dist)
        return px.reshape(-1, 2)


def fit_lens(points_mm: np.ndarray, points_px: np.ndarray, size: tuple[int, int], H: np.ndarray) -> Lens | None:
    """Radial distortion from one view: cv2.calibrateCamera on the field circles and marker
    corners, with the focal length from the homography and the principal point at the
    centre held fixed (one view of a plane cannot tell them apart from the tilt), k1 and
    k2 free. None if there are too few points or the fit is implausible."""
    if len(points_mm) < MIN_LENS_POINTS:
        return None
    w, h = size
    f = focal_from_homography(H, size)
    K0 = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]], float)
    obj = np.concatenate([np.asarray(points_mm, np.float32), np.zeros((len(points_mm), 1), np.float32)], axis=1)
    img = np.asarray(points_px, np.float32).reshape(-1, 1, 2)
    flags = (cv2.CALIB_USE_INTRINSIC_GUESS | cv2.CALIB_FIX_PRINCIPAL_POINT | cv2.CALIB_FIX_FOCAL_LENGTH
             | cv2.CALIB_FIX_ASPECT_RATIO | cv2.CALIB_ZERO_TANGENT_DIST | cv2.CALIB_FIX_K3)
    try:
        rms, K, dist, rvecs, tvecs = cv2.calibrateCamera([obj], [img], (w, h), K0, np.zeros(5), flags=flags)
    except cv2.error:
        return None
    dist = dist.ravel()
    if not np.isfinite(rms) or abs(dist[0]) > MAX_K or abs(dist[1]) > MAX_K:
        return None
    return Lens(K, dist, rvecs[0], tvecs[0], float(rms))
