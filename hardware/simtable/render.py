"""SimTable: any position of any edition rendered as the overhead camera would see it.

Per frame: copy the cached board print, paste pieces, LED glow and the card; warp into
the camera image; draw hands; multiply by a lighting map (with the hands' shadow); blur;
add noise. Every random choice comes from a generator seeded by (seed, frame_index), so
a frame depends only on its arguments.
"""
from __future__ import annotations

import functools
import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

import engine
from hardware.simtable.board import BoardLook, Canvas, static_board
from hardware.simtable.hand import Hand
from hardware.simtable.look import SceneLook, load_look
from hardware.simtable.pose import CameraPose, project
from hardware.simtable.sprites import add_glow, card_sprite, glow_patch, glow_profile, paste, paste_rotated, piece_sprite

log = logging.getLogger(__name__)

RANK_MARKS = ("king", "knight", "citizen", "fool")
PIECE_RADIUS_MM = 7.6
DOG_RADIUS_MM = 8.2
LOWRES = 4  # lighting and shadow maps are computed at 1/LOWRES of the output size
NOISE_BANK = 3
NOISE_PAD = 24


@dataclass(frozen=True)
class SceneEffects:
    """Everything about a frame that is not the game: light, shadows, camera, sensor.

    light_level: overall brightness gain (1 = as drawn). light_gradient: brightness
    difference across the picture (0.3 = one side 30% brighter than the other), along
    light_angle_deg (0 = brighter on the right, 90 = brighter at the bottom).
    vignette: darkening towards the corners. light_flicker: per-frame random change of
    the level (std. dev., e.g. 0.05). tint_rgb: white-balance gains per channel.
    shadow_strength: darkness of piece and hand shadows (0..1); shadow_offset_mm: where
    a piece's shadow falls. noise_sigma: sensor noise (grey levels, std. dev.).
    blur_sigma: optical blur (pixels). glow_strength: LED brightness (1 = full).
    camera_jitter_deg / camera_jitter_mm: per-frame random camera movement.
    card_jitter_deg: random turn of the card on the discard zone. piece_jitter_mm: how far
    off-centre people put pieces (fixed per field and seed, not per frame). glare: a lamp's
    reflection (0..1, brightening up to 1+glare) centred at glare_at (fractions of width,
    height). board_shadow: darkness (0..1) of the board's shadow on the table.
    """

    light_level: float = 1.0
    light_gradient: float = 0.2
    light_angle_deg: float = 30.0
    vignette: float = 0.15
    light_flicker: float = 0.0
    tint_rgb: tuple[float, float, float] = (1.0, 1.0, 1.0)
    shadow_strength: float = 0.45
    shadow_offset_mm: tuple[float, float] = (2.5, 3.0)
    noise_sigma: float = 2.5
    blur_sigma: float = 0.6
    glow_strength: float = 1.0
    camera_jitter_deg: float = 0.0
    camera_jitter_mm: float = 0.0
    card_jitter_deg: float = 4.0
    piece_jitter_mm: float = 0.8
    glare: float = 0.0
    glare_at: tuple[float, float] = (0.65, 0.3)
    board_shadow: float = 0.0

    @classmethod
    def clean(cls) -> SceneEffects:
        """No noise, blur, jitter or uneven light: for exact pixel checks."""
        return cls(light_gradient=0.0, vignette=0.0, shadow_strength=0.0, noise_sigma=0.0, blur_sigma=0.0,
                   card_jitter_deg=0.0, piece_jitter_mm=0.0)

    @classmethod
    def harsh(cls) -> SceneEffects:
        """A difficult evening table: dim, uneven, noisy, soft focus, a wobbly camera."""
        return cls(light_level=0.7, light_gradient=0.5, vignette=0.35, light_flicker=0.06,
                   tint_rgb=(1.08, 1.0, 0.85), shadow_strength=0.6, noise_sigma=7.0, blur_sigma=1.3,
                   camera_jitter_deg=0.25, camera_jitter_mm=3.0, card_jitter_deg=10.0, piece_jitter_mm=2.0,
                   glare=0.35)


class SimTable:
    """Renders positions as camera frames. See hardware/simtable/README_FOR_VISION.md."""

    def __init__(
        self,
        segments: int = 4,
        seed: int = 0,
        resolution: tuple[int, int] = (1280, 720),
        pose: CameraPose = CameraPose(),
        effects: SceneEffects = SceneEffects(),
        px_per_mm: float | None = None,
        look_path: str | None = None,
    ) -> None:
        if segments not in (4, 6):
            raise ValueError(f"segments must be 4 or 6, not {segments!r}")
        self.segments = segments
        if seed < 0:
            raise ValueError(f"seed must be 0 or more, not {seed}")
        self.seed = int(seed)
        self.resolution = (int(resolution[0]), int(resolution[1]))
        self.pose = pose
        self.effects = effects
        # The canvas needs ~1.6 canvas pixels per image pixel for crisp edges after the
        # warp; more only costs time.
        self.px_per_mm = float(px_per_mm) if px_per_mm else round(min(3.0, max(1.0, 1.6 * pose.focal_px / pose.height_mm)), 2)
        self.look_path = look_path
        self.geometry = engine.load_geometry(segments)
        self.look: SceneLook = load_look(look_path)
        self.canvas = Canvas(self.px_per_mm, self.geometry.size)
        self._offsets = self._piece_offsets()
        self._bg: np.ndarray | None = None
        self._bg_key: object = None

    # --- geometry --------------------------------------------------------------------
    def pose_for(self, frame_index: int | None = None) -> CameraPose:
        """The camera pose of a frame (with its jitter), or the nominal pose for None."""
        if frame_index is None:
            return self.pose
        fx = self.effects
        rng = self._rng(frame_index, 1)
        return self.pose.jittered(rng, fx.camera_jitter_deg, fx.camera_jitter_mm)

    def homography(self, frame_index: int | None = None) -> np.ndarray:
        """3x3: board millimetres -> image pixels, for a frame (None: the nominal pose)."""
        return self.pose_for(frame_index).homography(self.resolution)

    def pixel_of(self, field_id: str, frame_index: int | None = None) -> tuple[float, float]:
        """Image position (x, y) of a field's centre for the nominal pose (or a frame's pose)."""
        x, y = project(self.homography(frame_index), np.array([self.geometry.centre(field_id)]))[0]
        return (float(x), float(y))

    def pixel_of_mm(self, point_mm: tuple[float, float], frame_index: int | None = None) -> tuple[float, float]:
        x, y = project(self.homography(frame_index), np.array([point_mm]))[0]
        return (float(x), float(y))

    # --- rendering -------------------------------------------------------------------
    def render(
        self,
        position: engine.Position,
        lit: Mapping[str, tuple[int, int, int]] | None = None,
        card: str | None = None,
        hand: Hand | Sequence[Hand] | None = None,
        frame_index: int = 0,
        card_angle_deg: float = 0.0,
    ) -> np.ndarray:
        """A BGR uint8 frame (H, W, 3) of `position`, with LEDs, a card and hands."""
        if position.board.segments != self.segments:
            raise ValueError(f"this SimTable draws a {self.segments}-segment board; "
                             f"the position is on {position.board.segments} segments")
        fx = self.effects
        board = static_board(BoardLook.of(position, self.px_per_mm, self.look_path))
        canvas = board.copy()
        cv = self.canvas
        s = self.px_per_mm
        if card is not None:
            face = self.look.cards.get(card)
            if face is None:
                raise ValueError(f"no card face for {card!r} in {self.look.source} (card ids: {', '.join(engine.ALL_CARDS)})")
            sprite = card_sprite(card, face, s, self.geometry.discard_size)
            jitter = self._rng(frame_index, 2).normal(0.0, fx.card_jitter_deg) if fx.card_jitter_deg > 0 else 0.0
            paste_rotated(canvas, sprite, *cv.px(*self.geometry.discard_centre), card_angle_deg + jitter)
        shadow = (fx.shadow_offset_mm[0] * s, fx.shadow_offset_mm[1] * s, round(fx.shadow_strength, 3))
        for field, seat, index in piece_fields(position):
            x, y = self.geometry.centre(field)
            ox, oy = self._offsets.get(field, (0.0, 0.0))
            u, v = cv.px(x + ox * fx.piece_jitter_mm, y + oy * fx.piece_jitter_mm)
            if seat < 0:
                sprite = piece_sprite(self.look.dog_body, DOG_RADIUS_MM * s, shadow, "dog", self.look.dog_mark)
            else:
                colour = self.look.seat_bgr(position.board.colours[seat])
                mark = RANK_MARKS[index] if position.variant.name == "royal" and index < 4 else ""
                sprite = piece_sprite(colour, PIECE_RADIUS_MM * s, shadow, mark)
            paste(canvas, sprite, u, v)
        if lit:
            profile, anchor = glow_profile((self.geometry.field_radius + 1.2) * s, 2.2 * s)
            patches: dict[tuple[int, int, int], np.ndarray] = {}
            for field, rgb in lit.items():
                x, y = self.geometry.centre(field)
                key = (int(rgb[0]), int(rgb[1]), int(rgb[2]))
                if key not in patches:
                    g = fx.glow_strength
                    patches[key] = glow_patch(profile, (key[2] * g, key[1] * g, key[0] * g))
                add_glow(canvas, patches[key], anchor, *cv.px(x, y))
        h_mm = self.homography(frame_index)
        frame = self._background().copy()
        self._warp_board(canvas, h_mm, frame)
        hands = () if hand is None else ((hand,) if isinstance(hand, Hand) else tuple(hand))
        level = fx.light_level
        if fx.light_flicker > 0:
            level *= 1 + fx.light_flicker * float(self._rng(frame_index, 4).normal())
        if hands:
            low = _gain_map(self.resolution, fx, LOWRES).copy()
            self._draw_hands(frame, low, hands, h_mm)
            gain = cv2.resize(low, self.resolution, interpolation=cv2.INTER_LINEAR)
        else:
            gain = _gain_map(self.resolution, fx, 1)
        frame = cv2.multiply(frame, gain, scale=level / 128)
        if fx.blur_sigma > 0:
            frame = cv2.GaussianBlur(frame, (0, 0), fx.blur_sigma)
        if fx.noise_sigma > 0:
            w, h = self.resolution
            bank = _noise_bank(self.resolution, round(fx.noise_sigma, 2), self.seed)
            rng = self._rng(frame_index, 3)
            k = int(rng.integers(NOISE_BANK))
            dx, dy = (int(v) for v in rng.integers(0, NOISE_PAD, 2))
            frame = cv2.addWeighted(frame, 1.0, bank[k, dy : dy + h, dx : dx + w], 1.0, -128.0)
        return frame

    def _warp_board(self, canvas: np.ndarray, h_mm: np.ndarray, frame: np.ndarray) -> None:
        """Warp the board canvas into the frame, touching only the board's bounding box."""
        m = h_mm @ np.linalg.inv(self.canvas.matrix())
        ch, cw = canvas.shape[:2]
        corners = _project_safe(m, np.array([[0, 0], [cw - 1, 0], [cw - 1, ch - 1], [0, ch - 1]], float))
        w, h = self.resolution
        if corners is None:
            x0, y0, x1, y1 = 0, 0, w, h
        else:
            x0, y0 = (max(0, int(math.floor(v)) - 1) for v in corners.min(axis=0))
            x1, y1 = min(w, int(math.ceil(corners[:, 0].max())) + 2), min(h, int(math.ceil(corners[:, 1].max())) + 2)
            if x0 >= x1 or y0 >= y1:
                return
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]])
        cv2.warpPerspective(canvas, shift @ m, (x1 - x0, y1 - y0), dst=frame[y0:y1, x0:x1],
                            flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT)

    # --- internals -------------------------------------------------------------------
    def _rng(self, frame_index: int, stream: int) -> np.random.Generator:
        if frame_index < 0:
            raise ValueError(f"frame_index must be 0 or more, not {frame_index}")
        return np.random.default_rng((self.seed, int(frame_index), stream))

    def _piece_offsets(self) -> dict[str, tuple[float, float]]:
        """Unit offsets per field, fixed for the seed: where a hand tends to drop a piece."""
        rng = np.random.default_rng((self.seed, 0xD06))
        out = {}
        for field in self.geometry.centres:
            a = rng.uniform(0, 2 * math.pi)
            r = min(1.0, abs(rng.normal(0, 0.6)))
            out[field] = (r * math.cos(a), r * math.sin(a))
        return out

    def _background(self) -> np.ndarray:
        """The table around the board, with the board's own shadow for the nominal pose."""
        key = (self.pose, self.resolution, self.effects.board_shadow)
        if self._bg_key != key:
            bg = _table_background(self.resolution, self.look.board["table"], self.seed).copy()
            if self.effects.board_shadow > 0:
                half_w, half_h = (v / 2 for v in self.geometry.size)
                dx, dy = (v * 3 for v in self.effects.shadow_offset_mm)
                quad = np.array([[-half_w + dx, -half_h + dy], [half_w + dx, -half_h + dy],
                                 [half_w + dx, half_h + dy], [-half_w + dx, half_h + dy]])
                pts = _project_safe(self.homography(), quad)
                if pts is not None:
                    mask = np.zeros(bg.shape[:2], np.uint8)
                    cv2.fillPoly(mask, [_fixed(pts)], 255, cv2.LINE_AA, 4)
                    mask = cv2.GaussianBlur(mask, (0, 0), 6)
                    f = 1 - self.effects.board_shadow * mask.astype(np.float32)[..., None] / 255
                    bg = (bg * f).astype(np.uint8)
            bg.setflags(write=False)
            self._bg, self._bg_key = bg, key
        return self._bg

    def _draw_hands(self, frame: np.ndarray, gain: np.ndarray, hands: tuple[Hand, ...], h_mm: np.ndarray) -> None:
        """Draw hands onto the frame and their shadow into the low-resolution gain map."""
        fx = self.effects
        lh, lw = gain.shape[:2]
        w, h = self.resolution
        low = np.diag([lw / w, lh / h, 1.0])
        shadow = np.zeros((lh, lw), np.uint8)
        cover = np.zeros((lh, lw), np.uint8)
        for hand in hands:
            polys = hand.polygons(self.geometry)
            sx = fx.shadow_offset_mm[0] / 3.0 * hand.height_mm / 10
            sy = fx.shadow_offset_mm[1] / 3.0 * hand.height_mm / 10
            skin = self.look.skin_tones[hand.skin % len(self.look.skin_tones)]
            shade = [tuple(int(c * f) for c in skin) for f in (0.9, 1.0, 0.95, 1.0, 1.02, 1.0, 0.97)]
            for i, poly in enumerate(polys):
                img_pts = _project_safe(h_mm, poly)
                if img_pts is None:
                    continue
                sh_pts = _project_safe(h_mm, poly + np.array([sx, sy]))
                if sh_pts is not None:
                    cv2.fillPoly(shadow, [_fixed(sh_pts @ low[:2, :2].T)], 255, cv2.LINE_AA, 4)
                cv2.fillPoly(cover, [_fixed(img_pts @ low[:2, :2].T)], 255, cv2.LINE_AA, 4)
                cv2.fillPoly(frame, [_fixed(img_pts)], shade[i % len(shade)], cv2.LINE_AA, 4)
            # Knuckle and finger-gap lines give the hand some relief.
            for poly in polys[3:]:
                img_pts = _project_safe(h_mm, poly)
                if img_pts is not None:
                    cv2.polylines(frame, [_fixed(img_pts)], True, tuple(int(c * 0.78) for c in skin), 1,
                                  cv2.LINE_AA, 4)
        if fx.shadow_strength > 0:
            k = max(3, (int(12 / LOWRES) | 1))
            shadow = cv2.GaussianBlur(shadow, (k, k), 0)
            shadow = cv2.subtract(shadow, cover)
            factor = 1 - fx.shadow_strength * shadow.astype(np.float32) / 255
            gain[:] = np.clip(gain * factor[..., None], 0, 255).astype(np.uint8)


def piece_fields(position: engine.Position) -> list[tuple[str, int, int]]:
    """(field id, seat, piece index) of every piece, seat -1 for the black dog.

    Same field ids as Position.field_occupancy (kennel pieces fill K0, K1, ... in order),
    but keeping the piece index, which is the rank in royal.
    """
    out = []
    for seat, locs in enumerate(position.pieces):
        if locs is None:
            continue
        kennel = 0
        for index, loc in enumerate(locs):
            if loc < engine.HOME:
                out.append((f"T{loc}", seat, index))
            elif loc < engine.KENNEL:
                out.append((f"S{seat}H{loc - engine.HOME}", seat, index))
            else:
                out.append((f"S{seat}K{kennel}", seat, index))
                kennel += 1
    if position.black_dog is not None:
        out.append((f"T{position.black_dog}", -1, 0))
    return out


def _project_safe(h: np.ndarray, pts: np.ndarray) -> np.ndarray | None:
    hom = np.column_stack([pts, np.ones(len(pts))]) @ h.T
    if np.any(hom[:, 2] <= 1e-6):
        return None  # behind the camera: cannot happen for sane poses, so skip the part
    return hom[:, :2] / hom[:, 2:3]


def _fixed(pts: np.ndarray) -> np.ndarray:
    return np.round(np.clip(pts, -1e5, 1e5) * 16).astype(np.int32)


@functools.lru_cache(maxsize=16)
def _gain_map(resolution: tuple[int, int], fx: SceneEffects, reduce: int) -> np.ndarray:
    """Lighting as a gain map (uint8, 128 = 1.0, 3 channels) at 1/reduce of the frame size.

    The per-frame level (flicker) is a scalar applied when multiplying, so the map itself
    is fixed for the effects and cached.
    """
    w, h = resolution
    lw, lh = max(2, w // reduce), max(2, h // reduce)
    yy, xx = np.mgrid[0:lh, 0:lw].astype(np.float32)
    nx, ny = xx / (lw - 1) - 0.5, yy / (lh - 1) - 0.5
    a = math.radians(fx.light_angle_deg)
    g = 1 + fx.light_gradient * (nx * math.cos(a) + ny * math.sin(a))
    g = g * (1 - fx.vignette * (nx**2 + ny**2) * 2)
    if fx.glare > 0:
        gx, gy = fx.glare_at[0] - 0.5, fx.glare_at[1] - 0.5
        g = g + fx.glare * np.exp(-((nx - gx) ** 2 + ((ny - gy) * lh / lw) ** 2) / (2 * 0.06**2))
    t = fx.tint_rgb
    gain = np.clip(np.stack([g * t[2], g * t[1], g * t[0]], axis=-1) * 128, 0, 255).astype(np.uint8)
    gain.setflags(write=False)
    return gain


@functools.lru_cache(maxsize=8)
def _table_background(resolution: tuple[int, int], colour: tuple[int, int, int], seed: int) -> np.ndarray:
    """A wooden table top around the board: streaks along x, fixed for the seed."""
    w, h = resolution
    rng = np.random.default_rng((seed, 0x7AB1E))
    streak = cv2.resize(rng.normal(0, 1, (h // 6 + 2, 8)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    fine = cv2.resize(rng.normal(0, 1, (h // 2 + 2, w // 16 + 2)).astype(np.float32), (w, h),
                      interpolation=cv2.INTER_LINEAR)
    f = 1 + 0.10 * streak + 0.04 * fine
    img = np.clip(np.array(colour, np.float32)[None, None, :] * f[..., None], 0, 255).astype(np.uint8)
    img.setflags(write=False)
    return img


@functools.lru_cache(maxsize=4)
def _noise_bank(resolution: tuple[int, int], sigma: float, seed: int) -> np.ndarray:
    """A few frames of sensor noise around 128, read at random offsets per frame."""
    w, h = resolution
    rng = np.random.default_rng((seed, 0x9015E))
    bank = np.empty((NOISE_BANK, h + NOISE_PAD, w + NOISE_PAD, 3), np.uint8)
    # One noise frame at a time, in place: the whole bank in float32 with its temporaries
    # was a 100 MB peak at start-up (the generator gives the same numbers either way).
    for i in range(NOISE_BANK):
        n = rng.standard_normal(bank.shape[1:], dtype=np.float32)
        n *= sigma
        n += 128
        np.clip(n, 0, 255, out=n)
        bank[i] = n
    bank.setflags(write=False)
    return bank


def with_effects(table: SimTable, **changes: object) -> SimTable:
    """A copy of a SimTable with some effects changed (tables are cheap: caches are shared)."""
    return SimTable(table.segments, table.seed, table.resolution, table.pose, replace(table.effects, **changes),
                    table.px_per_mm, table.look_path)
