"""A hand and forearm reaching over the board, as polygons in board millimetres."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import engine

EDGES = {"bottom": (0.0, 1.0), "top": (0.0, -1.0), "left": (-1.0, 0.0), "right": (1.0, 0.0)}


@dataclass(frozen=True)
class Hand:
    """A hand reaching in over the board.

    edge: the board side the arm comes from ("bottom" is seat 0's side, then "left",
    "top", "right" clockwise). reach: how far the fingertips are in, as a fraction of the
    board's size (0 at the edge, 1 at the far edge). angle: degrees away from straight in
    (positive turns clockwise on screen). offset_mm: where along the edge the arm enters,
    from the edge's middle. target: a field id; if given, the fingertips rest on that
    field and reach/angle are ignored. height_mm: how high the hand floats (its shadow
    falls that much further away). skin: index into the look's skin tones. approach: with
    a target, the fraction of the way from the edge to it (animate 0 -> 1 -> 0).
    """

    edge: str = "bottom"
    reach: float = 0.5
    angle: float = 0.0
    offset_mm: float = 0.0
    target: str | None = None
    height_mm: float = 60.0
    skin: int = 0
    scale: float = 1.0
    approach: float = 1.0  # with a target: how far along the way from the edge (for animation)

    def __post_init__(self) -> None:
        if self.edge not in EDGES:
            raise ValueError(f"Hand.edge must be one of {', '.join(EDGES)}, not {self.edge!r}")

    def tip_and_direction(self, geo: engine.BoardGeometry) -> tuple[np.ndarray, np.ndarray]:
        """Fingertip point (mm) and the unit direction the fingers point."""
        ox, oy = EDGES[self.edge]
        half = geo.size[0] / 2
        along = np.array([-oy, ox])
        entry = np.array([ox * half, oy * half]) + along * self.offset_mm
        if self.target is not None:
            tip = np.array(geo.centre(self.target), dtype=float)
            d = tip - entry
            n = float(np.hypot(*d))
            d = d / n if n > 1e-6 else np.array([-ox, -oy])
            # The finger pad, not the nail's edge, rests on the field.
            tip = tip + d * 14.0 * self.scale
            return entry + (tip - entry) * self.approach, d
        a = math.radians(self.angle)
        inward = np.array([-ox, -oy])
        c, s = math.cos(a), math.sin(a)
        d = np.array([inward[0] * c - inward[1] * s, inward[0] * s + inward[1] * c])
        return entry + d * self.reach * geo.size[0], d

    def polygons(self, geo: engine.BoardGeometry) -> list[np.ndarray]:
        """Outline polygons (N, 2) in board mm: forearm, palm, thumb, four fingers."""
        tip, d = self.tip_and_direction(geo)
        side = np.array([-d[1], d[0]])
        k = self.scale

        def at(u: float, v: float) -> np.ndarray:
            # The middle finger (v = 9) lies on the reaching line.
            return tip + d * (u * k) + side * ((v - 9) * k)

        polys = [
            np.array([at(-150, -36), at(-150, 36), at(-750, 52), at(-750, -52)]),
            _ellipse(at(-118, 0), d, 58 * k, 44 * k),
            _capsule(at(-150, 36), at(-92, 58), 11 * k),
        ]
        for v, u_tip, length in ((-27, -24, 58), (-9, -6, 72), (9, 0, 78), (27, -8, 72)):
            polys.append(_capsule(at(u_tip - length, v), at(u_tip - 8.5, v), 8.5 * k))
        return polys


def _ellipse(c: np.ndarray, d: np.ndarray, a: float, b: float, n: int = 28) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    side = np.array([-d[1], d[0]])
    return c + np.outer(np.cos(t) * a, d) + np.outer(np.sin(t) * b, side)


def _capsule(p: np.ndarray, q: np.ndarray, r: float, n: int = 10) -> np.ndarray:
    d = q - p
    length = float(np.hypot(*d)) or 1.0
    d = d / length
    base = math.atan2(d[1], d[0])
    t1 = np.linspace(base - math.pi / 2, base + math.pi / 2, n)
    t0 = np.linspace(base + math.pi / 2, base + 3 * math.pi / 2, n)
    cap_q = q + r * np.column_stack([np.cos(t1), np.sin(t1)])
    cap_p = p + r * np.column_stack([np.cos(t0), np.sin(t0)])
    return np.vstack([cap_q, cap_p])
