"""Learning how each field looks with its own LED ring lit, per LED colour.

The last stage of calibrating (vision.calibration), for boards with pale seats: from
pictures of the empty board with rings lit in groups far apart (`glow_groups`), each field's
lit look (smoothed with the glow all fields share), how far a ring's light reaches, and how
uncertain each patch of a lit look still is. The reader judges a field in its own lit ring
against that look (vision.lit_pattern).
"""
from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Mapping
from dataclasses import replace

import numpy as np

import engine
from vision.calibration_record import Calibration
from vision.errors import CalibrationError
from vision.light import SATURATED_LOG
from vision.placement import check_frame
from vision.reader import BoardReader
from vision.sampling import STRUCTURE_CELLS, STRUCTURE_POINTS, structure_cells, structure_points_mm
from vision.tuning import (
    GLOW_FAR_MM, GLOW_GROUP_SPACING_MM, GLOW_MAX_REACH_MM, GLOW_MIN_DELTA, GLOW_MIN_QUIET_PICTURES, GLOW_MODEL_MAX,
    GLOW_MODEL_TRUST, GLOW_RIDGE, GLOW_RINGED,
)

log = logging.getLogger(__name__)


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
    # lit ring, against the typical change far away (noise, a wobbling camera). The light only
    # fades with distance: it ends where the change first falls to the far level. Beyond, the
    # change at a distance still swings about that level with the print it falls on (in a dim,
    # noisy picture a dark rim's noise exceeds the far level by more than GLOW_MIN_DELTA / 2).
    far = float(np.median(v[d > GLOW_FAR_MM])) if (d > GLOW_FAR_MM).any() else 0.0
    reach = cal.field_radius_mm * 1.2
    for lo in np.arange(0.0, GLOW_FAR_MM, 1.0):
        sel = v[(d >= lo) & (d < lo + 1.0)]
        if len(sel) < 20:
            continue
        if float(np.median(sel)) > far + GLOW_MIN_DELTA / 2:
            reach = max(reach, float(lo) + 1.0)
        elif lo >= reach:
            break
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
