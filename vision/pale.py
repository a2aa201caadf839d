"""Pale pieces (white on a cream board): told from the empty field by the field's pattern.

Where a field's colour says "empty or a pale piece", its pattern (vision.measuring) against
the empty field's decides, in units of this frame's noise (`structure_thresholds`); unsure is
unknown. A standing neighbour's shadow and leaning head change a field's pattern as a pale
piece does, so beside one a field is judged on its points out of their reach (and its dark
print, which a pale piece brightens and a shadow never does); near lit LED rings the points
their light reaches are left out, and a field in its own lit ring is judged against its lit
look (vision.lit_pattern).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from vision.calibration_record import Calibration
from vision.features import to_channels
from vision.field_layout import FieldLayout
from vision.lit_pattern import LitPattern
from vision.measuring import Measurement
from vision.medians import median
from vision.tuning import (
    DARK_PRINT, DARK_PRINT_LIFT, DARK_PRINT_MIN_POINTS, DARK_PRINT_PIECE_LIFT, DARK_PRINT_PLAIN_LIFT,
    LIT_EMPTY_COLOUR, LIT_PALE_COLOUR, LIT_Z_EMPTY, LIT_Z_EMPTY_PLAIN, LIT_Z_PIECE, MAX_DISTANCE, NEIGHBOUR_COLOUR_EMPTY, NEIGHBOUR_FAR_PAST, NEIGHBOUR_KEEP_MM,
    NEIGHBOUR_PALE_PAST, OWN_VETO_PLAIN_EMPTY,
    NEIGHBOUR_MIN_KEPT, NEIGHBOUR_PIECE_BAR, NEIGHBOUR_SHADE_BAR, NEIGHBOUR_SHADE_MM, PALE_COLOUR_CLEAR,
    PALE_LIT_CLEARANCE_MM, STRUCTURE_FLOOR_HIGH, STRUCTURE_FLOOR_LOW, STRUCTURE_HIGH, STRUCTURE_LOW,
)


class PaleJudge:
    """The pale-piece rules of one calibrated setup with pale seats (`pale_columns`: their classes)."""

    def __init__(self, calibration: Calibration, layout: FieldLayout, pale_columns: np.ndarray,
                 lit_pattern: LitPattern) -> None:
        cal = calibration
        self.cal = cal
        self._layout = layout
        self._field_dist = layout.field_dist
        self._pale_cols = pale_columns
        # worked out once, not every frame: which fields lie within a standing neighbour's shade, and
        # (`_pale_class`) which classes are pale seats' (a lookup, not np.isin)
        self._shade_near = self._field_dist < NEIGHBOUR_SHADE_MM
        self._is_pale_col = np.zeros(0, bool)
        self._lit = lit_pattern
        self._nb: tuple[np.ndarray, np.ndarray] | None = None
        if cal.pale_seats:
            self._neighbour_reach()  # once, here: reading beside standing pieces needs it
        self._dark_print = None  # (fields, points): printed far darker than the palest seat's pieces
        if cal.pale_seats and cal.empty_pattern is not None:
            pale_level = min(float(to_channels(np.asarray(cal.seat_features[p], np.float64)).mean()) for p in cal.pale_seats)
            self._dark_print = cal.empty_pattern.mean(axis=2) < pale_level - DARK_PRINT

    def judge(self, m: Measurement, d: np.ndarray, cls: np.ndarray,
              lit: Iterable[str] | Mapping[str, Any] | None) -> tuple[np.ndarray, str | None, np.ndarray, np.ndarray]:
        """`cls` (fields,) by colour, with the fields whose colour says "empty or pale" decided by their
        pattern; a notice if LED light left pale pieces unreadable; (fields,) which fields the
        pattern read empty plainly (whole pattern below OWN_VETO_PLAIN_EMPTY of the empty bar, no LED
        light near); and (fields,) which it left unknown though their pattern named a pale piece, for
        the colour's doubt beside a standing piece, no LED light near (vision.own_colour weighs the
        colour's doubt there). `m.structure` must be measured."""
        assert m.structure is not None
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
                lit_colour = self._lit.colours(lit)
                own = np.zeros(len(cls), bool)  # fields whose own ring is lit
                own[list(lit_colour)] = True
                structure, known = self._lit.structure(m.pattern, lit_colour, glowing & ~own)
                structure = np.where(known, structure, m.structure)
                glowing &= ~known
                if own.any():  # the noise sample: fields no LED light reaches, empty by colour and pattern
                    nearest = d.argmin(axis=1)
                    low, _ = structure_thresholds(m.structure[(nearest == 0) & ~near_lit])
                    own_z = self._lit.own_z(m, lit_colour, (nearest == 0) & ~near_lit & (m.structure < low))
                    glowing &= ~np.isfinite(own_z)
        cls, plain, contested = self._pale_or_empty(d, cls, structure, glowing, near_lit, own_z, m.pattern, lit_colour)
        if near_lit is not None:  # LED light brightens a field as a pale piece does
            plain &= ~near_lit
            contested &= ~near_lit
        notice = None
        if glowing.any() and (cls[glowing] < 0).any():
            how = ("switch the LEDs off for a moment to read the board" if self.cal.has_glow else
                   "switch the LEDs off for a moment, or calibrate with the LEDs (dogtable vision calibrate) "
                   "so that lit fields can be read")
            notice = "pale pieces cannot be told from empty fields in LED light: " + how
        return cls, notice, plain, contested

    def _pale_or_empty(self, d: np.ndarray, cls: np.ndarray, structure: np.ndarray, glowing: np.ndarray,
                       near_lit: np.ndarray | None = None, own_z: np.ndarray | None = None,
                       pattern: np.ndarray | None = None,
                       lit_colour: Mapping[int, int | None] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Fields whose colour says "empty or a pale piece": the pattern decides; unsure is unknown.
        Also (fields,) those read empty with their whole pattern below OWN_VETO_PLAIN_EMPTY of the empty bar,
        and (fields,) those left unknown where the pattern named a pale piece and the colour doubted it.

        LED glow changes a field's pattern as much as a white piece does (the ring lights the
        field's rim, the halo its neighbours): such fields stay unknown when their colour
        cannot tell, unless `own_z` (fields whose own ring is lit, `LitPattern.own_z`) judges them.
        A standing piece's shadow and leaning head reach into the fields beside it: with the
        `pattern`s, those fields are judged on their points out of its reach (and, with
        `lit_colour`, out of other lit rings' reach: `_away_from_neighbours`), unless they cannot
        be judged in LED light at all or their own ring is lit (`own_z` judges those).
        """
        nearest = d.argmin(axis=1)
        whole_pattern = structure
        ambiguous = (nearest == 0) | self._pale_class(d.shape[1])[nearest]
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
            # about by the pieces around, can lift an empty field's z as high as a white piece's
            # and leave its colour as near white as empty. The blanked frame reads it.
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
        lifted = plain_lift = np.zeros(len(d), bool)
        beside = self._shade_near[:, standing].sum(axis=1) > standing.astype(int)
        if pattern is not None:
            kept, bare, lift = self._away_from_neighbours(pattern, standing,
                                                          ambiguous & beside & ~glowing & ~own_lit & ~empty,
                                                          lit_colour, shaded=d[:, 0] < d[rows, pale_best])
            # a pale piece covers the kept dark print where it is brightened (a shadow only darkens it):
            # then never empty; plainly brightened, the usual piece bar
            lifted = lift > DARK_PRINT_PIECE_LIFT  # NaN (too little print kept): False
            plain_lift = lift > DARK_PRINT_PLAIN_LIFT
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
            # Where the colour leans to the pale seat's and the whole pattern is past the bar, no shadow
            # explains it (a shadow keeps the field's hue): the kept points never say "empty" there,
            # unless enough kept dark print is hardly brightened (no pale piece on it) and the colour
            # is not plainly pale (a white piece leaning off its rim lifts it little)
            pale_colour = d[rows, pale_best] < PALE_COLOUR_CLEAR * d[:, 0]
            print_bare = (lift <= DARK_PRINT_LIFT) & ~pale_colour  # NaN (too little print kept): False
            pale_past = (whole > NEIGHBOUR_PALE_PAST * high) & (d[rows, pale_best] < d[:, 0]) & ~bare & ~print_bare
            empty = np.where(again, ambiguous & (structure < bar_empty) & (d[:, 0] <= MAX_DISTANCE) & ~lifted
                             & ~pale_past, empty)
            # ... unless its colour says pale piece plainly (a white kennel piece among white
            # kennel pieces, little of its spot out of their reach): then the usual bar
            bar = np.where(pale_colour | plain_lift, high, NEIGHBOUR_PIECE_BAR * high)
            piece = np.where(again, ambiguous & (structure > bar)
                             & (d[rows, pale_best] <= MAX_DISTANCE) & ~bare, piece)
        doubtful = (piece & beside & (d[rows, pale_best] > d[:, 0]) & (structure < NEIGHBOUR_SHADE_BAR * high)
                    & ~plain_lift)
        out[ambiguous] = -1
        out[empty] = 0
        out[piece & ~doubtful] = pale_best[piece & ~doubtful]
        out[ambiguous & glowing] = -1
        return out, (out == 0) & (whole_pattern < OWN_VETO_PLAIN_EMPTY * low), piece & doubtful & (out == -1)

    def _pale_class(self, classes: int) -> np.ndarray:
        """(classes,) bool: the pale seats' classes."""
        if len(self._is_pale_col) != classes:
            self._is_pale_col = np.isin(np.arange(classes), self._pale_cols)
        return self._is_pale_col

    def _away_from_neighbours(self, pattern: np.ndarray, standing: np.ndarray, which: np.ndarray,
                              lit_colour: Mapping[int, int | None] | None = None,
                              shaded: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(fields,) pattern distance of `which` fields from their empty look over the points no standing
        neighbour's shadow or leaning head reaches (NEIGHBOUR_KEEP_MM), nor another lit ring's light
        (`lit_colour`); NaN where too few are left. `shaded` (fields,): those that may lie in a
        neighbour's shadow (their colour nearer the empty field's than a pale seat's). And (fields,)
        which of them are bare by their dark print (`_dark_print_lift`): for those the distance is
        taken with the shadow out point by point. And (fields,) how much their kept dark print is brightened
        on average (NaN where it has fewer than DARK_PRINT_MIN_POINTS points)."""
        assert self.cal.empty_pattern is not None
        out = np.full(len(which), np.nan, np.float32)
        bare = np.zeros(len(which), bool)
        lifts = np.full(len(which), np.nan, np.float32)
        rows = np.flatnonzero(which)
        if not len(rows):
            return out, bare, lifts
        nb_idx, reach = self._neighbour_reach()
        stands = np.append(standing, False)  # the padding index stands for no neighbour
        keep = ~(reach[rows] & stands[nb_idx[rows]][:, None, :]).any(axis=2)  # (rows, points)
        if lit_colour:
            keep &= self._layout.unlit_rows(rows, lit_colour)
        diff = pattern[rows] - self.cal.empty_pattern[rows]
        n = keep.sum(axis=1)
        ok = n >= NEIGHBOUR_MIN_KEPT * keep.shape[1]
        count, lift = self._dark_print_lift(rows, diff, keep)
        enough = (count >= DARK_PRINT_MIN_POINTS) & ok
        lifts[rows] = np.where(enough, lift, np.nan)
        # A neighbour's cast shadow reaches farther than its head (a low lamp, two lights) and
        # darkens the field about evenly, keeping its hue: where the colour says "the empty field"
        # rather than a pale piece, the kept points' mean darkening is taken out, channel by
        # channel (a brightening is not). A white piece may be darker than a bright field too
        # (the simulated table's): its colour is then nearer the pale seat's, and it stays.
        if shaded is not None:
            bare[rows] = enough & (lift <= DARK_PRINT_LIFT) & shaded[rows]
            shade = np.minimum(np.einsum("rpc,rp->rc", diff, keep) / np.maximum(n, 1)[:, None], 0.0)
            diff = diff - (shade * shaded[rows][:, None])[:, None, :]
            # A shadow's edge crosses the field (its penumbra, two lamps' shadows): on a bare field each
            # point's own remaining darkening, the same in every channel, is the shadow too.
            even = np.minimum(diff.mean(axis=2), 0.0) * bare[rows][:, None]
            diff = diff - even[:, :, None]
        sq = (diff * diff).sum(axis=2)  # (rows, points)
        out[rows[ok]] = np.sqrt((sq * keep).sum(axis=1)[ok] / (3 * n[ok]))
        return out, bare, lifts

    def _dark_print_lift(self, rows: np.ndarray, diff: np.ndarray,
                         keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rows,) how many kept points of each field are dark print (DARK_PRINT below a pale piece's
        brightness), and (rows,) how much they are brightened on average: a bare field's hardly
        (DARK_PRINT_LIFT at most), one a pale piece covers by more (DARK_PRINT_PIECE_LIFT).
        `diff` (rows, points, 3) the pattern less the empty look, `keep` (rows, points)."""
        if self._dark_print is None:
            return np.zeros(len(rows), np.int64), np.zeros(len(rows), np.float32)
        dark = keep & self._dark_print[rows]
        count = dark.sum(axis=1)
        lift = (diff.mean(axis=2) * dark).sum(axis=1) / np.maximum(count, 1)
        return count, lift

    def _neighbour_reach(self) -> tuple[np.ndarray, np.ndarray]:
        """Each field's neighbours (fields, most) within NEIGHBOUR_SHADE_MM (padded with len(fields)), and
        (fields, points, most) which of its pattern points each one's shadow and head may reach."""
        if self._nb is None:
            dist = self._layout.structure_distances()
            n = len(self.cal.field_ids)
            near = (self._field_dist < NEIGHBOUR_SHADE_MM) & ~np.eye(n, dtype=bool)
            most = max(int(near.sum(axis=1).max()), 1)
            idx = np.full((n, most), n, np.int64)
            reach = np.zeros((n, self._layout.structure_points.shape[1], most), bool)
            for j in range(n):
                nb = np.flatnonzero(near[j])
                idx[j, : len(nb)] = nb
                reach[j, :, : len(nb)] = dist[j][:, nb] < NEIGHBOUR_KEEP_MM
            self._nb = (idx, reach)
        return self._nb


def structure_thresholds(empty_structure: np.ndarray) -> tuple[float, float]:
    """(below: empty, above: a piece) pattern distances, from this frame's mostly-empty fields' spread."""
    n = float(median(empty_structure)) if len(empty_structure) else 0.0
    return max(STRUCTURE_LOW * n, STRUCTURE_FLOOR_LOW), max(STRUCTURE_HIGH * n, STRUCTURE_FLOOR_HIGH)
