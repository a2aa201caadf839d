"""Pale pieces near lit LED rings: judging a field's pattern where a ring's light does not reach it,
and a field in its own lit ring against its learned lit look.

A ring's halo is known only roughly, so a field beside a lit ring is judged on its points out
of every ring's reach (`structure`). A field whose own ring is lit is judged patch by patch
against the lit look calibration learned (vision.glow_learning), as a z-score (`own_z`,
`patch_z`); what z says is empty or a pale piece is decided in vision.pale.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from vision.calibration_record import Calibration
from vision.field_layout import FieldLayout
from vision.light import CLIP_LOG, SATURATED_LOG
from vision.measuring import FrameSampler, Measurement
from vision.sampling import STRUCTURE_CELLS, structure_cells
from vision.tuning import (
    GLOW_JUDGED, GLOW_MAX_GAIN_CHANGE, GLOW_MIN_KEPT, LIT_CELL_POINTS, LIT_CELLS, LIT_MAX_SHIFT_PX, LIT_MIN_PATCHES,
    LIT_MIN_QUIET, LIT_NOISE_FLOOR, LIT_PATCH_CAP, LIT_QUIET_SAMPLE,
)


class LitPattern:
    """The lit-ring pattern judgements of one calibrated setup; `sampler` gives this frame's slopes (`align`)."""

    def __init__(self, calibration: Calibration, layout: FieldLayout, sampler: FrameSampler) -> None:
        self.cal = calibration
        self._layout = layout
        self._sampler = sampler
        self._cells = np.eye(STRUCTURE_CELLS, dtype=np.float32)[structure_cells()]  # (points, cells) one-hot
        self._inner = structure_cells() < LIT_CELLS  # points a neighbour's piece or lit ring does not reach

    def colours(self, lit: Iterable[str] | Mapping[str, Any]) -> dict[int, int | None]:
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

    def structure(self, pattern: np.ndarray, lit_colour: Mapping[int, int | None],
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
        keep = self._layout.unlit_rows(rows, lit_colour)
        n = keep.sum(axis=1)
        ok = n >= GLOW_MIN_KEPT * keep.shape[1]
        diff = pattern[rows] - self.cal.empty_pattern[rows]
        sq = (diff * diff).sum(axis=2)
        out[rows[ok]] = np.sqrt((sq * keep).sum(axis=1)[ok] / (3 * n[ok]))
        known[rows[ok]] = True
        return out, known

    def own_z(self, m: Measurement, lit_colour: Mapping[int, int | None], quiet: np.ndarray) -> np.ndarray:
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
            keep = self._layout.unlit_by_others(j, lit_colour) & self._inner
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
            if cal.glow_unsure is not None:  # the lit look's own uncertainty (vision.glow_learning)
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
        slope = self._sampler.slope(j)  # (2, points, channels)
        a = slope[:, judged].T  # (judged, 2)
        aa = a.T @ a
        if np.linalg.cond(aa) >= 1e6:
            return res, 0
        shift = np.linalg.solve(aa, a.T @ res[judged])
        if np.hypot(*shift) > LIT_MAX_SHIFT_PX:
            return res, 0
        return res - np.einsum("kpc,k->pc", slope, shift), 2


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
