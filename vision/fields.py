"""Locating the fields on a frame of the empty board: circles fitted to the board geometry.

The markers give a first homography; a user's markers are never stuck exactly where the
geometry file says, so we then look for the printed field circles themselves, pair each
with the field the first homography predicts nearby, and fit the final homography to the
fields (RANSAC, so a stray circle in the artwork cannot pull it). If too few circles are
found the marker homography stands, and the report says so.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

import cv2
import numpy as np

from vision.markers import project, to_gray

log = logging.getLogger(__name__)

MIN_MATCHED_FRACTION = 0.5


@dataclass(frozen=True)
class FieldFit:
    homography: np.ndarray
    matched: int
    total: int
    median_error_px: float  # detected circle centre vs fitted field centre
    refined: bool
    matched_mm: np.ndarray | None = None  # (k, 2) the fields whose circle was found (RANSAC inliers)
    matched_px: np.ndarray | None = None  # (k, 2) their circles' centres in the picture


def refine_homography(
    frame: np.ndarray, H0: np.ndarray, centres_mm: np.ndarray, field_radius_mm: float, pixels_per_mm: float
) -> FieldFit:
    gray = cv2.GaussianBlur(to_gray(frame), (3, 3), 0)
    r_px = field_radius_mm * pixels_per_mm
    predicted = project(H0, centres_mm)
    x0, y0 = np.floor(predicted.min(axis=0) - 3 * r_px).astype(int)
    x1, y1 = np.ceil(predicted.max(axis=0) + 3 * r_px).astype(int)
    h, w = gray.shape
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    roi = gray[y0:y1, x0:x1]
    circles = cv2.HoughCircles(
        roi, cv2.HOUGH_GRADIENT, dp=1, minDist=max(2.0, 1.2 * r_px),
        param1=80, param2=max(6.0, 1.2 * r_px), minRadius=max(2, int(0.6 * r_px)), maxRadius=int(np.ceil(1.5 * r_px)),
    )
    n = len(centres_mm)
    if circles is None:
        log.info("no field circles found; keeping the marker homography")
        return FieldFit(H0, 0, n, float("nan"), False)
    det = circles[0, :, :2].astype(np.float64) + np.array([x0, y0])
    # Pair each field with the nearest circle, and only if that circle is nearest to it too.
    d = np.linalg.norm(predicted[:, None, :] - det[None, :, :], axis=2)
    nearest = d.argmin(axis=1)
    back = d.argmin(axis=0)
    ok = (d[np.arange(n), nearest] < 0.6 * r_px) & (back[nearest] == np.arange(n))
    matched = int(ok.sum())
    if matched < max(8, MIN_MATCHED_FRACTION * n):
        log.info("only %d of %d field circles found; keeping the marker homography", matched, n)
        return FieldFit(H0, matched, n, float("nan"), False)
    src = centres_mm[ok]
    dst = det[nearest[ok]]
    H, inliers = cv2.findHomography(src, dst, cv2.RANSAC, max(1.0, 0.25 * r_px))
    if H is None:
        return FieldFit(H0, matched, n, float("nan"), False)
    H = H / H[2, 2]
    err = np.linalg.norm(project(H, src) - dst, axis=1)
    keep = inliers.ravel().astype(bool)
    return FieldFit(H, int(inliers.sum()), n, float(np.median(err)), True, src[keep], dst[keep])
