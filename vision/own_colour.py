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
in the frame itself: every field patch's robust spread per channel (sensor noise at that grey
level, gain and JPEG included), turned into the noise of the patch's median. `t`, the share of
the way from the empty look to the piece's, is 0 for an empty field and 1 for a piece; its
noise `sigma_t` follows from the channel noises. A piece is read only at t >= 0.5 + its margin,
an empty field only at t <= 0.5 - it, the margin growing with sigma_t; between them the field is
unknown. Where sigma_t is so large that the two cannot be told apart in this frame at all, the
field is unknown and the reading carries the hint `MORE_LIGHT` (the page says "more light on the
board").

The judge has the last word on those fields: a reading (by colour, or by pattern for a seat
calibration found pale against its own fields, vision.pale) stands only where t agrees with
it; a field left unknown is read empty where t is clearly empty's, and as the seat's piece where
t is clearly the piece's and the colour named that seat. A seat whose pieces hardly differ from its fields in colour at all (white
pieces on cream: OWN_MIN_CONTRAST) is left to the pattern alone.
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
)

MORE_LIGHT = "more_light"  # reason code of a reading too dark or noisy to tell empty holes from pieces
# the page's sentence for each reason code: keys of companion/locale/*/LC_MESSAGES/companion.po
HINT_TEXT_KEYS = {MORE_LIGHT: "vision_more_light"}
LIGHT_LOW_TEXT_KEY = "vision_light_low"  # calibration's warning (`report["warnings"]`) in the page's words


@dataclass(frozen=True)
class OwnColourVerdict:
    """What the judge made of one frame: the classes (updated), and the fields too noisy to judge."""

    classes: np.ndarray
    too_noisy: tuple[int, ...]
    hint: str | None


class OwnColourJudge:
    """Judges the seat-coloured fields (kennel and home) of one calibrated setup.

    `labels`: the colour classes ("empty", "s<seat>", ...), as vision.colour_decision has them.
    """

    def __init__(self, calibration: Calibration, labels: list[str]) -> None:
        cal = calibration
        rows, cols = [], []
        for i, f in enumerate(cal.field_ids):
            kind, seat, _ = engine.parse_field_id(f)
            if kind not in ("H", "K") or seat < 0 or seat not in cal.seat_features or f"s{seat}" not in labels:
                continue
            toward = to_channels(cal.seat_features[seat].astype(np.float64)) - to_channels(
                cal.empty_features[i].astype(np.float64))
            if float(np.abs(toward).max()) >= OWN_MIN_CONTRAST:
                rows.append(i)
                cols.append(labels.index(f"s{seat}"))
        self.rows = np.array(rows, np.int64)
        self.cols = np.array(cols, np.int64)
        empty = to_channels(cal.empty_features[self.rows].astype(np.float64)).reshape(-1, 3)
        piece = np.array([to_channels(cal.seat_features[int(labels[c][1:])].astype(np.float64))
                          for c in cols]).reshape(-1, 3)
        self._empty = empty  # (rows, 3) log colour (b, g, r) of each field as calibration saw it empty
        self._toward = piece - empty  # (rows, 3) from empty to the seat's own piece

    def sigma_t(self, patches: np.ndarray) -> np.ndarray:
        """(rows,) the noise of t on each judged field, from its patch pixels (rows, points, 3) BGR."""
        return self._weights(patches)[1]

    def _weights(self, patches: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rows, 3) inverse noise variance of each channel's log median, and (rows,) sigma_t."""
        px = patches.astype(np.float32)
        med = np.median(px, axis=1)
        mad = 1.4826 * np.median(np.abs(px - med[:, None, :]), axis=1)
        # the median of n points is ~1.25 sigma / sqrt(n) off; neighbouring pixels are alike
        # (demosaicking, JPEG, defocus), so the patch holds fewer independent points
        n_eff = max(patches.shape[1] / OWN_CORRELATED, 1.0)
        se = 1.25 * np.maximum(mad, OWN_MIN_GREY) / np.sqrt(n_eff) / (med + 1.0)
        w = 1.0 / (se.astype(np.float64) ** 2 + OWN_FLOOR ** 2)
        u = self._toward
        sigma_t = 1.0 / np.sqrt(np.maximum((u * u * w).sum(axis=1), 1e-12))
        return w, sigma_t

    def judge(self, frame: np.ndarray, field_index: np.ndarray, features: np.ndarray, by_colour: np.ndarray,
              classes: np.ndarray, lit: Iterable[str] | Mapping[str, Any] | None,
              field_ids: tuple[str, ...]) -> OwnColourVerdict:
        """`classes` (fields,) as read so far (-1 unknown) -> the same with the seat-coloured fields vetoed
        where t disagrees or cannot tell. `by_colour` (fields,): the colour's own classes (-1: unsure).

        Only fields the colour did not call another class are judged: another seat's piece there is
        far from both looks. Fields under a lit ring are left to the lit-ring rules."""
        out = classes.copy()
        if not len(self.rows):
            return OwnColourVerdict(out, (), None)
        lit_rows = set()
        if lit:
            index = {f: i for i, f in enumerate(field_ids)}
            lit_rows = {index[f] for f in lit if f in index}
        flat = frame.reshape(-1, 3)
        patches = flat[field_index[self.rows]]
        w, sigma_t = self._weights(patches)
        d = to_channels(features[self.rows].astype(np.float64)) - self._empty
        u = self._toward
        t = (d * u * w).sum(axis=1) / np.maximum((u * u * w).sum(axis=1), 1e-12)
        margin = np.maximum(OWN_MARGIN, OWN_MARGIN_SIGMAS * sigma_t)
        noisy = []
        for k, (i, c) in enumerate(zip(self.rows, self.cols)):
            if i in lit_rows or by_colour[i] not in (-1, 0, c) or out[i] not in (-1, 0, c):
                continue
            if sigma_t[k] > OWN_MAX_SIGMA:
                out[i] = -1
                noisy.append(int(i))
            elif (out[i] == c and t[k] < 0.5 + margin[k]) or (out[i] == 0 and t[k] > 0.5 - margin[k]):
                out[i] = -1
            elif out[i] == -1 and t[k] <= 0.5 - margin[k]:
                out[i] = 0  # clearly the field as calibration saw it empty, whatever the margins said
            elif out[i] == -1 and t[k] >= 0.5 + margin[k] and by_colour[i] == c:
                out[i] = c
        hint = MORE_LIGHT if noisy else None
        return OwnColourVerdict(out, tuple(noisy), hint)
