"""Calibrating one setup: the stages in order, from pictures to a Calibration.

`calibrate()` needs a frame of the empty board and, to learn the colours, a frame of a known
position (normally the start position: every piece in its kennel), and optionally frames of
the empty board with LED rings lit. The stages each have their module: where the board lies
(vision.placement), each field's empty look and each seat's colour (vision.colour_learning),
the LED glow (vision.glow_learning); the result and its file form are vision.calibration_record.
The reader (vision.reader) reads with what calibration learned, and calibrating measures its
pictures with a reader: so this module imports the reader, never the other way round.

The names other rooms use are importable from here as well as from their own modules.
"""
from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

import cv2
import numpy as np

import engine
from vision.calibration_record import Calibration, load_calibration, parse_calibration
from vision.colour_learning import choose_sample_height, default_start, learn_colours
from vision.errors import CalibrationError
from vision.fields import refine_homography
from vision.glow_learning import glow_groups, learn_glow
from vision.light import basis, log_colour, robust_fit
from vision.markers import homography_from_markers, local_scale, project, to_gray
from vision.placement import (
    average_frames, find_markers, fit_lens_to_board, flat_points, grid_candidates, marker_templates,
)
from vision.reader import BoardReader
from vision.sampling import centre_points_mm, flat_index
from vision.tuning import MIN_GRID_POINTS, OWN_WARN_SIGMA

__all__ = [
    "Calibration", "calibrate", "choose_sample_height", "default_start", "glow_groups", "learn_colours", "learn_glow",
    "load_calibration", "parse_calibration",
]

log = logging.getLogger(__name__)


def calibrate(
    empty: np.ndarray | list[np.ndarray],
    segments: int = 4,
    board_kind: str = "standard",
    start: np.ndarray | list[np.ndarray] | None = None,
    start_occupancy: dict[str, str] | None = None,
    disc_orientation: int = 0,
    refine: bool = True,
    lit_frames: Iterable[tuple[np.ndarray, Mapping[str, tuple[int, int, int]]]] | None = None,
) -> Calibration:
    """Calibrate from a frame of the empty board (and learn colours from `start` if given).

    `lit_frames`: frames of the empty board with LED rings lit (field -> (r, g, b)), e.g. one
    per `glow_groups()` group and LED colour: fields next to lit LEDs are then read against
    their lit look (pale seats only; other boards do not need it).

    `empty` and `start` may each be several pictures of the same still scene (a camera's
    consecutive frames): the empty board is learned from their mean, the colours from the
    median of each picture's own reading (each with its own light fit, so that auto
    exposure and white balance drifting between them do not matter).
    """
    one_empty = empty if isinstance(empty, np.ndarray) else empty[0]  # one picture: as noisy as a reading's
    empty = average_frames(empty, "empty-board image")
    geo = engine.load_geometry(segments)
    board = engine.load_board(board_kind, segments)
    found = find_markers(empty, "empty-board image", geo)
    H0 = homography_from_markers(geo, found)
    ids = tuple(geo.centres)
    centres = np.array([geo.centres[f] for f in ids])
    scale = local_scale(H0, (0.0, 0.0))
    report: dict[str, Any] = {"pixels_per_mm": round(scale, 3)}
    H = H0
    lens = None
    if refine:
        fit = refine_homography(empty, H0, centres, geo.field_radius, scale)
        report.update(fields_found=fit.matched, fields_total=fit.total, refined=fit.refined,
                      median_error_px=None if math.isnan(fit.median_error_px) else round(fit.median_error_px, 3))
        H = fit.homography
        if fit.refined:
            shift = np.linalg.norm(project(H, centres) - project(H0, centres), axis=1)
            report["marker_vs_fields_px"] = round(float(shift.max()), 2)
            lens = fit_lens_to_board(geo, found, fit, (empty.shape[1], empty.shape[0]), H)
            if lens is not None:
                report.update(lens_k1=round(float(lens.dist[0]), 4), lens_k2=round(float(lens.dist[1]), 4),
                              lens_rms_px=round(lens.rms_px, 3))
    h, w = empty.shape[:2]
    pts = centre_points_mm(centres, geo.field_radius)
    if flat_index(H, pts, w, h) is None:
        px = project(H, centres)
        out = [fid for fid, (x, y) in zip(ids, px) if not (0 <= x < w and 0 <= y < h)]
        raise CalibrationError(
            f"field{'s' if len(out) > 1 else ''} {', '.join(out[:6]) or 'near the edge'} "
            "lie outside the picture: move the camera so the whole board is in view"
        )
    gray = to_gray(empty)
    grid = grid_candidates(geo, board)
    grid = grid[flat_points(gray, H, grid)]
    if len(grid) < MIN_GRID_POINTS:
        raise CalibrationError(
            f"only {len(grid)} patches of bare board are visible and flat in the empty-board image "
            "(need 60): is the board empty, in focus and fully in view?"
        )
    smooth = cv2.blur(empty, (3, 3))
    gidx = flat_index(H, grid, w, h)
    assert gidx is not None
    ref = log_colour(smooth.reshape(-1, 3)[gidx])
    fitted = robust_fit(basis(grid), ref)
    report["grid_points"] = int(len(grid))
    cal = Calibration(
        segments=segments,
        board_kind=board_kind,
        resolution=(w, h),
        homography=H,
        field_ids=ids,
        centres_mm=centres,
        field_radius_mm=geo.field_radius,
        grid_mm=grid,
        grid_reflect=fitted.residual,
        marker_templates=marker_templates(gray, H, geo),
        empty_features=np.zeros((len(ids), 3), np.float32),
        disc_orientation=disc_orientation,
        discard_centre_mm=geo.discard_centre,
        discard_size_mm=geo.discard_size,
        report=report,
    )
    reader = BoardReader(cal)
    m = reader.measure(empty)
    if m.covered:
        raise CalibrationError(
            "something seems to cover the board in the empty-board image (a hand, a cable, a shadow?): take it again"
        )
    disc_ref = m.disc_colours if board.disc_fields else None
    cal = replace(cal, empty_features=m.features, disc_reference=disc_ref)
    if start is not None:
        occupancy = start_occupancy or default_start("black" if board_kind == "black" else "classic", segments)
        starts = [start] if isinstance(start, np.ndarray) else list(start)
        cal = choose_sample_height(cal, empty, starts, occupancy, lens)
        cal = learn_colours(cal, starts, occupancy, empty=empty)
        noise = BoardReader(cal).own_colour_noise(one_empty)
        if noise is not None:
            cal.report["own_colour_sigma"] = round(noise, 3)
            if noise > OWN_WARN_SIGMA:
                # not a refusal: the board reads, but empty kennel and home holes will often be unknown
                warning = (f"the light is low for reading: the camera's noise leaves empty kennel and home fields "
                           f"hard to tell from pieces (noise {noise:.2f}, at most {OWN_WARN_SIGMA} reads reliably); "
                           "put more light on the board and calibrate again")
                cal.report.setdefault("warnings", []).append(warning)
                log.warning("%s", warning)
        if lit_frames is not None and cal.empty_pattern is not None:
            cal = learn_glow(cal, lit_frames)
    return cal


calibrate.multi_frame = True  # type: ignore[attr-defined]  # tells scripts it takes lists of frames
