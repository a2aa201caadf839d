"""A second photo-like scene, written apart from scripts/photo_scene.py and hardware/simtable.

An evening at a real table: to test vision against pictures it was not tuned on, every
picture element is drawn differently from the first photo scene:

- the board: painted plywood with brush strokes; drilled holes (a shaded wall, a dark
  floor) instead of printed circles; each seat's kennel and home holes drilled through a
  painted patch of the seat's colour (an empty hole there is seat-coloured and darker);
- the light: one warm bulb (a black-body colour temperature, 2400-3200 K) as an area light
  with cos^3 fall-off, soft shadows, the lens's cos^4 vignetting; optional daylight left;
- pieces: turned wooden pegs (cylinder and ball), matte paint with a faint sheen, drawn as
  a stack of projected discs, so that they lean with the camera's tilt;
- the camera: a division-model lens distortion, defocus as a pillbox (lens) kernel and a
  little motion blur, a Bayer mosaic with Poisson-Gaussian noise per photosite at the
  sensor's analogue gain, demosaicked (chroma noise in blotches), the camera's own
  denoise and sharpening, a filmic tone curve, JPEG 4:2:0;
- cards: white stock, a coloured frame, the index in two corners (one turned), a big
  symbol; on a pile of earlier cards, turned up to +-25 deg, shifted, bent (shading
  across the bend), a shadow band, a glossy highlight, fingers at the edge. A card photo is
  rendered as a crop of the discard zone only, at the picture's scale or a higher one
  (the full-resolution crop a Pi camera can take while the board runs at 720p).

Deterministic: the same setup, seed and frame index give the same bytes. Seeds used while
tuning are 1-3; seeds 101 and above are the held-out ones (see bench_vision_photo --evening).

    .venv/bin/python scripts/photo_scene_evening.py --out evening-pictures   # sample pictures
    .venv/bin/python scripts/photo_scene_evening.py --docs docs/img      # docs/vision.md's light pictures

One file on purpose: written apart from what it checks, it shares none of its code.
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

import engine

PAINT = {  # matte paint, linear RGB reflectance, chosen here
    "red": (0.50, 0.045, 0.035), "blue": (0.035, 0.09, 0.42), "green": (0.05, 0.28, 0.07),
    "yellow": (0.72, 0.48, 0.03), "white": (0.80, 0.79, 0.74), "black": (0.025, 0.025, 0.03),
    "orange": (0.75, 0.22, 0.03), "purple": (0.18, 0.04, 0.28),
}
PLY = (0.52, 0.40, 0.26)  # pale plywood
TABLE = (0.10, 0.065, 0.045)
PEG_R, PEG_H, PEG_BALL = 7.0, 15.0, 5.6  # body radius, body height, head radius (mm)
HOLE_R = 8.2  # the drilled hole's radius; the engine's field radius is the painted ring


@dataclass(frozen=True)
class Evening:
    """One table in the evening. Every number is fixed before measuring."""

    name: str
    segments: int = 4
    board: str = "standard"
    resolution: tuple[int, int] = (1280, 720)
    tilt_deg: float = 12.0
    kelvin: float = 2800.0  # the bulb's colour temperature
    ev: float = -0.7  # exposure below a well-lit picture
    gain: float = 4.0  # analogue gain: noise grows with it
    bulb: tuple[float, float] = (0.35, -0.2)  # bulb position over the board, fraction of its size
    bulb_height: float = 0.8  # of the board's size
    daylight: float = 0.0  # a dim window's share of the light
    defocus_px: float = 1.4  # pillbox radius
    motion_px: float = 0.6
    jpeg: int = 70
    lens_k: float = -0.08  # division-model coefficient
    wb_error: float = 0.08  # auto white balance misses the bulb's colour by this much
    patch: float = 0.55  # the seat's colour's share in its kennel and home patch's paint (the rest plywood)


EVENINGS: tuple[Evening, ...] = (
    Evening("eve-bulb-4seg"),
    Evening("eve-dark-gain8", ev=-1.0, gain=8.0, kelvin=2500.0, defocus_px=1.8, jpeg=62),
    Evening("eve-half-ev", ev=-0.5, gain=3.0, kelvin=3100.0, tilt_deg=20.0, bulb=(-0.4, 0.3)),
    Evening("eve-window-dusk", ev=-0.8, gain=5.0, daylight=0.3, tilt_deg=8.0, bulb=(0.1, 0.45)),
    Evening("eve-6seg", segments=6, ev=-0.7, gain=4.0, tilt_deg=14.0),
    Evening("eve-1080p", resolution=(1920, 1080), ev=-0.8, gain=6.0, defocus_px=2.2, tilt_deg=16.0),
    # kennel and home patches painted nearly as deep as the pieces: there only the hole's shade and
    # the peg's sheen tell an empty hole from a piece of the seat's own colour
    Evening("eve-deep-patch", ev=-0.7, gain=6.0, patch=0.8, defocus_px=1.6, kelvin=2600.0),
    Evening("eve-deep-dark", ev=-1.0, gain=8.0, patch=0.8, defocus_px=1.8, kelvin=2500.0, jpeg=62, tilt_deg=18.0),
)


def evening_named(name: str) -> Evening:
    for e in EVENINGS:
        if e.name == name:
            return e
    raise KeyError(name)


def bulb_rgb(kelvin: float) -> np.ndarray:
    """A black body's colour at `kelvin`, linear RGB, green 1 (Planck's law at 610, 550, 465 nm)."""
    lam = np.array([610e-9, 550e-9, 465e-9])
    c2 = 1.4388e-2
    b = 1 / (lam ** 5 * (np.exp(c2 / (lam * kelvin)) - 1))
    return (b / b[1]).astype(np.float32)


@dataclass(frozen=True)
class CardOnPile:
    """A card lying on the discard zone: where, how turned, and what lies under it."""

    card: str
    angle_deg: float = 0.0  # +-25; plus 180 for upside down
    shift_mm: tuple[float, float] = (0.0, 0.0)
    bend: float = 0.0  # 0-1: how much the card bows (shading across it)
    under: tuple[tuple[str, float, float, float], ...] = ()  # earlier cards: (card, angle, dx, dy)
    shadow_band: float = 0.0  # 0-1 depth of a soft shadow band across the zone
    highlight: float = 0.0  # a glossy reflection's strength
    fingers: bool = False  # a hand's fingers at the zone's edge


def _noise(rng: np.random.Generator, shape: tuple[int, int], cell: float) -> np.ndarray:
    gh, gw = max(2, int(shape[0] / cell) + 2), max(2, int(shape[1] / cell) + 2)
    g = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(g, (shape[1], shape[0]), interpolation=cv2.INTER_LINEAR)


def _bgr(rgb) -> tuple[float, float, float]:
    return (float(rgb[2]), float(rgb[1]), float(rgb[0]))


CARD_MM = (63.0, 88.0)
CARD_PPM = 8.0  # card art resolution, px per mm


@functools.lru_cache(maxsize=64)
def card_art(card: str) -> np.ndarray:
    """The card's face, linear BGR reflectance, CARD_PPM px per mm, drawn here (not the simulated table's)."""
    w, h = int(CARD_MM[0] * CARD_PPM), int(CARD_MM[1] * CARD_PPM)

    def c8(rgb) -> tuple[int, int, int]:  # linear reflectance -> the 8-bit canvas (linear too)
        return tuple(int(round(255 * v)) for v in _bgr(rgb))  # type: ignore[return-value]

    img = np.empty((h, w, 3), np.uint8)
    img[:] = c8((0.83, 0.82, 0.80))  # card stock
    special = card in ("swap", "joker", "magnet", "copy", "partner", "1-7", "black-1-7", "black-5", "black-6")
    frame = (0.30, 0.10, 0.04) if not special else ((0.05, 0.05, 0.06) if card.startswith("black") else (0.04, 0.18, 0.35))
    m = int(3.5 * CARD_PPM)
    cv2.rectangle(img, (m, m), (w - m, h - m), c8(frame), int(1.6 * CARD_PPM))
    label = {"1/11": "1|11", "black-1-7": "B1-7", "black-5": "B5", "black-6": "B6", "magnet": "MAG",
             "partner": "PRT", "joker": "JKR", "swap": "SWP", "copy": "CPY"}.get(card, card)
    font = cv2.FONT_HERSHEY_SIMPLEX
    ink = c8(frame)
    # the big symbol: the label large in the middle, on a shape
    shape_i = sum(map(ord, card)) % 3
    cx, cy = w // 2, h // 2
    pale = c8(tuple(0.45 * v + 0.55 * 0.8 for v in frame))
    u = CARD_PPM
    if shape_i == 0:
        cv2.circle(img, (cx, cy), int(22 * u), pale, -1, cv2.LINE_AA)
    elif shape_i == 1:
        pts = np.array([(cx, cy - 26 * u), (cx + 22 * u, cy), (cx, cy + 26 * u), (cx - 22 * u, cy)], np.int32)
        cv2.fillPoly(img, [pts], pale, cv2.LINE_AA)
    else:
        cv2.rectangle(img, (int(cx - 20 * u), int(cy - 20 * u)), (int(cx + 20 * u), int(cy + 20 * u)), pale, -1)
    thick = int(2.6 * u)
    (tw, th), _ = cv2.getTextSize(label, font, 1.0, thick)
    scale = min(34 * u / tw, 26 * u / th)
    (tw, th), _ = cv2.getTextSize(label, font, scale, thick)
    cv2.putText(img, label, (cx - tw // 2, cy + th // 2), font, scale, ink, thick, cv2.LINE_AA)
    # the corner index, top-left, and the same turned in the bottom-right corner
    corner = np.empty((int(14 * u), int(16 * u), 3), np.uint8)
    corner[:] = c8((0.83, 0.82, 0.80))
    ct = int(1.3 * u)
    (tw, th), _ = cv2.getTextSize(label, font, 1.0, ct)
    cs = min(14 * u / tw, 9 * u / th)
    (tw, th), _ = cv2.getTextSize(label, font, cs, ct)
    cv2.putText(corner, label, ((corner.shape[1] - tw) // 2, (corner.shape[0] + th) // 2), font, cs, ink, ct, cv2.LINE_AA)
    y0, x0 = int(5.5 * u), int(5.5 * u)
    img[y0:y0 + corner.shape[0], x0:x0 + corner.shape[1]] = corner
    img[h - y0 - corner.shape[0]:h - y0, w - x0 - corner.shape[1]:w - x0] = corner[::-1, ::-1]
    return cv2.GaussianBlur(img.astype(np.float32) / 255, (0, 0), 0.4 * u)


class EveningScene:
    """Renders positions and card piles of one `Evening` as a small camera would photograph them."""

    def __init__(self, setup: Evening, seed: int = 1) -> None:
        self.setup = setup
        self.seed = seed
        self.geo = engine.load_geometry(setup.segments)
        self.board = engine.load_board(setup.board, setup.segments)
        self.w, self.h = setup.resolution
        self.size = max(self.geo.size)
        self._camera()
        self.ppm = max(2.0, round(2.0 * self.image_ppm, 2))
        self.half = self.size / 2 + 70.0
        self.n = int(2 * self.half * self.ppm)
        self._print = _plywood(setup.segments, setup.board, seed, self.ppm, self.half, setup.patch)
        self._irr = self._irradiance()

    # --- camera ---------------------------------------------------------------------------
    def _camera(self) -> None:
        s = self.setup
        t = math.radians(s.tilt_deg)
        dist = 1.5 * self.size
        c = np.array([0.0, -dist * math.sin(t), -dist * math.cos(t)])  # tilted towards the top seat this time
        f = -c / np.linalg.norm(c)
        x = np.array([1.0, 0.0, 0.0])
        y = np.cross(f, x)
        self.R = np.stack([x, y, f])
        self.C = c
        self.t = -self.R @ c
        hs = self.geo.size[0] / 2 + 20
        corners = np.array([[-hs, -hs, 0], [hs, -hs, 0], [hs, hs, 0], [-hs, hs, 0]], float) @ self.R.T + self.t
        ny = np.abs(corners[:, 1] / corners[:, 2]).max()
        nx = np.abs(corners[:, 0] / corners[:, 2]).max()
        self.focal = min(0.47 * self.h / ny, 0.47 * self.w / nx)
        self.image_ppm = self.focal / dist

    def project(self, pts: np.ndarray, scale: float = 1.0) -> np.ndarray:
        """World mm (n, 3) -> picture pixels (with the lens's distortion), at `scale` times the resolution."""
        cam = np.asarray(pts, float) @ self.R.T + self.t
        x, y = cam[:, 0] / cam[:, 2], cam[:, 1] / cam[:, 2]
        r2 = (x * x + y * y) * (self.focal / (0.5 * self.w)) ** 2
        d = 1 / (1 - self.setup.lens_k * r2)  # division model, applied forwards
        return np.stack([(self.focal * x * d + self.w / 2) * scale, (self.focal * y * d + self.h / 2) * scale], axis=1)

    def _board_map(self, scale: float, box: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
        """For every pixel of `box` (x0, y0, w, h) of the picture at `scale`: board print coordinates."""
        x0, y0, bw, bh = box
        # invert the projection on a coarse grid (division model + homography), then interpolate
        step = 8
        gy, gx = np.mgrid[0:bh + step:step, 0:bw + step:step].astype(np.float64)
        u = (gx + x0 + 0.5) / scale - self.w / 2
        v = (gy + y0 + 0.5) / scale - self.h / 2
        xd, yd = u / self.focal, v / self.focal
        # division model inverse: the undistorted point is the distorted one times d
        r2 = (xd * xd + yd * yd) * (self.focal / (0.5 * self.w)) ** 2
        k = self.setup.lens_k
        d = np.ones_like(r2)
        for _ in range(5):  # fixed point: xd = x * d(x), d = 1 / (1 - k r2(x))
            d = 1 / (1 - k * r2 / (d * d))
        x, y = xd / d, yd / d
        # ray from the camera through (x, y) meets the board plane z = 0
        ray = np.stack([x, y, np.ones_like(x)], axis=-1) @ self.R  # world direction
        s = -self.C[2] / ray[..., 2]
        wx, wy = self.C[0] + s * ray[..., 0], self.C[1] + s * ray[..., 1]
        mx = ((wx + self.half) * self.ppm - 0.5).astype(np.float32)
        my = ((wy + self.half) * self.ppm - 0.5).astype(np.float32)
        return _upsample(mx, step, bw, bh), _upsample(my, step, bw, bh)

    def _vignette(self, scale: float, box: tuple[int, int, int, int]) -> np.ndarray:
        """(h, w) the lens's cos^4 fall-off over `box` of the picture at `scale`."""
        x0, y0, bw, bh = box
        xs = (np.arange(bw, dtype=np.float32) + x0 + 0.5) / scale - self.w / 2
        ys = (np.arange(bh, dtype=np.float32) + y0 + 0.5) / scale - self.h / 2
        r2 = (xs[None, :] ** 2 + ys[:, None] ** 2) / self.focal ** 2
        return 1 / (1 + r2) ** 2

    # --- light ----------------------------------------------------------------------------
    def _bulb_pos(self) -> np.ndarray:
        s = self.setup
        return np.array([s.bulb[0] * self.size, s.bulb[1] * self.size, -s.bulb_height * self.size])

    def _irradiance(self) -> np.ndarray:
        """(n, n, 3) light on the board plane, linear BGR, before shadows: the bulb and a little daylight."""
        s = self.setup
        n = self.n
        ys, xs = np.mgrid[0:n:16, 0:n:16].astype(np.float32)
        wx, wy = xs / self.ppm - self.half, ys / self.ppm - self.half
        b = self._bulb_pos()
        dx, dy, dz = b[0] - wx, b[1] - wy, -b[2]
        r = np.sqrt(dx * dx + dy * dy + dz * dz)
        cos = dz / r
        e = cos ** 3 * 1.6  # a bulb over the board: cos^3 fall-off (inverse square and the slant)
        day = s.daylight * (0.6 + 0.4 * (wx / self.size + 0.5))
        small = np.stack([e, e, e], axis=-1) * bulb_rgb(s.kelvin)[::-1] + day[..., None] * np.array([1.0, 0.95, 0.85])
        small = small.astype(np.float32) + 0.06  # the room's bounce light
        return cv2.resize(small, (n, n), interpolation=cv2.INTER_LINEAR)

    def _shadow_dir(self, p: np.ndarray) -> np.ndarray:
        """Where on the board a point above `p` at unit height casts its shadow (mm per mm of height)."""
        b = self._bulb_pos()
        return (p[:2] - b[:2]) / -b[2]

    # --- rendering ------------------------------------------------------------------------
    def _pieces(self, position: engine.Position) -> list[tuple[str, str]]:
        out = []
        for seat, locs in enumerate(position.pieces):
            if locs is None:
                continue
            k = 0
            for loc in locs:
                if loc < engine.HOME:
                    fid = f"T{loc}"
                elif loc < engine.KENNEL:
                    fid = f"S{seat}H{loc - engine.HOME}"
                else:
                    fid = f"S{seat}K{k}"
                    k += 1
                out.append((fid, self.board.colours[seat]))
        if position.black_dog is not None:
            out.append((f"T{position.black_dog}", "dog"))
        return out

    def render(self, position: engine.Position, frame_index: int = 0) -> np.ndarray:
        """The whole picture of a board position."""
        s = self.setup
        rng = np.random.default_rng([self.seed, frame_index, 3])
        pieces = self._pieces(position)
        shadow = np.zeros((self.n, self.n), np.float32)
        for fid, _ in pieces:
            c = np.array(self.geo.centres[fid])
            d = self._shadow_dir(c) * (PEG_H + PEG_BALL)
            a = tuple(int(v) for v in ((c + self.half) * self.ppm))
            b = tuple(int(v) for v in ((c + d + self.half) * self.ppm))
            cv2.line(shadow, a, b, 1.0, int(2 * PEG_R * self.ppm))
        soft = 2.5 * self.ppm  # an area light: soft shadows
        shadow = cv2.GaussianBlur(shadow, (0, 0), soft)
        rad = self._print * (self._irr * (1 - 0.75 * shadow[..., None]))
        mx, my = self._board_map(1.0, (0, 0, self.w, self.h))
        img = cv2.remap(rad, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0.01, 0.01, 0.01))
        img *= self._vignette(1.0, (0, 0, self.w, self.h))[..., None]
        # pegs, far ones first
        order = sorted(pieces, key=lambda p: -np.linalg.norm(np.r_[self.geo.centres[p[0]], 0.0] - self.C))
        jit = rng.normal(0, 0.4, (len(order), 2))
        for (fid, colour), j in zip(order, jit):
            self._peg(img, np.array(self.geo.centres[fid]) + j, colour)
        return self._sensor(img, rng, 1.0, level=self._level())

    def _peg(self, img: np.ndarray, c: np.ndarray, colour: str) -> None:
        paint = np.array(PAINT["black" if colour == "dog" else colour], np.float32)[::-1]
        light = self._irr[int((c[1] + self.half) * self.ppm), int((c[0] + self.half) * self.ppm)]
        b = self._bulb_pos()
        side = b[:2] - c
        side /= np.linalg.norm(side) + 1e-9
        scale = 1.2 if colour == "dog" else 1.0
        steps = [(z, PEG_R * scale) for z in np.linspace(0, PEG_H * scale, 8)]
        steps += [(PEG_H * scale + PEG_BALL * scale * (1 - math.cos(a)), PEG_BALL * scale * math.sin(a) + 0.8)
                  for a in np.linspace(0.5, 3.0, 7)]
        for z, r in steps:
            ring = np.array([[c[0] + r * math.cos(a), c[1] + r * math.sin(a), -z] for a in np.linspace(0, 2 * math.pi, 24)])
            px = self.project(ring)
            lit_side = np.array([[c[0] + r * side[0] * 0.5, c[1] + r * side[1] * 0.5, -z]])
            shade = 0.55 + 0.45 * (z / (PEG_H + PEG_BALL * 2))
            col = paint * light * shade
            cv2.fillPoly(img, [np.round(px * 4).astype(np.int32)], tuple(map(float, col)), cv2.LINE_AA, 2)
            hi = self.project(lit_side)[0]
            cv2.circle(img, (int(hi[0] * 4), int(hi[1] * 4)), int(r * self.image_ppm * 0.35 * 4),
                       tuple(map(float, np.minimum(col * 1.25 + 0.03 * light, 1.0))), -1, cv2.LINE_AA, 2)

    def _sensor(self, lin: np.ndarray, rng: np.random.Generator, scale: float, level: float | None = None) -> np.ndarray:
        """Lens blur, Bayer mosaic with gain noise, demosaic, denoise, sharpen, tone curve, JPEG.
        `level`: the radiance auto exposure settles on (default: this picture's median)."""
        s = self.setup
        r = s.defocus_px * scale
        if r > 0.3:
            k = np.zeros((int(2 * r) * 2 + 3,) * 2, np.float32)
            cv2.circle(k, (k.shape[1] // 2, k.shape[0] // 2), max(1, int(round(r * 2))), 1.0, -1, cv2.LINE_AA, 1)
            lin = cv2.filter2D(lin, -1, k / k.sum())
        if s.motion_px > 0:
            m = max(1, int(round(s.motion_px * scale * 2)))
            k = np.zeros((m * 2 + 1, m * 2 + 1), np.float32)
            cv2.line(k, (0, m), (2 * m, m), 1.0, 1)
            lin = cv2.filter2D(lin, -1, k / k.sum())
        # auto exposure: aims at a mid-grey board, falls short by `ev`; white balance misses the bulb
        gain = 2.0 ** s.ev * 0.3 / max(float(np.median(lin)) if level is None else level, 1e-3)
        wb = 1 / bulb_rgb(s.kelvin)[::-1] ** (1 - s.wb_error)
        x = lin * gain
        h, w = x.shape[:2]
        mosaic = np.empty((h, w), np.float32)  # RGGB at even rows/cols (BGR channels 2, 1, 0)
        mosaic[0::2, 0::2] = x[0::2, 0::2, 2]
        mosaic[0::2, 1::2] = x[0::2, 1::2, 1]
        mosaic[1::2, 0::2] = x[1::2, 0::2, 1]
        mosaic[1::2, 1::2] = x[1::2, 1::2, 0]
        # photosites: full well of ~4000 electrons at gain 1; the gain divides it
        well = 4000.0 / s.gain
        e = rng.poisson(np.clip(mosaic, 0, 1.2) * well).astype(np.float32) / well
        e += rng.normal(0, 2.5 / 1023 * s.gain ** 0.5, e.shape).astype(np.float32)
        raw = np.clip(e * 1023, 0, 1023).astype(np.uint16)
        bgr = cv2.cvtColor(raw, cv2.COLOR_BayerBG2BGR).astype(np.float32) / 1023  # OpenCV's name for RGGB
        bgr *= wb[None, None, :].astype(np.float32) / wb[1]
        # the camera's own processing: chroma denoise, luma sharpen
        ycc = cv2.cvtColor(np.clip(bgr, 0, 1), cv2.COLOR_BGR2YCrCb)
        ycc[..., 1:] = cv2.GaussianBlur(ycc[..., 1:], (0, 0), 1.5 * scale)
        y = ycc[..., 0]
        ycc[..., 0] = y + 0.5 * (y - cv2.GaussianBlur(y, (0, 0), 1.2 * scale))
        bgr = cv2.cvtColor(ycc, cv2.COLOR_YCrCb2BGR)
        tone = np.clip(bgr, 0, 1)
        tone = tone ** (1 / 2.2)
        tone = tone * tone * (3 - 2 * tone) * 0.35 + tone * 0.65  # a gentle S-curve
        out = (np.clip(tone, 0, 1) * 255 + 0.5).astype(np.uint8)
        if s.jpeg:
            ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(s.jpeg)])
            assert ok
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        return out

    # --- cards -----------------------------------------------------------------------------
    def zone_box(self, scale: float, margin_mm: float = 30.0) -> tuple[int, int, int, int]:
        """(x0, y0, w, h): the discard zone and `margin_mm` around it in the picture at `scale`."""
        (cx, cy), (dw, dh) = self.geo.discard_centre, self.geo.discard_size
        hw, hh = dw / 2 + margin_mm, dh / 2 + margin_mm
        pts = self.project(np.array([[cx - hw, cy - hh, 0], [cx + hw, cy - hh, 0], [cx + hw, cy + hh, 0],
                                     [cx - hw, cy + hh, 0]]), scale)
        x0, y0 = np.floor(pts.min(axis=0)).astype(int)
        x1, y1 = np.ceil(pts.max(axis=0)).astype(int)
        return int(x0), int(y0), int(x1 - x0), int(y1 - y0)

    def render_cards(self, pile: CardOnPile | None, frame_index: int = 0, scale: float = 1.0,
                     box: tuple[int, int, int, int] | None = None) -> np.ndarray:
        """A crop `box` (default `zone_box(scale)`) of the picture at `scale` times the resolution,
        with `pile` on the discard zone (None: the empty zone). The board's pieces are left out."""
        rng = np.random.default_rng([self.seed, frame_index, 5])
        box = box or self.zone_box(scale)
        ppm = self.ppm
        cx, cy = self.geo.discard_centre
        # the cards go onto a local copy of the print around the zone
        half_mm = 90.0
        x0 = int((cx - half_mm + self.half) * ppm)
        y0 = int((cy - half_mm + self.half) * ppm)
        n = int(2 * half_mm * ppm)
        local = self._print[y0:y0 + n, x0:x0 + n].copy()
        irr = self._irr[y0:y0 + n, x0:x0 + n].copy()
        shade = np.ones((n, n), np.float32)
        if pile is not None:
            for k, (card, ang, dx, dy) in enumerate(pile.under):
                self._lay(local, shade, card, ang, (cx + dx, cy + dy), (cx, cy, x0, y0), 0.0, rng, lift=0.4 * (k + 1))
            top_ang = pile.angle_deg
            self._lay(local, shade, pile.card, top_ang, (cx + pile.shift_mm[0], cy + pile.shift_mm[1]),
                      (cx, cy, x0, y0), pile.bend, rng, lift=0.4 * (len(pile.under) + 1))
            if pile.shadow_band > 0:
                yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
                a = rng.uniform(0, math.pi)
                off = (xx - n / 2) * math.cos(a) + (yy - n / 2) * math.sin(a) - rng.uniform(-20, 20) * ppm
                band = np.clip(1 - np.abs(off) / (9 * ppm), 0, 1)
                band = cv2.GaussianBlur(band, (0, 0), 3 * ppm)
                shade *= 1 - pile.shadow_band * band
            if pile.fingers:
                yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
                sk = np.array([0.45, 0.55, 0.75], np.float32) * rng.uniform(0.5, 1.0)
                fx = n * rng.uniform(0.2, 0.8)
                for f in range(3):
                    m = ((xx - fx - f * 7 * ppm) ** 2 / (3.2 * ppm) ** 2 + (yy - n) ** 2 / (22 * ppm) ** 2) < 1
                    local[m] = sk
        rad = local * irr * shade[..., None]
        if pile is not None and pile.highlight > 0:
            yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
            hx, hy = rng.uniform(0.3, 0.7, 2) * n
            g = np.exp(-((xx - hx) ** 2 + (yy - hy) ** 2) / (2 * (10 * ppm) ** 2))
            rad = rad + (pile.highlight * g)[..., None] * irr
        mx, my = self._board_map(scale, box)
        img = cv2.remap(rad, mx - x0, my - y0, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        img *= self._vignette(scale, box)[..., None]
        # exposure is set by the whole picture: the crop keeps the board's level
        return self._sensor(img, rng, scale, level=self._level())

    def _level(self) -> float:
        """The whole picture's median radiance, on which auto exposure settles."""
        return float(np.median(self._print[::8, ::8] * self._irr[::8, ::8]))

    def _lay(self, local: np.ndarray, shade: np.ndarray, card: str, angle: float, centre_mm: tuple[float, float],
             frame: tuple[float, float, int, int], bend: float, rng: np.random.Generator, lift: float) -> None:
        """Paste a card's art onto the local print (turned, shifted, bent), with its soft shadow."""
        _, _, x0, y0 = frame
        ppm = self.ppm
        art = card_art(card)
        ah, aw = art.shape[:2]
        k = ppm / CARD_PPM
        a = math.radians(angle)
        cxp = (centre_mm[0] + self.half) * ppm - x0
        cyp = (centre_mm[1] + self.half) * ppm - y0
        M = np.array([[k * math.cos(a), -k * math.sin(a), 0], [k * math.sin(a), k * math.cos(a), 0]], np.float64)
        M[:, 2] = [cxp, cyp] - M[:, :2] @ np.array([aw / 2, ah / 2])
        n = local.shape[0]
        # a bent card: its middle bows up a little, its outline curves by a fraction of a mm
        if bend > 0:
            yy, xx = np.mgrid[0:ah, 0:aw].astype(np.float32)
            u = (xx / aw - 0.5) * 2
            mapx = xx
            mapy = yy + bend * 0.6 * CARD_PPM * (1 - u * u)
            art = cv2.remap(art, mapx, mapy.astype(np.float32), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            lightness = 1 + bend * 0.25 * u * (1 if rng.random() < 0.5 else -1)
            art = art * lightness[..., None]
        warped = cv2.warpAffine(art, M, (n, n), flags=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR)
        mask = cv2.warpAffine(np.ones((ah, aw), np.float32), M, (n, n), flags=cv2.INTER_LINEAR)
        # its shadow: the card lies lifted a little by the cards beneath
        off = self._shadow_dir(np.array(centre_mm)) * (0.6 + lift) * ppm
        Ms = M.copy()
        Ms[:, 2] += off
        sh = cv2.warpAffine(np.ones((ah, aw), np.float32), Ms, (n, n), flags=cv2.INTER_LINEAR)
        shade *= 1 - 0.45 * cv2.GaussianBlur(sh * (1 - mask), (0, 0), 1.2 * ppm)
        local *= 1 - mask[..., None]
        local += warped * mask[..., None]


def _upsample(coarse: np.ndarray, step: int, w: int, h: int) -> np.ndarray:
    """A map sampled every `step` pixels (grid point i at pixel i * step) -> one value per pixel (h, w)."""
    ys = np.arange(h, dtype=np.float32) / step
    xs = np.arange(w, dtype=np.float32) / step
    mx, my = np.meshgrid(xs, ys)
    return cv2.remap(coarse, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


@functools.lru_cache(maxsize=6)
def _plywood(segments: int, board_kind: str, seed: int, ppm: float, half: float, patch: float) -> np.ndarray:
    """The painted plywood board with drilled holes and its table, linear BGR reflectance."""
    geo = engine.load_geometry(segments)
    board = engine.load_board(board_kind, segments)
    rng = np.random.default_rng([seed, 41, segments])
    n = int(2 * half * ppm)
    img = np.empty((n, n, 3), np.float32)
    img[:] = _bgr(TABLE)
    hw = geo.size[0] / 2

    def P(x: float, y: float) -> tuple[int, int]:
        return int(round((x + half) * ppm * 4)), int(round((y + half) * ppm * 4))

    def R(r: float) -> int:  # a radius, with the 2 fractional bits of P
        return int(round(r * ppm * 4))

    def T(mm: float) -> int:  # a line's thickness: whole pixels (OpenCV does not shift it)
        return max(1, int(round(mm * ppm)))

    a, b = P(-hw, -hw), P(hw, hw)
    x0, y0, x1, y1 = a[0] // 4, a[1] // 4, b[0] // 4, b[1] // 4
    # brush strokes: noise stretched along x
    strokes = _noise(rng, (y1 - y0, (x1 - x0) // 8 + 2), 1.2 * ppm)
    strokes = cv2.resize(strokes, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
    blotch = _noise(rng, (y1 - y0, x1 - x0), 40 * ppm)
    tex = 1 + 0.035 * strokes / (strokes.std() + 1e-6) + 0.04 * blotch / (blotch.std() + 1e-6)
    img[y0:y1, x0:x1] = np.array(_bgr(PLY), np.float32) * tex[..., None]
    # the track: a thin burnt line
    track = [f"T{i}" for i in range(board.track_length)]
    for p, q in zip(track, track[1:] + track[:1]):
        cv2.line(img, P(*geo.centres[p]), P(*geo.centres[q]), _bgr((0.30, 0.21, 0.13)), T(1.2), cv2.LINE_AA, 2)
    # each seat's painted patch under its kennel and home holes, and its start field's ring
    r = geo.field_radius
    for seat, colour in enumerate(board.colours):
        # a paler shade of the seat's colour than its pieces' (real boards paint it so)
        paint = _bgr(tuple(patch * c + (1 - patch) * p for c, p in zip(PAINT[colour], PLY)))
        for prefix in ("K", "H"):
            fids = [f for f in geo.centres if f.startswith(f"S{seat}{prefix}")]
            for f in fids:
                cv2.circle(img, P(*geo.centres[f]), R(r + 3.0), paint, -1, cv2.LINE_AA, 2)
            for f, g in zip(fids, fids[1:]):
                cv2.line(img, P(*geo.centres[f]), P(*geo.centres[g]), paint, T(2 * r + 4.0), cv2.LINE_AA, 2)
        start = f"T{board.start_fields[seat]}"
        cv2.circle(img, P(*geo.centres[start]), R(r + 3.0), paint, T(2.4), cv2.LINE_AA, 2)
    # the holes: a shaded wall (lighter on the far side from the bulb is not modelled: an even ring)
    for fid, (x, y) in geo.centres.items():
        cv2.circle(img, P(x, y), R(HOLE_R), _bgr((0.06, 0.045, 0.03)), T(1.2), cv2.LINE_AA, 2)
    base = cv2.GaussianBlur(img, (0, 0), 0.3 * ppm)
    # the holes' floors: the paint (or plywood) seen darker inside the wall ring
    mask = np.zeros((n, n), np.uint8)
    for x, y in geo.centres.values():
        cv2.circle(mask, P(x, y), R(HOLE_R - 0.7), 255, -1, cv2.LINE_AA, 2)
    out = base * (1 - 0.38 * (mask.astype(np.float32) / 255))[..., None]
    # the markers, printed on white stickers
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    for mid, ((mx, my), side) in geo.markers.items():
        q = side * 0.72
        cv2.rectangle(out, P(mx - q, my - q), P(mx + q, my + q), _bgr((0.84, 0.84, 0.82)), -1, cv2.LINE_AA, 2)
        px = int(round(side * ppm))
        m = cv2.aruco.generateImageMarker(dictionary, mid, 6 * 24).astype(np.float32) / 255.0
        m = cv2.resize(m, (px, px), interpolation=cv2.INTER_AREA)
        ax, ay = P(mx - side / 2, my - side / 2)
        ax, ay = ax // 4, ay // 4
        out[ay:ay + px, ax:ax + px] = 0.03 + m[..., None] * (0.84 - 0.03)
    # the discard zone: a burnt outline
    (dx, dy), (dw, dh) = geo.discard_centre, geo.discard_size
    cv2.rectangle(out, P(dx - dw / 2 - 5, dy - dh / 2 - 5), P(dx + dw / 2 + 5, dy + dh / 2 + 5),
                  _bgr((0.25, 0.17, 0.10)), T(0.8), cv2.LINE_AA, 2)
    return out.astype(np.float32)


def start_position(setup: Evening) -> engine.Position:
    v = engine.get_variant("classic")
    return engine.parse_position({"variant": "classic", "board": setup.segments,
                                  "pieces": [["K"] * v.pieces] * setup.segments})


def empty_of(pos: engine.Position) -> engine.Position:
    return dataclasses.replace(pos, pieces=tuple(() for _ in pos.pieces), black_dog=None)


def random_pile(rng: np.random.Generator, cards: tuple[str, ...]) -> CardOnPile:
    """A played card in the kinds of trouble a real table gives (see the module's docstring)."""
    card = str(rng.choice(cards))
    under = []
    if rng.random() < 0.5:
        for _ in range(int(rng.integers(1, 5))):
            under.append((str(rng.choice(cards)), float(rng.uniform(-30, 30) + 180 * rng.integers(2)),
                          float(rng.uniform(-9, 9)), float(rng.uniform(-9, 9))))
    return CardOnPile(card, float(rng.uniform(-25, 25) + 180 * rng.integers(2)),
                      (float(rng.uniform(-8, 8)), float(rng.uniform(-8, 8))),
                      bend=float(rng.uniform(0, 1)) if rng.random() < 0.5 else 0.0, under=tuple(under),
                      shadow_band=float(rng.uniform(0.3, 0.6)) if rng.random() < 0.25 else 0.0,
                      highlight=float(rng.uniform(0.2, 0.6)) if rng.random() < 0.2 else 0.0,
                      fingers=bool(rng.random() < 0.1))


DOC_LIGHT = (  # (file, exposure below a well-lit picture, gain): docs/vision.md's "the light a table needs"
    ("vision-light-too-dim.png", -2.5, 16.0),
    ("vision-light-evening.png", -1.0, 8.0),
    ("vision-light-enough.png", 0.0, 1.5),
)


def write_light_pictures(folder: Path) -> None:
    """Pictures of the same board, too dim, a dim evening that still reads and lit enough, cut to the red
    seat's kennel and home."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, ev, gain in DOC_LIGHT:
        setup = dataclasses.replace(evening_named("eve-bulb-4seg"), ev=ev, gain=gain, patch=0.7)
        scene = EveningScene(setup, seed=1)
        pos = start_position(setup)
        pos = dataclasses.replace(pos, pieces=((engine.KENNEL, engine.KENNEL, engine.HOME + 1, 3),)
                                  + tuple(pos.pieces[1:]))
        frame = scene.render(pos)
        xs, ys = zip(*(scene.project(np.array([[*scene.geo.centres[f], 0.0]]))[0]
                       for f in scene.geo.centres if f.startswith("S0")))
        x0, x1 = int(min(xs)) - 40, int(max(xs)) + 40
        y0, y1 = int(min(ys)) - 30, int(max(ys)) + 30
        crop = frame[max(y0, 0):y1, max(x0, 0):x1]
        cv2.imwrite(str(folder / name), cv2.resize(crop, None, fx=1.5, fy=1.5, interpolation=cv2.INTER_AREA),
                    [cv2.IMWRITE_PNG_COMPRESSION, 9])
        print(folder / name)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="/tmp/photo_scene_evening")
    ap.add_argument("--docs", default=None, help="write docs/vision.md's light pictures into this folder")
    args = ap.parse_args()
    if args.docs:
        write_light_pictures(Path(args.docs))
        return
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(1)
    for s in EVENINGS:
        scene = EveningScene(s, seed=1)
        cv2.imwrite(str(out / f"{s.name}.png"), scene.render(start_position(s)))
        cv2.imwrite(str(out / f"{s.name}-card.png"), scene.render_cards(random_pile(rng, engine.ALL_CARDS), scale=1.5))
        print(out / s.name)


if __name__ == "__main__":
    main()
