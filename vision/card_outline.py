"""The top card of a pile on the discard zone: the one card whose four edges are all complete.

A played card lies on the cards played before it, turned up to about 25 degrees either way
(and either way up), shifted by a few millimetres, and the earlier cards' edges peek out
around it. Each card is a rectangle of known size; the top card is the only one whose four
sides are all visible from end to end (every other card has a side, or part of it, under
the top one). So:

1. edges: the zone's gradient (the strongest of the three colour channels at each pixel: a
   red card on a red card differs in brightness, a card on the board in colour), less the
   edges the empty zone shows there (the board's own print);
2. lines: every edge pixel whose direction fits a card turned by theta (|theta| <= 36 deg)
   votes, per theta, for the offset of a long side or of a short side along the card's axes;
   a card's two long sides lie its width apart, its short sides its length apart;
3. candidates: per theta, the offsets where both sides of a pair are strong;
4. the judge: each candidate rectangle's four sides are walked point by point; a point is
   supported where an edge of the side's direction lies within a pixel or two across it.
   The score is the least supported side (complete edges), and the best candidate is then
   fitted: each side a least-squares line through its supporting points, the corners where
   the lines meet (a slightly bent card's outline is not quite a rectangle);
5. one side unseen: a white card on white cards may show one side not at all (no step, no
   shadow marks it). Rectangles of one seen side of a pair and the other a card's size away are
   tried as well, judged by their second least supported side; the unseen side is placed a
   card's size from its opposite (`Outline.hidden` names it). The caller tells such an outline
   from a card's beneath by what it shows inside (a card beneath has its symbol covered).

Everything is in the rectified zone's pixels (vision.cards makes the zone).
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.tuning import (
    CARD_ANGLE_BIN_DEG, CARD_CANDIDATES, CARD_EDGE_NOISE_SIGMAS, CARD_MAX_ANGLE_DEG, CARD_NEAR_PX, CARD_PEAKS,
    CARD_SIDE_INSET, CARD_SIZE_SLACK, CARD_DISTINCT_PX, CARD_MIN_SUPPORT, CARD_ONE_CANDIDATES, CARD_ONE_PEAKS,
)


@dataclass(frozen=True)
class Outline:
    """The top card: corners (4, 2) in zone pixels (the card's own top-left, top-right, bottom-right,
    bottom-left for the card as found, either way up), its turn, and how complete its least
    complete side is (0-1)."""

    corners: np.ndarray
    angle_deg: float
    support: float
    hidden: int = -1  # a side (left, right, top, bottom) not seen, placed a card's size from its opposite


def edges(zone: np.ndarray, empty: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, float]:
    """(magnitude, direction in radians, noise level) of the zone's edges, the empty zone's own left out."""
    gx, gy, mag = _gradient(zone)
    # the board's own texture and the sensor's noise: the empty zone's typical gradient (the zone
    # itself may be covered by cards, edges everywhere)
    noise = float(np.percentile(mag, 25)) + 1.0
    if empty is not None and empty.shape == zone.shape:
        ex, ey, emag = _gradient(empty)
        noise = float(np.median(emag)) + 1.0
        # an edge the empty zone has in the same place and direction is the board's print
        same = np.abs(gx * ex + gy * ey) > 0.5 * mag * emag
        mag = np.where(same & (emag > 0.5 * mag), 0.0, mag).astype(np.float32)
    return mag, np.arctan2(gy, gx).astype(np.float32), noise


def _gradient(img: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    f = cv2.GaussianBlur(img.astype(np.float32), (0, 0), 1.0)
    gx = cv2.Sobel(f, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(f, cv2.CV_32F, 0, 1, ksize=3)
    m2 = gx * gx + gy * gy
    k = m2.argmax(axis=2)[..., None]  # the channel with the strongest edge at each pixel
    gx = np.take_along_axis(gx, k, axis=2)[..., 0]
    gy = np.take_along_axis(gy, k, axis=2)[..., 0]
    return gx, gy, np.sqrt(np.take_along_axis(m2, k, axis=2)[..., 0])


def find_top_card(zone: np.ndarray, empty: np.ndarray | None, card_px: tuple[float, float]) -> Outline | None:
    """The top card's outline in `zone` (BGR, rectified), or None if no card has four complete sides."""
    found = top_card_candidates(zone, empty, card_px, 1)
    return found[0] if found else None


def top_card_candidates(zone: np.ndarray, empty: np.ndarray | None, card_px: tuple[float, float],
                        n: int) -> list[Outline]:
    """Up to `n` distinct outlines that may be the top card's, the most complete first.

    In a blurred picture of a pile the most complete rectangle is not always the top card's: the
    edges of the cards beneath and of the top card's printed frame run beside its sides, and a
    rectangle a few degrees off collects them. What the card shows inside each outline then tells
    them apart (the caller reads them)."""
    mag, ang, noise = edges(zone, empty)
    thr = CARD_EDGE_NOISE_SIGMAS * noise
    ys, xs = np.nonzero(mag > thr)
    if len(xs) < 50:
        return []
    w = np.minimum(mag[ys, xs] / thr, 3.0)
    phi = ang[ys, xs]
    bins = np.arange(-CARD_MAX_ANGLE_DEG, CARD_MAX_ANGLE_DEG + 1e-6, CARD_ANGLE_BIN_DEG)
    diag = int(np.hypot(*zone.shape[:2])) + 2
    W, L = card_px
    cands: list[tuple[float, float, float, float]] = []  # (score, theta, rho, sigma)
    one_side: list[tuple[float, float, float, float]] = []
    # the direction each edge pixel gives for theta, as a long side and as a short side
    th_long = _wrap90(np.degrees(phi))
    th_short = _wrap90(np.degrees(phi) - 90.0)
    hist_l = _votes(xs, ys, w, th_long, bins, diag, along=0)
    hist_s = _votes(xs, ys, w, th_short, bins, diag, along=1)
    for b, theta in enumerate(bins):
        pl = _pairs(hist_l[b], W)
        ps = _pairs(hist_s[b], L)
        peaks_l, peaks_s = _peaks(pl, CARD_PEAKS), _peaks(ps, CARD_PEAKS)
        for r in peaks_l:
            for s in peaks_s:
                cands.append((min(pl[r], ps[s]), float(theta), float(r), float(s)))
        # a white card on white cards may show one side not at all (the light falls so that neither
        # a step nor a shadow marks it): pairs of one seen side and the other a card's size away
        pl1, ps1 = _one(hist_l[b], W), _one(hist_s[b], L)
        for r in _peaks(pl1, CARD_ONE_PEAKS):
            for s in peaks_s[:CARD_ONE_PEAKS]:
                one_side.append((min(pl1[r], ps[s]), float(theta), float(r), float(s)))
        for r in peaks_l[:CARD_ONE_PEAKS]:
            for s in _peaks(ps1, CARD_ONE_PEAKS):
                one_side.append((min(pl[r], ps1[s]), float(theta), float(r), float(s)))
    if not cands:
        return []
    cands.sort(key=lambda c: -c[0])
    one_side.sort(key=lambda c: -c[0])
    rects = np.array([c[1:] for c in cands[:CARD_CANDIDATES] + one_side[:CARD_ONE_CANDIDATES]], np.float64)
    rects[:, 1:] -= diag
    look = _edge_look(mag, ang, thr)  # walked three times below: made once
    sup, _ = _walk(look, mag.shape, rects, W, L)
    # distinct rectangles: another angle or another place (its centre), the most complete first; then
    # as many whose three most complete sides are complete
    centres = _centres(rects, W, L)
    picked: list[int] = []
    three: list[int] = []
    for rank, out, ok in ((_rank(sup), picked, sup.min(axis=1) > 0),
                          (_rank3(sup), three, np.sort(sup, axis=1)[:, 1] >= CARD_MIN_SUPPORT)):
        for j in np.argsort(-rank):
            if not ok[j] or len(out) == n:
                break
            # (a rectangle picked for four sides, of which one is too incomplete, is tried for three)
            seen = out + [i for i in picked if out is three and sup[i].min() >= CARD_MIN_SUPPORT]
            if all(abs(rects[j, 0] - rects[i, 0]) > 2 * CARD_ANGLE_BIN_DEG
                   or np.hypot(*(centres[j] - centres[i])) > CARD_DISTINCT_PX for i in seen):
                out.append(int(j))
    hidden_ok = [False] * len(picked) + [True] * len(three)
    picked += three
    if not picked:
        return []
    # each nudged by a fraction of an angle bin and a pixel: the votes' bins are coarse. A side's support
    # hangs on the turn and its own offset (the other pair's pixel moves it along itself by a pixel), so
    # the long sides are walked for each (turn, offset of the long sides), the short ones for each
    # (turn, offset of the short sides), and every combination is judged from those
    steps = np.array([(da, dd) for da in (-0.5, 0.0, 0.5) for dd in (-1.0, 0.0, 1.0)])
    base_rects = rects[picked]
    a_step = steps[:, 0] * CARD_ANGLE_BIN_DEG
    near_l = (base_rects[:, None, :] + np.stack([a_step, steps[:, 1], 0 * a_step], -1)[None]).reshape(-1, 3)
    near_s = (base_rects[:, None, :] + np.stack([a_step, 0 * a_step, steps[:, 1]], -1)[None]).reshape(-1, 3)
    sup_l, walked_l = _walk(look, mag.shape, near_l, W, L, sides=(0, 1))
    sup_s, walked_s = _walk(look, mag.shape, near_s, W, L, sides=(2, 3))
    sup_l = sup_l.reshape(len(picked), 3, 3, 4)  # (candidate, turn, offset, side)
    sup_s = sup_s.reshape(len(picked), 3, 3, 4)
    out = []
    for c in range(len(picked)):
        # (turn, long offset, short offset, side)
        sup = np.concatenate([np.broadcast_to(sup_l[c][:, :, None, :2], (3, 3, 3, 2)),
                              np.broadcast_to(sup_s[c][:, None, :, 2:], (3, 3, 3, 2))], axis=-1)
        rank = (_rank3 if hidden_ok[c] else _rank)(sup.reshape(-1, 4))
        a, dr, ds = np.unravel_index(int(np.argmax(rank)), (3, 3, 3))
        sides = sup[a, dr, ds]
        hidden = int(sides.argmin()) if hidden_ok[c] and sides.min() < CARD_MIN_SUPPORT else -1
        support = float(np.sort(sides)[1] if hidden >= 0 else sides.min())
        if support <= 0:
            continue
        jl, js = c * 9 + a * 3 + dr, c * 9 + a * 3 + ds
        angle = float(near_l[jl, 0])
        lines: list[tuple[np.ndarray, float]] = []
        for i in range(4):
            base, d, found = (walked_l if i < 2 else walked_s)[i]
            j = jl if i < 2 else js
            normal = _normals(angle)[i // 2]
            if i == hidden:
                lines.append((normal, float(base[j].mean(axis=0) @ normal)))  # placed below
                continue
            lines.append(_fit_line(base[j][found[j]] + normal[None, :] * d[j][found[j]][:, None]))
        if hidden >= 0:  # a card's size from its opposite side, parallel to it
            nv, cv = lines[hidden ^ 1]
            size = W if hidden < 2 else L
            side = 1.0 if float(nv @ (lines[hidden][0] * lines[hidden][1])) >= cv else -1.0
            lines[hidden] = (nv, cv + side * size)
        corners = np.array([_meet(lines[0], lines[2]), _meet(lines[1], lines[2]), _meet(lines[1], lines[3]),
                            _meet(lines[0], lines[3])], np.float32)
        if np.isfinite(corners).all():
            out.append(Outline(corners, angle, support, hidden))
    out.sort(key=lambda o: (o.hidden >= 0, -o.support))  # four sides seen first
    return out


def _centres(rects: np.ndarray, W: float, L: float) -> np.ndarray:
    """(n, 2) the centres of rectangles (angle, left side's offset, top side's offset)."""
    r = np.radians(rects[:, 0])
    ux = np.stack([np.cos(r), np.sin(r)], axis=-1)
    uy = np.stack([-np.sin(r), np.cos(r)], axis=-1)
    return ux * (rects[:, 1:2] + W / 2) + uy * (rects[:, 2:3] + L / 2)


def _rank(sup: np.ndarray) -> np.ndarray:
    """A rectangle's standing: its least supported side, ties broken by the others (a complete card
    has all four sides complete; a card beneath has one or more partly hidden)."""
    return sup.min(axis=1) + 0.01 * sup.mean(axis=1)


def _rank3(sup: np.ndarray) -> np.ndarray:
    """A rectangle's standing when one side may be unseen: its second least supported side."""
    ordered = np.sort(sup, axis=1)
    return ordered[:, 1] + 0.01 * ordered[:, 1:].mean(axis=1)


def _one(h: np.ndarray, size: float) -> np.ndarray:
    """(offsets,) for each offset the stronger of the two sides `size` apart."""
    k = int(round(size))
    far = np.zeros_like(h)
    far[: len(h) - k] = h[k:]
    return np.maximum(h, far)


def _normals(theta: float) -> tuple[np.ndarray, np.ndarray]:
    """The card's x and y axes at `theta` degrees: the normals of its left/right and top/bottom sides."""
    r = np.radians(theta)
    return np.array([np.cos(r), np.sin(r)]), np.array([-np.sin(r), np.cos(r)])


def _peaks(h: np.ndarray, n: int) -> list[int]:
    """The `n` highest local maxima of a 1-D profile (a strong side makes one peak, not n offsets)."""
    inner = (h[1:-1] >= h[:-2]) & (h[1:-1] > h[2:])
    idx = np.flatnonzero(inner) + 1
    return [int(i) for i in idx[np.argsort(h[idx])[::-1][:n]]]


def _wrap90(deg: np.ndarray) -> np.ndarray:
    """Angles folded into [-90, 90): a line's direction has no sign."""
    return (deg + 90.0) % 180.0 - 90.0


def _votes(xs: np.ndarray, ys: np.ndarray, w: np.ndarray, theta: np.ndarray, bins: np.ndarray, diag: int,
           along: int) -> np.ndarray:
    """(angle bins, 2 diag) edge weight per card angle and offset of a side along the card's x (along=0)
    or y (along=1) axis; each pixel votes in its own angle bin and the two beside it (its direction
    is noisy by a few degrees)."""
    half = CARD_ANGLE_BIN_DEG / 2
    out = np.zeros((len(bins), 2 * diag), np.float32)
    for b, t in enumerate(bins):
        sel = np.abs(theta - t) <= half * 3
        if not sel.any():
            continue
        r = np.radians(t)
        c, s = np.cos(r), np.sin(r)
        x, y = xs[sel], ys[sel]
        off = x * c + y * s if along == 0 else -x * s + y * c
        idx = np.clip(np.round(off).astype(np.int64) + diag, 0, 2 * diag - 1)
        out[b] = np.bincount(idx, weights=w[sel], minlength=2 * diag)[: 2 * diag]
    return cv2.GaussianBlur(out, (0, 0), 1.0)


def _pairs(h: np.ndarray, size: float) -> np.ndarray:
    """(offsets,) for each offset the weaker of the two sides `size` apart (the card's size may be off
    by CARD_SIZE_SLACK: a bent card looks shorter, the zone's scale is the markers')."""
    slack = max(1, int(round(size * CARD_SIZE_SLACK)))
    n = len(h)
    far = np.zeros(n, np.float32)
    k = int(round(size))
    for d in range(k - slack, k + slack + 1):
        if 0 < d < n:
            far[: n - d] = np.maximum(far[: n - d], h[d:])
    return np.minimum(h, far)


def _edge_look(mag: np.ndarray, ang: np.ndarray, thr: float) -> np.ndarray:
    """((h + 2) * (w + 2), 3) per pixel of the zone, with a border of nothing around it (where points
    outside it land): the edge's strength where it is an edge, and its direction (cos, sin)."""
    h, w = mag.shape
    look = np.zeros((h + 2, w + 2, 3), np.float32)
    look[1:-1, 1:-1, 0] = np.where(mag > thr, mag, 0.0)
    look[1:-1, 1:-1, 1] = np.cos(ang)
    look[1:-1, 1:-1, 2] = np.sin(ang)
    return look.reshape(-1, 3)


def _walk(look: np.ndarray, shape: tuple[int, int], rects: np.ndarray, W: float, L: float,
          sides: tuple[int, ...] = (0, 1, 2, 3)) -> tuple[np.ndarray, list]:
    """Every rectangle of `rects` ((n, 3): angle in degrees, offset of its left side, of its top side)
    walked side by side over the zone's edges (`_edge_look` of a zone of `shape`), all at once: (supports (n, 4), per side (points (n, m, 2) on the side, the
    offset across it of the strongest aligned edge beside each point (n, m), whether one was found
    (n, m))); sides left, right, top, bottom (`sides`: only those are walked, the others' support is 0
    and their walk None)."""
    r = np.radians(rects[:, 0])
    rho, sig = rects[:, 1], rects[:, 2]
    ux = np.stack([np.cos(r), np.sin(r)], axis=-1)  # the card's x axis (n, 2)
    uy = np.stack([-np.sin(r), np.cos(r)], axis=-1)  # its y axis
    h, w_ = shape
    dn = np.arange(-CARD_NEAR_PX, CARD_NEAR_PX + 0.01, 0.5)
    cos_max = np.float32(np.cos(np.radians(20)))
    # each side: (its offset along its normal, the normal, where it starts along the side, the side's
    # direction, its length)
    rect = ((rho, ux, sig, uy, L), (rho + W, ux, sig, uy, L), (sig, uy, rho, ux, W), (sig + L, uy, rho, ux, W))
    supports = np.zeros((len(rects), 4))
    walked = []
    for i, (off, normal, start, along_axis, length) in enumerate(rect):
        if i not in sides:
            walked.append(None)
            continue
        m = max(8, int(length * (1 - 2 * CARD_SIDE_INSET)))
        t = start[:, None] + np.linspace(CARD_SIDE_INSET, 1 - CARD_SIDE_INSET, m)[None, :] * length  # (n, m)
        base = normal[:, None, :] * off[:, None, None] + along_axis[:, None, :] * t[..., None]  # (n, m, 2)
        nf = normal.astype(np.float32)
        p = (base.astype(np.float32)[:, :, None, :] + 1.5
             + nf[:, None, None, :] * dn.astype(np.float32)[None, None, :, None])  # (n, m, k, 2), +1 the border
        xi = np.clip(p[..., 0], 0, w_ + 1).astype(np.intp)  # floor: to the nearest pixel
        yi = np.clip(p[..., 1], 0, h + 1).astype(np.intp)
        px = look[yi * (w_ + 2) + xi]  # (n, m, k, 3)
        aligned = np.abs(px[..., 1] * nf[:, None, None, 0] + px[..., 2] * nf[:, None, None, 1]) > cos_max
        # the strongest edge across the side: a card's edge, not its shadow's or its print's
        score = np.where(aligned, px[..., 0], 0.0)
        k = score.argmax(axis=2)
        found = np.take_along_axis(score, k[..., None], axis=2)[..., 0] > 0
        supports[:, i] = found.mean(axis=1)
        # too few points to fit a line through: no side at all
        supports[found.sum(axis=1) < 4, i] = 0.0
        walked.append((base, dn[k], found))
    return supports, walked


def _fit_line(pts: np.ndarray) -> tuple[np.ndarray, float]:
    """(unit normal n, c) of the line n . p = c through `pts` (least squares; the worst quarter dropped once)."""
    for _ in range(2):
        c = pts.mean(axis=0)
        d = pts - c
        # the normal: across the points' principal direction (of their 2x2 scatter, in closed form)
        sxx, sxy, syy = float(d[:, 0] @ d[:, 0]), float(d[:, 0] @ d[:, 1]), float(d[:, 1] @ d[:, 1])
        t = 0.5 * np.arctan2(2 * sxy, sxx - syy)
        n = np.array([-np.sin(t), np.cos(t)])
        res = np.abs(d @ n)
        # the residuals' 75th percentile (linear between the two nearest, as numpy's)
        k = 0.75 * (len(res) - 1)
        lo = int(k)
        hi = min(lo + 1, len(res) - 1)
        part = np.partition(res, (lo, hi))
        keep = res <= max(part[lo] + (k - lo) * (part[hi] - part[lo]), 0.75)
        if keep.all() or keep.sum() < 4:
            break
        pts = pts[keep]
    return n, float(n @ c)


def _meet(a: tuple[np.ndarray, float], b: tuple[np.ndarray, float]) -> np.ndarray:
    A = np.array([a[0], b[0]])
    try:
        return np.linalg.solve(A, np.array([a[1], b[1]]))
    except np.linalg.LinAlgError:
        return np.array([np.nan, np.nan])
