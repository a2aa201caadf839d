"""Per-field colour features and the nearest-colour classifier.

A field's feature is the median colour of its centre patch divided by the light model
there, in log space, split into brightness `l` and two chroma axes (red-green,
blue-green). Dividing by the light makes a piece's colour the same anywhere on the board;
splitting out brightness lets the classifier trust chroma more than brightness, which is
what shadows and flicker disturb most.
"""
from __future__ import annotations

import numpy as np

from vision.light import log_colour

FEATURES = ("l", "rg", "bg")
BRIGHTNESS_WEIGHT = 0.5
MARK_RANK_OFFSET = 24.0  # ranking by colourfulness: dark pixels' noise must not look colourful
# A field is read as a class only if it is this close (feature units, ~log colour) ...
MAX_DISTANCE = 0.42
# ... and clearly closer to it than to any other class.
MIN_MARGIN = 0.12
# A colour the light has bent further (a dark channel of a strong colour is noisy in log
# units: the blue of a yellow piece in dim light) is still read if it is far nearer to one
# class than to any other.
CLEAR_DISTANCE = 0.65
CLEAR_MARGIN = 0.75
# Through JPEG (colour at half resolution) a saturated piece's dark channel takes in the board
# around it, and in log units it moves far: the red of a small pawn on a cream field reads
# redder than in its tinted kennel. Such a reading is still far nearer its own class than any
# other; a piece half seen with half board lies between the two classes and is not read.
FAR_DISTANCE = 1.4
FAR_RATIO = 2.4


def field_features(samples: np.ndarray, light_at_fields: np.ndarray, marked: bool = False) -> np.ndarray:
    """samples (fields, points, 3) BGR uint8; light (fields, 3) log model -> (fields, 3) features.

    `marked`: pieces carry a white or black mark on the head (royal ranks). Marks are
    colourless, the body is not: the median is taken over the more colourful half of each
    patch (for an empty field, that is still the field).
    """
    if marked:
        c = np.log(samples.astype(np.float32) + MARK_RANK_OFFSET)
        sat = np.abs(c[..., 2] - c[..., 1]) + np.abs(c[..., 0] - c[..., 1]) + np.abs(c[..., 2] - c[..., 0])
        keep = np.argsort(sat, axis=1)[:, samples.shape[1] // 2 :]
        samples = np.take_along_axis(samples, keep[..., None], axis=1)
    med = np.median(samples, axis=1)
    logc = log_colour(med) - light_at_fields
    b, g, r = logc[:, 0], logc[:, 1], logc[:, 2]
    return np.stack([(b + g + r) / 3, r - g, b - g], axis=1).astype(np.float32)


def distances(features: np.ndarray, prototypes: np.ndarray) -> np.ndarray:
    """features (n, 3), prototypes (n, k, 3) or (k, 3) -> (n, k) weighted distances."""
    d = features[:, None, :] - (prototypes if prototypes.ndim == 3 else prototypes[None, :, :])
    d[..., 0] *= BRIGHTNESS_WEIGHT
    return np.sqrt((d * d).sum(axis=-1))


def classify(d: np.ndarray, max_distance: float = MAX_DISTANCE, min_margin: float = MIN_MARGIN) -> np.ndarray:
    """(n, k) distances -> (n,) class index, -1 where no class is near enough or clear enough."""
    order = np.argsort(d, axis=1)
    best = order[:, 0]
    rows = np.arange(len(d))
    b = d[rows, best]
    second = d[rows, order[:, 1]] if d.shape[1] > 1 else np.full(len(d), np.inf)
    ok = ((b <= max_distance) & (second - b >= min_margin)) | ((b <= CLEAR_DISTANCE) & (second - b >= CLEAR_MARGIN))
    ok |= (b <= FAR_DISTANCE) & (second >= FAR_RATIO * b) & (second - b >= CLEAR_MARGIN)
    return np.where(ok, best, -1)
