"""The static board image, top-down, drawn once per look and cached.

Canvas pixels map to board millimetres by `Canvas`; everything that does not change
during a game (print, fields, markers, the Black DOG disc in each of its four turns)
lives here, so that a frame only pastes pieces, glow and cards onto a copy.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

import engine
from hardware.simtable.look import BGR, SceneLook, load_look

SHIFT = 4  # fixed-point bits for sub-pixel drawing with OpenCV


@dataclass(frozen=True)
class Canvas:
    """Board millimetres <-> canvas pixels (pixel centres at integer coordinates)."""

    px_per_mm: float
    size_mm: tuple[float, float]

    @property
    def shape(self) -> tuple[int, int]:
        return (int(math.ceil(self.size_mm[1] * self.px_per_mm)), int(math.ceil(self.size_mm[0] * self.px_per_mm)))

    def px(self, x: float, y: float) -> tuple[float, float]:
        return ((x + self.size_mm[0] / 2) * self.px_per_mm, (y + self.size_mm[1] / 2) * self.px_per_mm)

    def fx(self, x: float, y: float) -> tuple[int, int]:
        """Fixed-point pixel for OpenCV drawing with shift=SHIFT."""
        u, v = self.px(x, y)
        return (int(round(u * (1 << SHIFT))), int(round(v * (1 << SHIFT))))

    def fr(self, r_mm: float) -> int:
        return int(round(r_mm * self.px_per_mm * (1 << SHIFT)))

    def matrix(self) -> np.ndarray:
        """3x3: board mm -> canvas px."""
        s = self.px_per_mm
        return np.array([[s, 0, self.size_mm[0] / 2 * s], [0, s, self.size_mm[1] / 2 * s], [0, 0, 1.0]])


def mix(a: BGR, b: BGR, t: float) -> BGR:
    return tuple(int(round(x * (1 - t) + y * t)) for x, y in zip(a, b))  # type: ignore[return-value]


def rotate_quarters(x: float, y: float, quarters: int) -> tuple[float, float]:
    """Turn a board point about the centre by `quarters` clockwise quarter turns (as seen from above)."""
    for _ in range(quarters % 4):
        x, y = -y, x
    return x, y


@dataclass(frozen=True)
class BoardLook:
    """What decides the static picture: one cache entry per distinct value."""

    segments: int
    board_kind: str
    home_slots: int
    kennel_spots: int
    disc: int
    px_per_mm: float
    look_path: str | None = None

    @staticmethod
    def of(position: engine.Position, px_per_mm: float, look_path: str | None = None) -> BoardLook:
        v = position.variant
        # A board's print is fixed: every edition on it sees the same kennel spots (all the
        # geometry has), whatever its pieces.
        geo = engine.load_geometry(position.board.segments)
        spots = sum(1 for f in geo.centres if f.startswith("S0K"))
        return BoardLook(
            segments=position.board.segments,
            board_kind=position.board.kind,
            home_slots=v.home_slots,
            kennel_spots=spots,
            disc=position.disc if position.board.disc_fields else 0,
            px_per_mm=px_per_mm,
            look_path=look_path,
        )


@functools.lru_cache(maxsize=24)
def static_board(key: BoardLook) -> np.ndarray:
    """The board print as a read-only BGR image (top-down, `key.px_per_mm` pixels per mm)."""
    geo = engine.load_geometry(key.segments)
    board = engine.load_board(key.board_kind, key.segments)
    look = load_look(key.look_path)
    cv = Canvas(key.px_per_mm, geo.size)
    img = _base(cv, look, seed=key.segments)
    _draw_print(img, cv, geo, board, look, key)
    img.setflags(write=False)
    return img


def _base(cv: Canvas, look: SceneLook, seed: int) -> np.ndarray:
    h, w = cv.shape
    rng = np.random.default_rng(seed + 1000)
    base = np.array(look.board["base"], np.float32)
    # Printed cardboard: a faint low-frequency mottle plus fine grain.
    low = cv2.resize(rng.normal(0, 1, (h // 40 + 2, w // 40 + 2)).astype(np.float32), (w, h),
                     interpolation=cv2.INTER_CUBIC)
    grain = rng.normal(0, 1, (h, w)).astype(np.float32)
    img = base[None, None, :] * (1 + 0.012 * low[..., None]) + 2.0 * grain[..., None]
    img = np.clip(img, 0, 255).astype(np.uint8)
    edge = look.board["edge"]
    t = max(2, int(4 * cv.px_per_mm))
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), edge, t)
    return img


def _hole(img: np.ndarray, cv: Canvas, p: tuple[float, float], r: float, inner: BGR, look: SceneLook) -> None:
    """A field: a shallow round recess with a dark rim, lit from the top left."""
    dark = mix(inner, (0, 0, 0), 0.22)
    cv2.circle(img, cv.fx(*p), cv.fr(r), dark, -1, cv2.LINE_AA, SHIFT)
    cv2.circle(img, cv.fx(p[0] + 0.7, p[1] + 0.8), cv.fr(r - 1.3), inner, -1, cv2.LINE_AA, SHIFT)
    cv2.circle(img, cv.fx(*p), cv.fr(r), look.board["hole_rim"], max(1, int(1.3 * cv.px_per_mm)), cv2.LINE_AA, SHIFT)


def _draw_print(img: np.ndarray, cv: Canvas, geo: engine.BoardGeometry, board: engine.Board,
                look: SceneLook, key: BoardLook) -> None:
    r = geo.field_radius
    n = board.track_length
    b = look.board
    path_w = max(1, int(round((2 * r + 9) * cv.px_per_mm)))
    track = [geo.centre(f"T{i}") for i in range(n)]
    pts = np.array([cv.fx(*p) for p in track], np.int32)
    cv2.polylines(img, [pts], True, b["path"], path_w, cv2.LINE_AA, SHIFT)
    seat_bgr = [look.seat_bgr(c) for c in board.colours]
    for s in range(key.segments):
        col = seat_bgr[s]
        start = geo.centre(f"T{board.start_field(s)}")
        # Home lane: a band in the seat colour from the start field to the deepest slot.
        deepest = geo.centre(f"S{s}H{key.home_slots - 1}")
        cv2.line(img, cv.fx(*start), cv.fx(*deepest), mix(b["path"], col, 0.55), path_w, cv2.LINE_AA, SHIFT)
        # Kennel: a rounded patch behind its spots.
        k0, k1 = geo.centre(f"S{s}K0"), geo.centre(f"S{s}K{key.kennel_spots - 1}")
        cv2.line(img, cv.fx(*k0), cv.fx(*k1), mix(b["base"], col, 0.5), int((2 * r + 12) * cv.px_per_mm),
                 cv2.LINE_AA, SHIFT)
        cv2.line(img, cv.fx(*k0), cv.fx(*k1), mix(b["base"], col, 0.7), max(1, int(0.8 * cv.px_per_mm)),
                 cv2.LINE_AA, SHIFT)
    _centre(img, cv, geo, board, look, key)
    for i, p in enumerate(track):
        owner = board.start_owner.get(i)
        if owner is not None:
            # Start field: a thick ring in the seat colour.
            cv2.circle(img, cv.fx(*p), cv.fr(r + 3.2), seat_bgr[owner], -1, cv2.LINE_AA, SHIFT)
            _hole(img, cv, p, r, mix(b["hole_inner"], seat_bgr[owner], look.tint), look)
        elif i in board.special_fields:
            cv2.circle(img, cv.fx(*p), cv.fr(r + 2.6), b["special"], max(1, int(1.6 * cv.px_per_mm)),
                       cv2.LINE_AA, SHIFT)
            _star(img, cv, p, r + 5.5, b["special"])
            _hole(img, cv, p, r, b["hole_inner"], look)
        elif i in board.disc_fields:
            continue  # drawn with the disc
        else:
            _hole(img, cv, p, r, b["hole_inner"], look)
    for s in range(key.segments):
        tinted = mix(b["hole_inner"], seat_bgr[s], look.tint)
        for j in range(key.home_slots):
            _hole(img, cv, geo.centre(f"S{s}H{j}"), r, tinted, look)
        for j in range(key.kennel_spots):
            _hole(img, cv, geo.centre(f"S{s}K{j}"), r * 0.9, tinted, look)
    _discard(img, cv, geo, look)
    _markers(img, cv, geo)


def _star(img: np.ndarray, cv: Canvas, p: tuple[float, float], radius: float, colour: BGR) -> None:
    """Four small triangles pointing out of a royal special field."""
    for k in range(4):
        a = math.pi / 4 + k * math.pi / 2
        tip = (p[0] + math.cos(a) * (radius + 3), p[1] + math.sin(a) * (radius + 3))
        l = (p[0] + math.cos(a + 0.25) * radius, p[1] + math.sin(a + 0.25) * radius)
        rr = (p[0] + math.cos(a - 0.25) * radius, p[1] + math.sin(a - 0.25) * radius)
        cv2.fillPoly(img, [np.array([cv.fx(*tip), cv.fx(*l), cv.fx(*rr)], np.int32)], colour, cv2.LINE_AA, SHIFT)


def _centre(img: np.ndarray, cv: Canvas, geo: engine.BoardGeometry, board: engine.Board,
            look: SceneLook, key: BoardLook) -> None:
    b = look.board
    if not board.disc_fields:
        if geo.centre_radius > 0:
            cv2.circle(img, cv.fx(0, 0), cv.fr(geo.centre_radius), b["centre"], -1, cv2.LINE_AA, SHIFT)
            cv2.circle(img, cv.fx(0, 0), cv.fr(geo.centre_radius - 3), mix(b["centre"], b["base"], 0.5),
                       max(1, int(1.2 * cv.px_per_mm)), cv2.LINE_AA, SHIFT)
            _text(img, cv, "DOG", (0, 0), geo.centre_radius * 1.1, mix(b["base"], (255, 255, 255), 0.3))
        return
    d = look.disc
    q = key.disc
    cv2.circle(img, cv.fx(0, 0), cv.fr(geo.disc_radius + 1.5), d["rim"], -1, cv2.LINE_AA, SHIFT)
    cv2.circle(img, cv.fx(0, 0), cv.fr(geo.disc_radius - 1.0), d["body"], -1, cv2.LINE_AA, SHIFT)
    # The orientation mark: a bone next to an arrow pointing at seat 0 when the disc reads 0.
    r_in = geo.centre_radius * 0.75
    tri = [rotate_quarters(x, y, q) for x, y in ((0, r_in + 14), (-7, r_in + 3), (7, r_in + 3))]
    cv2.fillPoly(img, [np.array([cv.fx(*p) for p in tri], np.int32)], d["index"], cv2.LINE_AA, SHIFT)
    for dx in (-9.0, 9.0):
        for dy in (-3.0, 3.0):
            x, y = rotate_quarters(dx, r_in - 6 + dy, q)
            cv2.circle(img, cv.fx(x, y), cv.fr(3.2), d["white_paw"], -1, cv2.LINE_AA, SHIFT)
    a, bb = rotate_quarters(-9, r_in - 6, q), rotate_quarters(9, r_in - 6, q)
    cv2.line(img, cv.fx(*a), cv.fx(*bb), d["white_paw"], int(4.5 * cv.px_per_mm), cv2.LINE_AA, SHIFT)
    r = geo.field_radius
    paws = dict(board.paw_colours)
    for f in board.disc_fields:
        # The art turns with the disc; the logical fields stay where they are (the engine
        # moves the pieces), so paws are drawn at the turned position of their own field.
        x, y = rotate_quarters(*geo.centre(f"T{f}"), q)
        colour = paws.get(f)
        if colour is not None:
            paw = d["white_paw"] if colour == "white" else d["black_paw"]
            cv2.circle(img, cv.fx(x, y), cv.fr(r + 3.5), paw, -1, cv2.LINE_AA, SHIFT)
            cv2.circle(img, cv.fx(x, y), cv.fr(r + 3.5), mix(paw, (128, 128, 128), 0.5),
                       max(1, int(0.8 * cv.px_per_mm)), cv2.LINE_AA, SHIFT)
            # Toes: three dots on the side away from the centre.
            norm = math.hypot(x, y) or 1.0
            ux, uy = x / norm, y / norm
            for t in (-0.55, 0.0, 0.55):
                c, s = math.cos(t), math.sin(t)
                tx, ty = ux * c - uy * s, ux * s + uy * c
                cv2.circle(img, cv.fx(x + tx * (r + 7.5), y + ty * (r + 7.5)), cv.fr(2.4), paw, -1,
                           cv2.LINE_AA, SHIFT)
        _hole(img, cv, (x, y), r, look.board["hole_inner"], look)


def _text(img: np.ndarray, cv: Canvas, text: str, centre: tuple[float, float], width_mm: float, colour: BGR) -> None:
    font = cv2.FONT_HERSHEY_DUPLEX
    thick = max(1, int(1.6 * cv.px_per_mm))
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, thick)
    scale = width_mm * cv.px_per_mm / tw
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    u, v = cv.px(*centre)
    cv2.putText(img, text, (int(u - tw / 2), int(v + th / 2)), font, scale, colour, thick, cv2.LINE_AA)


def _discard(img: np.ndarray, cv: Canvas, geo: engine.BoardGeometry, look: SceneLook) -> None:
    (cx, cy), (w, h) = geo.discard_centre, geo.discard_size
    w, h = w + 8, h + 8
    colour = look.board["discard_line"]
    corners = [(cx - w / 2, cy - h / 2), (cx + w / 2, cy - h / 2), (cx + w / 2, cy + h / 2), (cx - w / 2, cy + h / 2)]
    t = max(1, int(1.0 * cv.px_per_mm))
    for a, b in zip(corners, corners[1:] + corners[:1]):
        length = math.dist(a, b)
        steps = int(length // 6)
        for k in range(0, steps, 2):
            p = (a[0] + (b[0] - a[0]) * k / steps, a[1] + (b[1] - a[1]) * k / steps)
            q = (a[0] + (b[0] - a[0]) * (k + 1) / steps, a[1] + (b[1] - a[1]) * (k + 1) / steps)
            cv2.line(img, cv.fx(*p), cv.fx(*q), colour, t, cv2.LINE_AA, SHIFT)
    _text(img, cv, "CARDS", (cx, cy), w * 0.6, mix(look.board["base"], colour, 0.5))


def _markers(img: np.ndarray, cv: Canvas, geo: engine.BoardGeometry) -> None:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    for mid, ((x, y), size) in geo.markers.items():
        # A white quiet zone of one cell around the marker, as a printed sticker would have.
        quiet = size * 1.4
        u0, v0 = cv.px(x - quiet / 2, y - quiet / 2)
        u1, v1 = cv.px(x + quiet / 2, y + quiet / 2)
        cv2.rectangle(img, (int(round(u0)), int(round(v0))), (int(round(u1)), int(round(v1))), (250, 250, 250), -1)
        side = int(round(size * cv.px_per_mm))
        marker = cv2.aruco.generateImageMarker(dictionary, mid, side, borderBits=1)
        u, v = cv.px(x, y)
        x0, y0 = int(round(u - (side - 1) / 2)), int(round(v - (side - 1) / 2))
        img[y0 : y0 + side, x0 : x0 + side] = marker[..., None]
