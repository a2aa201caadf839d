"""Empty or a piece of the seat's own colour, on the fields painted in that colour, by the frame's noise.

A seat's kennel and home fields are painted in (a shade of) the seat's colour, so an empty
hole there looks like a darker, paler piece of that seat: the colour classifier's looks of a
piece (its colour mixed with the field around it, vision.features) reach close to the empty
field's look. In good light the two are many noise widths apart; in a dim room, with a small
camera's gain noise, the dark channel of a saturated paint (the blue of red paint under a
warm bulb) is a few grey levels whose log swings far, and a fixed margin reads an empty hole
as the seat's piece.

So on those fields the decision is made along the one direction that tells them apart: from
what calibration learned of this very field EMPTY to the seat's learned colour, in light-
corrected log colour, each channel weighted by its noise in this frame. The noise is measured
in the frame itself: every field patch's robust spread per channel, weighed against the frame's
sensor noise at that grey level (gain and JPEG included, fitted over every field: a patch's own
spread holds its print too; `patch_spread`), turned into the noise of the patch's median. `t`, the share of
the way from the empty look to the piece's, is 0 for an empty field and 1 for a piece; its
noise `sigma_t` follows from the channel noises. A piece is read only at t >= 0.5 + its margin,
an empty field only at t <= 0.5 - it, the margin growing with sigma_t; between them the field is
unknown. Where sigma_t is so large that the two cannot be told apart in this frame at all, the
field is unknown and the reading carries the hint `MORE_LIGHT` (the page says "more light on the
board").

The judge has the last word on those fields: a reading (by colour, or by pattern for a seat
calibration found pale against its own fields, vision.pale) stands only where t agrees with
it; a field left unknown is read empty where t is clearly empty's, and as the seat's piece where
t is clearly the piece's and the colour named that seat. A seat whose pieces hardly differ from
its fields in colour at all (white pieces on cream: OWN_MIN_CONTRAST) is left to the pattern alone,
and so is a pale seat whose pieces differ from its fields in brightness alone (sheen and shading,
not noise, move them by as much).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

import engine
from vision.calibration_record import Calibration
from vision.features import to_channels
from vision.tuning import (
    OWN_CORRELATED, OWN_FLOOR, OWN_MARGIN, OWN_MARGIN_SIGMAS, OWN_MAX_SIGMA, OWN_MIN_CONTRAST, OWN_MIN_GREY,
    OWN_VETO_CONTRAST, PALE_COLOUR_CONTRAST, SHADED_PALE_T,
)

MORE_LIGHT = "more_light"  # reason code of a reading too dark or noisy to tell empty holes from pieces
# the page's sentence for each reason code: keys of companion/locale/*/LC_MESSAGES/companion.po
HINT_TEXT_KEYS = {MORE_LIGHT: "vision_more_light"}
LIGHT_LOW_TEXT_KEY = "vision_light_low"  # calibration's warning (`report["warnings"]`) in the page's words
TIER_OWN, TIER_VETO, TIER_FAR = 0, 1, 2  # how a (field, seat) pair is judged (OwnColourJudge)


@dataclass(frozen=True)
class OwnColourVerdict:
    """What the judge made of one frame: the classes (updated), and the fields too noisy to judge."""

    classes: np.ndarray
    too_noisy: tuple[int, ...]
    hint: str | None


class OwnColourJudge:
    """Judges the seat-coloured fields (kennel and home) of one calibrated setup, and a pale seat's
    pieces on the other fields where their colour is far from the field's.

    `labels`: the colour classes ("empty", "s<seat>", ...), as vision.colour_decision has them.
    Each judged (field, seat) pair has a tier: "own" (a seat's kennel and home fields, differing
    from its pieces by at least OWN_MIN_CONTRAST, and a pale seat's in hue too: the judge decides),
    "veto" (the same fields with less contrast, down to OWN_VETO_CONTRAST: where t is clear it decides
    a field the pattern left unknown and vetoes a reading it plainly contradicts; where it is not, the
    pattern's reading stands) and "far" (a pale seat's pieces on any other field whose empty look lies
    at least PALE_COLOUR_CONTRAST away: a field the colour called empty and the pattern left unknown
    is read by the colour).
    """

    def __init__(self, calibration: Calibration, labels: list[str]) -> None:
        cal = calibration
        rows, cols, tiers = [], [], []
        pale = {p for p in cal.pale_seats if f"s{p}" in labels}
        # fields on which some pale seat's piece looks too like the empty field for the colour to tell
        self._far_blind = np.zeros(len(cal.field_ids), bool)
        for i, f in enumerate(cal.field_ids):
            kind, seat, _ = engine.parse_field_id(f)
            empty = to_channels(cal.empty_features[i].astype(np.float64))
            own_field = kind in ("H", "K") and seat in cal.seat_features and f"s{seat}" in labels
            if own_field:
                toward = to_channels(cal.seat_features[seat].astype(np.float64)) - empty
                contrast = float(np.abs(toward).max())
                # A pale seat's piece that differs from its own pale fields in brightness alone (its hue within
                # OWN_VETO_CONTRAST of theirs): its look, and the empty hole's beside its neighbours, move with
                # sheen and shading (colourless, and not noise: the frame's noise does not see it), so t says
                # nothing there (an empty white kennel hole on the royal 6-segment board came to t -1.2 to 1.9
                # at a contrast of 0.3-0.55) and the pattern alone decides, as on the track (tier "far"). How
                # far apart calibration finds them is itself that shading: on one setup, seed by seed, the
                # learned white piece lay 0.14 to 0.88 below its kennel's brightness, and a white pawn in its
                # kennel came halfway (t 0.5) at 0.63. A seat found pale in a dark frame (red on red paint at
                # -2.5 EV) keeps its hue and the judge.
                hue = toward - toward.mean()
                if seat in pale and float(np.abs(hue).max()) < OWN_VETO_CONTRAST:
                    contrast = 0.0
                if contrast >= OWN_VETO_CONTRAST:
                    rows.append(i)
                    cols.append(labels.index(f"s{seat}"))
                    tiers.append(TIER_OWN if contrast >= OWN_MIN_CONTRAST else TIER_VETO)
            for p in sorted(pale):
                if kind in ("H", "K"):  # a kennel or home field holds its own seat's pieces only (judged above)
                    continue
                toward = to_channels(cal.seat_features[p].astype(np.float64)) - empty
                if float(np.linalg.norm(toward)) >= PALE_COLOUR_CONTRAST:
                    rows.append(i)
                    cols.append(labels.index(f"s{p}"))
                    tiers.append(TIER_FAR)
                else:
                    self._far_blind[i] = True
        self.rows = np.array(rows, np.int64)
        self.cols = np.array(cols, np.int64)
        self.tiers = np.array(tiers, np.int8)
        empty = to_channels(cal.empty_features[self.rows].astype(np.float64)).reshape(-1, 3)
        piece = np.array([to_channels(cal.seat_features[int(labels[c][1:])].astype(np.float64))
                          for c in cols]).reshape(-1, 3)
        self._empty = empty  # (rows, 3) log colour (b, g, r) of each field as calibration saw it empty
        self._toward = piece - empty  # (rows, 3) from empty to the seat's own piece
        self._own_rows = self.tiers == TIER_OWN
        # rows judged for a pale seat's piece: its look varies with its sheen and the field around it
        # (shading, not noise), which only the patch's own spread takes in: for those the frame's sensor
        # noise does not lower it (`patch_spread`)
        self._own_spread = np.array([int(labels[c][1:]) in pale for c in cols], bool)

    def own_sigma_t(self, frame: np.ndarray, field_index: np.ndarray) -> np.ndarray:
        """(fields decided,) sigma_t on the seat-coloured fields the judge decides (tier "own"), in `frame`
        sampled at `field_index` (the reader's, where the camera now is)."""
        med, own, spread = patch_spread(np.ascontiguousarray(frame).reshape(-1, 3)[field_index])
        spread = np.where(self._own_spread[:, None], own[self.rows], spread[self.rows])[self._own_rows]
        rows = self.rows[self._own_rows]
        return self._weights(med[rows], spread, field_index.shape[1], self._toward[self._own_rows])[1]

    def _weights(self, med: np.ndarray, spread: np.ndarray, n: int,
                 toward: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(rows, 3) inverse noise variance of each channel's log median, and (rows,) sigma_t (along
        `toward`, by default every judged row's), from each patch's median and noise (`patch_spread`) of
        `n` pixels."""
        se = median_noise(med, spread, n)
        w = 1.0 / (se.astype(np.float64) ** 2 + OWN_FLOOR ** 2)
        u = self._toward if toward is None else toward
        sigma_t = 1.0 / np.sqrt(np.maximum((u * u * w).sum(axis=1), 1e-12))
        return w, sigma_t

    def judge(self, frame: np.ndarray, field_index: np.ndarray, features: np.ndarray, by_colour: np.ndarray,
              classes: np.ndarray, lit: Iterable[str] | Mapping[str, Any] | None,
              field_ids: tuple[str, ...], plain_empty: np.ndarray | None = None,
              noise: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
              contested: np.ndarray | None = None) -> OwnColourVerdict:
        """`classes` (fields,) as read so far (-1 unknown) -> the same with the judged fields decided or
        vetoed where t disagrees or cannot tell. `by_colour` (fields,): the colour's own classes (-1: unsure).

        Only fields the colour did not call another class are judged: another seat's piece there is
        far from both looks. Fields under a lit ring are left to the lit-ring rules. `plain_empty`
        (fields,): those the pattern read empty far below its bar (vision.pale), which a less
        contrasted field's t does not veto. `noise`: the frame's `patch_spread` at `field_index`, if taken.
        `contested` (fields,): those whose pattern named a pale piece that their colour doubted beside a
        standing piece (vision.pale): the far tier reads them empty only where their colour lies past
        the empty look, away from the pale piece's, and as the pale piece where it lies a clear way
        towards the pale piece's."""
        out = classes.copy()
        if not len(self.rows):
            return OwnColourVerdict(out, (), None)
        rows, cols, tiers = self.rows, self.cols, self.tiers
        med, own, spread = patch_spread(frame.reshape(-1, 3)[field_index]) if noise is None else noise
        spread = np.where(self._own_spread[:, None], own[rows], spread[rows])
        w, sigma_t = self._weights(med[rows], spread, field_index.shape[1])
        d = to_channels(features[rows].astype(np.float64)) - self._empty
        u = self._toward
        t = (d * u * w).sum(axis=1) / np.maximum((u * u * w).sum(axis=1), 1e-12)
        margin = np.maximum(OWN_MARGIN, OWN_MARGIN_SIGMAS * sigma_t)
        clear_empty, clear_piece = t <= 0.5 - margin, t >= 0.5 + margin
        quiet = sigma_t <= OWN_MAX_SIGMA
        now, seen = classes[rows], by_colour[rows]
        named = seen == cols  # the colour itself named this seat's piece
        judged = ((seen == -1) | (seen == 0) | named) & ((now == -1) | (now == 0) | (now == cols))
        if lit:
            index = {f: i for i, f in enumerate(field_ids)}
            lit_fields = np.zeros(len(field_ids), bool)
            lit_fields[[index[f] for f in lit if f in index]] = True
            judged &= ~lit_fields[rows]
        # seat-coloured fields the judge decides: clearly empty (unless the colour named the piece: they
        # disagree), clearly the piece (if the colour or the pattern named it), else unknown
        own = judged & (tiers == TIER_OWN)
        # (where the colour itself named the piece, t past halfway by its own noise is enough: the margin's
        # floor is for errors the noise does not see, and the colour, judged apart, would have to share them)
        piece = (clear_piece & (named | (now == cols))) | (named & (t >= 0.5 + OWN_MARGIN_SIGMAS * sigma_t))
        verdict = np.where(clear_empty, np.where(named, -1, 0), np.where(piece, cols, -1))
        too_noisy = own & ~quiet
        verdict[too_noisy] = -1
        out[rows[own]] = verdict[own]
        # less contrast: the pattern decides where the colour is unsure; where it is clear, the colour
        veto = judged & (tiers == TIER_VETO) & quiet
        plain = np.zeros(len(rows), bool) if plain_empty is None else plain_empty[rows]
        contradicted = veto & (((now == cols) & clear_empty) | ((now == 0) & clear_piece & ~plain))
        fill_empty = veto & (now == -1) & clear_empty & (seen <= 0)
        fill_piece = veto & (now == -1) & clear_piece & named
        out[rows[contradicted]] = -1
        out[rows[fill_empty]] = 0
        out[rows[fill_piece]] = cols[fill_piece]
        # a pale seat's pieces elsewhere: a field the pattern left unknown is read empty where every pale
        # seat's colour says so clearly, or as the pale piece its colour names clearly
        far = judged & (tiers == TIER_FAR) & ~self._far_blind[rows]
        if far.any():
            doubt = np.zeros(len(out), bool)
            doubt[rows[far & ~(quiet & clear_empty)]] = True
            # only where the colour said "empty" and the pattern could not confirm it: a field the colour
            # could not place at all may hold another seat's piece, which is far from the pale seat's too
            empty_rows = far & ~doubt[rows] & (out[rows] == -1) & (seen == 0)
            if contested is not None:
                # A standing neighbour's shadow darkens a white pawn towards a cream field's look (a dim
                # lamp: a fifth of the way from the empty field's to the pawn's) while its pattern, judged
                # out of the shadow's reach, still names a piece. The shadow darkens an empty field too,
                # past its own empty look (t below 0, away from the pale piece's), and only that explains
                # both: else the colour and the pattern disagree, and the field stays unknown.
                empty_rows &= ~contested[rows] | (t <= 0.0)
                # ... and where its colour lies a clear way from the empty look towards the pale piece's
                # (SHADED_PALE_T, and past its noise), no shadow explains it: both name the piece
                shaded = far & quiet & contested[rows] & (out[rows] == -1) & (t >= np.maximum(SHADED_PALE_T, sigma_t))
                shaded &= np.bincount(rows[shaded], minlength=len(out))[rows] == 1  # one pale seat's, not two
            else:
                shaded = np.zeros(len(rows), bool)
            piece_rows = (far & quiet & clear_piece & named & (out[rows] == -1)) | shaded
            contradicted = far & quiet & clear_piece & named & (out[rows] == 0)
            out[rows[empty_rows]] = 0
            out[rows[piece_rows]] = cols[piece_rows]
            out[rows[contradicted]] = -1
        noisy = tuple(int(i) for i in rows[too_noisy])
        return OwnColourVerdict(out, noisy, MORE_LIGHT if noisy else None)


def median_noise(med: np.ndarray, spread: np.ndarray, n: int) -> np.ndarray:
    """(fields, 3) the noise (log units) of each channel's log median of a patch of `n` pixels, from its
    median grey levels and noise (`patch_spread`), both (fields, 3)."""
    # the median of n points is ~1.25 sigma / sqrt(n) off; neighbouring pixels are alike
    # (demosaicking, JPEG, defocus), so the patch holds fewer independent points
    n_eff = max(n / OWN_CORRELATED, 1.0)
    return 1.25 * np.maximum(spread, OWN_MIN_GREY) / np.sqrt(n_eff) / (med + 1.0)


def _median(values: np.ndarray, n: int) -> np.ndarray:
    """(rows, channels) the median over axis 1 of (rows, n, channels): a partition, not a sort (n odd: the
    middle value; even: the mean of the two middle ones, as numpy's median)."""
    if n % 2:
        return np.partition(values, n // 2, axis=1)[:, n // 2]
    part = np.partition(values, (n // 2 - 1, n // 2), axis=1)
    return 0.5 * (part[:, n // 2 - 1] + part[:, n // 2])


def patch_spread(patches: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(fields, 3) each field patch's median grey level per channel, (fields, 3) its own robust spread,
    and (fields, 3) its noise, from a frame's patches (fields, n, 3).

    A patch's own robust spread (MAD) is its noise plus its print (a hole's rim, a peg's sheen): on a
    deep-painted kennel hole in a dim frame it is two to three times the noise that t actually shows
    from frame to frame. The frame's sensor noise at the patch's grey level (`frame_noise`, fitted to
    every field) misses nothing of the print but may miss noise peculiar to one patch (a JPEG block's
    edge). The noise taken is the geometric mean of the two (never above the patch's own spread):
    cautious still, by about half of what the print added."""
    px = patches.astype(np.float32)
    n = px.shape[1]
    med = _median(px, n)
    mad = 1.4826 * _median(np.abs(px - med[:, None, :]), n)
    a, b = frame_noise(med, mad)
    sensor = np.sqrt(np.maximum(a + b * med, 0.0))
    return med, mad, np.sqrt(mad * np.minimum(mad, sensor))


def frame_noise(med: np.ndarray, mad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(3,) a and (3,) b of a frame's sensor noise by grey level, per channel: variance = a + b * level
    (read noise and shot noise, the camera's gain and JPEG included), from every field patch's median
    and spread (fields, 3). A patch's spread holds its print too, so the model follows the quieter
    patches at each level: a lower envelope (fitted, then refitted to the patches at or below the fit)."""
    x, y = med.astype(np.float64), mad.astype(np.float64) ** 2  # (fields, 3) each
    keep = np.ones(x.shape, bool)
    a, b = np.median(y, axis=0), np.zeros(3)
    for _ in range(3):  # least squares of y = a + b x over the kept patches, every channel at once
        k = keep.astype(np.float64)
        n, sx, sy = k.sum(axis=0), (k * x).sum(axis=0), (k * y).sum(axis=0)
        sxx, sxy = (k * x * x).sum(axis=0), (k * x * y).sum(axis=0)
        det = n * sxx - sx * sx
        ok = (n >= 4) & (det > 1e-9)
        b = np.where(ok, np.maximum((n * sxy - sx * sy) / np.where(ok, det, 1.0), 0.0), b)
        a = np.where(ok, np.maximum((sy - b * sx) / np.maximum(n, 1.0), 0.0), a)
        keep = y <= a + b * x
    return a, b
