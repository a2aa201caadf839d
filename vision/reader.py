"""Reading a frame: what stands on every field, whether something covers the board, any problem.

`BoardReader(calibration).read(frame, disc=None, lit=None)` returns a `FrameReading`: a
label per field ("empty", "s<seat>", "dog" or "unknown"), whether something covers the
board, and any problem (marker hidden, camera moved, disc orientation disagrees with the
encoder). The stages each have their module: following the camera (vision.tracking),
measuring colours, patterns and cover (vision.measuring), the colour decision in plain light
and in lit rings (vision.colour_decision), pale pieces by their pattern (vision.pale, with
vision.lit_pattern near lit rings). The reader reads with what calibration learned
(vision.calibration_record) and never imports the calibrating modules, which use it.
`fill_unknown` fills a reading's unknown fields from a frame with the LEDs blanked; `unread`
makes fields unknown whose lights stand for pieces (a play of another table shown in its
player's colour), so that such a frame fills them.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

import engine
from vision.calibration_record import Calibration
from vision.colour_decision import ColourJudge
from vision.field_layout import FieldLayout
from vision.lit_pattern import LitPattern
from vision.measuring import FrameSampler, Measurement
from vision.own_colour import MORE_LIGHT, OwnColourJudge, patch_spread
from vision.pale import PaleJudge
from vision.sampling import disc_turn_index
from vision.tuning import BLANK_REACH_MM, DISC_MAX_ERROR, DISC_MIN_RATIO


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
    hints: tuple[str, ...] = ()  # reason codes for the page (vision.own_colour.MORE_LIGHT): what would help

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
            "hints": list(self.hints),
        }



class BoardReader:
    """Reads frames of one calibrated setup. Keeps only where the camera currently is."""

    def __init__(self, calibration: Calibration) -> None:
        cal = calibration
        self.cal = cal
        self.geometry = engine.load_geometry(cal.segments)
        self.width, self.height = cal.resolution
        marked = cal.board_kind == "royal"  # royal pieces carry their rank on the head
        has_disc = bool(engine.load_board(cal.board_kind, cal.segments).disc_fields)
        self._sampler = FrameSampler(cal, marked, has_disc)
        self._tracker = self._sampler.tracker
        self._layout = FieldLayout(cal, self._sampler.structure_points)
        labels = ColourJudge.class_labels(cal)
        self._impossible = impossible_classes(cal.field_ids, labels)
        self._colours = ColourJudge(cal, marked, self._layout.index_of, self._impossible)
        self._own = OwnColourJudge(cal, self._colours.labels)
        self._pale = PaleJudge(cal, self._layout, self._colours.pale_columns,
                               LitPattern(cal, self._layout, self._sampler))

    @property
    def homography(self) -> np.ndarray:
        """Board mm -> pixels where the reader currently samples (it follows the camera)."""
        return self._tracker.homography

    def box(self) -> tuple[slice, slice]:
        """The rows and columns of the frame a reading looks at, where the camera now is (vision.tracking)."""
        return self._tracker.box()

    def measure(self, frame: np.ndarray, lit: Iterable[str] | Mapping[str, Any] | None = None) -> Measurement:
        """What `frame` shows before any decision (vision.measuring); `lit`: fields whose LED rings are on."""
        return self._sampler.measure(frame, lit)

    def structure_pattern(self, frame: np.ndarray) -> np.ndarray:
        """The pattern of every field in `frame` (calibration learns the empty board's)."""
        m = self.measure(frame)
        assert m.light_fields is not None
        return self._sampler.pattern(np.ascontiguousarray(frame), m.light_fields)

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
        frame = np.ascontiguousarray(frame)
        noise = patch_spread(frame.reshape(-1, 3)[self._tracker.field_index])  # the frame's noise, patch by patch
        d, cls, kept_unknown, noisy = self._colours.decide(frame, m, lit, self._tracker.field_index, noise)
        colour_cls = cls.copy()
        notices = m.notices
        plain_empty = contested = None
        if m.structure is not None and len(self._colours.pale_columns):
            cls, notice, plain_empty, contested = self._pale.judge(m, d, cls, lit)
            if notice is not None:
                notices = notices + (notice,)
        # the seat-coloured fields: empty or the seat's own piece, by this frame's noise (a veto)
        own = self._own.judge(frame, self._tracker.field_index, m.features, colour_cls, cls,
                              lit, self.cal.field_ids, plain_empty, noise, contested)
        cls = own.classes
        cls[kept_unknown] = -1
        # a seat's kennel and home fields hold that seat's pieces only: another colour read there is a
        # colour bent past another seat's (a shadow, a lamp's tint), not that seat's piece
        rows = np.flatnonzero(cls >= 0)
        cls[rows[self._impossible[rows, cls[rows]]]] = -1
        # a field whose colour lay within this frame's noise of another class's, still unknown: more light
        # on the board would tell them apart
        hint = own.hint or (MORE_LIGHT if (cls[noisy] < 0).any() else None)
        hints = () if hint is None or m.covered else (hint,)
        labels = tuple("unknown" if c < 0 else self._colours.labels[c] for c in cls)
        problem = m.problem
        seen = None
        if m.disc_colours is not None and self.cal.disc_reference is not None and not m.covered:
            seen = self.disc_orientation(m.disc_colours)
            if disc is not None and seen is not None and seen != disc and problem is None:
                problem = (f"the disc looks turned to orientation {seen} but the encoder says {disc}: "
                           "check the disc and the encoder")
        return FrameReading(self.cal.field_ids, labels, m.features, m.light, m.covered, m.covered_fields,
                            problem, notices, seen, disc, hints)

    def own_colour_noise(self, frame: np.ndarray) -> float | None:
        """The median noise (sigma_t, vision.own_colour) of telling an empty seat-coloured field from the
        seat's own piece in `frame`; None if the board has no such fields (or no learned colours)."""
        self.measure(frame)  # places the patches where the camera now is
        sigma = self._own.own_sigma_t(frame, self._tracker.field_index)
        return float(np.median(sigma)) if len(sigma) else None

    def unknown_only_near_lit(self, reading: FrameReading, lit: Iterable[str] | Mapping[str, Any] | None) -> bool:
        """True if the reading is clean but for unknown fields that the LEDs may have made so: fields
        in their own lit ring (a dark piece in a coloured ring looks like a piece of that colour), and
        with pale seats every field near a lit one (a white piece looks like the lit field).

        Then one frame with the LEDs blanked reads them (`fill_unknown`).
        """
        if not lit or not reading.unknown or reading.covered or reading.problem:
            return False
        index = self._layout.index_of
        rows = [index[f] for f in lit if f in index]
        if not rows:
            return False
        reach = BLANK_REACH_MM if self.cal.pale_seats else 0.0
        near = (self._layout.field_dist[rows] <= reach).any(axis=0)
        return all(f in index and near[index[f]] for f in reading.unknown)

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


def impossible_classes(field_ids: tuple[str, ...], labels: list[str]) -> np.ndarray:
    """(fields, classes) True where a class can never stand on a field: on a seat's kennel and home
    fields, every other seat's pieces and the dog (the rules never move them there)."""
    out = np.zeros((len(field_ids), len(labels)), bool)
    for i, f in enumerate(field_ids):
        kind, seat, _ = engine.parse_field_id(f)
        if kind in ("K", "H"):
            out[i] = [lab not in ("empty", f"s{seat}") for lab in labels]
    return out


def unread(reading: FrameReading, fields: Iterable[str]) -> FrameReading:
    """`reading` with `fields` unknown: lights in a piece's colour stand there, and a dark piece in
    a red ring looks red. The frame with the LEDs blanked reads them (`fill_unknown`)."""
    blind = set(fields)
    if not blind:
        return reading
    labels = tuple("unknown" if f in blind else lab for f, lab in zip(reading.field_ids, reading.labels))
    return dataclasses.replace(reading, labels=labels)


def fill_unknown(reading: FrameReading, dark: FrameReading) -> FrameReading | None:
    """`reading` with its unknown fields taken from `dark` (a frame with the LEDs blanked); a
    field unknown in both stays unknown.

    None if `dark` cannot be used: covered, a problem, or any field that both read, read
    differently (the board changed in between).
    """
    if dark.covered or dark.problem or dark.field_ids != reading.field_ids:
        return None
    labels = []
    for a, b in zip(reading.labels, dark.labels):
        if a == "unknown":
            labels.append(b)
        elif a != b and b != "unknown":
            return None
        else:
            labels.append(a)
    return dataclasses.replace(reading, labels=tuple(labels))
