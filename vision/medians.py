"""Medians as np.median gives them, to the bit, for the small arrays a reading takes them of.

np.median's generic machinery (axis handling, its NaN check, a mean of the middle pair) costs
several times the partition itself on arrays of a few hundred values, and a reading takes a
dozen such medians a frame. These take the same middle values (a partition's order statistics
do not depend on how it gets there) and combine them in the same dtype, so every threshold
made of them is unchanged.
"""
from __future__ import annotations

import numpy as np


def median(a: np.ndarray) -> np.floating:
    """np.median(a) of a non-empty 1-D float array: the middle value, or the mean of the middle pair in
    the array's dtype; NaN if any value is NaN."""
    n = len(a)
    h = n // 2
    part = np.partition(a, [h, n - 1] if n % 2 else [h - 1, h, n - 1])
    if np.isnan(part[-1]):  # NaN sorts last
        return part[-1]
    if n % 2:
        return part[h]
    return (part[h - 1] + part[h]) / 2


def median_columns(a: np.ndarray) -> np.ndarray:
    """np.median(a, axis=0) of an (n, k) float array with n > 0, column by column."""
    return np.array([median(c) for c in np.ascontiguousarray(a.T)], dtype=a.dtype)
