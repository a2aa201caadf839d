"""Calibration: markers -> homography -> fields -> light reference -> learned colours; saved as JSON.

One calibration per setup (camera, board, light). `calibrate()` needs a frame of the empty
board and, to learn the colours, a frame of a known position (normally the start position:
every piece in its kennel). The file is versioned and validated on load; a file from
another version, a damaged file or one for another camera resolution is refused with a
message saying what to do.
"""
from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from collections.abc import Iterable, Mapping
from typing import Any

import cv2
import numpy as np

import engine
from vision.errors import CalibrationError, CalibrationFileError
from vision.features import MAX_DISTANCE, MIN_MARGIN, distances, soft
from vision.fields import refine_homography
from vision.light import SATURATED_LOG, basis, log_colour, robust_fit
from vision.markers import (
    MARKER_IDS, describe_missing, detect_markers, homography_from_markers, local_scale, project, to_gray,
)
from vision.sampling import (
    STRUCTURE_CELLS, STRUCTURE_POINTS, bare_board_grid, centre_points_mm, flat_index, structure_cells,
    structure_points_mm,
)

log = logging.getLogger(__name__)

FORMAT = "dogtable-vision-calibration"
VERSION = 1
# Bare board must look flat in the empty frame this close around a grid point (pixels), so
# that a wobbling camera still samples the same flat print.
GRID_FLAT_RADIUS_PX = 5
GRID_FLAT_MAX_GRADIENT = 6.0
MIN_GRID_POINTS = 60
TEMPLATE_SCALE = 1.5  # marker template side, in marker sides (includes the white quiet zone)
# The black dog, if it is not in the start frame: a dark, colourless piece.
DEFAULT_DOG = (-1.9, 0.0, 0.0)
PALE_SEAT_DISTANCE = MAX_DISTANCE  # a seat's colour nearer its kennel's empty look: told by the pattern (learn_colours)


@dataclass(frozen=True, eq=False)
class Calibration:
    segments: int
    board_kind: str
    resolution: tuple[int, int]
    homography: np.ndarray  # board mm -> pixels
    field_ids: tuple[str, ...]
    centres_mm: np.ndarray  # (fields, 2)
    field_radius_mm: float
    grid_mm: np.ndarray  # (grid, 2) bare-board points
    grid_reflect: np.ndarray  # (grid, 3) log colour of each grid point minus the empty frame's light
    marker_templates: tuple[np.ndarray, ...]  # grey patches around markers 0-3 in the empty frame
    empty_features: np.ndarray  # (fields, 3)
    seat_features: dict[int, np.ndarray] = field(default_factory=dict)  # seat -> (3,)
    dog_feature: np.ndarray | None = None
    dog_learned: bool = False
    disc_orientation: int = 0
    disc_reference: np.ndarray | None = None  # (disc points, 3) light-corrected log colours
    discard_centre_mm: tuple[float, float] = (0.0, 0.0)
    discard_size_mm: tuple[float, float] = (63.0, 88.0)
    cards_path: str | None = None
    report: dict[str, Any] = field(default_factory=dict)
    # Seats whose pieces have nearly the empty field's colour (white on a cream board): told
    # apart by the field's pattern against the empty field's own, learned here.
    pale_seats: tuple[int, ...] = ()
    empty_pattern: np.ndarray | None = None  # (fields, STRUCTURE_POINTS, 3) light-corrected log colours
    # LED glow on the empty board, learned with the rings lit (`learn_glow`): per LED colour
    # (r, g, b), how each field's pattern changes with its own ring lit; and how far a ring's
    # light reaches (mm from the lit field's centre), beyond which it does not disturb a pattern.
    glow_colours: tuple[tuple[int, int, int], ...] = ()
    glow_pattern: np.ndarray | None = None  # (colours, fields, STRUCTURE_POINTS, 3) lit minus empty
    glow_reach_mm: float = 0.0
    # (colours, fields, STRUCTURE_CELLS, 3): how uncertain each patch's mean of a lit look still is
    # (linear units; 0 where the glow shared by all fields explains it, one picture's noise elsewhere)
    glow_unsure: np.ndarray | None = None
    # (colours, fields, 3): the light (log, as the reader's light model) on each field in its lit
    # pictures; above SATURATED_LOG in them the camera may have clipped the lit look
    glow_light: np.ndarray | None = None
    # Where a standing piece's body appears: the board-plane shift (fields, 2) of each field's
    # sampled patch, for pieces `sample_height_mm` tall seen from this camera (vision/camera.py)
    sample_height_mm: float = 0.0
    sample_shift_mm: np.ndarray | None = None

    @property
    def has_glow(self) -> bool:
        return self.glow_pattern is not None and bool(self.glow_colours)

    @property
    def has_colours(self) -> bool:
        return bool(self.seat_features)

    @property
    def has_disc(self) -> bool:
        return self.disc_reference is not None

    def marker_centres_px(self) -> np.ndarray:
        geo = engine.load_geometry(self.segments)
        return project(self.homography, np.array([geo.markers[i][0] for i in MARKER_IDS]))

    # --- file form -----------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        def arr(a: np.ndarray, nd: int = 4) -> Any:
            return np.round(np.asarray(a, dtype=np.float64), nd).tolist()

        return {
            "format": FORMAT,
            "version": VERSION,
            "segments": self.segments,
            "board_kind": self.board_kind,
            "resolution": list(self.resolution),
            "homography": arr(self.homography, 9),
            "field_radius_mm": self.field_radius_mm,
            "fields": {fid: arr(c, 3) for fid, c in zip(self.field_ids, self.centres_mm)},
            "fields_px": {fid: arr(c, 2) for fid, c in zip(self.field_ids, project(self.homography, self.centres_mm))},
            "grid_mm": arr(self.grid_mm, 2),
            "grid_reflect": arr(self.grid_reflect),
            "marker_templates": [t.tolist() for t in self.marker_templates],
            "colours": {
                "empty": arr(self.empty_features),
                "seats": {str(s): arr(f) for s, f in sorted(self.seat_features.items())},
                "dog": None if self.dog_feature is None else arr(self.dog_feature),
                "dog_learned": self.dog_learned,
            },
            "disc": {
                "orientation": self.disc_orientation,
                "reference": None if self.disc_reference is None else arr(self.disc_reference),
            },
            "discard": {"center": list(self.discard_centre_mm), "size": list(self.discard_size_mm)},
            "cards": self.cards_path,
            "report": self.report,
            "structure": None if self.empty_pattern is None else {
                "pale_seats": list(self.pale_seats),
                "empty_pattern": arr(self.empty_pattern, 3),
            },
            "sampling": {"height_mm": self.sample_height_mm,
                         "shift_mm": None if self.sample_shift_mm is None else arr(self.sample_shift_mm, 3)},
            "glow": None if self.glow_pattern is None else {
                "colours": [list(c) for c in self.glow_colours],
                "reach_mm": round(self.glow_reach_mm, 2),
                "pattern": arr(self.glow_pattern, 3),
                "unsure": None if self.glow_unsure is None else arr(self.glow_unsure, 4),
                "light": None if self.glow_light is None else arr(self.glow_light, 4),
            },
        }

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json()) + "\n")


def load_calibration(path: str | Path) -> Calibration:
    p = Path(path)
    try:
        data = json.loads(p.read_text())
    except FileNotFoundError:
        raise CalibrationFileError(f"calibration file {p} does not exist; run 'dogtable vision calibrate' first") from None
    except OSError as exc:
        raise CalibrationFileError(f"cannot read calibration file {p}: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CalibrationFileError(f"calibration file {p} is not valid JSON ({exc}); calibrate again") from None
    return parse_calibration(data, str(p))


def _array(data: dict[str, Any], key: str, shape: tuple[int | None, ...], where: str) -> np.ndarray:
    if key not in data:
        raise CalibrationFileError(f"{where}: key '{key}' is missing; calibrate again")
    try:
        a = np.asarray(data[key], dtype=np.float64)
    except (TypeError, ValueError):
        raise CalibrationFileError(f"{where}: '{key}' must be an array of numbers") from None
    if a.ndim != len(shape) or any(s is not None and s != n for s, n in zip(shape, a.shape)):
        raise CalibrationFileError(f"{where}: '{key}' has shape {a.shape}, expected {shape}")
    if not np.isfinite(a).all():
        raise CalibrationFileError(f"{where}: '{key}' contains values that are not finite numbers")
    return a


def parse_calibration(data: Any, where: str) -> Calibration:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CalibrationFileError(f"{where} is not a dogtable vision calibration file")
    if data.get("version") != VERSION:
        raise CalibrationFileError(
            f"{where} has calibration version {data.get('version')!r}; this dogtable reads version {VERSION}: calibrate again"
        )
    try:
        segments = data["segments"]
        if segments not in (4, 6):
            raise CalibrationFileError(f"{where}: 'segments' must be 4 or 6, not {segments!r}")
        geo = engine.load_geometry(segments)
        res = data["resolution"]
        if not (isinstance(res, list) and len(res) == 2 and all(isinstance(v, int) and v > 0 for v in res)):
            raise CalibrationFileError(f"{where}: 'resolution' must be [width, height] in pixels")
        fields = data["fields"]
        if not isinstance(fields, dict) or not fields:
            raise CalibrationFileError(f"{where}: 'fields' must map field ids to [x, y] in mm")
        ids = tuple(fields)
        for fid in ids:
            if fid not in geo.centres:
                raise CalibrationFileError(f"{where}: field '{fid}' does not exist on the {segments}-segment board")
        n = len(ids)
        centres = _array({"f": [fields[f] for f in ids]}, "f", (n, 2), f"{where}: fields")
        grid = _array(data, "grid_mm", (None, 2), where)
        colours = data["colours"]
        seats = {int(s): np.asarray(v, dtype=np.float32) for s, v in colours["seats"].items()}
        if any(v.shape != (3,) for v in seats.values()):
            raise CalibrationFileError(f"{where}: colours.seats entries must be 3 numbers")
        templates = tuple(np.asarray(t, dtype=np.uint8) for t in data["marker_templates"])
        if len(templates) != 4 or any(t.ndim != 2 or min(t.shape) < 8 for t in templates):
            raise CalibrationFileError(f"{where}: 'marker_templates' must hold 4 grey patches")
        disc = data.get("disc") or {}
        disc_ref = disc.get("reference")
        structure = data.get("structure")
        pale: tuple[int, ...] = ()
        pattern = None
        if structure is not None:
            pale = tuple(int(v) for v in structure["pale_seats"])
            if any(v not in seats for v in pale):
                raise CalibrationFileError(f"{where}: structure.pale_seats names a seat without a learned colour")
            pattern = _array(structure, "empty_pattern", (n, STRUCTURE_POINTS, 3), f"{where}: structure").astype(np.float32)
        glow = data.get("glow")
        sampling = data.get("sampling") or {}
        if not isinstance(sampling, dict):
            raise CalibrationFileError(f"{where}: sampling must be an object; calibrate again")
        glow_colours: tuple[tuple[int, int, int], ...] = ()
        glow_pattern = None
        glow_reach = 0.0
        glow_unsure = None
        glow_light = None
        if glow is not None:
            cols = glow["colours"]
            if not (isinstance(cols, list) and all(isinstance(c, list) and len(c) == 3 and
                                                   all(isinstance(v, int) and 0 <= v <= 255 for v in c) for c in cols)):
                raise CalibrationFileError(f"{where}: glow.colours must be a list of [r, g, b] values 0-255")
            glow_colours = tuple((c[0], c[1], c[2]) for c in cols)
            glow_pattern = _array(glow, "pattern", (len(cols), n, STRUCTURE_POINTS, 3), f"{where}: glow").astype(np.float32)
            glow_reach = float(glow["reach_mm"])
            if glow.get("light") is not None:
                glow_light = _array(glow, "light", (len(cols), n, 3), f"{where}: glow").astype(np.float32)
            if glow.get("unsure") is not None:
                glow_unsure = _array(glow, "unsure", (len(cols), n, STRUCTURE_CELLS, 3), f"{where}: glow").astype(np.float32)
        return Calibration(
            segments=segments,
            board_kind=str(data.get("board_kind", "standard")),
            resolution=(res[0], res[1]),
            homography=_array(data, "homography", (3, 3), where),
            field_ids=ids,
            centres_mm=centres,
            field_radius_mm=float(data["field_radius_mm"]),
            grid_mm=grid,
            grid_reflect=_array(data, "grid_reflect", (len(grid), 3), where).astype(np.float32),
            marker_templates=templates,
            empty_features=_array(colours, "empty", (n, 3), f"{where}: colours").astype(np.float32),
            seat_features=seats,
            dog_feature=None if colours.get("dog") is None else np.asarray(colours["dog"], dtype=np.float32),
            dog_learned=bool(colours.get("dog_learned", False)),
            disc_orientation=int(disc.get("orientation", 0)),
            disc_reference=None if disc_ref is None else np.asarray(disc_ref, dtype=np.float32),
            discard_centre_mm=tuple(data["discard"]["center"]),  # type: ignore[arg-type]
            discard_size_mm=tuple(data["discard"]["size"]),  # type: ignore[arg-type]
            cards_path=data.get("cards"),
            report=dict(data.get("report") or {}),
            pale_seats=pale,
            empty_pattern=pattern,
            glow_colours=glow_colours,
            glow_pattern=glow_pattern,
            glow_reach_mm=glow_reach,
            glow_unsure=glow_unsure,
            glow_light=glow_light,
            sample_height_mm=float(sampling.get("height_mm", 0.0)),
            sample_shift_mm=None if sampling.get("shift_mm") is None else
            _array(sampling, "shift_mm", (n, 2), f"{where}: sampling"),
        )
    except CalibrationFileError:
        raise
    except KeyError as exc:
        raise CalibrationFileError(f"{where}: key {exc} is missing; calibrate again") from None
    except (TypeError, ValueError, AttributeError) as exc:
        raise CalibrationFileError(f"{where}: {exc}; calibrate again") from None


# --- calibrating ------------------------------------------------------------------------
def check_frame(frame: Any, what: str = "image") -> np.ndarray:
    if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
        raise CalibrationError(f"the {what} must be a colour picture (BGR, 8 bits per channel)")
    return np.ascontiguousarray(frame)


def find_markers(frame: np.ndarray, what: str, geometry: engine.BoardGeometry | None = None) -> dict[int, np.ndarray]:
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


GLARE_WHITE = 250  # grey level: the camera clipped
GLARE_SHARE = 0.2  # of a missing marker's area clipped: glare hides it


def _glaring(frame: np.ndarray, geo: engine.BoardGeometry, found: dict[int, np.ndarray]) -> tuple[int, float] | None:
    """(marker id, clipped share) of a missing marker whose spot is mostly clipped white, if any."""
    from vision.markers import marker_board_corners

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


def _grid_candidates(geo: engine.BoardGeometry, board: engine.Board) -> np.ndarray:
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


def _flat_points(gray: np.ndarray, H: np.ndarray, pts_mm: np.ndarray) -> np.ndarray:
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


def _templates(gray: np.ndarray, H: np.ndarray, geo: engine.BoardGeometry) -> tuple[np.ndarray, ...]:
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


def default_start(variant: str, segments: int) -> dict[str, str]:
    """The start position's field occupancy: every seat's pieces in its kennel."""
    v = engine.get_variant(variant)
    pieces = [["K"] * v.pieces for _ in range(segments)]
    return engine.parse_position({"variant": variant, "board": segments, "pieces": pieces}).field_occupancy()


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
    from vision.reader import BoardReader  # the reader needs a Calibration; calibrating needs a reader

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
            lens = _fit_lens(geo, found, fit, (empty.shape[1], empty.shape[0]), H)
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
    grid = _grid_candidates(geo, board)
    grid = grid[_flat_points(gray, H, grid)]
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
        marker_templates=_templates(gray, H, geo),
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
        if lit_frames is not None and cal.empty_pattern is not None:
            cal = learn_glow(cal, lit_frames)
    return cal


# Heights (mm above the board) at which a standing piece's body may be sampled; calibration
# keeps the one at which the start picture's pieces look least like their
# empty fields: sampled where the body is, a piece's colour is not mixed with the board's
# (a real pawn: its head, ~15-20 mm; a flat printed token: 0).
SAMPLE_HEIGHTS_MM = (0.0, 4.0, 8.0, 12.0, 16.0)
SAMPLE_HEIGHT_GAIN = 0.9  # each higher sample must set pieces apart from empty fields this much better


def _fit_lens(geo: engine.BoardGeometry, found: dict[int, np.ndarray], fit: Any, size: tuple[int, int],
              H: np.ndarray) -> Any:
    """The lens (vision/camera.py) from the field circles found and the markers' corners."""
    from vision.camera import fit_lens
    from vision.markers import marker_board_corners

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


def _sample_points(cal: Calibration, lens: Any, h: float) -> np.ndarray | None:
    """Board points whose picture under the homography is where a piece's body `h` mm up appears."""
    from vision.camera import raised_points_mm

    if lens is not None:
        return project(np.linalg.inv(cal.homography), lens.pixels(cal.centres_mm, h))
    return raised_points_mm(cal.homography, cal.resolution, cal.centres_mm, h) if h else None


def choose_sample_height(cal: Calibration, empty: np.ndarray, starts: list[np.ndarray],
                         occupancy: dict[str, str], lens: Any = None) -> Calibration:
    """Learn where pieces' bodies appear (see vision/camera.py) from the start pictures.

    With a fitted `lens`, the points also follow its distortion, which the homography
    (a plane's straight-line model) leaves up to a pixel or two off at the board's corners.
    """
    from vision.reader import BoardReader

    index = {f: i for i, f in enumerate(cal.field_ids)}
    groups: dict[str, list[int]] = {}
    for fid, who in occupancy.items():
        if fid in index:
            groups.setdefault(who, []).append(index[fid])
    if not groups:
        return cal
    rows_all = [r for rows in groups.values() for r in rows]
    pale_rows = None
    best = None
    for h in SAMPLE_HEIGHTS_MM:
        pts = _sample_points(cal, lens, h)
        probe = replace(cal, sample_height_mm=h, sample_shift_mm=None if pts is None else pts - cal.centres_mm)
        reader = BoardReader(probe)
        empty_f = reader.measure(empty).features
        ms = [reader.measure(check_frame(f, "start-position image")) for f in starts]
        ms = [m for m in ms if not m.covered and not m.problem] or ms
        feats = np.median(np.stack([m.features for m in ms]), axis=0)
        apart = np.array([distances(feats[r][None, :], empty_f[r][None, :])[0, 0] for r in rows_all])
        if pale_rows is None:  # pale seats (white on cream) are told apart by their pattern: not judged here
            pale_rows = apart < 2 * MIN_MARGIN
        score = float(np.median(apart[~pale_rows])) if (~pale_rows).any() else 0.0
        log.debug("sample height %s mm: pieces %.3f from their empty fields", h, score)
        if best is None or score > best[0] / SAMPLE_HEIGHT_GAIN:
            best = (score, probe, empty_f)
    assert best is not None
    _, probe, empty_f = best
    report = dict(probe.report, sample_height_mm=probe.sample_height_mm)
    return replace(probe, empty_features=empty_f.astype(np.float32), report=report)


calibrate.multi_frame = True  # type: ignore[attr-defined]  # tells scripts it takes lists of frames


def learn_colours(cal: Calibration, start: np.ndarray | list[np.ndarray], occupancy: dict[str, str],
                  empty: np.ndarray | None = None) -> Calibration:
    """Learn each seat's (and the dog's) colour from a frame whose occupancy is known.

    A seat whose pieces have nearly the empty field's colour (white pieces on a cream
    board) is accepted if `empty` (the empty-board frame) is given and the pieces clearly
    change the field's pattern (their outline, head and shadow) against the empty field's.
    """
    from vision.reader import BoardReader

    starts = [check_frame(f, "start-position image") for f in ([start] if isinstance(start, np.ndarray) else start)]
    if not starts:
        raise CalibrationError("no start-position image given")
    start = starts[0]
    if any(f.shape[1] != cal.resolution[0] or f.shape[0] != cal.resolution[1] for f in starts):
        raise CalibrationError(
            f"the start-position image is {start.shape[1]}x{start.shape[0]} but the empty-board image was "
            f"{cal.resolution[0]}x{cal.resolution[1]}: use the same camera setting for both"
        )
    reader = BoardReader(cal)
    readings = [reader.measure(f) for f in starts]
    problems = [m.problem for m in readings if m.problem]
    if len(problems) == len(readings):
        raise CalibrationError(f"start-position image: {problems[0]}")
    usable = [(f, m) for f, m in zip(starts, readings) if not m.problem and not m.covered]
    if not usable:
        raise CalibrationError("something covers the board in the start-position image: take it again with hands off the board")
    starts = [f for f, _ in usable]
    # each picture's features come from its own light fit; their median per field is robust to
    # one noisy picture, and to the exposure drifting between pictures
    features = np.median(np.stack([m.features for _, m in usable]), axis=0).astype(np.float32)
    index = {f: i for i, f in enumerate(cal.field_ids)}
    groups: dict[str, list[int]] = {}
    for fid, who in occupancy.items():
        if fid not in index:
            raise CalibrationError(f"the start position has a piece on {fid}, which the board geometry does not have")
        groups.setdefault(who, []).append(index[fid])
    protos: dict[str, np.ndarray] = {}
    pale: dict[str, list[int]] = {}
    for who, rows in sorted(groups.items()):
        feats = features[rows]
        protos[who] = np.median(feats, axis=0).astype(np.float32)
    for who, rows in sorted(groups.items()):
        _check_group(cal, features, who, rows, protos)
    for who, rows in sorted(groups.items()):
        proto = protos[who]
        # A piece must differ clearly from the empty field it stands on in colour, or else in
        # pattern (checked below, once every colour is known). Clearly is more than the reader's
        # reach for a class (MAX_DISTANCE): white pieces learned 0.24-0.25 from their kennel's
        # empty look (photo scene, seeds 6 and 8: the lamp's highlight) came within 0.06 of a
        # track field's empty look, and by colour alone one was read "empty". Every coloured or
        # black seat stays 0.75 or more from its kennel's look there (black pieces, seeds 1-8).
        empty_d = distances(proto[None, :], cal.empty_features[rows])[0]
        if empty_d.min() < PALE_SEAT_DISTANCE:
            pale[who] = rows
    seats = {int(who[1:]): f for who, f in protos.items() if who.startswith("s")}
    if not seats:
        raise CalibrationError("the start position has no pieces to learn colours from")
    if len(pale) == len(protos):
        raise CalibrationError("every piece looks like the empty fields: are the pieces placed, and is the light good enough?")
    names = [n for n in protos if n not in pale]  # pale seats may look alike: the pattern tells piece from field
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if distances(protos[a][None, :], protos[b][None, :])[0, 0] < 2 * MIN_MARGIN:
                raise CalibrationError(f"{_name(a)} and {_name(b)} pieces look alike to the camera: better light may help")
    pale_seats: tuple[int, ...] = ()
    pattern = None
    if pale:
        rows0 = next(iter(pale.values()))
        if empty is None or "dog" in pale:
            who = next(iter(pale))
            raise CalibrationError(
                f"{_name(who)} pieces look too much like the empty field {cal.field_ids[rows0[0]]}: "
                "are they placed, and is the light good enough?"
            )
        pattern = reader.structure_pattern(check_frame(empty, "empty-board image"))
        probe = replace(cal, seat_features=seats, empty_pattern=pattern, pale_seats=tuple(int(w[1:]) for w in pale))
        from vision.reader import structure_thresholds

        s = np.median(np.stack([BoardReader(probe).structure_distance(f) for f in starts]), axis=0)
        occupied = np.zeros(len(cal.field_ids), bool)
        for rows in groups.values():
            occupied[rows] = True
        _, high = structure_thresholds(s[~occupied])
        for who, rows in pale.items():
            weak = [r for r in rows if s[r] <= high]
            if weak:
                raise CalibrationError(
                    f"{_name(who)} pieces look too much like the empty field {cal.field_ids[weak[0]]}, even in "
                    "detail: is the picture sharp and the light good enough?"
                )
        pale_seats = probe.pale_seats
    report = dict(cal.report, pale_seats=list(pale_seats))
    dog = protos.get("dog")
    return replace(
        cal,
        seat_features=seats,
        dog_feature=dog if dog is not None else np.array(DEFAULT_DOG, np.float32),
        dog_learned=dog is not None,
        pale_seats=pale_seats,
        empty_pattern=pattern,
        report=report,
    )


def _check_group(cal: Calibration, features: np.ndarray, who: str, rows: list[int],
                 protos: dict[str, np.ndarray]) -> None:
    """Refuse a start picture in which one of `who`'s pieces does not look like the others.

    Noise alone must not refuse: the dark channel of a saturated colour (the blue of a yellow
    piece) is a few grey levels, noisy in log units, and a shadow band darkens a whole row. So
    a piece is refused only if it is far from its own group's colour AND not clearly nearer to
    it than to anything else it could be (the empty field it stands on, another seat's or the
    dog's colour), or wildly off and not even twice as near its own as anything else. The
    message names the field and what it looks like.
    Colours are compared as the reader compares them (`soft`): in raw log units the lamp's
    highlight on one lacquered yellow pawn moved its blue channel, a few grey levels, 1.2 from
    the other yellow pawns' (photo scene, seed 6, 6seg-lamp-10: refused twice in three tries);
    compared as the reader does it is 0.41 off (and 0.07 from yellow's look with the highlight).
    """
    seen = soft(features)
    own = distances(seen[rows], soft(protos[who])[None, :])[:, 0]
    for k, r in enumerate(rows):
        if own[k] <= MAX_DISTANCE * 0.8:
            continue
        others = {"an empty field": float(distances(seen[r][None, :], soft(cal.empty_features[r])[None, :])[0, 0])}
        others.update({f"{_name(o)} pieces": float(distances(seen[r][None, :], soft(p)[None, :])[0, 0])
                       for o, p in protos.items() if o != who})
        like, d_like = min(others.items(), key=lambda kv: kv[1])
        if d_like - own[k] < MIN_MARGIN or (own[k] > 2.5 * MAX_DISTANCE and d_like < 2 * own[k]):
            raise CalibrationError(
                f"the piece on {cal.field_ids[r]} does not look like the other {_name(who)} pieces "
                f"(colour distance {own[k]:.2f}; it looks more like {like}, {d_like:.2f}): is the start position "
                "set up as expected, with nothing covering or shading it?"
            )


def _name(who: str) -> str:
    return "the black dog's" if who == "dog" else f"seat {who[1:]}'s"


# --- LED glow ------------------------------------------------------------------------------
GLOW_GROUP_SPACING_MM = 60.0  # rings lit together at calibration stand this far apart: no glow overlaps
GLOW_FAR_MM = 60.0  # beyond this, a field's pattern change is noise (measures it)
GLOW_MIN_DELTA = 0.02  # log units: a pattern change smaller than this is not glow
GLOW_MAX_REACH_MM = 40.0
GLOW_MODEL_MAX = 0.2  # a lit look is fitted (denoised) where the glow adds less light than this (linear units)
GLOW_RINGED = 0.25  # of the upper-quartile glow: fields glowing less had no ring lit (or none at all)
GLOW_RIDGE = 1e-3  # keeps the fit of a channel the glow hardly reaches near zero
GLOW_MODEL_TRUST = 3.0  # a fitted lit look is used where the picture's patches stray from it by no more than noise
                        # (mean square in noise widths)
GLOW_MIN_QUIET_PICTURES = 3  # pictures of a field needed to tell its noise


def glow_groups(segments: int, spacing_mm: float = GLOW_GROUP_SPACING_MM,
                fields: Iterable[str] | None = None) -> list[tuple[str, ...]]:
    """Fields whose LED rings calibration lights together: every field once, lit fields far apart.

    Light each group (in each LED colour the service uses) over the empty board and give the
    frames to `calibrate(lit_frames=...)` / `learn_glow`.
    """
    geo = engine.load_geometry(segments)
    ids = list(fields) if fields is not None else list(geo.centres)
    groups: list[list[str]] = []
    pts: list[list[tuple[float, float]]] = []
    for fid in ids:
        c = geo.centres[fid]
        for g, gp in zip(groups, pts):
            if all(math.hypot(c[0] - x, c[1] - y) >= spacing_mm for x, y in gp):
                g.append(fid)
                gp.append(c)
                break
        else:
            groups.append([fid])
            pts.append([c])
    return [tuple(g) for g in groups]


def learn_glow(cal: Calibration,
               lit_frames: Iterable[tuple[np.ndarray, Mapping[str, tuple[int, int, int]]]]) -> Calibration:
    """Learn how each field's pattern looks with its own LED ring lit, per LED colour.

    Each frame shows the empty board (same camera and light as the calibration) with some
    rings lit; a field's lit look is taken from a frame in which its ring is lit and no
    other lit ring is near (see `glow_groups`). A colour is learned only if every field was
    lit in it. Needs the empty-field pattern (pale seats).

    One picture of a field is as noisy as the picture read later, and a pale piece differs
    from the lit field by only a few noise widths: so the empty look is also averaged over
    every lit picture in which no lit ring reaches the field (`_quiet_average`), and each
    lit look is smoothed with the glow shared by all fields (`_smooth_lit_looks`).
    """
    from vision.reader import BoardReader

    if cal.empty_pattern is None:
        raise CalibrationError("LED glow is learned only for boards with pale pieces (calibrate with a start picture first)")
    reader = BoardReader(cal)
    index = {f: i for i, f in enumerate(cal.field_ids)}
    n = len(cal.field_ids)
    struct = structure_points_mm(cal.centres_mm, cal.field_radius_mm)  # (fields, points, 2)
    shots: list[tuple[np.ndarray, list[int], dict[int, tuple[int, int, int]], np.ndarray, np.ndarray]] = []
    reach_d: list[np.ndarray] = []
    reach_v: list[np.ndarray] = []
    for frame, lit in lit_frames:
        frame = check_frame(frame, "lit-LED image")
        if frame.shape[1] != cal.resolution[0] or frame.shape[0] != cal.resolution[1]:
            raise CalibrationError("the lit-LED pictures must have the calibration's resolution")
        rows = [index[f] for f in lit if f in index]
        if not rows:
            continue
        m = reader.measure(frame, lit=list(lit))
        if m.problem:
            raise CalibrationError(f"lit-LED picture: {m.problem}")
        assert m.pattern is not None
        # how far each structure point is from the nearest lit ring's field centre
        lit_c = cal.centres_mm[rows]
        dist = np.linalg.norm(struct[:, :, None, :] - lit_c[None, None, :, :], axis=3).min(axis=2)  # (fields, points)
        own = np.zeros(n, bool)
        own[rows] = True
        reach_d.append(dist[~own].ravel())
        reach_v.append(np.abs(m.pattern - cal.empty_pattern).mean(axis=2)[~own].ravel())
        colour = {index[f]: (int(rgb[0]), int(rgb[1]), int(rgb[2])) for f, rgb in lit.items() if f in index}
        assert m.light_fields is not None
        shots.append((m.pattern, rows, colour, dist, m.light_fields))
    counts: dict[tuple[int, int, int], np.ndarray] = {}
    for _, _, colour, _, _ in shots:
        for i, key in colour.items():
            counts.setdefault(key, np.zeros(n, np.int64))[i] += 1
    colours = tuple(c for c in counts if (counts[c] > 0).all())
    missing = [c for c in counts if c not in colours]
    report = dict(cal.report)
    if missing:
        report["glow_incomplete"] = [list(c) for c in missing]
        log.warning("LED colours %s were not lit on every field: not learned", missing)
    if not colours:
        return replace(cal, report=report)
    d = np.concatenate(reach_d)
    v = np.concatenate(reach_v)
    # How far the light reaches: the typical (median) pattern change at each distance from a
    # lit ring, against the typical change far away (noise, a wobbling camera).
    far = float(np.median(v[d > GLOW_FAR_MM])) if (d > GLOW_FAR_MM).any() else 0.0
    reach = cal.field_radius_mm * 1.2
    for lo in np.arange(0.0, GLOW_FAR_MM, 1.0):
        sel = v[(d >= lo) & (d < lo + 1.0)]
        if len(sel) >= 20 and float(np.median(sel)) > far + GLOW_MIN_DELTA / 2:
            reach = max(reach, float(lo) + 1.0)
    reach = float(min(reach + 2.0, GLOW_MAX_REACH_MM))
    empty, noise = _quiet_average(cal.empty_pattern, [(p, dist) for p, _, _, dist, _ in shots], reach)
    lit_lin = np.zeros((len(colours), n, STRUCTURE_POINTS, 3), np.float64)
    # The light on each field in its lit pictures (log, the brightest): where a lit look is
    # near white the camera may have clipped it, by how much depends on that picture's light.
    light = np.full((len(colours), n, 3), -np.inf, np.float32)
    for pattern, _, colour, _, light_fields in shots:
        for i, key in colour.items():
            if key in colours:
                k = colours.index(key)
                lit_lin[k, i] += np.exp(pattern[i])
                light[k, i] = np.maximum(light[k, i], light_fields[i])
    for k, c in enumerate(colours):
        lit_lin[k] /= counts[c][:, None, None]
    clip = np.exp(SATURATED_LOG - light.astype(np.float64))  # (colours, fields, 3) linear
    looks, unsure = _smooth_lit_looks(np.exp(empty.astype(np.float64)), lit_lin, noise, clip)
    pattern = (np.log(looks) - empty[None]).astype(np.float32)
    report.update(glow_colours=[list(c) for c in colours], glow_reach_mm=round(reach, 1))
    return replace(cal, empty_pattern=empty, glow_colours=colours, glow_pattern=pattern, glow_reach_mm=reach,
                   glow_unsure=unsure.astype(np.float32), glow_light=light, report=report)


def _quiet_average(empty: np.ndarray, shots: list[tuple[np.ndarray, np.ndarray]],
                   reach_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """The empty pattern averaged with every lit picture's look of fields no lit ring reaches, and its noise.

    `shots`: (pattern, each structure point's distance from the nearest lit field's centre).
    The camera wobbles and the sensor is noisy between pictures; their mean is the look a
    reading should expect. Returns ((fields, points, 3) log mean, (fields, STRUCTURE_CELLS, 3)
    how much one picture's patch means (linear units) stray between pictures).
    """
    cells = np.eye(STRUCTURE_CELLS)[structure_cells()] / np.bincount(structure_cells())  # (points, cells) means
    total = empty.astype(np.float64).copy()
    m = np.einsum("fpc,pk->fkc", np.exp(empty.astype(np.float64)), cells)
    sum1, sum2 = m.copy(), m * m
    count = np.ones(len(empty))
    for pattern, dist in shots:
        quiet = dist.min(axis=1) >= reach_mm
        total[quiet] += pattern[quiet]
        m = np.einsum("fpc,pk->fkc", np.exp(pattern[quiet].astype(np.float64)), cells)
        sum1[quiet] += m
        sum2[quiet] += m * m
        count[quiet] += 1
    c = count[:, None, None]
    spread = np.sqrt(np.maximum(sum2 / c - (sum1 / c) ** 2, 0.0) * c / np.maximum(c - 1, 1))
    known = count >= GLOW_MIN_QUIET_PICTURES
    typical = np.median(spread[known], axis=0) if known.any() else np.zeros(spread.shape[1:])
    noise = np.where(known[:, None, None], spread, typical[None])  # too few pictures: as the other fields
    return (total / c).astype(np.float32), noise


def _smooth_lit_looks(e_lin: np.ndarray, lit_lin: np.ndarray, noise: np.ndarray,
                      clip: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Linear lit looks (colours, fields, points, 3) with the sensor noise of their one picture fitted
    away where the fit holds, and how uncertain each patch of them still is ((colours, fields, cells, 3)).

    A ring adds the same light to every field (linear units, light-corrected): the glow
    shared by all fields, `g`, is their median. A field adds it less where the light clips
    (a pale field saturates first) and its print sets where: per field and channel, the
    lit look is fitted as empty + b1*g + b2*g^2 where the glow is faint (the part of a field
    a reading judges), and where the camera did not clip its picture (`clip`: (colours,
    fields, 3), linear). A reading compares patch means (`structure_cells`), so the fit is
    used for a channel whose pictured patch means it matches within the picture's own noise
    (`noise`, from `_quiet_average`); elsewhere (a sharp picture shows the glow's edge a
    little differently on every field; bright glow) the picture stands, and so does its
    noise: returned so that a reading allows for it.
    """
    cell = structure_cells()
    ncell = STRUCTURE_CELLS
    out = lit_lin.copy()
    unsure = np.repeat(noise[None], len(lit_lin), axis=0)
    for k in range(len(lit_lin)):
        add = lit_lin[k] - e_lin
        energy = np.abs(add).mean(axis=(1, 2))
        ringed = energy >= GLOW_RINGED * np.percentile(energy, 75)  # fields without a ring were pictured dark
        g = np.median(add[ringed], axis=0)  # (points, 3)
        faint = (np.abs(add) < GLOW_MODEL_MAX) & (lit_lin[k] < clip[k][:, None, :])  # (fields, points, 3)
        for c in range(3):
            X = np.stack([g[:, c], g[:, c] ** 2], axis=1)  # (points, 2)
            for j in range(lit_lin.shape[1]):
                sel = faint[j, :, c]
                if sel.sum() < 8:
                    continue
                Xs = X[sel]
                coef = np.linalg.solve(Xs.T @ Xs + GLOW_RIDGE * np.eye(2), Xs.T @ add[j, sel, c])
                model = e_lin[j, :, c] + X @ coef
                n = np.bincount(cell[sel], None, ncell)
                miss = np.bincount(cell[sel], (lit_lin[k, j, sel, c] - model[sel]), ncell) / np.maximum(n, 1)
                seen = n > 0
                # One test over the whole channel, not patch by patch: picking the patches whose
                # picture strays most would pick the noisiest ones.
                glowless = np.abs(g[:, c]).max() < GLOW_MIN_DELTA  # this ring's light has no such colour
                if not glowless and np.mean((miss[seen] / np.maximum(noise[j, seen, c], 1e-6)) ** 2) > GLOW_MODEL_TRUST:
                    continue
                out[k, j, sel, c] = np.maximum(model[sel], 1e-3)
                unsure[k, j, n > 0, c] = 0.0
    return out, unsure
