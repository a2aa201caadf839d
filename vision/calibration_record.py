"""The Calibration record: what calibrating learned about one setup, and its file.

One calibration per setup (camera, board, light): where the board lies in the picture,
the bare board's look, each field's empty look and each seat's colour, the pale seats'
empty-field patterns and the LED glow. The reader only reads it; vision.calibration and
its stages (vision.placement, vision.colour_learning, vision.glow_learning) fill it in.
Saved as versioned JSON and validated on load: a file from another version, a damaged file
or one for another camera resolution is refused with a message saying what to do.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import engine
from vision.errors import CalibrationFileError
from vision.markers import MARKER_IDS, project
from vision.sampling import STRUCTURE_CELLS, STRUCTURE_POINTS

FORMAT = "dogtable-vision-calibration"
VERSION = 1


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
