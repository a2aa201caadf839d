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
   the lines meet (a slightly bent card's outline is not quite a rectangle).

Everything is in the rectified zone's pixels (vision.cards makes the zone).
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.tuning import (
    CARD_ANGLE_BIN_DEG, CARD_CANDIDATES, CARD_EDGE_NOISE_SIGMAS, CARD_MAX_ANGLE_DEG, CARD_NEAR_PX, CARD_PEAKS,
    CARD_SIDE_INSET, CARD_SIZE_SLACK,
)


@dataclass(frozen=True)
class Outline:
    """The top card: corners (4, 2) in zone pixels (the card's own top-left, top-right, bottom-right,
    bottom-left for the card as found, either way up), its turn, and how complete its least
    complete side is (0-1)."""

    corners: np.ndarray
    angle_deg: float
    support: float


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
    mag, ang, noise = edges(zone, empty)
    thr = CARD_EDGE_NOISE_SIGMAS * noise
    ys, xs = np.nonzero(mag > thr)
    if len(xs) < 50:
        return None
    w = np.minimum(mag[ys, xs] / thr, 3.0)
    phi = ang[ys, xs]
    bins = np.arange(-CARD_MAX_ANGLE_DEG, CARD_MAX_ANGLE_DEG + 1e-6, CARD_ANGLE_BIN_DEG)
    diag = int(np.hypot(*zone.shape[:2])) + 2
    W, L = card_px
    cands: list[tuple[float, float, float, float]] = []  # (score, theta, rho, sigma)
    # the direction each edge pixel gives for theta, as a long side and as a short side
    th_long = _wrap90(np.degrees(phi))
    th_short = _wrap90(np.degrees(phi) - 90.0)
    hist_l = _votes(xs, ys, w, th_long, bins, diag, along=0)
    hist_s = _votes(xs, ys, w, th_short, bins, diag, along=1)
    for b, theta in enumerate(bins):
        pl = _pairs(hist_l[b], W)
        ps = _pairs(hist_s[b], L)
        for r in _peaks(pl, CARD_PEAKS):
            for s in _peaks(ps, CARD_PEAKS):
                cands.append((min(pl[r], ps[s]), float(theta), float(r), float(s)))
    cands.sort(key=lambda c: -c[0])
    best: Outline | None = None
    for _, theta, rho, sig in cands[:CARD_CANDIDATES]:
        o = _judge(mag, ang, thr, theta, rho - diag, sig - diag, W, L)
        if o is not None and (best is None or o.support > best.support):
            best = o
    return best


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


def _judge(mag: np.ndarray, ang: np.ndarray, thr: float, theta: float, rho: float, sig: float,
           W: float, L: float) -> Outline | None:
    """The rectangle at angle `theta` whose left side lies at offset `rho` and top side at `sig`: each
    side walked point by point, fitted, and scored by its least supported side."""
    r = np.radians(theta)
    ux = np.array([np.cos(r), np.sin(r)])  # the card's x axis
    uy = np.array([-np.sin(r), np.cos(r)])  # its y axis
    h, w_ = mag.shape
    # each side: (its offset along its normal, the normal, where it starts along the side, the side's
    # direction, its length): left, right, top, bottom
    rect = ((rho, ux, sig, uy, L), (rho + W, ux, sig, uy, L), (sig, uy, rho, ux, W), (sig + L, uy, rho, ux, W))
    lines = []
    supports = []
    for off, normal, start, along_axis, length in rect:
        t = np.linspace(start + CARD_SIDE_INSET * length, start + (1 - CARD_SIDE_INSET) * length,
                        max(8, int(length * (1 - 2 * CARD_SIDE_INSET))))
        base = normal[None, :] * off + along_axis[None, :] * t[:, None]  # (points, 2) x, y
        best_d = np.full(len(t), np.nan)
        best_m = np.zeros(len(t), np.float32)
        for dn in np.arange(-CARD_NEAR_PX, CARD_NEAR_PX + 0.01, 0.5):
            p = base + normal[None, :] * dn
            xi = np.clip(np.round(p[:, 0]).astype(int), 0, w_ - 1)
            yi = np.clip(np.round(p[:, 1]).astype(int), 0, h - 1)
            inside = (p[:, 0] >= 0) & (p[:, 0] < w_) & (p[:, 1] >= 0) & (p[:, 1] < h)
            m = mag[yi, xi]
            a = ang[yi, xi]
            aligned = np.abs(np.cos(a) * normal[0] + np.sin(a) * normal[1]) > np.cos(np.radians(20))
            # the strongest edge across the side: a card's edge, not its shadow's or its print's
            better = inside & aligned & (m > thr) & (m > best_m)
            best_d[better] = dn
            best_m[better] = m[better]
        sup = ~np.isnan(best_d)
        supports.append(float(sup.mean()))
        if sup.sum() < 4:
            return None
        pts = base[sup] + normal[None, :] * best_d[sup, None]
        lines.append(_fit_line(pts))
    support = min(supports)
    corners = np.array([_meet(lines[0], lines[2]), _meet(lines[1], lines[2]), _meet(lines[1], lines[3]),
                        _meet(lines[0], lines[3])], np.float32)
    if not np.isfinite(corners).all():
        return None
    return Outline(corners, theta, support)


def _fit_line(pts: np.ndarray) -> tuple[np.ndarray, float]:
    """(unit normal n, c) of the line n . p = c through `pts` (least squares; the worst quarter dropped once)."""
    for _ in range(2):
        c = pts.mean(axis=0)
        _, _, vt = np.linalg.svd(pts - c, full_matrices=False)
        n = vt[1]
        res = np.abs((pts - c) @ n)
        keep = res <= max(np.percentile(res, 75), 0.75)
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
