"""ArUco corner markers: detection and the homography from board millimetres to pixels.

The four markers (DICT_4X4_50, ids 0-3) sit upright on the board's corners; their size in
the geometry file is the side of the outer black square, which is also what the detector
returns corners for (top-left, top-right, bottom-right, bottom-left).
"""
from __future__ import annotations

import logging

import cv2
import numpy as np

from engine import BoardGeometry

log = logging.getLogger(__name__)

MARKER_IDS = (0, 1, 2, 3)
MARKER_NAMES = {0: "top-left", 1: "top-right", 2: "bottom-right", 3: "bottom-left"}


def make_detector() -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    # Subpixel corners: the homography (and so every field centre) is only as good as these.
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    return cv2.aruco.ArucoDetector(dictionary, params)


def to_gray(frame: np.ndarray) -> np.ndarray:
    if frame.ndim == 2:
        return frame
    return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


def make_relaxed_detector() -> cv2.aruco.ArucoDetector:
    """For small, soft or compressed markers (a far corner under tilt, defocus, JPEG): wider
    threshold windows, looser outline fit and a wider margin ignored at each bit's edge."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.polygonalApproxAccuracyRate = 0.06
    params.perspectiveRemoveIgnoredMarginPerCell = 0.25
    params.adaptiveThreshWinSizeMax = 53
    params.adaptiveThreshWinSizeStep = 8
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)


def detect_markers(frame: np.ndarray, detector: cv2.aruco.ArucoDetector | None = None) -> dict[int, np.ndarray]:
    """Marker id (0-3 only) -> its 4 corners in pixels, shape (4, 2) float64.

    Tries, until all four are found: the picture as it is; sharpened and doubled; doubled (cubic) with the relaxed
    detector; doubled after local contrast equalisation (CLAHE: a marker in a lamp's
    glare); tripled; doubled and tripled with the highlights stretched (`_highlights`: a
    marker deep in glare). Each pass only adds markers not found yet.
    """
    detector = detector or make_detector()
    gray = to_gray(frame)
    found = _detect(detector, gray, 1.0)
    if len(found) < 4:
        relaxed = make_relaxed_detector()
        clahe = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(8, 8))
        soft = cv2.GaussianBlur(gray, (0, 0), 2.0)
        sharp = cv2.addWeighted(gray, 2.0, soft, -1.0, 0)
        passes = (
            lambda: (cv2.resize(sharp, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC), 2.0),
            lambda: (cv2.resize(gray, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC), 2.0),
            lambda: (cv2.resize(clahe.apply(gray), None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC), 2.0),
            lambda: (cv2.resize(gray, None, fx=3, fy=3, interpolation=cv2.INTER_CUBIC), 3.0),
            lambda: (cv2.resize(_highlights(gray, 4.0), None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC), 2.0),
            lambda: (cv2.resize(_highlights(gray, 6.0), None, fx=3, fy=3, interpolation=cv2.INTER_CUBIC), 3.0),
        )
        for make in passes:
            img, scale = make()
            for mid, c in _detect(relaxed, img, scale).items():
                found.setdefault(mid, c)
            if len(found) == 4:
                break
    return found


def _highlights(gray: np.ndarray, gamma: float) -> np.ndarray:
    """The bright tones spread out, the dark ones pressed together (a gamma of 4 to 6).

    A lamp's glare adds light to a marker: its black squares turn pale grey while the white
    ones clip, leaving little contrast between them in the top tenth of the grey levels.
    Spread, that contrast is enough for the detector's threshold again.
    """
    lut = (255.0 * (np.arange(256) / 255.0) ** gamma).round().astype(np.uint8)
    return cv2.LUT(gray, lut)


def _detect(detector: cv2.aruco.ArucoDetector, gray: np.ndarray, scale: float) -> dict[int, np.ndarray]:
    corners, ids, _ = detector.detectMarkers(gray)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for c, i in zip(corners, ids.ravel()):
        i = int(i)
        if i in MARKER_IDS and i not in found:  # a stray duplicate id is ignored, not averaged
            # Pixel centres: (x + 0.5) / scale - 0.5 maps the doubled picture back.
            found[i] = (np.asarray(c, dtype=np.float64).reshape(4, 2) + 0.5) / scale - 0.5
    return found


def marker_board_corners(geometry: BoardGeometry, marker_id: int) -> np.ndarray:
    (cx, cy), side = geometry.markers[marker_id]
    h = side / 2
    return np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]], dtype=np.float64)


def describe_missing(found: dict[int, np.ndarray] | set[int]) -> str:
    missing = [i for i in MARKER_IDS if i not in found]
    names = ", ".join(f"{i} ({MARKER_NAMES[i]})" for i in missing)
    return f"marker{'s' if len(missing) > 1 else ''} {names}"


def homography_from_markers(geometry: BoardGeometry, found: dict[int, np.ndarray]) -> np.ndarray:
    """Board mm -> pixel homography from every visible marker's corners (needs at least 2 markers)."""
    src = np.concatenate([marker_board_corners(geometry, i) for i in sorted(found)])
    dst = np.concatenate([found[i] for i in sorted(found)])
    H, _ = cv2.findHomography(src, dst, 0)
    if H is None:
        raise ValueError("markers are degenerate (all on a line?)")
    return H / H[2, 2]


def project(H: np.ndarray, points_mm: np.ndarray) -> np.ndarray:
    pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, H).reshape(-1, 2)


def local_scale(H: np.ndarray, point_mm: tuple[float, float], step: float = 1.0) -> float:
    """Pixels per millimetre around a board point (mean over x and y, so a tilt averages out)."""
    x, y = point_mm
    p = project(H, np.array([[x, y], [x + step, y], [x, y + step]]))
    return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / (2 * step))
