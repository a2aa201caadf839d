"""LED rings under the fields: what to light (by field), a power budget, and the strips.

`LedRings` speaks fields and meanings (legal sources and targets, a confirmed play, a
violation); an output turns that into light. Two kinds of output exist: a pixel strip
(`Ws281xStrip`, `SimulatedStrip`: one colour per LED, animation done here) and a field
sink (`BridgeLeds`: one colour and pattern per ring, the MCU animates).
"""
from __future__ import annotations

import logging
import math
import threading
import time
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

import engine
from hardware.errors import DeviceUnavailable, HardwareError
from hardware.ledmap import LedMap
from hardware.machine import board_model, is_raspberry_pi, is_raspberry_pi_5

log = logging.getLogger(__name__)

RGB = tuple[int, int, int]
OFF: RGB = (0, 0, 0)
SOURCE: RGB = (255, 150, 0)  # a piece that may move
TARGET: RGB = (0, 190, 255)  # where it may go
PLAYED: RGB = (0, 255, 60)  # a confirmed play: green means "that was right"
VIOLATION: RGB = (255, 0, 0)  # flashes
HINT: RGB = (160, 60, 255)  # the training hint
PATTERNS = ("solid", "blink", "pulse", "flash")
FLASH_HZ = 4.0
BLINK_HZ = 1.0


@dataclass(frozen=True)
class Light:
    colour: RGB
    pattern: str = "solid"
    # lit for the people only: the light looks like a piece of its colour (a play of another
    # table shown in that player's colour), so the camera reads those fields with the LEDs off
    eye_only: bool = False

    def __post_init__(self) -> None:
        if self.pattern not in PATTERNS:
            raise ValueError(f"LED pattern must be one of {', '.join(PATTERNS)}, not {self.pattern!r}")

    def level_at(self, t: float) -> float:
        """Brightness factor of the pattern at time t (seconds): how a pixel strip animates it."""
        if self.pattern == "flash":
            return 1.0 if (t * FLASH_HZ) % 1.0 < 0.5 else 0.0
        if self.pattern == "blink":
            return 1.0 if (t * BLINK_HZ) % 1.0 < 0.5 else 0.0
        if self.pattern == "pulse":
            return 0.15 + 0.85 * (0.5 - 0.5 * math.cos(2 * math.pi * t / 1.5))
        return 1.0


# The table service speaks in roles per field (companion.table.leds); this is how each looks.
ROLE_LIGHTS: dict[str, Light] = {
    "movable": Light(SOURCE, "pulse"), "target": Light(TARGET), "hint": Light(HINT, "blink"),
    "ok": Light(PLAYED), "error": Light(VIOLATION, "flash"),
}
# A play made at another table is carried out here in that player's colour: "remote_from-<colour>"
# where a piece is picked up (pulsing), "remote_to-<colour>" where it goes (steady). The pieces'
# colours as LEDs show them; black as violet, since an LED cannot be black.
PLAYER_RGB: dict[str, RGB] = {"red": (255, 20, 10), "blue": (20, 60, 255), "green": (0, 220, 40),
                              "yellow": (255, 190, 0), "white": (255, 255, 255), "black": (110, 0, 200)}
PLAYER_ROLES = {"remote_from": "pulse", "remote_to": "solid"}


def role_light(role: str) -> Light | None:
    """How the rings draw `role` (a `ROLE_LIGHTS` name or a player-coloured one); None if unknown."""
    light = ROLE_LIGHTS.get(role)
    if light is not None:
        return light
    kind, _, colour = role.partition("-")
    if kind in PLAYER_ROLES and colour in PLAYER_RGB:
        return Light(PLAYER_RGB[colour], PLAYER_ROLES[kind], eye_only=True)
    return None


@dataclass(frozen=True)
class PowerBudget:
    """Estimated strip current, and the factor that keeps it under the limit.

    A WS2812 draws about 20 mA per colour channel at full and ~1 mA doing nothing; the
    estimate is linear in the channel values, which is close enough to size a supply.
    """

    max_current_ma: float
    ma_per_channel: float = 20.0
    idle_ma_per_led: float = 1.0

    def estimate_ma(self, pixels: np.ndarray) -> float:
        """pixels: (n, 3) values 0..255."""
        return float(len(pixels) * self.idle_ma_per_led + pixels.sum() / 255.0 * self.ma_per_channel)

    def scale(self, pixels: np.ndarray) -> float:
        idle = len(pixels) * self.idle_ma_per_led
        drive = pixels.sum() / 255.0 * self.ma_per_channel
        if idle + drive <= self.max_current_ma or drive <= 0:
            return 1.0
        return max(0.0, (self.max_current_ma - idle) / drive)


class PixelStrip(Protocol):
    count: int

    def show(self, pixels: Sequence[RGB]) -> None: ...
    def close(self) -> None: ...


class FieldSink(Protocol):
    def show_fields(self, fields: Mapping[int, Light]) -> None: ...
    def close(self) -> None: ...


class LedRings:
    """Light fields by meaning. Call `update()` often (e.g. 30 Hz) so that patterns animate."""

    def __init__(
        self,
        output: PixelStrip | FieldSink,
        ledmap: LedMap,
        brightness: float = 0.5,
        budget: PowerBudget = PowerBudget(2500),
        clock=time.monotonic,
    ) -> None:
        self.output = output
        self.ledmap = ledmap
        self.brightness = min(1.0, max(0.0, brightness))
        self.budget = budget
        self.clock = clock
        self._lights: dict[str, Light] = {}
        self._lock = threading.Lock()
        self._last: object = None
        count = getattr(output, "count", None)
        if count is not None and count < ledmap.count:
            raise HardwareError(f"the LED map {ledmap.source} uses {ledmap.count} LEDs but the strip has {count}")
        self.last_scale = 1.0
        self.last_estimate_ma = 0.0

    # --- what to show -----------------------------------------------------------------
    @property
    def lights(self) -> dict[str, Light]:
        return dict(self._lights)

    def show(self, lights: Mapping[str, Light | RGB]) -> None:
        """Exactly these fields lit (others off)."""
        new = {}
        for field_id, light in lights.items():
            if field_id not in self.ledmap.rings:
                raise KeyError(f"field {field_id} has no LED ring in {self.ledmap.source}")
            new[field_id] = light if isinstance(light, Light) else Light(tuple(light))  # type: ignore[arg-type]
        with self._lock:
            self._lights = new
        self.update()

    def show_legal(self, sources: Iterable[str], targets: Iterable[str]) -> None:
        lights: dict[str, Light] = {f: Light(SOURCE, "pulse") for f in sources}
        lights.update({f: Light(TARGET) for f in targets})
        self.show(lights)

    def show_play(self, fields: Iterable[str]) -> None:
        self.show({f: Light(PLAYED) for f in fields})

    def show_violation(self, fields: Iterable[str]) -> None:
        """The offending fields flash red; whatever else was lit stays."""
        lights = dict(self._lights)
        lights.update({f: Light(VIOLATION, "flash") for f in fields})
        self.show(lights)

    def clear(self) -> None:
        self.show({})

    def show_roles(self, roles: Mapping[str, str]) -> None:
        """Field -> role (movable, target, hint, ok, error, and remote_from/remote_to-<colour>) as
        `role_light` draws them.

        Fields without a ring are left out rather than refused: kennel rings are optional,
        and a referee must not stop because a map leaves some field dark.
        """
        lights = {}
        for field_id, role in roles.items():
            if field_id not in self.ledmap.rings:
                continue
            light = role_light(role)
            if light is None:
                raise ValueError(f"unknown LED role {role!r} (known: {', '.join(ROLE_LIGHTS)}, "
                                 f"and {' or '.join(PLAYER_ROLES)}-<colour> with a colour of {', '.join(PLAYER_RGB)})")
            lights[field_id] = light
        self.show(lights)

    def set_brightness(self, brightness: float) -> None:
        self.brightness = min(1.0, max(0.0, brightness))
        self.update()

    # --- output ------------------------------------------------------------------------
    def pixels_at(self, t: float) -> np.ndarray:
        """(count, 3) uint8: the frame a pixel strip shows at time t, budget applied."""
        n = getattr(self.output, "count", None) or self.ledmap.count
        buf = np.zeros((n, 3), np.float32)
        with self._lock:
            lights = dict(self._lights)
        for field_id, light in lights.items():
            level = light.level_at(t) * self.brightness
            if level > 0:
                buf[list(self.ledmap.rings[field_id])] = np.array(light.colour, np.float32) * level
        scale = self.budget.scale(buf)
        self.last_scale = scale
        # Rounding down when scaled: rounding to nearest could land a few mA over the budget.
        out = np.clip(np.floor(buf * scale) if scale < 1 else np.round(buf), 0, 255).astype(np.uint8)
        self.last_estimate_ma = self.budget.estimate_ma(out)
        return out

    def field_lights(self) -> dict[int, Light]:
        """Per ring index: colour after brightness and budget (patterns at full), for a field sink."""
        with self._lock:
            lights = dict(self._lights)
        n = self.ledmap.count
        buf = np.zeros((n, 3), np.float32)
        for field_id, light in lights.items():
            buf[list(self.ledmap.rings[field_id])] = np.array(light.colour, np.float32) * self.brightness
        scale = self.budget.scale(buf)
        self.last_scale = scale
        self.last_estimate_ma = self.budget.estimate_ma(np.floor(buf * scale))
        f = self.brightness * scale
        return {
            self.ledmap.index_of(fid): Light(tuple(int(c * f) for c in light.colour), light.pattern)  # type: ignore[misc]
            for fid, light in lights.items()
        }

    def update(self, now: float | None = None) -> None:
        if hasattr(self.output, "show_fields"):
            state = self.field_lights()
            if state != self._last:
                self._last = state
                self.output.show_fields(state)  # type: ignore[union-attr]
            return
        frame = self.pixels_at(self.clock() if now is None else now)
        key = frame.tobytes()
        if key != self._last:
            self._last = key
            self.output.show([tuple(int(v) for v in p) for p in frame])  # type: ignore[union-attr, misc]

    def close(self) -> None:
        try:
            self.clear()
        finally:
            self.output.close()


# --- outputs ------------------------------------------------------------------------------
@dataclass(frozen=True)
class StripFrame:
    index: int
    pixels: tuple[RGB, ...]


class SimulatedStrip:
    """A strip that records every frame shown (the newest `keep`) and can draw them."""

    def __init__(self, count: int, keep: int = 10_000) -> None:
        self.count = count
        self.frames: deque[StripFrame] = deque(maxlen=keep)
        self.shown = 0
        self.closed = False

    def show(self, pixels: Sequence[RGB]) -> None:
        if len(pixels) != self.count:
            raise HardwareError(f"simulated strip has {self.count} LEDs, got a frame of {len(pixels)}")
        self.frames.append(StripFrame(self.shown, tuple(tuple(int(c) for c in p) for p in pixels)))  # type: ignore[misc]
        self.shown += 1

    @property
    def current(self) -> tuple[RGB, ...]:
        return self.frames[-1].pixels if self.frames else tuple(OFF for _ in range(self.count))

    def lit_fields(self, ledmap: LedMap, frame: StripFrame | None = None) -> dict[str, RGB]:
        """Field -> the ring's brightest colour, for fields whose ring is on (feeds SimTable's `lit`)."""
        pixels = frame.pixels if frame is not None else self.current
        out = {}
        for field_id, leds in ledmap.rings.items():
            best = max((pixels[i] for i in leds if i < len(pixels)), key=sum, default=OFF)
            if sum(best) > 0:
                out[field_id] = best
        return out

    def render(self, ledmap: LedMap, segments: int = 4, px_per_mm: float = 1.0,
               frame: StripFrame | None = None) -> np.ndarray:
        """A top-down picture (BGR) of the rings: each LED a dot on its field's circle."""
        import cv2

        geo = engine.load_geometry(segments)
        w, h = (int(math.ceil(v * px_per_mm)) for v in geo.size)
        img = np.full((h, w, 3), 24, np.uint8)
        pixels = frame.pixels if frame is not None else self.current
        r = (geo.field_radius + 1) * px_per_mm
        for field_id, leds in ledmap.rings.items():
            if field_id not in geo.centres:
                continue
            cx, cy = ((v + s / 2) * px_per_mm for v, s in zip(geo.centres[field_id], geo.size))
            cv2.circle(img, (int(cx), int(cy)), int(r), (60, 60, 60), 1, cv2.LINE_AA)
            for k, i in enumerate(leds):
                a = 2 * math.pi * k / len(leds)
                rgb = pixels[i] if i < len(pixels) else OFF
                cv2.circle(img, (int(cx + r * math.cos(a)), int(cy + r * math.sin(a))), max(1, int(1.6 * px_per_mm)),
                           (rgb[2], rgb[1], rgb[0]) if sum(rgb) else (45, 45, 45), -1, cv2.LINE_AA)
        return img

    def close(self) -> None:
        self.closed = True


class Ws281xStrip:
    """WS2812/SK6812 on a Pi GPIO through rpi-ws281x (PWM on GPIO18/12/13/19, SPI on GPIO10).

    Refuses to start off a Raspberry Pi and on a Pi 5 (which rpi-ws281x does not support):
    constructing the library's strip elsewhere fails to start and can crash the
    interpreter at teardown, so the check comes before the import.
    """

    def __init__(self, count: int, pin: int = 18, frequency_hz: int = 800_000, dma: int = 10,
                 invert: bool = False, order: str = "GRB", model: str | None = None) -> None:
        model = board_model() if model is None else model
        if not is_raspberry_pi(model):
            raise DeviceUnavailable(
                "LEDs (rpi-ws281x): not available on this machine (not a Raspberry Pi); "
                "set leds.backend = \"simulated\" or \"bridge\"")
        if is_raspberry_pi_5(model):
            raise DeviceUnavailable(
                "LEDs (rpi-ws281x): not available on a Raspberry Pi 5 (the library does not support it); "
                "drive the LEDs from the Pico and set leds.backend = \"bridge\"")
        try:
            import rpi_ws281x  # type: ignore[import-not-found]
        except ImportError:
            raise DeviceUnavailable(
                "LEDs (rpi-ws281x): the library is not installed; run: pip install 'dogtable[pi]'") from None
        strip_type = getattr(rpi_ws281x, f"WS2811_STRIP_{order.upper()}", None)
        if strip_type is None:
            raise HardwareError(f"leds.order {order!r} is not a colour order rpi-ws281x knows (e.g. GRB, RGB)")
        channel = 1 if pin in (13, 19) else 0
        self.count = count
        self._lib = rpi_ws281x
        self._strip = rpi_ws281x.PixelStrip(count, pin, frequency_hz, dma, invert, 255, channel, strip_type)
        try:
            self._strip.begin()
        except RuntimeError as exc:
            hint = ("run as root for PWM, or use GPIO10 (SPI, needs dtparam=spi=on) without root"
                    if pin != 10 else "enable SPI (dtparam=spi=on) and add the user to the spi group")
            raise DeviceUnavailable(f"LEDs (rpi-ws281x on GPIO{pin}): cannot start ({exc}); {hint}") from None

    def show(self, pixels: Sequence[RGB]) -> None:
        for i, (r, g, b) in enumerate(pixels):
            self._strip.setPixelColor(i, self._lib.Color(int(r), int(g), int(b)))
        self._strip.show()

    def close(self) -> None:
        self.show([OFF] * self.count)


class BridgeLeds:
    """Rings lit by the microcontroller: the host sends (field index, pattern, colour)."""

    def __init__(self, link) -> None:  # link: hardware.bridge.BridgeLink
        self.link = link
        self.sent: list[dict[int, Light]] = []

    def show_fields(self, fields: Mapping[int, Light]) -> None:
        self.link.set_fields(dict(fields))
        self.sent.append(dict(fields))
        del self.sent[:-100]

    def close(self) -> None:
        pass  # the link belongs to whoever opened it
