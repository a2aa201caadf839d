"""Small pre-drawn images (pieces, LED glow, card faces) pasted onto the board canvas each frame.

Sprites are drawn once at 4x and shrunk (clean anti-aliased edges), stored premultiplied
(colour * alpha, alpha) so that pasting is one multiply-add per pixel.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from hardware.simtable.look import BGR, CardFace

SS = 4  # supersampling factor for sprite drawing


@dataclass(frozen=True, eq=False)
class Sprite:
    premul: np.ndarray  # (h, w, 3) float32, colour * alpha
    alpha: np.ndarray  # (h, w, 1) float32
    anchor: tuple[float, float]  # pixel position (x, y) in the sprite of its logical centre

    @functools.cached_property
    def inverse(self) -> np.ndarray:
        return np.ascontiguousarray(1.0 - self.alpha, dtype=np.float32)


def paste(canvas: np.ndarray, sprite: Sprite, x: float, y: float) -> None:
    """Alpha-blend `sprite` onto `canvas` (uint8 BGR) with its anchor at canvas pixel (x, y)."""
    h, w = sprite.alpha.shape[:2]
    x0 = int(round(x - sprite.anchor[0]))
    y0 = int(round(y - sprite.anchor[1]))
    cx0, cy0 = max(x0, 0), max(y0, 0)
    cx1, cy1 = min(x0 + w, canvas.shape[1]), min(y0 + h, canvas.shape[0])
    if cx0 >= cx1 or cy0 >= cy1:
        return
    sx, sy = cx0 - x0, cy0 - y0
    roi = canvas[cy0:cy1, cx0:cx1]
    inv = sprite.inverse[sy : sy + (cy1 - cy0), sx : sx + (cx1 - cx0)]
    p = sprite.premul[sy : sy + (cy1 - cy0), sx : sx + (cx1 - cx0)]
    roi[:] = roi * inv + p


def _finish(colour_hi: np.ndarray, alpha_hi: np.ndarray, anchor_hi: tuple[float, float]) -> Sprite:
    h, w = alpha_hi.shape[:2]
    size = (w // SS, h // SS)
    prem = cv2.resize(colour_hi * alpha_hi[..., None], size, interpolation=cv2.INTER_AREA)
    alpha = cv2.resize(alpha_hi, size, interpolation=cv2.INTER_AREA)[..., None]
    return Sprite(
        premul=np.ascontiguousarray(prem, dtype=np.float32),
        alpha=np.ascontiguousarray(alpha, dtype=np.float32),
        anchor=((anchor_hi[0] + 0.5) / SS - 0.5, (anchor_hi[1] + 0.5) / SS - 0.5),
    )


def _luma(c: BGR) -> float:
    return 0.114 * c[0] + 0.587 * c[1] + 0.299 * c[2]


@functools.lru_cache(maxsize=256)
def piece_sprite(
    colour: BGR,
    radius_px: float,
    shadow: tuple[float, float, float],
    mark: str = "",
    mark_colour: BGR | None = None,
) -> Sprite:
    """A pawn seen from above: shaded body, round head, a soft shadow and an optional mark.

    shadow: (dx_px, dy_px, strength). mark: '', 'king', 'knight', 'citizen', 'fool', 'dog'.
    """
    dx, dy, strength = shadow
    r = radius_px * SS
    pad = int(math.ceil(max(abs(dx), abs(dy)) * SS + r * 0.3 + 2 * SS))
    size = int(2 * (r + pad)) // SS * SS + SS
    c = (size - 1) / 2
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    d = np.hypot(xx - c, yy - c)
    body_a = np.clip(r - d + 0.5, 0, 1)
    sd = np.hypot(xx - c - dx * SS, yy - c - dy * SS)
    shadow_a = np.clip((r * 1.05 - sd) / (r * 0.45) + 0.5, 0, 1) * strength
    # Light from the top left: brighter there, darker towards the bottom right rim.
    hx, hy = c - 0.35 * r, c - 0.35 * r
    hd = np.hypot(xx - hx, yy - hy) / (1.6 * r)
    shade = np.clip(1.18 - 0.45 * hd, 0.6, 1.2)
    head = np.clip(0.52 * r - d + 0.5, 0, 1)
    shade = shade * (1 + 0.08 * head)
    base = np.array(colour, dtype=np.float32)
    col = np.clip(base[None, None, :] * shade[..., None], 0, 255)
    # A dark base rim where the body meets the board.
    rim = np.clip(1 - np.abs(d - r * 0.93) / (0.07 * r), 0, 1)[..., None]
    col = col * (1 - 0.35 * rim)
    spec = np.clip(1 - np.hypot(xx - (c - 0.3 * r), yy - (c - 0.3 * r)) / (0.16 * r), 0, 1) ** 2
    col = col + (255 - col) * (0.55 * spec)[..., None]
    # Ring between body and head: a pawn's neck, seen from above.
    neck = np.clip(1 - np.abs(d - r * 0.56) / (0.05 * r), 0, 1)[..., None]
    col = col * (1 - 0.25 * neck)
    if mark:
        mc = mark_colour if mark_colour is not None else ((20, 20, 20) if _luma(colour) > 140 else (245, 245, 245))
        layer = np.zeros((size, size), np.uint8)
        _draw_mark(layer, mark, c, r)
        m = (layer.astype(np.float32) / 255)[..., None]
        col = col * (1 - m) + np.array(mc, np.float32) * m
    alpha = body_a + shadow_a * (1 - body_a)
    colour_hi = np.where(alpha[..., None] > 0, col * (body_a / np.maximum(alpha, 1e-6))[..., None], 0)
    return _finish(colour_hi.astype(np.float32), alpha.astype(np.float32), (c, c))


def _draw_mark(layer: np.ndarray, mark: str, c: float, r: float) -> None:
    sh = 4  # fixed-point bits for sub-pixel drawing

    def p(x: float, y: float) -> tuple[int, int]:
        return (int(round((c + x * r) * (1 << sh))), int(round((c + y * r) * (1 << sh))))

    lw = max(1, int(round(0.11 * r)))
    if mark == "king":
        pts = np.array([p(-0.42, 0.25), p(-0.42, -0.2), p(-0.21, 0.0), p(0, -0.32), p(0.21, 0.0),
                        p(0.42, -0.2), p(0.42, 0.25)], np.int32)
        cv2.fillPoly(layer, [pts], 255, cv2.LINE_AA, shift=sh)
    elif mark in ("knight", "citizen"):
        ys = (-0.14, 0.14) if mark == "knight" else (0.0,)
        for y in ys:
            cv2.line(layer, p(-0.36, y), p(0.36, y), 255, lw * 2, cv2.LINE_AA, shift=sh)
    elif mark == "fool":
        cv2.circle(layer, p(0, 0), int(0.25 * r * (1 << sh)), 255, lw * 2, cv2.LINE_AA, shift=sh)
    elif mark == "dog":
        cv2.circle(layer, p(0, 0), int(0.72 * r * (1 << sh)), 255, lw * 2, cv2.LINE_AA, shift=sh)
        cv2.circle(layer, p(0, 0), int(0.2 * r * (1 << sh)), 255, -1, cv2.LINE_AA, shift=sh)
    else:
        raise ValueError(f"unknown piece mark {mark!r}")


@functools.lru_cache(maxsize=16)
def glow_profile(ring_radius_px: float, width_px: float) -> tuple[np.ndarray, float]:
    """LED light around a field: a bright ring at the field's edge and a faint wide halo.

    Returns (profile (h, w) float32 peaking near 1, anchor)."""
    half = int(math.ceil(ring_radius_px + 3 * width_px))
    size = 2 * half + 1
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    d = np.hypot(xx - half, yy - half)
    ring = np.exp(-0.5 * ((d - ring_radius_px) / width_px) ** 2)
    halo = 0.35 * np.exp(-0.5 * ((d - ring_radius_px) / (1.6 * width_px)) ** 2)
    return (np.maximum(ring, halo) * (d > 0.55 * ring_radius_px)).astype(np.float32), float(half)


def glow_patch(profile: np.ndarray, bgr: tuple[float, float, float]) -> np.ndarray:
    """The light one LED ring adds (uint8), for one colour."""
    return np.clip(profile[..., None] * np.array(bgr, np.float32)[None, None, :], 0, 255).astype(np.uint8)


def add_glow(canvas: np.ndarray, patch: np.ndarray, anchor: float, x: float, y: float) -> None:
    h, w = patch.shape[:2]
    x0, y0 = int(round(x - anchor)), int(round(y - anchor))
    cx0, cy0 = max(x0, 0), max(y0, 0)
    cx1, cy1 = min(x0 + w, canvas.shape[1]), min(y0 + h, canvas.shape[0])
    if cx0 >= cx1 or cy0 >= cy1:
        return
    roi = canvas[cy0:cy1, cx0:cx1]
    cv2.add(roi, patch[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0], dst=roi)


@functools.lru_cache(maxsize=64)
def card_sprite(card_id: str, face: CardFace, px_per_mm: float, size_mm: tuple[float, float]) -> Sprite:
    """A card face, drawn so that each card type differs in colour, pattern and label."""
    w = int(round(size_mm[0] * px_per_mm)) * SS
    h = int(round(size_mm[1] * px_per_mm)) * SS
    mm = px_per_mm * SS
    img = np.full((h, w, 3), 250, np.uint8)
    border = int(3 * mm)
    inner = (border, border, w - border, h - border)
    colour = tuple(int(v) for v in face.colour)
    cv2.rectangle(img, inner[:2], (inner[2] - 1, inner[3] - 1), colour, -1)
    dark = _luma(face.colour) < 110
    ink = (250, 250, 250) if dark else (25, 25, 25)
    soft = tuple(int(v * 0.65 + (80 if dark else 255) * 0.35) for v in colour)
    x0, y0, x1, y1 = inner
    if face.pattern == "stripes":
        step = int(7 * mm)
        for k in range(-h, w + h, step):
            cv2.line(img, (x0 + k, y0), (x0 + k + (y1 - y0), y1), soft, int(2.2 * mm))
    elif face.pattern == "dots":
        step = int(9 * mm)
        for yy in range(y0 + step // 2, y1, step):
            for xx in range(x0 + step // 2, x1, step):
                cv2.circle(img, (xx, yy), int(1.8 * mm), soft, -1, cv2.LINE_AA)
    elif face.pattern == "ring":
        cv2.circle(img, (w // 2, h // 2), int(24 * mm), soft, int(4 * mm), cv2.LINE_AA)
    elif face.pattern == "diamond":
        pts = np.array([(w // 2, y0 + int(6 * mm)), (x1 - int(5 * mm), h // 2),
                        (w // 2, y1 - int(6 * mm)), (x0 + int(5 * mm), h // 2)], np.int32)
        cv2.fillPoly(img, [pts], soft, cv2.LINE_AA)
    elif face.pattern == "band":
        cv2.rectangle(img, (x0, h // 2 - int(14 * mm)), (x1, h // 2 + int(14 * mm)), soft, -1)
    if card_id.startswith("black-"):
        # Black cards carry a white paw band so that they differ from the blue numbers.
        cv2.rectangle(img, (x0, y1 - int(14 * mm)), (x1, y1 - int(9 * mm)), (235, 235, 235), -1)
    font = cv2.FONT_HERSHEY_DUPLEX
    thick = max(1, int(2.2 * mm))
    (tw, th), _ = cv2.getTextSize(face.label, font, 1.0, thick)
    scale = min((w - 2 * border - 6 * mm) / tw, (30 * mm) / th)
    (tw, th), _ = cv2.getTextSize(face.label, font, scale, thick)
    cv2.putText(img, face.label, ((w - tw) // 2, (h + th) // 2), font, scale, ink, thick, cv2.LINE_AA)
    small = max(1, int(0.8 * mm))
    cs = min(0.3 * mm, (w * 0.3) / max(1, cv2.getTextSize(face.label, font, 1.0, small)[0][0]))
    cv2.putText(img, face.label, (x0 + int(2 * mm), y0 + int(9 * mm)), font, cs, ink, small, cv2.LINE_AA)
    # Rounded corners.
    alpha = np.zeros((h, w), np.uint8)
    rad = int(4 * mm)
    cv2.rectangle(alpha, (rad, 0), (w - rad - 1, h - 1), 255, -1)
    cv2.rectangle(alpha, (0, rad), (w - 1, h - rad - 1), 255, -1)
    for cx, cy in ((rad, rad), (w - rad - 1, rad), (rad, h - rad - 1), (w - rad - 1, h - rad - 1)):
        cv2.circle(alpha, (cx, cy), rad, 255, -1, cv2.LINE_AA)
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), (200, 200, 200), int(0.5 * mm))
    return _finish(img.astype(np.float32), alpha.astype(np.float32) / 255, ((w - 1) / 2, (h - 1) / 2))


def paste_rotated(canvas: np.ndarray, sprite: Sprite, x: float, y: float, angle_deg: float) -> None:
    """Paste a sprite turned by angle_deg (clockwise on screen) about its anchor."""
    if abs(angle_deg) < 1e-3:
        paste(canvas, sprite, x, y)
        return
    h, w = sprite.alpha.shape[:2]
    half = int(math.ceil(math.hypot(w, h) / 2)) + 1
    size = 2 * half + 1
    m = cv2.getRotationMatrix2D(sprite.anchor, -angle_deg, 1.0)
    m[0, 2] += half - sprite.anchor[0]
    m[1, 2] += half - sprite.anchor[1]
    prem = cv2.warpAffine(sprite.premul, m, (size, size), flags=cv2.INTER_LINEAR)
    alpha = cv2.warpAffine(sprite.alpha[..., 0], m, (size, size), flags=cv2.INTER_LINEAR)[..., None]
    paste(canvas, Sprite(prem, alpha, (float(half), float(half))), x, y)
