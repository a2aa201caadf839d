"""The colour decision: which class each field's colour says, in plain light and in its own lit ring.

`ColourJudge.decide` measures every field's colour against each class's looks (its learned
colour mixed with the field around it, vision.features) and classifies it; a field whose own
LED ring is lit in a known colour is read only where even the ring's light cannot explain
another class as well (a black piece in a red ring is as red as a red piece; a red piece in
the table's green ring as yellow as a yellow one), and royal pieces there are read again from
their pixels least tinted by the ring. Pale pieces against empty fields are told by their
pattern afterwards (vision.pale): here their colour only says "empty or pale".
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

import engine
from vision.calibration_record import Calibration
from vision.features import (
    classify, dark_lit_path_distance, field_features, mixed_distances, mixed_prototypes, soft, to_channels,
)
from vision.measuring import Measurement
from vision.own_colour import median_noise, patch_spread
from vision.tuning import (
    BRIGHTNESS_WEIGHT, COLOUR_MARGIN_SIGMAS, DARK_BELOW_BOARD, DARK_LIT_REACH, LED_GAINS, LIT_AGAIN_MARGIN, LIT_AGREE,
    LIT_COLOURED_CHROMA, LIT_DARK_MARGIN, LIT_GAINS_AT_MOST, LIT_MIN_MARGIN, LIT_USUAL_BEHIND, MAX_DISTANCE,
    SOFT_FLOOR,
)


class ColourJudge:
    """The classes of one calibrated setup ("empty", each seat, the dog) and their looks on every field.

    `marked`: royal pieces, read from their patch's more colourful half; `index_of`: field id -> row.
    """

    def __init__(self, calibration: Calibration, marked: bool, index_of: Mapping[str, int],
                 impossible: np.ndarray | None = None) -> None:
        cal = calibration
        self.cal = cal
        self._marked = marked
        self._index_of = index_of
        pale = {f"s{p}" for p in cal.pale_seats}
        self.labels: list[str] = self.class_labels(cal)
        protos = [cal.seat_features[s] for s in sorted(cal.seat_features)]
        if "dog" in self.labels:
            assert cal.dog_feature is not None
            protos.append(cal.dog_feature)
        k = len(self.labels)
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
        # the pale seats' classes: their colour says only "empty or pale"
        self.pale_columns = np.array([j for j, lab in enumerate(self.labels) if lab in pale], np.int64)
        # each class's looks on each field: its colour mixed with the field's own (vision/features.py)
        self._looks = mixed_prototypes(self._protos)
        self._lit_looks: dict[tuple[Any, ...], np.ndarray] = {}
        # (fields, classes) classes that never stand on a field (another seat's piece in a seat's kennel)
        self._impossible = (np.zeros((len(cal.field_ids), k), bool) if impossible is None
                            else np.asarray(impossible, bool))
        # pairs of classes other judges tell apart, not the colour's margin: empty and the pale seats
        # (their pattern, vision.pale), and on a seat's kennel and home fields empty and that seat
        # (vision.own_colour, by the frame's noise already)
        told = np.zeros(k, bool)
        told[0] = True
        told[self.pale_columns] = True
        self._told_by_pattern = told[:, None] & told[None, :]
        self._own_column = np.full(len(cal.field_ids), -1, np.int64)
        for i, f in enumerate(cal.field_ids):
            kind, seat, _ = engine.parse_field_id(f)
            if kind in ("H", "K") and f"s{seat}" in self.labels:
                self._own_column[i] = self.labels.index(f"s{seat}")

    @staticmethod
    def class_labels(calibration: Calibration) -> list[str]:
        """The classes of a calibrated setup: "empty", each seat's "s<seat>", and on black boards "dog"."""
        cal = calibration
        labels = ["empty"] + [f"s{s}" for s in sorted(cal.seat_features)]
        if cal.board_kind == "black" and cal.dog_feature is not None:
            labels.append("dog")
        return labels

    def decide(self, frame: np.ndarray, m: Measurement, lit: Iterable[str] | Mapping[str, Any] | None,
               field_index: np.ndarray, noise: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
               ) -> tuple[np.ndarray, np.ndarray, list[int], np.ndarray]:
        """(fields, classes) colour distances, (fields,) class by colour (-1: unknown), the fields in
        their own lit ring that nothing later may read (the pale seats' pattern rules included), and the
        fields left unknown because their class was not clear of the runner-up by this frame's noise
        (`_within_noise`).

        `field_index`: the flat pixel indices of every field's patch in this frame (vision.tracking);
        `noise`: the patches' `patch_spread` (vision.own_colour), if already taken."""
        d = self._class_distances(m.features, lit)
        # the margins are taken against the classes that may stand on the field only (on a seat's kennel
        # and home fields: empty and that seat); a field whose nearest class may not stand there stays
        # unknown (a colour bent past another seat's). Not in a field's own lit ring: its rules below
        # weigh every class lit more.
        possible = np.where(self._impossible, np.inf, d)
        nearest_impossible = self._impossible[np.arange(len(d)), d.argmin(axis=1)]
        cls = classify(possible)
        kept_unknown: list[int] = []  # fields in their own lit ring that nothing below may read
        if lit:  # a ring's light bends a colour as well: in a lit ring only the usual tiers
            rows = [i for i, f in enumerate(self.cal.field_ids) if f in lit]
            cls[rows] = classify(possible[rows], bent=False)
        cls[nearest_impossible] = -1
        own_lit = ([i for i, f in enumerate(self.cal.field_ids) if lit.get(f) is not None]
                   if isinstance(lit, Mapping) else [])
        if own_lit and isinstance(lit, Mapping):  # own ring lit in a known colour: read only what is clear even so
            cls[own_lit] = classify(d[own_lit], min_margin=LIT_MIN_MARGIN, bent=False)  # (every class counts)
            kept_unknown = self._read_lit(frame, m, lit, d, cls, field_index)
        noisy = self._within_noise(frame, m, own_lit, d, cls, field_index, noise)
        cls[noisy] = -1
        return d, cls, kept_unknown, noisy

    def _within_noise(self, frame: np.ndarray, m: Measurement, own_lit: list[int],
                      d: np.ndarray, cls: np.ndarray, fidx: np.ndarray,
                      noise: tuple[np.ndarray, np.ndarray, np.ndarray] | None) -> np.ndarray:
        """The fields read by colour whose class is nearer than the runner-up (among the classes that may
        stand there) by less than COLOUR_MARGIN_SIGMAS times the noise of that lead in this frame.

        The noise is the frame's own, as the seat-coloured fields' judge takes it (vision.own_colour
        `patch_spread`: the patch's own spread weighed against the frame's sensor noise at its grey
        level, gain and JPEG included), turned into the noise of each channel's log median
        (`median_noise`) and carried, to first order, through the distance to the two classes' nearest
        looks (`_lead_noise`). In a well lit frame it is far below the fixed margins; in a dim, high-gain one a
        dark piece's few grey levels may lie within it of two seats' colours (a purple pawn as near
        green), and then the field is unknown rather than guessed. Pairs other judges tell apart are
        left to them (`_told_by_pattern`, the seat's own fields), as are fields in their own lit ring
        (their own margins, LIT_MIN_MARGIN; `own_lit`: their rows)."""
        read = cls >= 0
        read[own_lit] = False
        rows = np.flatnonzero(read)
        if not len(rows):
            return rows
        c = cls[rows]
        ar = np.arange(len(rows))
        others = np.where(self._impossible[rows], np.inf, d[rows])
        others[ar, c] = np.inf
        r = others.argmin(axis=1)
        lead = others[ar, r] - d[rows, c]
        judged = np.isfinite(lead) & ~self._told_by_pattern[c, r]
        own = self._own_column[rows]
        judged &= ~(((c == 0) | (c == own)) & ((r == 0) | (r == own)))
        if not judged.any():
            return rows[:0]
        if noise is None:
            noise = patch_spread(np.ascontiguousarray(frame).reshape(-1, 3)[fidx])
        med, _, spread = noise
        rows, c, r, lead = rows[judged], c[judged], r[judged], lead[judged]
        n = fidx.shape[1] // 2 if self._marked else fidx.shape[1]  # royal: the more colourful half
        se = median_noise(med[rows], spread[rows], n).astype(np.float64)  # (rows, 3) log b, g, r
        sigma = self._lead_noise(m.features[rows], rows, c, r, se)
        return rows[lead < COLOUR_MARGIN_SIGMAS * sigma]

    def _lead_noise(self, features: np.ndarray, rows: np.ndarray, c: np.ndarray, r: np.ndarray,
                    se: np.ndarray) -> np.ndarray:
        """(rows,) the noise of the runner-up r's distance less class c's, for `features` (rows, 3) whose
        channels' log values have noise `se` (rows, 3, b g r): to first order, through `soft` and the
        distance to each class's nearest look (vision.features `mixed_distances`)."""
        f = soft(features).astype(np.float64)  # (rows, 3) l, rg, bg
        w = np.array([BRIGHTNESS_WEIGHT ** 2, 1.0, 1.0])
        grad = np.zeros_like(f)
        for cols, sign in ((r, 1.0), (c, -1.0)):
            looks = self._looks[rows, cols].astype(np.float64)  # (rows, m, 3)
            diff = f[:, None, :] - looks
            sq = (diff * diff * w).sum(axis=2)
            near = sq.argmin(axis=1)
            dv = diff[np.arange(len(rows)), near]  # (rows, 3)
            dist = np.sqrt(np.maximum(sq[np.arange(len(rows)), near], 1e-12))
            grad += sign * dv * w / dist[:, None]
        # soft features = from_channels(log(exp(channels) + SOFT_FLOOR)): back to the channels (b, g, r)
        lin = np.exp(to_channels(features.astype(np.float64)))
        damp = lin / (lin + SOFT_FLOOR)
        gl, grg, gbg = grad[:, 0] / 3, grad[:, 1], grad[:, 2]
        by_channel = np.stack([gl + gbg, gl - grg - gbg, gl + grg], axis=1) * damp
        return np.sqrt(((by_channel * se) ** 2).sum(axis=1))

    def _read_lit(self, frame: np.ndarray, m: Measurement, lit: Mapping[str, Any], d: np.ndarray,
                  cls: np.ndarray, fidx: np.ndarray) -> list[int]:
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
        such fields are returned, for the reader to keep them unknown.
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
                again, d_again = self._without_tint(flat, fidx, m, i, rgb, led)
                c = int(classify(d_again[None, :], min_margin=LIT_MIN_MARGIN, bent=False)[0])
                if c > 0 and c == nearest[i]:
                    cls[i], feat, dist = c, again, d_again
            c = int(cls[i])
            if c <= 0 and int(nearest[i]) in (0, *self.pale_columns) and self._coloured.any():
                # A thin pawn in the picture covers little of its patch, and the ring's light on the
                # field around it outweighs it (a yellow pawn in the light-blue ring reads as the lit
                # empty field); without the tint it is plainly coloured, while an empty field stays
                # nearest the empty field or, on the 6-segment boards, the white seat.
                if again is None or d_again is None:
                    again, d_again = self._without_tint(flat, fidx, m, i, rgb, led)
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
                        again, d_again = self._without_tint(flat, fidx, m, i, rgb, led)
                    if not self._tint_free_agrees(c, near, again, d_again, strong_looks):
                        cls[i] = -1
            if not self._marked:
                continue
            if cls[i] < 0 and self._coloured.any():
                if again is None or d_again is None:
                    again, d_again = self._without_tint(flat, fidx, m, i, rgb, led)
                c = self._coloured_without_tint(m.features[i : i + 1], int(nearest[i]), again, d_again,
                                                self._lit_looks_of(i, rgb, led, LIT_GAINS_AT_MOST))
                cls[i] = -1 if c > 0 and self._hidden_by_dark(i, rgb, led)[c] else c
        return kept_unknown

    def _hidden_by_dark(self, i: int, rgb: Any, led: np.ndarray) -> np.ndarray:
        """(classes,) the coloured classes a dark piece (black, the dog) in field i's ring lit in `rgb`
        may look like (DARK_LIT_REACH): in that ring they are not read by colour (cached)."""
        key = (i, int(rgb[0]), int(rgb[1]), int(rgb[2]))
        if key not in self._hidden:
            hidden = np.zeros(len(self.labels), bool)
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

    def _without_tint(self, flat: np.ndarray, fidx: np.ndarray, m: Measurement, i: int, rgb: Any,
                      led: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Field i's features read from its pixels least tinted by its own lit ring (1, 3), and their
        distances to its class looks in that light (classes,)."""
        assert m.light_fields is not None
        again = field_features(flat[fidx[i : i + 1]], m.light_fields[i : i + 1], marked=True, led_bgr=led)
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
