"""A photo-like board scene, written independently of hardware/simtable, to test vision against.

It uses only the board's geometry and topology from `engine` (field centres, markers, the
discard zone, seat colours, royal/black fields); every picture element is drawn here:

- the board: wood or linen texture (procedural noise), printed field circles, ArUco markers
  with a white quiet zone, a Black DOG disc that turns, royal special fields;
- the table around it, lit by a lamp, two lights or a window (a soft-edged shadow band
  across one seat's kennel row), in linear light;
- lacquered pawns as 3D bodies of revolution (foot, waisted body, ball head) projected
  through a real pinhole camera, so they lean with its tilt; per-pixel diffuse and
  specular shading; a hard cast shadow from every light; royal rank marks on the head;
  the black dog (larger, glossy black, white collar);
- LED rings (an emissive ring and halo), a hand with its shadow;
- camera: tilt 0-25 deg, yaw, barrel distortion (k1, k2) applied with cv2.remap, defocus,
  shot + read noise, auto exposure and white balance that drift between frames, sRGB
  gamma, JPEG at a chosen quality (cv2.imencode), 720p or 1080p.

Deterministic: the same setup, seed, position and frame index give the same bytes.

    .venv/bin/python scripts/photo_scene.py --out /tmp/photo   # writes sample PNGs of every setup

One file of about 850 lines on purpose: being written apart from the renderer it checks, it
shares none of its code, and a reader can see every picture element in one place.
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
import math
import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

import engine

# Lacquered piece colours (sRGB), chosen here, not taken from any other renderer.
PIECE_SRGB = {
    "red": (188, 22, 30), "blue": (22, 66, 176), "green": (24, 124, 52), "yellow": (236, 186, 16),
    "white": (236, 234, 226), "black": (34, 33, 38), "orange": (232, 110, 18), "purple": (120, 40, 150),
}
SKIN_SRGB = [(230, 180, 150), (196, 138, 104), (150, 98, 70), (244, 206, 178)]
TABLE_SRGB = (70, 52, 40)
PAWN_FOOT_R, PAWN_WAIST_R, PAWN_WAIST_Z, PAWN_HEAD_R, PAWN_HEAD_Z = 7.4, 3.6, 15.0, 5.2, 19.5
DOG_SCALE = 1.18


@dataclass(frozen=True)
class Setup:
    """One camera, board and light. Every number is fixed before measuring (see bench_vision_photo)."""

    name: str
    segments: int = 4
    board: str = "standard"  # standard | royal | black
    texture: str = "wood"  # wood | linen
    light: str = "lamp"  # lamp | two | window
    tilt_deg: float = 10.0
    yaw_deg: float = 0.0
    resolution: tuple[int, int] = (1280, 720)
    fill: float = 0.86  # the board's share of the picture height
    k1: float = -0.15
    k2: float = 0.02
    defocus: float = 0.9  # Gaussian sigma, pixels
    read_noise: float = 2.0  # grey levels (linear, before gamma, of 255)
    shot_noise: float = 0.35  # grey levels at full scale: sigma^2 = read^2 + shot^2 * level * 255
    jpeg: int = 75  # 0: lossless
    ae_drift: float = 0.05  # relative exposure change between frames (std. dev.)
    awb_drift: float = 0.03  # relative channel gain change between frames
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)  # light colour (r, g, b)
    exposure: float = 1.0
    glare: float = 0.0  # a lamp's reflection near a marker, added brightness
    glare_marker: int = 1
    jitter_px: float = 0.25  # camera wobble between frames (tripod on a table people lean on)


@dataclass(frozen=True)
class PhotoHand:
    """A hand reaching over the board from an edge ("bottom" is seat 0's side) to a field."""

    target: str
    edge: str = "bottom"
    height_mm: float = 70.0
    skin: int = 0


def _srgb_to_linear(c) -> np.ndarray:
    c = np.asarray(c, np.float32) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4).astype(np.float32)


def _linear_to_srgb(x: np.ndarray) -> np.ndarray:
    """sRGB's curve of linear values (clipped to 0..1), in place of a clipped copy: the power for every
    pixel, then the few dark ones (the linear toe) overwritten, each value as `np.where` of both gives it."""
    x = np.clip(x, 0.0, 1.0)
    out = np.power(x, 1 / 2.4)
    out *= 1.055
    out -= 0.055
    toe = x <= 0.0031308
    out[toe] = 12.92 * x[toe]
    return out


def _rgb(c) -> np.ndarray:
    """sRGB (r, g, b) -> linear BGR."""
    return _srgb_to_linear(c)[::-1].copy()


def _noise_field(rng: np.random.Generator, shape: tuple[int, int], scale_px: float) -> np.ndarray:
    """Smooth value noise in [-1, 1] (a few octaves, cv2.resize)."""
    h, w = shape
    out = np.zeros(shape, np.float32)
    amp, total = 1.0, 0.0
    s = scale_px
    for _ in range(4):
        gh, gw = max(2, int(h / s) + 2), max(2, int(w / s) + 2)
        g = rng.standard_normal((gh, gw)).astype(np.float32)
        out += amp * cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)
        total += amp
        amp *= 0.5
        s /= 2.2
    out /= total
    return np.clip(out / (3 * out.std() + 1e-6), -1, 1)


def _blur_reach(sigma: float) -> int:
    """How many pixels cv2.GaussianBlur of a float picture reaches on each side: it takes a kernel
    of 4 sigma each side for floating-point pictures (3 for 8-bit ones)."""
    return (int(round(sigma * 8 + 1)) | 1) // 2


def _runs(idx: np.ndarray, gap: int) -> list[tuple[int, int]]:
    """Sorted indices -> [start, end) runs, split where more than `gap` indices lie between two."""
    cuts = np.flatnonzero(np.diff(idx) > gap + 1)
    starts = np.concatenate([[idx[0]], idx[cuts + 1]])
    ends = np.concatenate([idx[cuts], [idx[-1]]]) + 1
    return list(zip(starts.tolist(), ends.tolist()))


def _apart_boxes(mask: np.ndarray, gap: int) -> list[tuple[int, int, int, int]]:
    """(y0, y1, x0, x1) boxes holding every nonzero pixel of `mask`, any two more than `gap` rows or
    columns apart (rows, then columns, cut where a band of more than `gap` is empty, again and again)."""
    out = []
    todo = [(0, mask.shape[0], 0, mask.shape[1])]
    while todo:
        y0, y1, x0, x1 = todo.pop()
        sub = mask[y0:y1, x0:x1]
        rows = np.flatnonzero(sub.any(axis=1))
        if not len(rows):
            continue
        cols = np.flatnonzero(sub.any(axis=0))
        row_runs, col_runs = _runs(rows, gap), _runs(cols, gap)
        if len(row_runs) == 1 and len(col_runs) == 1:
            out.append((y0 + int(rows[0]), y0 + int(rows[-1]) + 1, x0 + int(cols[0]), x0 + int(cols[-1]) + 1))
            continue
        todo.extend((y0 + a, y0 + b, x0 + c, x0 + d) for a, b in row_runs for c, d in col_runs)
    return out


def _blur_regions(mask: np.ndarray, sigma: float) -> list[tuple[slice, slice]]:
    """Where cv2.GaussianBlur(picture, (0, 0), sigma) of a float picture that is zero wherever `mask`
    is can be nonzero: regions that do not overlap, each holding its nonzero pixels and all the blur
    reaches from them, and nothing else that is nonzero within that reach. Blurring each region alone
    gives the whole picture's blur there (its rim is zero, so the border rule adds nothing; a region cut
    by the picture's edge meets the edge the whole picture's blur meets) and the blur is zero elsewhere:
    the same picture from a few small blurs, where a full-frame blur of a few small things spends its time
    on zeros."""
    reach = _blur_reach(sigma)
    h, w = mask.shape[:2]
    return [(slice(max(0, y0 - reach), min(h, y1 + reach)), slice(max(0, x0 - reach), min(w, x1 + reach)))
            for y0, y1, x0, x1 in _apart_boxes(mask, 2 * reach)]


def _piece_list(position: engine.Position) -> list[tuple[str, int, int]]:
    """(field, seat, piece index) for every piece on the board; seat -1 is the black dog."""
    out = []
    for seat, locs in enumerate(position.pieces):
        if locs is None:
            continue
        kennel = 0
        for idx, loc in enumerate(locs):
            if loc < engine.HOME:
                out.append((f"T{loc}", seat, idx))
            elif loc < engine.KENNEL:
                out.append((f"S{seat}H{loc - engine.HOME}", seat, idx))
            else:
                out.append((f"S{seat}K{kennel}", seat, idx))
                kennel += 1
    if position.black_dog is not None:
        out.append((f"T{position.black_dog}", -1, 0))
    return out


class PhotoScene:
    """Renders positions of one `Setup` as a camera would photograph them."""

    def __init__(self, setup: Setup, seed: int = 0) -> None:
        self.setup = setup
        self.seed = seed
        self.geo = engine.load_geometry(setup.segments)
        self.board = engine.load_board(setup.board, setup.segments)
        self.w, self.h = setup.resolution
        self._camera()
        self.ppm = round(max(2.0, 2.2 * self.image_ppm), 3)  # print resolution, px per mm
        half = max(self.geo.size) / 2 + 60.0  # the table around the board
        self.half = half
        self.n = int(2 * half * self.ppm)
        self._lights()
        self._print_lin = self._board_print()
        self._distortion_maps()

    # --- camera ------------------------------------------------------------------------
    def _camera(self) -> None:
        s = self.setup
        tilt = math.radians(s.tilt_deg)
        size = max(self.geo.size)
        dist = 1.6 * size
        target = np.array([0.0, 0.0, 0.0])
        # world: x right, y towards seat 0 (down in the picture), z into the table
        centre = np.array([0.0, dist * math.sin(tilt), -dist * math.cos(tilt)])
        f = target - centre
        f /= np.linalg.norm(f)
        xc = np.array([1.0, 0.0, 0.0])
        yc = np.cross(f, xc)
        R = np.stack([xc, yc, f])
        yaw = math.radians(s.yaw_deg)
        Rz = np.array([[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]])
        self.R = Rz @ R
        self.C = centre
        self.t = -self.R @ centre
        # focal length so that the board fills `fill` of the picture height (corners of the board)
        hs = self.geo.size[0] / 2
        corners = np.array([[-hs, -hs, 0], [hs, -hs, 0], [hs, hs, 0], [-hs, hs, 0]], float)
        cam = corners @ self.R.T + self.t
        nx, ny = cam[:, 0] / cam[:, 2], cam[:, 1] / cam[:, 2]
        self.focal = min(s.fill * self.h / 2 / np.abs(ny).max(), 0.95 * self.w / 2 / np.abs(nx).max())
        # barrel distortion pulls corners inwards: a little more focal keeps the fill
        self.focal /= (1 + s.k1 * 0.12)
        self.K = np.array([[self.focal, 0, self.w / 2 - 0.5], [0, self.focal, self.h / 2 - 0.5], [0, 0, 1]])
        self.image_ppm = self.focal / dist
        self.dist_coeffs = np.array([s.k1, s.k2, 0, 0, 0], float)
        self.pad = int(0.18 * self.w)  # the undistorted canvas is larger: barrel pulls its rim in

    def project(self, pts: np.ndarray, frame_pose: tuple[np.ndarray, np.ndarray] | None = None,
                undistorted: bool = True) -> np.ndarray:
        """World mm (n, 3) -> pixels of the undistorted canvas (or of the final picture)."""
        R, t = frame_pose or (self.R, self.t)
        cam = np.asarray(pts, float) @ R.T + t
        x, y = cam[:, 0] / cam[:, 2], cam[:, 1] / cam[:, 2]
        if not undistorted:
            r2 = x * x + y * y
            k = 1 + self.setup.k1 * r2 + self.setup.k2 * r2 * r2
            x, y = x * k, y * k
            return np.stack([self.focal * x + self.K[0, 2], self.focal * y + self.K[1, 2]], axis=1)
        return np.stack([self.focal * x + self.K[0, 2] + self.pad, self.focal * y + self.K[1, 2] + self.pad], axis=1)

    def pixel_of(self, field_id: str, height_mm: float = 0.0) -> tuple[float, float]:
        """Where a field centre (or a point above it) appears in the final picture (frame 0)."""
        x, y = self.geo.centres[field_id]
        p = self.project(np.array([[x, y, -height_mm]]), undistorted=False)[0]
        return float(p[0]), float(p[1])

    def _distortion_maps(self) -> None:
        """For every final pixel, where it comes from in the undistorted canvas (cv2.undistortPoints)."""
        ys, xs = np.mgrid[0 : self.h, 0 : self.w].astype(np.float32)
        pts = np.stack([xs.ravel(), ys.ravel()], axis=1).reshape(-1, 1, 2)
        und = cv2.undistortPoints(pts, self.K, self.dist_coeffs, P=self.K).reshape(self.h, self.w, 2)
        self._mapx = (und[..., 0] + self.pad).astype(np.float32)
        self._mapy = (und[..., 1] + self.pad).astype(np.float32)

    def _frame_pose(self, frame_index: int) -> tuple[np.ndarray, np.ndarray]:
        rng = np.random.default_rng([self.seed, frame_index, 7])
        wob = rng.normal(0, self.setup.jitter_px / self.focal, 3)
        rv, _ = cv2.Rodrigues(wob.reshape(3, 1))
        return rv @ self.R, rv @ self.t

    # --- light -------------------------------------------------------------------------
    def _lights(self) -> None:
        """Point lights (position mm, strength) and directional lights (direction, strength)."""
        s = self.setup
        size = max(self.geo.size)
        rng = np.random.default_rng([self.seed, 11])
        self.points: list[tuple[np.ndarray, float]] = []
        self.suns: list[tuple[np.ndarray, float]] = []
        self.ambient = 0.28
        self.band = None  # window: (point, normal, half width) of a shadow band in board mm
        if s.light == "lamp":
            a = rng.uniform(0, 2 * math.pi)
            self.points.append((np.array([0.45 * size * math.cos(a), 0.45 * size * math.sin(a), -0.9 * size]), 1.0))
        elif s.light == "two":
            self.points.append((np.array([-0.6 * size, -0.3 * size, -0.85 * size]), 0.6))
            self.points.append((np.array([0.55 * size, 0.4 * size, -1.1 * size]), 0.5))
            self.ambient = 0.22
        else:  # window: low daylight from the side, a mullion's shadow across a kennel row
            d = np.array([1.0, 0.25, 0.75])
            self.suns.append((d / np.linalg.norm(d), 0.85))
            self.ambient = 0.35
            kennel = np.array([self.geo.centres[f"S1K{i}"] for i in range(4)])
            mid = kennel.mean(axis=0)
            along = kennel[-1] - kennel[0]
            along /= np.linalg.norm(along) + 1e-9
            self.band = (mid, np.array([along[1], -along[0]]) * 0 + along, 16.0)

    def _irradiance_at(self, pts_mm: np.ndarray) -> np.ndarray:
        """(n, lights) unshadowed irradiance from each light on the board plane at pts (x, y)."""
        cols = []
        for pos, k in self.points:
            d = np.stack([pos[0] - pts_mm[:, 0], pos[1] - pts_mm[:, 1], np.full(len(pts_mm), -pos[2])], axis=1)
            r = np.linalg.norm(d, axis=1)
            cos = d[:, 2] / r
            ref = -pos[2]
            cols.append(k * cos * (ref / r) ** 2 * 1.35)
        for direction, k in self.suns:
            v = np.full(len(pts_mm), k * abs(direction[2]) * 1.2)
            if self.band is not None:
                mid, along, half = self.band
                off = np.abs((pts_mm - mid) @ along)
                # soft edge: the window frame is far away, its shadow has a penumbra of ~6 mm
                v = v * np.clip((off - half) / 6.0 + 0.5, 0.15, 1.0)
            cols.append(v)
        return np.stack(cols, axis=1)

    def _light_dirs(self, p: np.ndarray) -> list[tuple[np.ndarray, float]]:
        """Unit vectors from a 3D point towards each light, with the irradiance it gets."""
        out = []
        irr = self._irradiance_at(p[None, :2])[0]
        for (pos, _), e in zip(self.points, irr[: len(self.points)]):
            d = pos - p
            out.append((d / np.linalg.norm(d), float(e)))
        for (direction, _), e in zip(self.suns, irr[len(self.points):]):
            out.append((-direction, float(e)))
        return out

    # --- the printed board ---------------------------------------------------------------
    def _mm_to_print(self, pts: np.ndarray) -> np.ndarray:
        return (np.asarray(pts, float) + self.half) * self.ppm

    def _board_print(self) -> np.ndarray:
        """The board and table as printed (reflectance, linear BGR), cached per setup."""
        return _board_print_cached(self.setup.segments, self.setup.board, self.setup.texture, self.seed,
                                   self.ppm, self.half)

    # --- rendering --------------------------------------------------------------------------
    def render(self, position: engine.Position, frame_index: int = 0, lit: dict[str, tuple[int, int, int]] | None = None,
               hand: PhotoHand | list[PhotoHand] | None = None) -> np.ndarray:
        s = self.setup
        pieces = _piece_list(position)
        pose = self._frame_pose(frame_index)
        # radiance of the board: reflectance x (ambient + lights, each with its cast shadows)
        n = self.n
        ys, xs = np.mgrid[0:n:8, 0:n:8]
        mm = np.stack([xs.ravel(), ys.ravel()], axis=1) / self.ppm - self.half
        irr_small = self._irradiance_at(mm).reshape(ys.shape[0], ys.shape[1], -1)
        light = np.full((n, n), self.ambient, np.float32)
        hands = [] if hand is None else (hand if isinstance(hand, list) else [hand])
        for li in range(irr_small.shape[2]):
            e = cv2.resize(irr_small[:, :, li].astype(np.float32), (n, n), interpolation=cv2.INTER_LINEAR)
            shadow = np.zeros((n, n), np.uint8)
            for fid, seat, _ in pieces:
                self._cast_pawn_shadow(shadow, li, fid, DOG_SCALE if seat < 0 else 1.0)
            for hnd in hands:
                self._cast_hand_shadow(shadow, li, hnd)
            light += e
            for region in _blur_regions(shadow, 0.7 * self.ppm):  # shadows cover a small part of the board
                sh = cv2.GaussianBlur(shadow[region].astype(np.float32) / 255.0, (0, 0), 0.7 * self.ppm)
                light[region] -= e[region] * (0.92 * sh)
        rad = self._print_lin * light[:, :, None]
        if lit:
            self._glow(rad, lit)
        disc = position.disc if self.board.disc_fields else None
        if disc:
            rad = self._turned_disc(rad, disc)
        # the board plane into the (undistorted, padded) camera canvas
        Hm = self._print_to_canvas(pose)
        cw, ch = self.w + 2 * self.pad, self.h + 2 * self.pad
        img = cv2.warpPerspective(rad, Hm, (cw, ch), flags=cv2.INTER_AREA if False else cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_CONSTANT, borderValue=(0.02, 0.02, 0.025))
        # pawns, far ones first (nearer the camera paints over)
        order = sorted(pieces, key=lambda p: -np.linalg.norm(self._foot(p[0]) - self.C))
        for fid, seat, idx in order:
            self._pawn(img, pose, position, fid, seat, idx, lit)
        for hnd in hands:
            self._hand(img, pose, hnd)
        if s.glare > 0:
            self._add_glare(img, pose)
        img = cv2.GaussianBlur(img, (0, 0), s.defocus) if s.defocus > 0 else img
        img = cv2.remap(img, self._mapx, self._mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return self._sensor(img, frame_index)

    def _print_to_canvas(self, pose) -> np.ndarray:
        src = np.array([[0, 0], [self.n, 0], [self.n, self.n], [0, self.n]], np.float32)
        mm = src / self.ppm - self.half
        dst = self.project(np.concatenate([mm, np.zeros((4, 1))], axis=1), pose).astype(np.float32)
        src = src - 0.5  # pixel centres
        return cv2.getPerspectiveTransform(src.astype(np.float32), dst)

    def _foot(self, fid: str) -> np.ndarray:
        x, y = self.geo.centres[fid]
        off = self._piece_offset(fid)
        return np.array([x + off[0], y + off[1], 0.0])

    def _piece_offset(self, fid: str) -> np.ndarray:
        rng = np.random.default_rng([self.seed, zlib.crc32(fid.encode()), 3])
        return rng.normal(0, 0.7, 2)

    def _pawn_profile(self, scale: float) -> list[tuple[float, float]]:
        """(height, radius) slices of the body from the foot up (the head is a ball above)."""
        out = []
        for i in range(9):
            z = PAWN_WAIST_Z * i / 8
            u = i / 8
            r = PAWN_FOOT_R * (1 - u) ** 1.6 + PAWN_WAIST_R * (1 - (1 - u) ** 1.6)
            if i == 0:
                r = PAWN_FOOT_R
            out.append((z * scale, r * scale))
        return out

    def _cast_pawn_shadow(self, mask: np.ndarray, li: int, fid: str, scale: float) -> None:
        foot = self._foot(fid)
        pts = []
        ang = np.linspace(0, 2 * np.pi, 16, endpoint=False)
        rings = self._pawn_profile(scale) + [(PAWN_HEAD_Z * scale, PAWN_HEAD_R * scale)]
        for z, r in rings:
            ring = np.stack([foot[0] + r * np.cos(ang), foot[1] + r * np.sin(ang), np.full(16, -z)], axis=1)
            pts.append(self._onto_board(ring, li))
        poly = self._mm_to_print(np.concatenate(pts))
        hull = cv2.convexHull(np.round(poly * 4).astype(np.int32))
        cv2.fillConvexPoly(mask, hull, 255, cv2.LINE_AA, shift=2)

    def _onto_board(self, pts: np.ndarray, li: int) -> np.ndarray:
        """Shadow of 3D points (z < 0 above the board) on the board from light `li`, (n, 2) mm."""
        if li < len(self.points):
            L = self.points[li][0]
            t = L[2] / (L[2] - pts[:, 2])  # from the light through the point down to z = 0
            return L[None, :2] + (pts[:, :2] - L[None, :2]) * t[:, None]
        d = self.suns[li - len(self.points)][0]
        return pts[:, :2] + d[None, :2] * (-pts[:, 2:3]) / d[2]

    def _glow(self, rad: np.ndarray, lit: dict[str, tuple[int, int, int]]) -> None:
        """LED rings just outside lit fields, added to `rad`: a bright emissive ring and a soft halo.
        Each group of rings is drawn and blurred in its own region (`_blur_regions`), whole pixels
        from the print's origin: the same ring, to the last anti-aliased pixel, as drawn on the whole print."""
        r = self.geo.field_radius
        sigma = 3.5 * self.ppm
        radius, width = int(round((r + 1.6) * self.ppm * 4)), max(1, int(1.4 * self.ppm))
        rings = []
        for fid, rgb in lit.items():
            c = self._mm_to_print(np.array([self.geo.centres[fid]]))[0]
            rings.append(((int(round(c[0] * 4)), int(round(c[1] * 4))), tuple(float(v) for v in _rgb(rgb) * 1.6)))
        where = np.zeros(rad.shape[:2], np.uint8)
        for centre, _ in rings:  # a pixel wider each side than the ring: all its anti-aliased rim
            cv2.circle(where, centre, radius, 255, width + 2, cv2.LINE_AA, 2)
        for ys, xs in _blur_regions(where, sigma):
            add = np.zeros((ys.stop - ys.start, xs.stop - xs.start, 3), np.float32)
            for (cx, cy), col in rings:
                if ys.start * 4 <= cy < ys.stop * 4 and xs.start * 4 <= cx < xs.stop * 4:
                    cv2.circle(add, (cx - 4 * xs.start, cy - 4 * ys.start), radius, col, width, cv2.LINE_AA, 2)
            rad[ys, xs] += add + 1.5 * cv2.GaussianBlur(add, (0, 0), sigma)

    def _turned_disc(self, rad: np.ndarray, quarters: int) -> np.ndarray:
        """The Black DOG disc's art turned by `quarters` clockwise (field circles stay)."""
        c = self.n / 2 - 0.5
        M = cv2.getRotationMatrix2D((c, c), -90.0 * quarters, 1.0)
        turned = cv2.warpAffine(rad, M, (self.n, self.n), flags=cv2.INTER_LINEAR)
        yy, xx = np.ogrid[: self.n, : self.n]
        inside = ((xx - c) ** 2 + (yy - c) ** 2) < (self.geo.disc_radius * self.ppm) ** 2
        holes = np.zeros((self.n, self.n), np.uint8)
        for i in self.board.disc_fields:
            p = self._mm_to_print(np.array([self.geo.centres[f"T{i}"]]))[0]
            cv2.circle(holes, (int(round(p[0])), int(round(p[1]))), int((self.geo.field_radius + 2.5) * self.ppm), 255, -1)
        use = inside & (holes == 0)
        out = rad.copy()
        out[use] = turned[use]
        return out

    # --- pawns -------------------------------------------------------------------------
    def _pawn(self, img: np.ndarray, pose, position: engine.Position, fid: str, seat: int, idx: int,
              lit: dict | None) -> None:
        scale = DOG_SCALE if seat < 0 else 1.0
        if seat < 0:
            colour_name = "black"
        else:
            colour_name = position.board.colours[seat]
        albedo = _rgb(PIECE_SRGB[colour_name])
        foot = self._foot(fid)
        head_c = foot + np.array([0, 0, -PAWN_HEAD_Z * scale])
        lights = self._light_dirs(head_c)
        glow = np.zeros(3, np.float32)
        if lit and fid in lit:
            glow = _rgb(lit[fid]) * 0.25
        view = self.C - head_c
        view /= np.linalg.norm(view)
        # region of interest in the canvas
        box = self.project(np.array([foot + [dx, dy, -dz] for dx in (-10 * scale, 10 * scale)
                                     for dy in (-10 * scale, 10 * scale) for dz in (0, 26 * scale)]), pose)
        x0, y0 = np.floor(box.min(axis=0)).astype(int) - 2
        x1, y1 = np.ceil(box.max(axis=0)).astype(int) + 3
        x0, y0 = max(x0, 0), max(y0, 0)
        x1, y1 = min(x1, img.shape[1]), min(y1, img.shape[0])
        if x1 <= x0 or y1 <= y0:
            return
        gy, gx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        roi = img[y0:y1, x0:x1]
        spec_k, shin = (0.55, 60.0)
        layers = [(z, r, False) for z, r in self._pawn_profile(scale)] + [(PAWN_HEAD_Z * scale, PAWN_HEAD_R * scale, True)]
        prof = self._pawn_profile(scale)
        for k, (z, r, ball) in enumerate(layers):
            c3 = foot + np.array([0, 0, -z])
            cp = self.project(c3[None, :], pose)[0]
            ep = self.project((c3 + [r, 0, 0])[None, :], pose)[0]
            ep2 = self.project((c3 + [0, r, 0])[None, :], pose)[0]
            rp = 0.5 * (np.linalg.norm(ep - cp) + np.linalg.norm(ep2 - cp))
            # the slice's disc (and a pixel round it): elsewhere its alpha is 0 and the picture stays
            ys = slice(max(0, math.floor(cp[1] - rp) - 1 - y0), max(0, math.ceil(cp[1] + rp) + 2 - y0))
            xs = slice(max(0, math.floor(cp[0] - rp) - 1 - x0), max(0, math.ceil(cp[0] + rp) + 2 - x0))
            dx, dy = gx[ys, xs] - cp[0], gy[ys, xs] - cp[1]
            d = np.sqrt(dx * dx + dy * dy)
            alpha = np.clip(rp - d + 0.5, 0, 1)
            if not alpha.any():
                continue
            ux, uy = dx / max(rp, 1e-3), dy / max(rp, 1e-3)
            if ball:
                uz = np.sqrt(np.clip(1 - ux * ux - uy * uy, 0, 1))
                ncam = np.stack([ux, uy, -uz], axis=-1)  # camera frame: towards the camera is -z
                n = ncam @ pose[0]  # to world
            else:
                # a slice of the waisted body: outward normal tilted up by the body's slope
                nxt = prof[min(k + 1, len(prof) - 1)]
                slope = math.atan2(r - nxt[1], max(nxt[0] - z, 1e-3)) if k < len(prof) - 1 else 0.3
                horiz = np.stack([ux, uy, np.zeros_like(ux)], axis=-1) @ pose[0]
                horiz = horiz[..., :2]
                hn = np.linalg.norm(horiz, axis=-1, keepdims=True) + 1e-6
                n = np.concatenate([horiz / hn * math.cos(slope), np.full_like(hn, -math.sin(slope))], axis=-1)
            shade = np.full(ux.shape, self.ambient * 0.9, np.float32)
            spec = np.zeros(ux.shape, np.float32)
            for ldir, e in lights:
                ndl = np.clip(n @ ldir, 0, None)
                shade += e * ndl
                h = ldir + view
                h /= np.linalg.norm(h)
                spec += e * np.clip(n @ h, 0, None) ** shin
            colour = albedo[None, None, :] * shade[..., None] + spec_k * spec[..., None] + glow * (k < 3)
            if ball and (self.board.kind == "royal" or position.variant.name == "royal") and seat >= 0:
                mark = _rank_mark(idx, ux, uy)
                mcol = _rgb((20, 20, 20)) if colour_name in ("yellow", "white") else _rgb((240, 240, 235))
                mcolour = mcol[None, None, :] * shade[..., None] + spec_k * spec[..., None]
                colour = colour * (1 - mark[..., None]) + mcolour * mark[..., None]
            if seat < 0 and not ball and k == len(prof) - 2:  # the black dog's white collar
                colour = _rgb((235, 235, 230))[None, None, :] * shade[..., None] + spec_k * spec[..., None]
            part = roi[ys, xs]
            part[:] = part * (1 - alpha[..., None]) + colour * alpha[..., None]

    # --- hands ---------------------------------------------------------------------------
    def _hand_polys(self, hand: PhotoHand) -> list[np.ndarray]:
        """The hand and arm as 3D polygons (mm) at the hand's height."""
        tx, ty = self.geo.centres[hand.target]
        edge = {"bottom": (0, 1), "top": (0, -1), "left": (-1, 0), "right": (1, 0)}[hand.edge]
        ex, ey = edge
        far = max(self.geo.size) / 2 + 200
        start = np.array([tx * (ex == 0) + ex * far, ty * (ey == 0) + ey * far])
        tip = np.array([tx, ty])
        along = tip - start
        along /= np.linalg.norm(along)
        side = np.array([-along[1], along[0]])
        wrist = tip - along * 95
        z = -hand.height_mm
        polys = []
        arm = [start + side * 38, wrist + side * 30, wrist - side * 30, start - side * 38]
        polys.append(np.array(arm))
        palm = [wrist + side * 40 + along * 5, wrist + side * 44 + along * 60, wrist - side * 40 + along * 62,
                wrist - side * 38 + along * 5]
        polys.append(np.array(palm))
        for i, (w, ln) in enumerate([(-27, 55), (-9, 70), (9, 66), (26, 52)]):
            base = wrist + along * 58 + side * w
            end = base + along * ln * (1.0 if i != 1 else 1.0)
            polys.append(np.array([base + side * 8, end + side * 7, end - side * 7, base - side * 8]))
        thumb0 = wrist + along * 20 + side * 40
        polys.append(np.array([thumb0, thumb0 + side * 30 + along * 40, thumb0 + side * 18 + along * 50, thumb0 - side * 4 + along * 10]))
        out = []
        for p in polys:
            out.append(np.concatenate([p, np.full((len(p), 1), z)], axis=1))
        # the fingertip on the target field (the hand bends down to it)
        out[-3][:, 2] = np.linspace(z, -8, len(out[-3]))[[0, 1, 1, 0]]
        return out

    def _cast_hand_shadow(self, mask: np.ndarray, li: int, hand: PhotoHand) -> None:
        for poly in self._hand_polys(hand):
            p = self._mm_to_print(self._onto_board(poly, li))
            cv2.fillConvexPoly(mask, np.round(p * 4).astype(np.int32), 255, cv2.LINE_AA, shift=2)

    def _hand(self, img: np.ndarray, pose, hand: PhotoHand) -> None:
        skin = _rgb(SKIN_SRGB[hand.skin % len(SKIN_SRGB)])
        mask = np.zeros(img.shape[:2], np.float32)
        for poly in self._hand_polys(hand):
            p = self.project(poly, pose)
            cv2.fillConvexPoly(mask, np.round(p * 4).astype(np.int32), 1.0, cv2.LINE_AA, shift=2)
        e = self.ambient + sum(v for _, v in self._light_dirs(np.array([0.0, 0.0, -hand.height_mm]))) * 0.8
        for region in _blur_regions(mask, 6):  # outside the hand's region the picture stays as it is
            shade = cv2.GaussianBlur(mask[region], (0, 0), 6) * 0.35 + 0.65  # rounder, darker at the outline
            colour = skin[None, None, :] * (e * shade)[..., None]
            a = mask[region][..., None]
            img[region] = img[region] * (1 - a) + colour * a

    def _add_glare(self, img: np.ndarray, pose) -> None:
        (cx, cy), side = self.geo.markers[self.setup.glare_marker]
        c = self.project(np.array([[cx * 0.93, cy * 0.93, 0]]), pose)[0]
        sig = side * self.image_ppm * 0.9
        yy, xx = np.ogrid[: img.shape[0], : img.shape[1]]
        g = np.exp(-((xx - c[0]) ** 2 + (yy - c[1]) ** 2) / (2 * sig * sig)).astype(np.float32)
        img += (self.setup.glare * g)[..., None]

    # --- sensor -------------------------------------------------------------------------
    def _sensor(self, lin: np.ndarray, frame_index: int) -> np.ndarray:
        s = self.setup
        rng = np.random.default_rng([self.seed, frame_index, 1])
        # auto exposure and white balance: they settle on slightly different values each frame
        gain = s.exposure * (1 + s.ae_drift * rng.standard_normal())
        wb = np.array(s.tint[::-1], np.float32) * (1 + s.awb_drift * rng.standard_normal(3)).astype(np.float32)
        # in place where the formula allows (the same operations in the same order, a picture's worth of
        # copies fewer): sigma^2 = read^2 + shot^2 * level, then the noise
        x = lin * np.float32(gain * 0.9)
        x *= wb[None, None, :]
        np.clip(x, 0, 1, out=x)
        sigma = (s.shot_noise / 255) * x
        sigma += (s.read_noise / 255) ** 2
        np.sqrt(sigma, out=sigma)
        sigma *= rng.standard_normal(x.shape, dtype=np.float32)
        x += sigma
        srgb = _linear_to_srgb(x)
        srgb *= 255
        srgb += 0.5
        out = srgb.astype(np.uint8)
        if s.jpeg:
            ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(s.jpeg)])
            assert ok
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        return out


def _rank_mark(idx: int, ux: np.ndarray, uy: np.ndarray) -> np.ndarray:
    """Royal rank marks on the head, 0..1 coverage: king crown, knight two bars, citizen one bar, fool ring."""
    r = np.sqrt(ux * ux + uy * uy)
    if idx == 0:
        ang = np.arctan2(uy, ux)
        edge = 0.42 + 0.14 * np.cos(5 * ang)
        return np.clip((edge - r) * 8, 0, 1)
    if idx == 1:
        return (((np.abs(uy - 0.2) < 0.11) | (np.abs(uy + 0.2) < 0.11)) & (np.abs(ux) < 0.55)).astype(np.float32)
    if idx == 2:
        return ((np.abs(uy) < 0.13) & (np.abs(ux) < 0.6)).astype(np.float32)
    return ((r > 0.28) & (r < 0.45)).astype(np.float32)


@functools.lru_cache(maxsize=8)
def _board_print_cached(segments: int, board_kind: str, texture: str, seed: int, ppm: float, half: float) -> np.ndarray:
    geo = engine.load_geometry(segments)
    board = engine.load_board(board_kind, segments)
    n = int(2 * half * ppm)
    rng = np.random.default_rng([seed, 5, segments])

    def P(pt) -> tuple[int, int]:  # mm -> print pixel, 2 fractional bits
        return (int(round((pt[0] + half) * ppm * 4)), int(round((pt[1] + half) * ppm * 4)))

    def R(r_mm: float) -> int:
        return int(round(r_mm * ppm * 4))

    # the table: dark wood, out of focus
    table = _rgb(TABLE_SRGB)[None, None, :] * (1 + 0.15 * _noise_field(rng, (n, n), 40 * ppm)[..., None])
    img = table.astype(np.float32)
    hw, hh = geo.size[0] / 2, geo.size[1] / 2
    x0, y0 = P((-hw, -hh))
    x1, y1 = P((hw, hh))
    bx0, by0, bx1, by1 = x0 // 4, y0 // 4, x1 // 4, y1 // 4
    bh, bw = by1 - by0, bx1 - bx0
    if texture == "wood":
        base = np.array(_rgb((206, 168, 118)))
        warp = _noise_field(rng, (bh, bw), 90 * ppm) * 25 * ppm
        yy = np.arange(bh, dtype=np.float32)[:, None] + warp
        grain = np.sin(yy / (3.5 * ppm) + 2 * _noise_field(rng, (bh, bw), 30 * ppm))
        fine = _noise_field(rng, (bh, bw), 2.5 * ppm)
        tex = 1 + 0.07 * grain + 0.05 * fine + 0.05 * _noise_field(rng, (bh, bw), 120 * ppm)
    else:  # linen: a fine weave
        base = np.array(_rgb((222, 212, 190)))
        yy, xx = np.mgrid[0:bh, 0:bw].astype(np.float32)
        weave = np.sin(xx * 2 * np.pi / (1.1 * ppm)) * np.sin(yy * 2 * np.pi / (1.1 * ppm))
        tex = 1 + 0.04 * weave + 0.05 * _noise_field(rng, (bh, bw), 1.5 * ppm) + 0.04 * _noise_field(rng, (bh, bw), 60 * ppm)
    img[by0:by1, bx0:bx1] = base[None, None, :] * tex[..., None]
    ink = _rgb((70, 50, 36))
    paper = _rgb((238, 228, 205))
    # the printed track: a line joining consecutive fields
    track = [f"T{i}" for i in range(board.track_length)]
    for a, b in zip(track, track[1:] + track[:1]):
        cv2.line(img, P(geo.centres[a]), P(geo.centres[b]), tuple(map(float, base * 0.82)), R(3.0), cv2.LINE_AA, 2)
    if board.disc_fields:
        c = P((0, 0))
        cv2.circle(img, c, R(geo.disc_radius), tuple(map(float, _rgb((44, 42, 46)))), -1, cv2.LINE_AA, 2)
        cv2.circle(img, c, R(geo.disc_radius), tuple(map(float, _rgb((15, 15, 16)))), R(2.0), cv2.LINE_AA, 2)
        # the orientation mark: an orange arrow pointing at seat 0 (down) and a pale bone opposite
        arrow = np.array([(0, geo.disc_radius * 0.9), (-10, geo.disc_radius * 0.55), (10, geo.disc_radius * 0.55)])
        cv2.fillConvexPoly(img, np.array([P(p) for p in arrow], np.int32), tuple(map(float, _rgb((238, 150, 25)))), cv2.LINE_AA, 2)
        cv2.ellipse(img, P((0, -geo.disc_radius * 0.6)), (R(14), R(4)), 0, 0, 360, tuple(map(float, _rgb((235, 230, 215)))), -1, cv2.LINE_AA, 2)
    else:
        cv2.circle(img, P((0, 0)), R(geo.centre_radius), tuple(map(float, _rgb((150, 112, 78)))), -1, cv2.LINE_AA, 2)
        cv2.circle(img, P((0, 0)), R(geo.centre_radius * 0.55), tuple(map(float, paper)), R(1.5), cv2.LINE_AA, 2)
    (dx, dy), (dw, dh) = geo.discard_centre, geo.discard_size
    cv2.rectangle(img, P((dx - dw / 2 - 4, dy - dh / 2 - 4)), P((dx + dw / 2 + 4, dy + dh / 2 + 4)),
                  tuple(map(float, ink)), R(1.0), cv2.LINE_AA, 2)
    r = geo.field_radius
    for fid, c in geo.centres.items():
        kind, seat, num = engine.parse_field_id(fid)
        inner = paper
        seat_c = None
        if seat >= 0:
            seat_c = _rgb(PIECE_SRGB[board.colours[seat]])
        elif num in board.start_fields:
            seat_c = _rgb(PIECE_SRGB[board.colours[num // board.segment_length]])
        if seat_c is not None:
            inner = paper * 0.62 + seat_c * 0.38
        cv2.circle(img, P(c), R(r), tuple(map(float, inner)), -1, cv2.LINE_AA, 2)
        cv2.circle(img, P(c), R(r - 0.8), tuple(map(float, ink)), R(1.5), cv2.LINE_AA, 2)
        if kind == "T" and num in board.special_fields:
            cv2.circle(img, P(c), R(r + 2.2), tuple(map(float, _rgb((200, 150, 30)))), R(1.6), cv2.LINE_AA, 2)
        if kind == "T" and num in board.paw_fields:
            col = dict(board.paw_colours).get(num % board.segment_length, "white")
            cv2.circle(img, P(c), R(r + 2.0), tuple(map(float, _rgb((245, 245, 240) if col == "white" else (12, 12, 12)))),
                       R(1.8), cv2.LINE_AA, 2)
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    for mid, ((cx, cy), side) in geo.markers.items():
        q = side * 0.75
        cv2.rectangle(img, P((cx - q, cy - q)), P((cx + q, cy + q)), tuple(map(float, paper * 1.08)), -1, cv2.LINE_AA, 2)
        px = int(round(side * ppm))
        m = cv2.aruco.generateImageMarker(dictionary, mid, 6 * 20).astype(np.float32) / 255.0
        m = cv2.resize(m, (px, px), interpolation=cv2.INTER_AREA)
        ax, ay = P((cx - side / 2, cy - side / 2))
        ax, ay = ax // 4, ay // 4
        white, black = paper * 1.08, _rgb((22, 22, 24))
        img[ay : ay + px, ax : ax + px] = black[None, None, :] + m[..., None] * (white - black)[None, None, :]
    # the print is not perfectly sharp either
    return cv2.GaussianBlur(img, (0, 0), 0.35 * ppm).astype(np.float32)


# --- the fixed setups the benchmark measures -------------------------------------------------------
SETUPS: tuple[Setup, ...] = (
    Setup("lamp-wood-flat", tilt_deg=0, jpeg=80),
    Setup("lamp-linen-10", texture="linen", tilt_deg=10, jpeg=70),
    Setup("two-lights-18", light="two", tilt_deg=18, jpeg=75, tint=(1.0, 0.94, 0.82)),
    Setup("window-band-12", light="window", tilt_deg=12, jpeg=75, tint=(0.92, 0.97, 1.06)),
    Setup("lamp-25-distorted", tilt_deg=25, jpeg=65, k1=-0.18, defocus=1.2),
    Setup("1080p-linen-15", texture="linen", tilt_deg=15, resolution=(1920, 1080), jpeg=85, defocus=1.4),
    Setup("noisy-dim-q60", tilt_deg=8, jpeg=60, exposure=0.55, read_noise=3.0, shot_noise=0.6),
    Setup("glare-marker", tilt_deg=14, jpeg=75, glare=0.9, glare_marker=1),
    Setup("royal-lamp-12", board="royal", tilt_deg=12, jpeg=75),
    Setup("royal-two-20-linen", board="royal", light="two", texture="linen", tilt_deg=20, jpeg=70),
    Setup("black-lamp-10", board="black", tilt_deg=10, jpeg=75),
    Setup("black-window-22", board="black", light="window", tilt_deg=22, jpeg=65),
    Setup("6seg-lamp-10", segments=6, tilt_deg=10, jpeg=75),
    Setup("6seg-two-20-linen", segments=6, light="two", texture="linen", tilt_deg=20, jpeg=70),
    Setup("6seg-royal-1080p", segments=6, board="royal", tilt_deg=15, resolution=(1920, 1080), jpeg=80),
    Setup("yaw-window-25", light="window", tilt_deg=25, yaw_deg=8, jpeg=70, texture="linen"),
    # The evening family: one warm lamp in a dim room, a small camera at high gain (its noise is
    # the read noise and shot noise of a tiny sensor amplified), slightly out of focus.
    # -0.5 to -1 EV below the other setups' exposure.
    Setup("dim-warm-lamp", tilt_deg=10, jpeg=70, exposure=0.62, tint=(1.0, 0.8, 0.55), read_noise=6.0,
          shot_noise=1.2, defocus=1.5, ae_drift=0.07),
    Setup("dim-evening-linen", texture="linen", tilt_deg=16, jpeg=65, exposure=0.7, tint=(1.0, 0.78, 0.5),
          read_noise=5.0, shot_noise=1.0, defocus=1.6, ae_drift=0.07),
    Setup("dim-darker-q60", tilt_deg=6, jpeg=60, exposure=0.5, tint=(1.0, 0.84, 0.62), read_noise=7.0,
          shot_noise=1.4, defocus=1.8, ae_drift=0.08),
    Setup("dim-6seg-lamp", segments=6, tilt_deg=12, jpeg=70, exposure=0.62, tint=(1.0, 0.8, 0.55),
          read_noise=6.0, shot_noise=1.2, defocus=1.5, ae_drift=0.07),
)


def setup_named(name: str) -> Setup:
    for s in SETUPS:
        if s.name == name:
            return s
    raise KeyError(name)


def start_position(setup: Setup) -> engine.Position:
    variant = {"royal": "royal", "black": "black"}.get(setup.board, "classic")
    v = engine.get_variant(variant)
    pos = engine.parse_position({"variant": variant, "board": setup.segments, "pieces": [["K"] * v.pieces] * setup.segments})
    return dataclasses.replace(pos, board=engine.load_board(setup.board, setup.segments))


def empty_of(pos: engine.Position) -> engine.Position:
    return dataclasses.replace(pos, pieces=tuple(() for _ in pos.pieces), black_dog=None)


DOC_PICTURES = (  # (file, setup, what is shown)
    ("vision-photo-lamp.png", "lamp-25-distorted", "start"),
    ("vision-photo-window.png", "window-band-12", "start"),
    ("vision-photo-glare.png", "glare-marker", "empty"),
    ("vision-photo-hand.png", "two-lights-18", "hand"),
)


def write_doc_pictures(folder: Path) -> None:
    """Small pictures for docs/vision.md (what the camera sees in a few setups)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, setup_name, what in DOC_PICTURES:
        s = setup_named(setup_name)
        scene = PhotoScene(s, seed=1)
        pos = start_position(s)
        hand = PhotoHand(target="T12", edge="left") if what == "hand" else None
        frame = scene.render(empty_of(pos) if what == "empty" else pos, frame_index=0, hand=hand)
        small = cv2.resize(frame, (s.resolution[0] * 3 // 8, s.resolution[1] * 3 // 8), interpolation=cv2.INTER_AREA)
        small = (small & 0xF8) | 0x04  # 5 bits a channel: the sensor noise made the files large
        cv2.imwrite(str(folder / name), small, [cv2.IMWRITE_PNG_COMPRESSION, 9])
        print(folder / name)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="/tmp/photo_scene")
    ap.add_argument("--only", default=None)
    ap.add_argument("--docs", default=None, help="write the small pictures of docs/vision.md into this folder")
    args = ap.parse_args()
    if args.docs:
        write_doc_pictures(Path(args.docs))
        return
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for s in SETUPS:
        if args.only and args.only not in s.name:
            continue
        scene = PhotoScene(s, seed=1)
        pos = start_position(s)
        if s.board == "black":
            pos = dataclasses.replace(pos, black_dog=3)
        frame = scene.render(pos, frame_index=0, lit={"T5": (0, 255, 0)})
        cv2.imwrite(str(out / f"{s.name}.png"), frame)
        print(out / f"{s.name}.png")


if __name__ == "__main__":
    main()
