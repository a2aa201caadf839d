"""Where the board lies in a picture of the empty board: markers, homography, bare board, lens.

The first stage of calibrating (vision.calibration): the four markers give a homography,
refined on the printed field circles (vision.fields); the bare-board grid points that look
flat in the empty frame carry the light model; grey templates of the markers let the reader
follow the camera; and the field circles with the markers' corners fit the lens
(vision.camera) where that explains them better than the plane's homography.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import cv2
import numpy as np

import engine
from vision.camera import Lens, fit_lens
from vision.errors import CalibrationError
from vision.fields import FieldFit
from vision.markers import (
    MARKER_IDS, describe_missing, detect_markers, homography_from_markers, local_scale, marker_board_corners, project,
    to_gray,
)
from vision.sampling import bare_board_grid
from vision.tuning import GLARE_SHARE, GLARE_WHITE, GRID_FLAT_MAX_GRADIENT, GRID_FLAT_RADIUS_PX, TEMPLATE_SCALE


def check_frame(frame: Any, what: str = "image") -> np.ndarray:
    """The picture as a contiguous BGR uint8 array, or a CalibrationError saying what it must be."""
    if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
        raise CalibrationError(f"the {what} must be a colour picture (BGR, 8 bits per channel)")
    return np.ascontiguousarray(frame)


def find_markers(frame: np.ndarray, what: str, geometry: engine.BoardGeometry | None = None) -> dict[int, np.ndarray]:
    """All four markers' corners in the picture, or a CalibrationError naming the missing ones (and glare)."""
    found = detect_markers(frame)
    if len(found) < 4 and len(found) >= 2 and geometry is not None:
        glare = _glaring(frame, geometry, found)
        if glare:
            mid, share = glare
            raise CalibrationError(
                f"{describe_missing({m for m in MARKER_IDS if m != mid})} is in glare in the {what} "
                f"({share:.0%} of it is pure white): move the lamp or turn the board a little so that the "
                "light does not reflect on that corner"
            )
    if len(found) < 4:
        if not found:
            raise CalibrationError(
                f"no markers found in the {what}: the four ArUco markers (DICT_4X4_50, ids 0-3) must be on the "
                "board's corners and in view, in focus and not glaring"
            )
        raise CalibrationError(
            f"{describe_missing(found)} not found in the {what} (found {', '.join(map(str, sorted(found)))}): "
            "make sure all four board corners are in view and uncovered"
        )
    return found


def _glaring(frame: np.ndarray, geo: engine.BoardGeometry, found: dict[int, np.ndarray]) -> tuple[int, float] | None:
    """(marker id, clipped share) of a missing marker whose spot is mostly clipped white, if any."""
    H = homography_from_markers(geo, found)
    gray = to_gray(frame)
    for mid in MARKER_IDS:
        if mid in found:
            continue
        px = project(H, marker_board_corners(geo, mid))
        x0, y0 = np.floor(px.min(axis=0)).astype(int)
        x1, y1 = np.ceil(px.max(axis=0)).astype(int)
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, gray.shape[1]), min(y1, gray.shape[0])
        if x1 - x0 < 4 or y1 - y0 < 4:
            continue
        share = float((gray[y0:y1, x0:x1] >= GLARE_WHITE).mean())
        if share >= GLARE_SHARE:
            return mid, share
    return None


def grid_candidates(geo: engine.BoardGeometry, board: engine.Board) -> np.ndarray:
    """Bare-board points to carry the light model: away from the rim, the fields, the markers, the discard and the disc."""
    half_w, half_h = geo.size[0] / 2, geo.size[1] / 2
    margin = 14.0  # the board's rim and the table beyond it
    keep_out = []
    for (cx, cy), side in geo.markers.values():
        h = side * 0.75 + 6
        keep_out.append((cx - h, cy - h, cx + h, cy + h))
    (dx, dy), (dw, dh) = geo.discard_centre, geo.discard_size
    keep_out.append((dx - dw / 2 - 14, dy - dh / 2 - 14, dx + dw / 2 + 14, dy + dh / 2 + 14))
    rounds = []
    if board.disc_fields:
        rounds.append((0.0, 0.0, geo.disc_radius + 8.0))  # the disc's art turns with it
    centres = np.array(list(geo.centres.values()))
    return bare_board_grid(centres, geo.field_radius, (-half_w + margin, -half_h + margin, half_w - margin, half_h - margin),
                           keep_out, rounds)


def flat_points(gray: np.ndarray, H: np.ndarray, pts_mm: np.ndarray) -> np.ndarray:
    """Mask of grid points whose surroundings in the empty frame are flat print."""
    # Blur first: sensor noise is not print, and must not make flat board look busy.
    soft = cv2.GaussianBlur(gray, (0, 0), 1.5)
    gx = cv2.Sobel(soft, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(soft, cv2.CV_32F, 0, 1, ksize=3)
    mag = cv2.magnitude(gx, gy) / 4.0
    k = 2 * GRID_FLAT_RADIUS_PX + 1
    mag = cv2.dilate(mag, np.ones((k, k), np.uint8))
    px = np.rint(project(H, pts_mm)).astype(int)
    h, w = gray.shape
    inside = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
    ok = np.zeros(len(pts_mm), dtype=bool)
    ok[inside] = mag[px[inside, 1], px[inside, 0]] < GRID_FLAT_MAX_GRADIENT
    return ok


def marker_templates(gray: np.ndarray, H: np.ndarray, geo: engine.BoardGeometry) -> tuple[np.ndarray, ...]:
    """Grey patches around the four markers in the empty frame, for the reader to follow the camera by."""
    out = []
    for mid in MARKER_IDS:
        (cx, cy), side = geo.markers[mid]
        c = project(H, np.array([[cx, cy]]))[0]
        half = int(math.ceil(side * TEMPLATE_SCALE / 2 * local_scale(H, (cx, cy))))
        x0, y0 = int(round(c[0])) - half, int(round(c[1])) - half
        if x0 < 0 or y0 < 0 or x0 + 2 * half + 1 > gray.shape[1] or y0 + 2 * half + 1 > gray.shape[0]:
            raise CalibrationError(f"marker {mid} is too close to the picture's edge: move the camera so the board is fully in view")
        out.append(gray[y0 : y0 + 2 * half + 1, x0 : x0 + 2 * half + 1].copy())
    return tuple(out)


def average_frames(frames: np.ndarray | Iterable[np.ndarray], what: str) -> np.ndarray:
    """One frame, or the mean of several of the same still scene (sensor and JPEG noise averaged out)."""
    if isinstance(frames, np.ndarray):
        return check_frame(frames, what)
    shots = [check_frame(f, what) for f in frames]
    if not shots:
        raise CalibrationError(f"no {what} given")
    if any(f.shape != shots[0].shape for f in shots):
        raise CalibrationError(f"the {what}s differ in size: use the same camera setting for all of them")
    if len(shots) == 1:
        return shots[0]
    return np.clip(np.rint(np.mean(np.stack(shots), axis=0)), 0, 255).astype(np.uint8)


def fit_lens_to_board(geo: engine.BoardGeometry, found: dict[int, np.ndarray], fit: FieldFit, size: tuple[int, int],
                      H: np.ndarray) -> Lens | None:
    """The lens (vision/camera.py) from the field circles found and the markers' corners."""
    if fit.matched_mm is None:
        return None
    mm = np.concatenate([fit.matched_mm] + [marker_board_corners(geo, m) for m in sorted(found)])
    px = np.concatenate([fit.matched_px] + [found[m] for m in sorted(found)])
    lens = fit_lens(mm, px, size, H)
    if lens is None:
        return None
    # keep it only if it explains the circles better than the homography does
    plain = float(np.sqrt(np.mean(np.sum((project(H, mm) - px) ** 2, axis=1))))
    return lens if lens.rms_px < plain else None

