"""Reading a frame: follow the camera, fit the light, read every field, notice covers.

`BoardReader(calibration).read(frame, disc=None, lit=None)` returns a `FrameReading`: a
label per field ("empty", "s<seat>", "dog" or "unknown"), whether something covers the
board, and any problem (marker hidden, camera moved, disc orientation disagrees with the
encoder). One reading costs a few thousand fancy-indexed pixels, not a warp of the frame.
"""
from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.calibration import Calibration
from vision.cover import CoverDetector
from vision.features import (
    DARK_LIT_REACH, LED_GAINS, LIT_GAINS_AT_MOST, LIT_MIN_MARGIN, MAX_DISTANCE, MIN_MARGIN, classify,
    dark_lit_path_distance, distances, field_features, mixed_distances, mixed_prototypes, to_channels,
)
from vision.light import CLIP_LOG, SATURATED_LOG, basis, log_colour, robust_fit
from vision.markers import MARKER_IDS, MARKER_NAMES, detect_markers, marker_board_corners, project
from vision.sampling import (
    STRUCTURE_CELLS, centre_points_mm, disc_points_mm, disc_turn_index, flat_index, structure_cells,
    structure_points_mm,
)

import engine

log = logging.getLogger(__name__)

NEIGHBOUR_SHADE_MM = 30.0  # pale pieces: a standing piece this close may shade or overhang a field
NEIGHBOUR_SHADE_BAR = 3.0  # ... or its pattern differs this many times past the piece threshold
# A real pawn's hard shadow and its leaning head reach into a neighbouring field from the
# pawn's side, up to about this far from the pawn's centre (a 25 mm pawn under a lamp, 25 deg
# tilt): beside a standing piece a field's pattern is judged on its points farther away.
NEIGHBOUR_KEEP_MM = 20.0
NEIGHBOUR_MIN_KEPT = 0.3  # of a field's pattern points, left after leaving out the neighbours' reach
# Judged on fewer points, and a neighbour's light and shadow still reach a little farther (two
# lamps, a far corner): beside a standing piece a field is empty below the usual piece threshold,
# a pale piece only this many times above it (unknown between).
NEIGHBOUR_PIECE_BAR = 1.5
NEIGHBOUR_FAR_PAST = 1.6  # a whole pattern this many times past the piece bar: more than a neighbour's shadow
NEIGHBOUR_COLOUR_EMPTY = 1.3  # ... unless a pale seat's colour is this many times farther than the empty field's
PALE_COLOUR_CLEAR = 0.5  # a pale seat's colour at most this share of the empty field's distance: plainly pale
# Where a field is printed far darker than a pale piece (a dark rim, DARK_PRINT log units below the
# pale seat's brightness), a pale piece standing on the field brightens the print it covers; a
# neighbour's shadow only darkens it. Beside a standing piece, a field whose colour leans to its empty
# look and whose kept dark print (at least DARK_PRINT_MIN_POINTS points) is brightened by no more than
# DARK_PRINT_LIFT on average holds no pale piece: what its pattern still differs by is judged with the
# shadow taken out point by point. Photo scene, seeds 1-5: such white pieces lift their rim by 0.21 or
# more, empty fields by 0.04 at most. A white piece leaning off its rim, or smaller than it (the
# simulated table's on its dark start fields), lifts it little, but its colour then leans plainly to
# white (a pale seat's distance at most 0.46 of the empty field's; simulated table 0.15): kept.
DARK_PRINT = 0.7
DARK_PRINT_MIN_POINTS = 12
DARK_PRINT_LIFT = 0.1
# A royal piece still unknown in its own lit ring after that (`_read_lit`): a red piece in a
# green ring is nearest yellow in the usual reading, while read again without the ring's tint it is
# plainly red. Where the tint-free reading names another class than the usual one, a coloured class
# (learned chroma at least LIT_COLOURED_CHROMA: the royal colours 1.18 or more on the photo scene,
# white and black 0.51 at most) is read if it is LIT_AGAIN_MARGIN nearer than any other class there
# (and than any other piece in the ring's full light), no colourless class (empty, white, black) in
# the ring's full light comes within LIT_DARK_MARGIN of it in the usual reading (a black piece takes
# a coloured ring's colour either way), and the usual reading has it at most LIT_USUAL_BEHIND behind
# its nearest piece. Where both readings agree the tint may be in both (red pieces in green rings
# read yellow without the tint too): left to the usual rule. Photo scene, every piece's ring lit in
# one of five colours, seeds 1-8 (README, vision section): of the 281 lit royal fields whose
# tint-free class differs from the usual one, the 61 where it is wrong each fail two bars or more,
# and every bar would have to be loosened by 0.3 at once before the nearest passed; yellow pieces in
# green rings read yellow ahead of red without the tint by 0.24 or more (418 of them).
LIT_COLOURED_CHROMA = 0.9
DARK_BELOW_BOARD = 1.0  # log units: black pieces and the dog lie 1.3-2.3 below the board, colours 0.9-2.0, white 0-0.3
# A coloured piece read the usual way in its own lit ring stands only if its tint-free reading puts no
# other class nearer than it by more than LIT_AGREE (`_tint_free_agrees`). The table's own ring colours
# (`bench_vision_photo.py --rings`: amber, light blue, green (0, 255, 60) under every piece, seeds 1-8,
# 30 boards a setup) showed red pieces in the green ring read as yellow (royal and not) and black
# pieces and the dog read as green. On royal boards the right readings of coloured pieces put
# themselves nearest without the tint by 0.07 or more, a red piece read yellow was 0.16 the other way
# (seed 6, T17); a red one yellow in both readings (seed 8, S0H2) is only 0.07 clear of red lit up to
# the ring's full light in the tint-free reading, where 34 of about 10,500 right readings are under
# LIT_MIN_MARGIN.
LIT_AGREE = 0.0
LIT_AGAIN_MARGIN = 0.15
LIT_DARK_MARGIN = 0.4
LIT_USUAL_BEHIND = 0.1
TRACK_MARGIN_PX = 14  # how far the picture may shift between frames and still be followed
TRACK_MIN_SCORE = 0.55
RETRACK_PX = 0.35  # re-index the samples when the picture moved more than this
MOVED_NOTICE_PX = 3.0
# Pale pieces (white on cream): a field's pattern distance from its empty look, in units of
# the median over the fields that look empty by colour (noise), with floors for clean light.
PALE_LIT_CLEARANCE_MM = 30.0  # LED glow disturbs a field's pattern this far from a lit field
# A lit ring's light, thrown back by pale pieces standing around it, still unsettles a pale
# piece's pattern beyond that (a white kennel piece 47 mm from a lit start field on the
# 6-segment board). One frame with the LEDs off reads such fields, and costs only that frame,
# so the service asks for it for every unknown field within this reach of a lit one.
BLANK_REACH_MM = 60.0
GLOW_MIN_KEPT = 0.25  # of a field's pattern points, left after leaving out a lit neighbour's reach
# A field whose own ring is lit (`_own_lit_z`) is judged patch by patch against its learned
# lit look: a z-score below LIT_Z_EMPTY is the empty lit field, above LIT_Z_PIECE a pale
# piece, between unknown. On the simulated table the empty fields stay below about 5 in
# harsh light and the pale pieces above about 4 (12 in clean light): the gap between the
# two thresholds is left unknown. On the photo scene's lit-ring stress (`--rings`, 6-segment
# boards, seeds 6 and 8) empty fields reach 7.3 and white pieces lie above 13.4 but for a few
# (lowest 8.7); an empty field of held-out seed 10 reached 8.4 and was read white at 7.5.
LIT_Z_EMPTY = 3.0
LIT_Z_PIECE = 10.0
# Between the two an empty field is still read where its colour says "empty" plainly as well
# (the pale seat's colour LIT_EMPTY_COLOUR times as far): in a red ring on the linen board
# empty fields reach z 3-9 with the white seat's colour 2.7-12 times as far as the empty
# field's (quick bench, seeds 1-9). A white piece's colour may look that plain in the ring's
# light (up to 4.2 times, stress seeds 6 and 8), but those lay at z 14-21; the one white piece
# below z 10 there (8.7) was plainly white by colour (0.17).
LIT_Z_EMPTY_PLAIN = 8.0
LIT_EMPTY_COLOUR = 2.5
# White pieces in their own lit ring are mostly at most about as far from the pale seat's colour as
# from the empty field's (ring stress, seeds 6 and 8: 90% below 0.9 times; the few beyond 1.25, up
# to 4.2, are left unknown); empty lit fields 1.5 to 20 times.
LIT_PALE_COLOUR = 1.25
GLOW_MAX_GAIN_CHANGE = 0.25  # judged only if the ring shines about as at calibration (a pulsing LED)
GLOW_JUDGED = 0.2  # points a ring adds more light to than this are not judged (linear units, of the
                   # bare board's brightness: a lit look clips, and its edge moves with the camera)
LIT_CELLS = 9  # patches judged: the centre disc and the two inner rings (the outer one is where a
               # neighbour's piece, its shadow and its lit ring reach)
LIT_CELL_POINTS = 4  # judged points a patch needs (per colour channel)
LIT_MIN_PATCHES = 6  # judged (patch, channel) pairs a field needs
LIT_PATCH_CAP = 7.0  # noise widths one patch may count for at most (`patch_z`)
LIT_MAX_SHIFT_PX = 0.8  # how far the picture may be off the markers' placing of it (`_align`)
LIT_MIN_QUIET = 20  # fields without LED light to measure the noise on
LIT_QUIET_SAMPLE = 60  # at most about this many of them
LIT_NOISE_FLOOR = 0.8  # grey levels: no patch mean is surer (a clean picture; the lit look is learned)
STRUCTURE_LOW = 2.3
STRUCTURE_HIGH = 2.6
STRUCTURE_FLOOR_LOW = 0.04
STRUCTURE_FLOOR_HIGH = 0.05
DISC_MAX_ERROR = 0.45
DISC_MIN_RATIO = 1.3


@dataclass(frozen=True, eq=False)
class Measurement:
    """Everything a frame says before classification."""

    features: np.ndarray  # (fields, 3)
    light: float  # mean brightness gain of the board relative to the empty frame
    foreign: np.ndarray  # (grid,) bool: bare-board points that look covered
    covered: bool
    covered_fields: tuple[str, ...]
    disc_colours: np.ndarray | None
    problem: str | None
    notices: tuple[str, ...]
    light_fields: np.ndarray | None = None  # (fields, 3) log light model at each field
    structure: np.ndarray | None = None  # (fields,) pattern distance from the empty field (pale seats only)
    pattern: np.ndarray | None = None  # (fields, STRUCTURE_POINTS, 3) the patterns themselves (pale seats only)


@dataclass(frozen=True, eq=False)
class FrameReading:
    """One frame's reading of the board."""

    field_ids: tuple[str, ...]
    labels: tuple[str, ...]  # per field: "empty", "s<seat>", "dog" or "unknown"
    features: np.ndarray
    light: float
    covered: bool
    covered_fields: tuple[str, ...]
    problem: str | None = None
    notices: tuple[str, ...] = ()
    disc_seen: int | None = None
    disc_expected: int | None = None

    @property
    def unknown(self) -> tuple[str, ...]:
        return tuple(f for f, lab in zip(self.field_ids, self.labels) if lab == "unknown")

    def occupancy(self) -> dict[str, str]:
        """Occupied fields only, in the form of engine.Position.field_occupancy()."""
        return {f: lab for f, lab in zip(self.field_ids, self.labels) if lab not in ("empty", "unknown")}

    def cover_message(self) -> str:
        where = f" (near {', '.join(self.covered_fields[:6])})" if self.covered_fields else ""
        return f"something is covering the board{where}"

    def to_json(self) -> dict[str, Any]:
        return {
            "occupancy": self.occupancy(),
            "fields": dict(zip(self.field_ids, self.labels)),
            "unknown": list(self.unknown),
            "covered": self.covered,
            "covered_fields": list(self.covered_fields),
            "problem": self.problem,
            "notices": list(self.notices),
            "disc_seen": self.disc_seen,
            "light": round(self.light, 3),
        }


class BoardReader:
    """Reads frames of one calibrated setup. Keeps only where the camera currently is."""

    def __init__(self, calibration: Calibration) -> None:
        cal = calibration
        self.cal = cal
        self.geometry = engine.load_geometry(cal.segments)
        self.width, self.height = cal.resolution
        self._marked = cal.board_kind == "royal"  # royal pieces carry their rank on the head
        # sampled where a standing piece's body appears (its height, the camera's pose: calibration)
        sampled = cal.centres_mm if cal.sample_shift_mm is None else cal.centres_mm + cal.sample_shift_mm
        self._field_pts = centre_points_mm(sampled, cal.field_radius_mm, marked=self._marked)
        self._A = basis(cal.grid_mm).astype(np.float32)
        self._pinv = np.linalg.pinv(self._A).astype(np.float32)
        self._B_fields = basis(cal.centres_mm).astype(np.float32)
        has_disc = bool(engine.load_board(cal.board_kind, cal.segments).disc_fields)
        self._disc_pts = disc_points_mm() if has_disc else None
        self._B_disc = basis(self._disc_pts).astype(np.float32) if self._disc_pts is not None else None
        self._field_grid_dist = np.linalg.norm(cal.centres_mm[:, None, :] - cal.grid_mm[None, :, :], axis=2)
        self._cover = CoverDetector(cal)
        # the pattern window follows the piece's body too: a neighbour's leaning head then stays
        # in the neighbour's own window, not in this field's
        self._struct_pts = structure_points_mm(sampled, cal.field_radius_mm)
        self._smap: tuple[np.ndarray, np.ndarray, tuple[int, int, int, int]] | None = None
        self._smap_H: np.ndarray | None = None
        self._box: np.ndarray | None = None  # the last frame's 3x3 means around the fields (float32)
        self._H_now = calibration.homography
        self._struct_dist: np.ndarray | None = None
        self._nb: tuple[np.ndarray, np.ndarray] | None = None
        self._dist_by_centre: np.ndarray | None = None
        self._cells = np.eye(STRUCTURE_CELLS, dtype=np.float32)[structure_cells()]  # (points, cells) one-hot
        self._inner = structure_cells() < LIT_CELLS  # points a neighbour's piece or lit ring does not reach
        pale = {f"s{p}" for p in cal.pale_seats}
        self._field_dist = np.linalg.norm(cal.centres_mm[:, None, :] - cal.centres_mm[None, :, :], axis=2)
        self._index_of = {f: i for i, f in enumerate(cal.field_ids)}
        if cal.pale_seats:
            self._neighbour_reach()  # once, here: reading beside standing pieces needs it
        self._marker_cal = cal.marker_centres_px()
        self._labels: list[str] = ["empty"] + [f"s{s}" for s in sorted(cal.seat_features)]
        protos = [cal.seat_features[s] for s in sorted(cal.seat_features)]
        if cal.board_kind == "black" and cal.dog_feature is not None:
            self._labels.append("dog")
            protos.append(cal.dog_feature)
        k = len(self._labels)
        self._protos = np.empty((len(cal.field_ids), k, 3), np.float32)
        self._protos[:, 0, :] = cal.empty_features
        for j, p in enumerate(protos, start=1):
            self._protos[:, j, :] = p
        self._coloured = np.hypot(self._protos[0, :, 1], self._protos[0, :, 2]) >= LIT_COLOURED_CHROMA
        self._coloured[0] = False
        # colourless classes far darker than the board: a dark piece takes a lit ring's colour
        self._dark = ~self._coloured & (self._protos[0, :, 0] <= self._protos[0, 0, 0] - DARK_BELOW_BOARD)
        self._dark[0] = False
        self._hidden: dict[tuple[int, int, int, int], np.ndarray] = {}
        self._pale_cols = np.array([j for j, lab in enumerate(self._labels) if lab in pale], np.int64)
        self._dark_print = None  # (fields, points): printed far darker than the palest seat's pieces
        if cal.pale_seats and cal.empty_pattern is not None:
            pale_level = min(float(to_channels(np.asarray(cal.seat_features[p], np.float64)).mean()) for p in cal.pale_seats)
            self._dark_print = cal.empty_pattern.mean(axis=2) < pale_level - DARK_PRINT
        # each class's looks on each field: its colour mixed with the field's own (vision/features.py)
        self._looks = mixed_prototypes(self._protos)
        self._lit_looks: dict[tuple[Any, ...], np.ndarray] = {}
        self._H = cal.homography.copy()
        self._index(self._H)

    # --- camera following ----------------------------------------------------------
    @property
    def homography(self) -> np.ndarray:
        return self._H

    def _index(self, H: np.ndarray) -> bool:
        fidx = flat_index(H, self._field_pts, self.width, self.height)
        gidx = flat_index(H, self.cal.grid_mm, self.width, self.height)
        didx = flat_index(H, self._disc_pts, self.width, self.height) if self._disc_pts is not None else None
        if fidx is None or gidx is None or (self._disc_pts is not None and didx is None):
            return False
        # Each grid point is the mean of a 3x3 pixel block: one pixel's sensor noise is as
        # large as the colour change of a pale hand.
        w = self.width
        block = np.array([-w - 1, -w, -w + 1, -1, 0, 1, w - 1, w, w + 1])
        if (gidx < w + 1).any() or (gidx >= w * (self.height - 1) - 1).any():
            return False
        self._fidx, self._gidx, self._didx = fidx, gidx[:, None] + block[None, :], didx
        self._H = H
        self._H_now = H
        return True

    def _track(self, frame: np.ndarray) -> tuple[str | None, list[str]]:
        """Follow the markers with template matching; returns (problem, notices)."""
        notices: list[str] = []
        expected = project(self._H @ np.linalg.inv(self.cal.homography), self._marker_cal)
        found_src, found_dst, hidden, lost = [], [], [], []
        for mid, tmpl, (ex, ey), cal_c in zip(MARKER_IDS, self.cal.marker_templates, expected, self._marker_cal):
            th, tw = tmpl.shape
            x0 = int(round(ex)) - tw // 2 - TRACK_MARGIN_PX
            y0 = int(round(ey)) - th // 2 - TRACK_MARGIN_PX
            x1, y1 = x0 + tw + 2 * TRACK_MARGIN_PX, y0 + th + 2 * TRACK_MARGIN_PX
            if x0 < 0 or y0 < 0 or x1 > self.width or y1 > self.height:
                lost.append(mid)
                continue
            win = cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
            score = cv2.matchTemplate(win, tmpl, cv2.TM_CCOEFF_NORMED)
            _, best, _, (bx, by) = cv2.minMaxLoc(score)
            if best < TRACK_MIN_SCORE:
                hidden.append(mid)
                continue
            if bx in (0, score.shape[1] - 1) or by in (0, score.shape[0] - 1):
                lost.append(mid)
                continue
            dx = _subpixel(score[by, bx - 1], best, score[by, bx + 1])
            dy = _subpixel(score[by - 1, bx], best, score[by + 1, bx])
            cx = x0 + bx + dx + (tw - 1) / 2 + (self.cal.marker_templates[mid].shape[1] % 1)
            cy = y0 + by + dy + (th - 1) / 2
            # Template centre in the empty frame was the rounded marker centre; keep its fraction.
            fx, fy = cal_c - np.rint(cal_c)
            found_src.append(cal_c)
            found_dst.append((cx + fx, cy + fy))
        if lost or hidden:
            # A marker is not where it was: covered, or the camera moved. Only a full
            # detection can tell which.
            return self._realign(frame), notices
        src, dst = np.array(found_src), np.array(found_dst)
        C, _ = cv2.findHomography(src, dst, 0)
        if C is None:
            return ("cannot follow the markers: calibrate again", notices)
        H = C @ self.cal.homography
        H = H / H[2, 2]
        self._H_now = H  # where the board is in this frame, to the sub-pixel (field patterns follow it)
        move = np.abs(project(H, self.cal.centres_mm) - project(self._H, self.cal.centres_mm)).max()
        if move > RETRACK_PX and not self._index(H):
            return ("the board has moved partly out of the picture: move the camera back and calibrate again", notices)
        drift = np.abs(project(self._H, self.cal.centres_mm) - project(self.cal.homography, self.cal.centres_mm)).max()
        if drift > MOVED_NOTICE_PX:
            notices.append(f"the camera or board has moved {drift:.0f} px since calibration (following it)")
        return None, notices

    def _realign(self, frame: np.ndarray) -> str | None:
        found = detect_markers(frame)
        if len(found) < 4:
            missing = [m for m in MARKER_IDS if m not in found]
            return (f"{_markers(missing)} hidden or out of view: uncover the board's corners "
                    "so the camera can check its position")
        cal_px = np.concatenate([project(self.cal.homography, marker_board_corners(self.geometry, m)) for m in MARKER_IDS])
        now_px = np.concatenate([found[m] for m in MARKER_IDS])
        C, _ = cv2.findHomography(cal_px, now_px, 0)
        if C is None or not self._index((C @ self.cal.homography) / (C @ self.cal.homography)[2, 2]):
            return "the camera or board has moved too far: calibrate again"
        log.info("camera moved: re-aligned from the markers")
        return None

    # --- measuring and reading ------------------------------------------------------
    def measure(self, frame: np.ndarray, lit: Iterable[str] | Mapping[str, Any] | None = None) -> Measurement:
        if frame.shape[1] != self.width or frame.shape[0] != self.height:
            return Measurement(np.zeros_like(self.cal.empty_features), 0.0, np.zeros(0, bool), True, (), None,
                               f"the frame is {frame.shape[1]}x{frame.shape[0]} but the calibration is for "
                               f"{self.width}x{self.height}: calibrate at this resolution", ())
        frame = np.ascontiguousarray(frame)
        problem, notices = self._track(frame)
        flat = frame.reshape(-1, 3)
        y = log_colour(flat[self._gidx].mean(axis=1, dtype=np.float32)) - self.cal.grid_reflect
        fit = robust_fit(self._A, y, self._pinv)
        light_fields = self._B_fields @ fit.coef
        feats = field_features(flat[self._fidx], light_fields, marked=self._marked)
        cover = self._cover.judge(fit.residual, self._A @ fit.coef + self.cal.grid_reflect, feats, lit)
        foreign, covered, covered_fields = cover.foreign, cover.covered, cover.fields
        disc = None
        if self._didx is not None and self._B_disc is not None:
            disc = (log_colour(flat[self._didx]) - self._B_disc @ fit.coef).astype(np.float32)
        light = float(np.exp(fit.coef[0].mean()))
        structure = pattern = None
        if self.cal.empty_pattern is not None:
            pattern = self._pattern(frame, light_fields)
            diff = pattern - self.cal.empty_pattern
            structure = np.sqrt((diff * diff).mean(axis=(1, 2)))
        return Measurement(feats, light, foreign, covered, covered_fields, disc, problem, tuple(notices),
                           light_fields, structure, pattern)

    def _pattern(self, frame: np.ndarray, light_fields: np.ndarray) -> np.ndarray:
        """(fields, STRUCTURE_POINTS, 3) light-corrected log colours of 3x3 pixel means over each whole field.

        Each point's mean is interpolated at its sub-pixel place in this frame: a field's rim
        and a lit ring's light are sharp edges, and a point rounded to the nearest pixel would
        jump across them as the camera wobbles by a fraction of one.
        """
        H = self._H_now
        if self._smap_H is not H:
            pts = project(H, self._struct_pts.reshape(-1, 2))
            x0 = int(max(np.floor(pts[:, 0].min()) - 2, 0))
            y0 = int(max(np.floor(pts[:, 1].min()) - 2, 0))
            x1 = int(min(np.ceil(pts[:, 0].max()) + 3, self.width))
            y1 = int(min(np.ceil(pts[:, 1].max()) + 3, self.height))
            mx = (pts[:, 0] - x0).astype(np.float32).reshape(-1, 1)
            my = (pts[:, 1] - y0).astype(np.float32).reshape(-1, 1)
            self._smap, self._smap_H = (mx, my, (x0, y0, x1, y1)), H
        assert self._smap is not None
        mx, my, (x0, y0, x1, y1) = self._smap
        box = cv2.boxFilter(frame[y0:y1, x0:x1], cv2.CV_32F, (3, 3), borderType=cv2.BORDER_REPLICATE)
        vals = cv2.remap(box, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        self._box = box  # for `_slope`, this frame only
        return log_colour(vals.reshape(*self._struct_pts.shape[:2], 3)) - light_fields[:, None, :]

    def structure_pattern(self, frame: np.ndarray) -> np.ndarray:
        """The pattern of every field in `frame` (calibration learns the empty board's)."""
        m = self.measure(frame)
        assert m.light_fields is not None
        return self._pattern(np.ascontiguousarray(frame), m.light_fields)

    def structure_distance(self, frame: np.ndarray) -> np.ndarray:
        """(fields,) how far each field's pattern is from the learned empty field's."""
        m = self.measure(frame)
        assert m.structure is not None, "the calibration has no empty-field pattern"
        return m.structure

    def read(self, frame: np.ndarray, disc: int | None = None,
             lit: Iterable[str] | Mapping[str, Any] | None = None) -> FrameReading:
        """Read a frame. `disc`: the encoder's disc orientation (black boards); `lit`: fields whose LEDs are on."""
        if not self.cal.has_colours:
            raise ValueError("this calibration has no learned colours: calibrate with a start-position image")
        m = self.measure(frame, lit)
        d = self._class_distances(m.features, lit)
        cls = classify(d)
        kept_unknown: list[int] = []  # fields in their own lit ring that nothing below may read
        if lit:  # a ring's light bends a colour as well: in a lit ring only the usual tiers
            rows = [i for i, f in enumerate(self.cal.field_ids) if f in lit]
            cls[rows] = classify(d[rows], bent=False)
        if isinstance(lit, Mapping):  # own ring lit in a known colour: read only what is clear even so
            rows = [i for i, f in enumerate(self.cal.field_ids) if lit.get(f) is not None]
            if rows:
                cls[rows] = classify(d[rows], min_margin=LIT_MIN_MARGIN, bent=False)
                kept_unknown = self._read_lit(frame, m, lit, d, cls)
        notices = m.notices
        if m.structure is not None and len(self._pale_cols):
            glowing = np.zeros(len(cls), bool)
            structure = m.structure
            near_lit = None
            own_z = None
            lit_colour = None
            if lit:
                rows = [i for i, f in enumerate(self.cal.field_ids) if f in set(lit)]
                glowing = (self._field_dist[rows] < PALE_LIT_CLEARANCE_MM).any(axis=0)
                near_lit = glowing.copy()
                if glowing.any() and self.cal.has_glow and m.pattern is not None:
                    lit_colour = self._lit_colours(lit)
                    own = np.zeros(len(cls), bool)  # fields whose own ring is lit
                    own[list(lit_colour)] = True
                    structure, known = self._lit_structure(m.pattern, lit_colour, glowing & ~own)
                    structure = np.where(known, structure, m.structure)
                    glowing &= ~known
                    if own.any():  # the noise sample: fields no LED light reaches, empty by colour and pattern
                        nearest = d.argmin(axis=1)
                        low, _ = structure_thresholds(m.structure[(nearest == 0) & ~near_lit])
                        own_z = self._own_lit_z(m, lit_colour, (nearest == 0) & ~near_lit & (m.structure < low))
                        glowing &= ~np.isfinite(own_z)
            cls = self._pale_or_empty(d, cls, structure, glowing, near_lit, own_z, m.pattern, lit_colour)
            if glowing.any() and (cls[glowing] < 0).any():
                how = ("switch the LEDs off for a moment to read the board" if self.cal.has_glow else
                       "switch the LEDs off for a moment, or calibrate with the LEDs (dogtable vision calibrate) "
                       "so that lit fields can be read")
                notices = notices + ("pale pieces cannot be told from empty fields in LED light: " + how,)
        cls[kept_unknown] = -1
        labels = tuple("unknown" if c < 0 else self._labels[c] for c in cls)
        problem = m.problem
        seen = None
        if m.disc_colours is not None and self.cal.disc_reference is not None and not m.covered:
            seen = self.disc_orientation(m.disc_colours)
            if disc is not None and seen is not None and seen != disc and problem is None:
                problem = (f"the disc looks turned to orientation {seen} but the encoder says {disc}: "
                           "check the disc and the encoder")
        return FrameReading(self.cal.field_ids, labels, m.features, m.light, m.covered, m.covered_fields,
                            problem, notices, seen, disc)

    def _read_lit(self, frame: np.ndarray, m: Measurement, lit: Mapping[str, Any], d: np.ndarray,
                  cls: np.ndarray) -> list[int]:
        """Pieces in their own lit ring (`cls` is updated in place).

        However a piece in a lit ring was read, it stands only if no other class with much more
        of the ring's light on it (LIT_GAINS_AT_MOST) comes as near: a black piece in a red ring
        is as red as a red piece, and a red piece in the table's green ring as yellow as a
        yellow one (any board). On royal boards more follows.

        A royal piece is read from its patch's more colourful half (its rank mark is
        colourless); inside a lit ring that half is the ring's light on the board and on the
        piece's sides (a red piece in green light looks yellow). So a field left unknown is
        read again from the pixels the ring's light tints least among the colourful ones
        (`field_features` with the LED's colour); that reading is taken where it is clear and
        the usual one's nearest class is the same. A coloured class read the usual way stands
        only if that tint-free reading names no other class nearer (LIT_AGREE).

        On boards with a dark piece, a coloured class the dark piece looks like in that ring is
        not read there (`_hidden_by_dark`). A field that looks empty (or pale) but whose
        tint-free reading says a coloured piece stays unknown whatever the pattern says later:
        such fields are returned, for `read` to keep them unknown.
        """
        kept_unknown: list[int] = []
        if m.light_fields is None:
            return kept_unknown
        flat = np.ascontiguousarray(frame).reshape(-1, 3)
        nearest = d.argmin(axis=1)
        for f, rgb in lit.items():
            i = self._index_of.get(f)
            if i is None or rgb is None:
                continue
            led = np.array([rgb[2], rgb[1], rgb[0]], np.float64) / 255.0
            feat, dist = m.features[i : i + 1], d[i]
            again = d_again = None
            if cls[i] < 0 and self._marked:
                again, d_again = self._without_tint(flat, m, i, rgb, led)
                c = int(classify(d_again[None, :], min_margin=LIT_MIN_MARGIN, bent=False)[0])
                if c > 0 and c == nearest[i]:
                    cls[i], feat, dist = c, again, d_again
            c = int(cls[i])
            if c <= 0 and int(nearest[i]) in (0, *self._pale_cols) and self._coloured.any():
                # A thin pawn in the picture covers little of its patch, and the ring's light on the
                # field around it outweighs it (a yellow pawn in the light-blue ring reads as the lit
                # empty field); without the tint it is plainly coloured, while an empty field stays
                # nearest the empty field or, on the 6-segment boards, the white seat.
                if again is None or d_again is None:
                    again, d_again = self._without_tint(flat, m, i, rgb, led)
                if d_again[self._coloured].min() < d_again[0]:
                    cls[i] = -1
                    kept_unknown.append(i)  # the pale seats' pattern rules must not read it empty either
                    continue
            if c > 0 and self._hidden_by_dark(i, rgb, led)[c]:
                cls[i] = c = -1
            if c > 0:
                strong_looks = self._lit_looks_of(i, rgb, led, LIT_GAINS_AT_MOST)
                strong = mixed_distances(feat, strong_looks)[0]
                near = strong - dist[c] < LIT_MIN_MARGIN  # classes that, lit more, look as much like it
                near[[0, c]] = False
                if near.any() or self._coloured[c]:
                    if again is None or d_again is None:
                        again, d_again = self._without_tint(flat, m, i, rgb, led)
                    if not self._tint_free_agrees(c, near, again, d_again, strong_looks):
                        cls[i] = -1
            if not self._marked:
                continue
            if cls[i] < 0 and self._coloured.any():
                if again is None or d_again is None:
                    again, d_again = self._without_tint(flat, m, i, rgb, led)
                c = self._coloured_without_tint(m.features[i : i + 1], int(nearest[i]), again, d_again,
                                                self._lit_looks_of(i, rgb, led, LIT_GAINS_AT_MOST))
                cls[i] = -1 if c > 0 and self._hidden_by_dark(i, rgb, led)[c] else c
        return kept_unknown

    def _hidden_by_dark(self, i: int, rgb: Any, led: np.ndarray) -> np.ndarray:
        """(classes,) the coloured classes a dark piece (black, the dog) in field i's ring lit in `rgb`
        may look like (DARK_LIT_REACH): in that ring they are not read by colour (cached)."""
        key = (i, int(rgb[0]), int(rgb[1]), int(rgb[2]))
        if key not in self._hidden:
            hidden = np.zeros(len(self._labels), bool)
            protos = self._protos[i].astype(np.float64)
            for c in np.flatnonzero(self._coloured):
                hidden[c] = any(dark_lit_path_distance(protos[k], protos[c], led) < DARK_LIT_REACH
                                for k in np.flatnonzero(self._dark))
            self._hidden[key] = hidden
        return self._hidden[key]

    def _tint_free_agrees(self, c: int, near: np.ndarray, again: np.ndarray, d_again: np.ndarray,
                          strong_looks: np.ndarray) -> bool:
        """Whether class c, read the usual way in its own lit ring, stands by its tint-free reading.

        `near` (classes,): other classes that, with more of the ring's light, come within LIT_MIN_MARGIN
        of the usual reading; `again`, `d_again` the tint-free features and their distances;
        `strong_looks` the field's looks with up to the ring's full light. A coloured class stands only
        if the tint-free reading names no other class nearer (LIT_AGREE). Where another class lit more
        comes as near: never on royal boards (their usual reading is the ring-tinted half of the patch),
        on the others only if c is coloured and each such class too (a dark piece takes the ring's
        colour either way) and the tint-free reading puts c within MAX_DISTANCE. On royal boards a
        coloured class must also be clear by LIT_MIN_MARGIN of every other coloured class lit up to the
        ring's full light in the tint-free reading: a red piece in the green ring may look yellow in
        both readings, but then red lit more comes as near.
        """
        coloured = bool(self._coloured[c])
        if coloured and d_again[c] - np.delete(d_again, c).min() > LIT_AGREE:
            return False
        if near.any() and (self._marked or not coloured or not self._coloured[near].all()
                           or d_again[c] > MAX_DISTANCE):
            return False
        if self._marked and coloured:
            others = self._coloured.copy()
            others[c] = False
            if others.any():
                strong_again = mixed_distances(again, strong_looks)[0]
                return bool(strong_again[others].min() - d_again[c] >= LIT_MIN_MARGIN)
        return True

    def _without_tint(self, flat: np.ndarray, m: Measurement, i: int, rgb: Any,
                      led: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Field i's features read from its pixels least tinted by its own lit ring (1, 3), and their
        distances to its class looks in that light (classes,)."""
        assert m.light_fields is not None
        again = field_features(flat[self._fidx[i : i + 1]], m.light_fields[i : i + 1], marked=True, led_bgr=led)
        return again, mixed_distances(again, self._lit_looks_of(i, rgb, led))[0]

    def _coloured_without_tint(self, usual: np.ndarray, nearest: int, again: np.ndarray, d_again: np.ndarray,
                               strong_looks: np.ndarray) -> int:
        """The coloured class a royal piece left unknown in its own lit ring is read as, or -1.

        `usual` (1, 3) its usual features and `nearest` their nearest class; `again` (1, 3) those read
        without the ring's tint and `d_again` (classes,) their distances; `strong_looks` the field's
        looks with up to the ring's full light (LIT_GAINS_AT_MOST). The bars: LIT_COLOURED_CHROMA.
        """
        c = int(d_again.argmin())
        if c == nearest or not self._coloured[c] or d_again[c] > MAX_DISTANCE:
            return -1
        strong_again = mixed_distances(again, strong_looks)[0]
        clear = min(float(np.delete(d_again, c).min()), float(np.delete(strong_again, [0, c]).min())) - d_again[c]
        strong = mixed_distances(usual, strong_looks)[0]
        colourless = float(strong[~self._coloured].min()) - strong[c]
        behind = strong[c] - float(strong[1:].min())
        ok = clear >= LIT_AGAIN_MARGIN and colourless >= LIT_DARK_MARGIN and behind <= LIT_USUAL_BEHIND
        return c if ok else -1

    def _lit_looks_of(self, i: int, rgb: Any, led: np.ndarray, gains: tuple[float, ...] = LED_GAINS) -> np.ndarray:
        """Field i's class looks with its own ring lit in `rgb` (cached: the same rings are lit frame after frame)."""
        key = (i, int(rgb[0]), int(rgb[1]), int(rgb[2]), gains)
        if key not in self._lit_looks:
            self._lit_looks[key] = mixed_prototypes(self._protos[i : i + 1], led, gains)
        return self._lit_looks[key]

    def _class_distances(self, features: np.ndarray, lit: Iterable[str] | Mapping[str, Any] | None) -> np.ndarray:
        """(fields, classes) colour distances; a field whose own ring is lit in a known colour may
        also show that light added to it (`mixed_prototypes`)."""
        d = mixed_distances(features, self._looks)
        if isinstance(lit, Mapping):
            index = self._index_of
            for f, rgb in lit.items():
                if f in index and rgb is not None:
                    i = index[f]
                    led = np.array([rgb[2], rgb[1], rgb[0]], np.float64) / 255.0
                    d[i] = mixed_distances(features[i : i + 1], self._lit_looks_of(i, rgb, led))[0]
        return d

    def unknown_only_near_lit(self, reading: FrameReading, lit: Iterable[str] | Mapping[str, Any] | None) -> bool:
        """True if the reading is clean but for unknown fields that the LEDs may have made so: fields
        in their own lit ring (a dark piece in a coloured ring looks like a piece of that colour), and
        with pale seats every field near a lit one (a white piece looks like the lit field).

        Then one frame with the LEDs blanked reads them (`fill_unknown`).
        """
        if not lit or not reading.unknown or reading.covered or reading.problem:
            return False
        index = self._index_of
        rows = [index[f] for f in lit if f in index]
        if not rows:
            return False
        reach = BLANK_REACH_MM if self.cal.pale_seats else 0.0
        near = (self._field_dist[rows] <= reach).any(axis=0)
        return all(f in index and near[index[f]] for f in reading.unknown)

    def _lit_colours(self, lit: Iterable[str] | Mapping[str, Any]) -> dict[int, int | None]:
        """Lit field rows -> index of their LED colour among the learned ones (None: unknown or no colour)."""
        colours = {c: k for k, c in enumerate(self.cal.glow_colours)}
        index = {f: i for i, f in enumerate(self.cal.field_ids)}
        out: dict[int, int | None] = {}
        items = lit.items() if isinstance(lit, Mapping) else ((f, None) for f in lit)
        for f, rgb in items:
            if f in index:
                key = None if rgb is None else (int(rgb[0]), int(rgb[1]), int(rgb[2]))
                out[index[f]] = colours.get(key) if key is not None else None
        return out

    def _structure_distances(self) -> None:
        if self._struct_dist is None:
            # (fields, points, fields): each structure point's distance from every field centre
            self._struct_dist = np.linalg.norm(self._struct_pts[:, :, None, :] - self.cal.centres_mm[None, None, :, :],
                                               axis=3).astype(np.float32)

    def _slope(self, j: int) -> np.ndarray:
        """(2, points, 3) grey levels per pixel of field j's 3x3 means in this frame, along x and y."""
        assert self._smap is not None and self._box is not None
        box = self._box
        mx, my, _ = self._smap
        n = self._struct_pts.shape[1]
        x, y = mx[j * n:(j + 1) * n], my[j * n:(j + 1) * n]
        h = np.float32(0.5)
        z = np.float32(0.0)

        def at(dx: np.float32, dy: np.float32) -> np.ndarray:
            return cv2.remap(box, x + dx, y + dy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)[:, 0, :]

        return np.stack([at(h, z) - at(-h, z), at(z, h) - at(z, -h)])

    def _unlit_rows(self, rows: np.ndarray, lit_colour: Mapping[int, int | None]) -> np.ndarray:
        """(rows, points) `_unlit_by_others` of several fields at once."""
        self._structure_distances()
        assert self._struct_dist is not None
        if self._dist_by_centre is None:  # (centres, fields, points): a few lit centres are one slice
            self._dist_by_centre = np.ascontiguousarray(self._struct_dist.transpose(2, 0, 1))
        lit = np.fromiter(lit_colour, np.int64, len(lit_colour))
        far = self._dist_by_centre[lit][:, rows] >= self.cal.glow_reach_mm  # (lit, rows, points)
        far |= (lit[:, None, None] == rows[None, :, None])  # a field's own ring does not count
        return far.all(axis=0)

    def _unlit_by_others(self, j: int, lit_colour: Mapping[int, int | None]) -> np.ndarray:
        """(points,) field j's structure points that no other lit ring's light reaches."""
        self._structure_distances()
        assert self._struct_dist is not None
        out = np.ones(self._struct_pts.shape[1], bool)
        for i in lit_colour:
            if i != j:
                out &= self._struct_dist[j][:, i] >= self.cal.glow_reach_mm
        return out

    def _lit_structure(self, pattern: np.ndarray, lit_colour: Mapping[int, int | None],
                       glowing: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(fields,) pattern distances of fields near lit rings (their own unlit) from their empty look,
        over the points no lit ring's light reaches, and which could be judged (enough such points).

        A ring's halo is known only roughly (it clips on a pale field and not on a dark one):
        the points it reaches are left out rather than predicted.
        """
        out = np.zeros(len(glowing), np.float32)
        known = np.zeros(len(glowing), bool)
        assert self.cal.empty_pattern is not None
        rows = np.flatnonzero(glowing)
        if not len(rows):
            return out, known
        keep = self._unlit_rows(rows, lit_colour)
        n = keep.sum(axis=1)
        ok = n >= GLOW_MIN_KEPT * keep.shape[1]
        diff = pattern[rows] - self.cal.empty_pattern[rows]
        sq = (diff * diff).sum(axis=2)
        out[rows[ok]] = np.sqrt((sq * keep).sum(axis=1)[ok] / (3 * n[ok]))
        known[rows[ok]] = True
        return out, known

    def _own_lit_z(self, m: Measurement, lit_colour: Mapping[int, int | None], quiet: np.ndarray) -> np.ndarray:
        """(fields,) for fields whose own ring is lit in a learned colour: how far the field is from
        its learned lit look, as a z-score (`patch_z`); NaN where it cannot be judged.

        A lit ring floods the field's rim (white light clips a white piece and the field
        alike), so only the inner part of a field, where the ring adds little light, is
        judged (no other ring's light either: a neighbour's halo is known only roughly, and
        the outer ring is where a neighbour's piece and its shadow reach). What tells a pale
        piece there (its shading, its colour against the field's, its shadow) covers patches
        of the field, while sensor noise changes from point to point: the difference from
        the lit look is compared patch by patch (`structure_cells`), in grey levels (sensor
        noise is the same number of them on pale and on dark print), against how much the
        same patches of the fields no LED reaches (`quiet`) differ from their empty look in
        this frame. The ring's strength is fitted first (a pulsing LED is dimmer at times):
        far from the learned one, not judged.
        """
        cal = self.cal
        assert cal.glow_pattern is not None and cal.empty_pattern is not None
        assert m.pattern is not None and m.light_fields is not None
        out = np.full(len(cal.field_ids), np.nan, np.float32)
        q = np.flatnonzero(quiet)
        if len(q) < LIT_MIN_QUIET:
            return out
        q = q[:: max(1, len(q) // LIT_QUIET_SAMPLE)]
        # the quiet fields' differences from their empty look, grey levels: (quiet, channels, points)
        noise = ((np.exp(m.pattern[q]) - np.exp(cal.empty_pattern[q])) * np.exp(m.light_fields[q])[:, None, :])
        noise = np.ascontiguousarray(noise.transpose(0, 2, 1))
        # the light in the lit pictures calibration learned from (not known: as bright as the camera goes)
        light = cal.glow_light if cal.glow_light is not None else np.full(cal.glow_pattern.shape[:2] + (3,), CLIP_LOG)
        for j, k in lit_colour.items():
            if k is None:
                continue
            keep = self._unlit_by_others(j, lit_colour) & self._inner
            e_lin = np.exp(cal.empty_pattern[j])
            own = e_lin * np.expm1(cal.glow_pattern[k, j])  # the light the ring adds (linear, light-corrected)
            obs = np.exp(m.pattern[j])
            # Where the camera clips, now or in the lit picture, light does not add up: not used.
            unclipped = np.log(e_lin + own) + np.maximum(m.light_fields[j], light[k, j])[None, :] < SATURATED_LOG
            strong = keep[:, None] & (np.abs(own) >= GLOW_JUDGED) & unclipped
            o = own[strong]
            oo = float((o * o).sum())
            a = float((o * (obs[strong] - e_lin[strong])).sum() / oo) if oo > 1e-6 else 1.0
            if abs(a - 1.0) > GLOW_MAX_GAIN_CHANGE:
                continue
            judged = keep[:, None] & (np.abs(own) < GLOW_JUDGED) & unclipped
            w = judged.T.astype(np.float32)  # (channels, points)
            count = w @ self._cells  # (channels, cells)
            use = count >= LIT_CELL_POINTS
            if use.sum() < LIT_MIN_PATCHES:
                continue
            res = (obs - (e_lin + a * own)) * np.exp(m.light_fields[j])[None, :]  # (points, channels), grey
            res, lost = self._align(j, res, judged)
            n = np.maximum(count, 1.0)
            mean = (res.T * w) @ self._cells / n
            quiet_means = (noise * w[None]) @ self._cells / n[None]  # (quiet, channels, cells)
            sigma = np.maximum(1.4826 * np.median(np.abs(quiet_means), axis=0), LIT_NOISE_FLOOR)
            if cal.glow_unsure is not None:  # the lit look's own uncertainty (calibration._smooth_lit_looks)
                sigma = np.hypot(sigma, cal.glow_unsure[k, j].T * np.exp(m.light_fields[j])[:, None])
            out[j] = patch_z(mean, sigma, use, quiet_means, lost)
        return out

    def _align(self, j: int, res: np.ndarray, judged: np.ndarray) -> tuple[np.ndarray, int]:
        """Field j's residual (points, channels) less what a small shift of the picture explains, and
        the degrees of freedom that took (0 or 2).

        The markers place the board to a few tenths of a pixel; where the look has edges (the
        ring's light, a field's rim) that is several grey levels. The shift that fits best
        (least squares on this frame's slopes at the judged points) is taken out, up to
        LIT_MAX_SHIFT_PX: a pale piece's difference is not a shift of the empty field.
        """
        slope = self._slope(j)  # (2, points, channels)
        a = slope[:, judged].T  # (judged, 2)
        aa = a.T @ a
        if np.linalg.cond(aa) >= 1e6:
            return res, 0
        shift = np.linalg.solve(aa, a.T @ res[judged])
        if np.hypot(*shift) > LIT_MAX_SHIFT_PX:
            return res, 0
        return res - np.einsum("kpc,k->pc", slope, shift), 2

    def _pale_or_empty(self, d: np.ndarray, cls: np.ndarray, structure: np.ndarray, glowing: np.ndarray,
                       near_lit: np.ndarray | None = None, own_z: np.ndarray | None = None,
                       pattern: np.ndarray | None = None,
                       lit_colour: Mapping[int, int | None] | None = None) -> np.ndarray:
        """Fields whose colour says "empty or a pale piece": the pattern decides; unsure is unknown.

        LED glow changes a field's pattern as much as a white piece does (the ring lights the
        field's rim, the halo its neighbours): such fields stay unknown when their colour
        cannot tell, unless `own_z` (fields whose own ring is lit, `_own_lit_z`) judges them.
        A standing piece's shadow and leaning head reach into the fields beside it: with the
        `pattern`s, those fields are judged on their points out of its reach (and, with
        `lit_colour`, out of other lit rings' reach: `_away_from_neighbours`), unless they cannot
        be judged in LED light at all or their own ring is lit (`own_z` judges those).
        """
        nearest = d.argmin(axis=1)
        ambiguous = (nearest == 0) | np.isin(nearest, self._pale_cols)
        # The noise scale: fields that look empty and that no LED light reaches
        quiet = ~glowing if near_lit is None else ~near_lit
        low, high = structure_thresholds(structure[(nearest == 0) & quiet])
        pale_best = self._pale_cols[d[:, self._pale_cols].argmin(axis=1)]
        rows = np.arange(len(d))
        out = cls.copy()
        empty = (structure < low)
        piece = (structure > high)
        own_lit = np.zeros(len(d), bool) if own_z is None else np.isfinite(own_z)
        if own_z is not None:
            lit = own_lit
            z = np.where(lit, own_z, 0.0)
            plain = d[rows, pale_best] >= LIT_EMPTY_COLOUR * d[:, 0]
            empty = np.where(lit, (z < LIT_Z_EMPTY) | ((z < LIT_Z_EMPTY_PLAIN) & plain), empty)
            # ... and a pale piece only where its colour does not say "the empty field" plainly: the
            # lit look misses at times (a red ring on the linen board) where no piece changed the colour
            piece = np.where(lit, (z > LIT_Z_PIECE) & (d[rows, pale_best] <= LIT_PALE_COLOUR * d[:, 0]), piece)
            # ... and never with another lit ring within PALE_LIT_CLEARANCE_MM: their light, thrown
            # about by the pieces around, lifted an empty field to z 14 with its colour as near
            # white as empty (ring stress seed 1, 6seg-two-20-linen T83; empty fields elsewhere up to
            # 12.3, white pieces from 12.7, seeds 2, 3, 9, 11). The blanked frame reads it.
            if lit_colour:
                ring = np.array(list(lit_colour))
                beside_lit = np.zeros(len(d), bool)
                near = self._field_dist[np.ix_(ring, ring)] < PALE_LIT_CLEARANCE_MM
                beside_lit[ring] = near.sum(axis=1) > 1
                piece &= ~(lit & beside_lit)
        empty = ambiguous & empty & (d[:, 0] <= MAX_DISTANCE)
        piece = ambiguous & piece & (d[rows, pale_best] <= MAX_DISTANCE)
        # A standing piece next to a field shades it (a hard shadow per lamp) and may lean over its
        # rim: that changes an empty field's pattern as a pale piece does. Next to a piece, a pale
        # piece is only read where its colour leans towards the pale seat's rather than the
        # field's, or its pattern differs far past the usual bar; else it is unknown.
        standing = (nearest != 0) | piece  # by its nearest colour: a neighbour read "unknown" stands too
        beside = (self._field_dist[:, standing] < NEIGHBOUR_SHADE_MM).sum(axis=1) > standing.astype(int)
        if pattern is not None:
            kept, bare = self._away_from_neighbours(pattern, standing, ambiguous & beside & ~glowing & ~own_lit & ~empty,
                                                    lit_colour, shaded=d[:, 0] < d[rows, pale_best])
            again = np.isfinite(kept)
            whole = structure
            structure = np.where(again, kept, structure)
            # A neighbour's shadow lifts a field's whole pattern a little past the piece bar; a white
            # piece beside a standing one lifts it far past, and keeps little of its own pattern out
            # of the neighbour's reach, so its kept points alone may look empty. Far past the bar,
            # the kept points must say "empty" the plainer the farther it is, unless the field's
            # colour says "empty" plainly.
            # (Where the field's dark print says no pale piece covers it, `bare`, that worry is answered.)
            far = (whole > NEIGHBOUR_FAR_PAST * high) & (d[rows, pale_best] < NEIGHBOUR_COLOUR_EMPTY * d[:, 0]) & ~bare
            bar_empty = np.where(far, low * high / np.maximum(whole, 1e-6), high)
            empty = np.where(again, ambiguous & (structure < bar_empty) & (d[:, 0] <= MAX_DISTANCE), empty)
            # ... unless its colour says pale piece plainly (a white kennel piece among white
            # kennel pieces, little of its spot out of their reach): then the usual bar
            pale_colour = d[rows, pale_best] < PALE_COLOUR_CLEAR * d[:, 0]
            bar = np.where(pale_colour, high, NEIGHBOUR_PIECE_BAR * high)
            piece = np.where(again, ambiguous & (structure > bar)
                             & (d[rows, pale_best] <= MAX_DISTANCE) & ~bare, piece)
        doubtful = piece & beside & (d[rows, pale_best] > d[:, 0]) & (structure < NEIGHBOUR_SHADE_BAR * high)
        out[ambiguous] = -1
        out[empty] = 0
        out[piece & ~doubtful] = pale_best[piece & ~doubtful]
        out[ambiguous & glowing] = -1
        return out

    def _away_from_neighbours(self, pattern: np.ndarray, standing: np.ndarray, which: np.ndarray,
                              lit_colour: Mapping[int, int | None] | None = None,
                              shaded: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(fields,) pattern distance of `which` fields from their empty look over the points no standing
        neighbour's shadow or leaning head reaches (NEIGHBOUR_KEEP_MM), nor another lit ring's light
        (`lit_colour`); NaN where too few are left. `shaded` (fields,): those that may lie in a
        neighbour's shadow (their colour nearer the empty field's than a pale seat's). And (fields,)
        which of them are bare by their dark print (`_bare_by_dark_print`): for those the distance is
        taken with the shadow out point by point."""
        assert self.cal.empty_pattern is not None
        out = np.full(len(which), np.nan, np.float32)
        bare = np.zeros(len(which), bool)
        rows = np.flatnonzero(which)
        if not len(rows):
            return out, bare
        nb_idx, reach = self._neighbour_reach()
        stands = np.append(standing, False)  # the padding index stands for no neighbour
        keep = ~(reach[rows] & stands[nb_idx[rows]][:, None, :]).any(axis=2)  # (rows, points)
        if lit_colour:
            keep &= self._unlit_rows(rows, lit_colour)
        diff = pattern[rows] - self.cal.empty_pattern[rows]
        n = keep.sum(axis=1)
        ok = n >= NEIGHBOUR_MIN_KEPT * keep.shape[1]
        # A neighbour's cast shadow reaches farther than its head (a low lamp, two lights) and
        # darkens the field about evenly, keeping its hue: where the colour says "the empty field"
        # rather than a pale piece, the kept points' mean darkening is taken out, channel by
        # channel (a brightening is not). A white piece may be darker than a bright field too
        # (the simulated table's): its colour is then nearer the pale seat's, and it stays.
        if shaded is not None:
            bare[rows] = self._bare_by_dark_print(rows, diff, keep) & shaded[rows] & ok
            shade = np.minimum(np.einsum("rpc,rp->rc", diff, keep) / np.maximum(n, 1)[:, None], 0.0)
            diff = diff - (shade * shaded[rows][:, None])[:, None, :]
            # A shadow's edge crosses the field (its penumbra, two lamps' shadows): on a bare field each
            # point's own remaining darkening, the same in every channel, is the shadow too.
            even = np.minimum(diff.mean(axis=2), 0.0) * bare[rows][:, None]
            diff = diff - even[:, :, None]
        sq = (diff * diff).sum(axis=2)  # (rows, points)
        out[rows[ok]] = np.sqrt((sq * keep).sum(axis=1)[ok] / (3 * n[ok]))
        return out, bare

    def _bare_by_dark_print(self, rows: np.ndarray, diff: np.ndarray, keep: np.ndarray) -> np.ndarray:
        """(rows,) fields with enough kept points of dark print (DARK_PRINT below a pale piece's
        brightness) that are brightened no more than DARK_PRINT_LIFT on average: no pale piece covers
        them. `diff` (rows, points, 3) the pattern less the empty look, `keep` (rows, points)."""
        if self._dark_print is None:
            return np.zeros(len(rows), bool)
        dark = keep & self._dark_print[rows]
        count = dark.sum(axis=1)
        lift = (diff.mean(axis=2) * dark).sum(axis=1) / np.maximum(count, 1)
        return (count >= DARK_PRINT_MIN_POINTS) & (lift <= DARK_PRINT_LIFT)

    def _neighbour_reach(self) -> tuple[np.ndarray, np.ndarray]:
        """Each field's neighbours (fields, most) within NEIGHBOUR_SHADE_MM (padded with len(fields)), and
        (fields, points, most) which of its pattern points each one's shadow and head may reach."""
        if self._nb is None:
            self._structure_distances()
            assert self._struct_dist is not None
            n = len(self.cal.field_ids)
            near = (self._field_dist < NEIGHBOUR_SHADE_MM) & ~np.eye(n, dtype=bool)
            most = max(int(near.sum(axis=1).max()), 1)
            idx = np.full((n, most), n, np.int64)
            reach = np.zeros((n, self._struct_pts.shape[1], most), bool)
            for j in range(n):
                nb = np.flatnonzero(near[j])
                idx[j, : len(nb)] = nb
                reach[j, :, : len(nb)] = self._struct_dist[j][:, nb] < NEIGHBOUR_KEEP_MM
            self._nb = (idx, reach)
        return self._nb

    def disc_orientation(self, colours: np.ndarray) -> int | None:
        """Which quarter turn of the calibration disc art best explains what the camera sees, if clear."""
        ref = self.cal.disc_reference
        assert ref is not None
        errs = []
        for q in range(4):
            delta = (q - self.cal.disc_orientation) % 4
            moved = colours[disc_turn_index(delta)]
            # Mean, not median: the art that tells orientations apart covers few points.
            errs.append(float(np.minimum(np.abs(moved - ref).sum(axis=1), 1.5).mean()))
        order = np.argsort(errs)
        best, second = errs[order[0]], errs[order[1]]
        if best > DISC_MAX_ERROR or second < DISC_MIN_RATIO * best:
            return None
        return int(order[0])


def fill_unknown(reading: FrameReading, dark: FrameReading) -> FrameReading | None:
    """`reading` with its unknown fields taken from `dark` (a frame with the LEDs blanked).

    None if `dark` cannot fill them: covered, a problem, still unknown, or any field that
    both read differs (the board changed in between).
    """
    if dark.covered or dark.problem or dark.field_ids != reading.field_ids:
        return None
    labels = []
    for a, b in zip(reading.labels, dark.labels):
        if a == "unknown":
            if b == "unknown":
                return None
            labels.append(b)
        elif a != b:
            return None
        else:
            labels.append(a)
    return dataclasses.replace(reading, labels=tuple(labels))


def patch_z(mean: np.ndarray, sigma: np.ndarray, use: np.ndarray, quiet_means: np.ndarray, lost: int = 0) -> float:
    """How far a field's patch means (channels, cells) are from zero, as a standard normal z-score.

    `sigma`: each patch mean's noise; `use`: the patches judged; `quiet_means`: (quiet
    fields, channels, cells) the same patches of fields that are as expected; `lost`:
    degrees of freedom already spent fitting. One patch may sit on the edge of a ring's
    light, where a tenth of a pixel is many grey levels: no patch counts for more than
    LIT_PATCH_CAP noise widths. And the light model misses by a few grey levels here and
    there (a lamp's glare, a vignette it cannot follow): a whole field a little brighter or
    darker in a channel, all its patches alike. How much, the quiet fields tell (the spread
    of their patches' average beyond their patches' own noise); the chi-square allows for
    it (each channel's patches share that part: Sherman-Morrison). The chi-square becomes a
    z-score by Wilson-Hilferty, which makes fields with different numbers of patches
    comparable.
    """
    mean = np.clip(mean, -LIT_PATCH_CAP * sigma, LIT_PATCH_CAP * sigma)
    chi2 = 0.0
    for c in range(mean.shape[0]):
        u = use[c]
        if not u.any():
            continue
        s2 = sigma[c, u] ** 2
        common = quiet_means[:, c, u].mean(axis=1)
        v = max((1.4826 * float(np.median(np.abs(common)))) ** 2 - float(s2.mean()) / int(u.sum()), 0.0)
        r = mean[c, u]
        chi2 += float((r * r / s2).sum())
        if v > 0:
            chi2 -= float((r / s2).sum()) ** 2 / (1.0 / v + float((1.0 / s2).sum()))
    return wilson_hilferty(chi2, max(int(use.sum()) - lost, 1))


def wilson_hilferty(chi2: float, dof: int) -> float:
    """A chi-square value with `dof` degrees of freedom as a standard normal z-score (Wilson-Hilferty)."""
    v = 2.0 / (9.0 * dof)
    return float(((chi2 / dof) ** (1.0 / 3.0) - (1.0 - v)) / np.sqrt(v))


def structure_thresholds(empty_structure: np.ndarray) -> tuple[float, float]:
    """(below: empty, above: a piece) pattern distances, from this frame's mostly-empty fields' spread."""
    n = float(np.median(empty_structure)) if len(empty_structure) else 0.0
    return max(STRUCTURE_LOW * n, STRUCTURE_FLOOR_LOW), max(STRUCTURE_HIGH * n, STRUCTURE_FLOOR_HIGH)


def _subpixel(a: float, b: float, c: float) -> float:
    den = a - 2 * b + c
    return 0.0 if abs(den) < 1e-9 else float(np.clip(0.5 * (a - c) / den, -0.5, 0.5))


def _markers(ids: list[int]) -> str:
    names = ", ".join(f"{i} ({MARKER_NAMES[i]})" for i in ids)
    return f"marker{'s' if len(ids) > 1 else ''} {names} {'are' if len(ids) > 1 else 'is'}".rsplit(" ", 1)[0] + (
        " are" if len(ids) > 1 else " is")
