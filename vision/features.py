"""Per-field colour features and the nearest-colour classifier.

A field's feature is the median colour of its centre patch divided by the light model
there, in log space, split into brightness `l` and two chroma axes (red-green,
blue-green). Dividing by the light makes a piece's colour the same anywhere on the board;
splitting out brightness lets the classifier trust chroma more than brightness, which is
what shadows and flicker disturb most. The thresholds live in vision.tuning.
"""
from __future__ import annotations

import numpy as np

from vision.light import log_colour
from vision.tuning import (
    BENT_DISTANCE, BENT_RATIO, BRIGHTNESS_WEIGHT, CLEAR_DISTANCE, CLEAR_MARGIN, DARK_LIT_GAINS, FAR_DISTANCE, FAR_RATIO,
    HIGHLIGHT_SHARES, LED_AROUND_GAINS, LED_GAINS, LIT_KEEP, LIT_TINT_WEIGHT, MARK_RANK_OFFSET, MAX_DISTANCE, MIN_LINEAR,
    MIN_MARGIN, MIX_MIN_CHROMA, MIX_SHARES, SOFT_FLOOR,
)

FEATURES = ("l", "rg", "bg")


def field_features(samples: np.ndarray, light_at_fields: np.ndarray, marked: bool = False,
                   led_bgr: np.ndarray | None = None) -> np.ndarray:
    """samples (fields, points, 3) BGR uint8; light (fields, 3) log model -> (fields, 3) features.

    `marked`: pieces carry a white or black mark on the head (royal ranks). Marks are
    colourless, the body is not: the median is taken over the more colourful half of each
    patch (for an empty field, that is still the field). With `led_bgr` (3,) (the fields'
    own ring lit in that nominal colour, 0-1) the most colourful pixels are the ring's light
    on the board and on the piece's sides: then the pixels kept (LIT_KEEP of them) are the
    most colourful less what the ring's light tints them (`led_tint`).
    """
    if marked:
        c = np.log(samples.astype(np.float32) + MARK_RANK_OFFSET)
        sat = np.abs(c[..., 2] - c[..., 1]) + np.abs(c[..., 0] - c[..., 1]) + np.abs(c[..., 2] - c[..., 0])
        if led_bgr is not None:
            score = sat - LIT_TINT_WEIGHT * (c @ led_tint(led_bgr))
            keep = np.argsort(-score, axis=1)[:, : int(samples.shape[1] * LIT_KEEP)]
        else:
            keep = np.argsort(sat, axis=1)[:, samples.shape[1] // 2 :]
        samples = np.take_along_axis(samples, keep[..., None], axis=1)
    med = np.median(samples, axis=1)
    logc = log_colour(med) - light_at_fields
    b, g, r = logc[:, 0], logc[:, 1], logc[:, 2]
    return np.stack([(b + g + r) / 3, r - g, b - g], axis=1).astype(np.float32)


def led_tint(led_bgr: np.ndarray) -> np.ndarray:
    """(3,) log-colour direction (b, g, r) in which an LED of nominal colour `led_bgr` (0-1) tints what it lights:
    a pixel's log colour dotted with it says how much that light colours it (brightness does not count)."""
    u = np.log(np.asarray(led_bgr, np.float64) + 0.1)
    u -= u.mean()
    n = float(np.linalg.norm(u))
    return (u / n if n > 0 else u).astype(np.float32)


def to_channels(features: np.ndarray) -> np.ndarray:
    """(..., 3) features (l, rg, bg) -> (..., 3) light-corrected log colour (b, g, r)."""
    l, rg, bg = features[..., 0], features[..., 1], features[..., 2]
    g = l - (rg + bg) / 3
    return np.stack([bg + g, g, rg + g], axis=-1)


def from_channels(logc: np.ndarray) -> np.ndarray:
    """(..., 3) light-corrected log colour (b, g, r) -> (..., 3) features (l, rg, bg)."""
    b, g, r = logc[..., 0], logc[..., 1], logc[..., 2]
    return np.stack([(b + g + r) / 3, r - g, b - g], axis=-1)




def soft(features: np.ndarray) -> np.ndarray:
    """(..., 3) features -> the same with each channel's log taken of (colour + SOFT_FLOOR)."""
    lin = np.exp(to_channels(np.asarray(features, np.float64)))
    return from_channels(np.log(lin + SOFT_FLOOR) - np.log1p(SOFT_FLOOR)).astype(np.float32)


# BGR -> (Y, Cb, Cr) as JPEG (BT.601, full range) and back
_YCC = np.array([[0.114, 0.587, 0.299], [0.5, -0.331264, -0.168736], [-0.081312, -0.418688, 0.5]])
_YCC_INV = np.linalg.inv(_YCC)


def mixed_prototypes(prototypes: np.ndarray, led_bgr: np.ndarray | None = None,
                     led_gains: tuple[float, ...] = LED_GAINS) -> np.ndarray:
    """prototypes (n, k, 3), class 0 the empty field's own look -> (n, k, m, 3) looks each class may show
    (`soft`ened, for `mixed_distances`).

    A saturated class's colour (Cb, Cr: JPEG keeps colour at half resolution, and that is
    where the board under and around a piece gets in) mixed with the field's look around it
    (MIX_SHARES), its brightness (Y) its own; and with less or more of the lamp's highlight
    than where it was learned (HIGHLIGHT_SHARES). With `led_bgr` (3,) (a lit ring's nominal
    colour, 0-1) the field around the piece may be lit (LED_AROUND_GAINS of that colour
    added to its empty look), and every class may have a little of the light added
    (LED_GAINS; light adds up).
    """
    protos = np.asarray(prototypes, np.float64)
    n, k = protos.shape[:2]
    lin = np.exp(to_channels(protos))  # (n, k, 3) BGR, relative to the bare board
    saturated = np.hypot(protos[..., 1], protos[..., 2]) >= MIX_MIN_CHROMA  # (n, k)
    saturated[:, 0] = False
    # (n, k, h, 3): a highlight share w of the board's colour taken out (w > 0) or added (w < 0)
    # not in a lit ring: there a dark piece in coloured light, darker still, would pass for a coloured one
    w = np.array(HIGHLIGHT_SHARES if led_bgr is None else (0.0,))
    lit = (lin[:, :, None, :] - w[None, None, :, None]) / (1 - w[None, None, :, None])
    lit[~saturated] = lin[~saturated][:, None, :]
    lit = np.maximum(lit, MIN_LINEAR)
    led = np.zeros(3) if led_bgr is None else np.asarray(led_bgr, np.float64)
    own = np.array(led_gains if led_bgr is not None else (0.0,))[:, None] * led[None, :]  # (g, 3)
    ring = np.array(LED_AROUND_GAINS if led_bgr is not None else (0.0,))[:, None] * led[None, :]  # (a, 3)
    ycc = (lit[:, :, :, None, :] + own[None, None, None, :, :]) @ _YCC.T  # (n, k, h, g, 3)
    around = (lin[:, 0, None, :] + ring[None, :, :]) @ _YCC.T  # (n, a, 3)
    shares = np.array(MIX_SHARES)[:, None]  # (s, 1)
    # (n, k, h, g, a, s, 3): brightness the class's own, colour mixed with the field around it
    mixed = np.empty((n, k, len(w), len(own), len(ring), len(MIX_SHARES), 3))
    mixed[..., 0] = ycc[..., None, None, 0]
    mixed[..., 1:] = ((1 - shares) * ycc[..., None, None, 1:]
                      + shares * around[:, None, None, None, :, None, 1:])
    mixed[~saturated] = ycc[~saturated][:, :, :, None, None, :]  # unmixed
    out = from_channels(np.log(np.maximum(mixed @ _YCC_INV.T, MIN_LINEAR)))
    return soft(out.reshape(n, k, -1, 3))


def mixed_distances(features: np.ndarray, looks: np.ndarray) -> np.ndarray:
    """features (n, 3), looks (n, k, m, 3) from `mixed_prototypes` -> (n, k) distance to each class's nearest look."""
    f = soft(features)[:, None, None, :]
    # channel by channel: numpy sums over a last axis of 3 slowly
    dl = (f[..., 0] - looks[..., 0]) * np.float32(BRIGHTNESS_WEIGHT)
    d1 = f[..., 1] - looks[..., 1]
    d2 = f[..., 2] - looks[..., 2]
    sq = dl * dl + d1 * d1 + d2 * d2
    if sq.shape[-1] > 16:
        return np.sqrt(sq.min(axis=-1))
    best = sq[..., 0].copy()  # a few looks: one minimum at a time (a short last axis reduces slowly)
    for i in range(1, sq.shape[-1]):
        np.minimum(best, sq[..., i], out=best)
    return np.sqrt(best)


def dark_lit_path_distance(dark: np.ndarray, coloured: np.ndarray, led_bgr: np.ndarray) -> float:
    """Chroma distance (soft units) from class features `coloured` (3,) to the path a dark class's
    features `dark` (3,) take as a ring of nominal colour `led_bgr` (0-1) lights it more and more
    (DARK_LIT_GAINS, brightness left out)."""
    lin = np.exp(to_channels(np.asarray(dark, np.float64)))
    path = soft(from_channels(np.log(lin[None, :] + DARK_LIT_GAINS[:, None] * np.asarray(led_bgr)[None, :])))
    c = soft(np.asarray(coloured, np.float64)[None, :])[0]
    return float(np.sqrt(((path[:, 1:] - c[1:]) ** 2).sum(axis=1)).min())


def distances(features: np.ndarray, prototypes: np.ndarray) -> np.ndarray:
    """features (n, 3), prototypes (n, k, 3) or (k, 3) -> (n, k) weighted distances."""
    d = features[:, None, :] - (prototypes if prototypes.ndim == 3 else prototypes[None, :, :])
    d[..., 0] *= BRIGHTNESS_WEIGHT
    return np.sqrt((d * d).sum(axis=-1))


def classify(d: np.ndarray, max_distance: float = MAX_DISTANCE, min_margin: float = MIN_MARGIN,
             bent: bool = True) -> np.ndarray:
    """(n, k) distances -> (n,) class index, -1 where no class is near enough or clear enough.

    Class 0 is the empty field. `bent`: a piece's colour bent far but still far nearer its own
    class than any other is read (BENT_RATIO); not in a lit ring."""
    order = np.argsort(d, axis=1)
    best = order[:, 0]
    rows = np.arange(len(d))
    b = d[rows, best]
    second = d[rows, order[:, 1]] if d.shape[1] > 1 else np.full(len(d), np.inf)
    ok = ((b <= max_distance) & (second - b >= min_margin)) | ((b <= CLEAR_DISTANCE) & (second - b >= CLEAR_MARGIN))
    ok |= (b <= FAR_DISTANCE) & (second >= FAR_RATIO * b) & (second - b >= CLEAR_MARGIN)
    if bent:
        ok |= (b <= BENT_DISTANCE) & (second >= BENT_RATIO * b) & (best != 0)
    return np.where(ok, best, -1)
