"""Device settings as values: what `companion.config` validates the TOML file into.

They live here (not in companion) because the hardware factories take them and hardware
may not import companion. Defaults equal `companion/data/default-config.toml` and the
wiring in docs/hardware.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field

LED_BACKENDS = ("ws281x", "bridge", "simulated", "none")
INPUT_BACKENDS = ("gpio", "bridge", "simulated", "none")
CAMERA_BACKENDS = ("opencv", "picamera2", "file", "simulated", "none")
BUTTON_NAMES = ("confirm", "undo", "hint", "mode")
# GPIOs that rpi-ws281x can drive: PWM0 (12, 18), PWM1 (13, 19), PCM (21), SPI MOSI (10).
WS281X_PINS = (10, 12, 13, 18, 19, 21)


@dataclass(frozen=True)
class LedSettings:
    backend: str = "ws281x"
    count: int = 0  # 0: as many as the LED map uses
    map: str = ""  # LED map file; "" = rings of `leds_per_ring` in field order (engine Board.field_ids)
    leds_per_ring: int = 8
    pin: int = 18
    brightness: float = 0.5  # 0..1, applied before the power budget
    max_current_ma: int = 2500
    ma_per_channel: float = 20.0  # one colour channel of one LED at full
    idle_ma_per_led: float = 1.0
    order: str = "GRB"
    frequency_hz: int = 800_000
    dma: int = 10
    invert: bool = False


@dataclass(frozen=True)
class EncoderSettings:
    backend: str = "gpio"
    pin_a: int = 17
    pin_b: int = 27
    steps_per_quarter: int = 6
    reverse: bool = False
    settle_s: float = 0.25
    bounce_ms: int = 0  # 0: none (the quarter-turn tracker tolerates bounce itself)


@dataclass(frozen=True)
class ButtonSettings:
    backend: str = "gpio"
    pins: dict[str, int] = field(default_factory=lambda: {"confirm": 5, "undo": 6, "hint": 16, "mode": 26})
    bridge_index: dict[str, int] = field(default_factory=lambda: {"confirm": 0, "undo": 1, "hint": 2, "mode": 3})
    pull_up: bool = True
    bounce_ms: int = 30
    hold_s: float = 1.0


@dataclass(frozen=True)
class CameraSettings:
    backend: str = "picamera2"
    device: str = "/dev/video0"  # opencv: a device path or an index
    path: str = ""  # file: an image or a video
    width: int = 1280
    height: int = 720
    fps: int = 15
    exposure: str = "lock"  # "auto", "lock" (settle, then freeze) or microseconds, e.g. "8000"
    white_balance: str = "lock"  # "auto", "lock" or a colour temperature in kelvin, e.g. "4500"
    settle_s: float = 1.0


@dataclass(frozen=True)
class BridgeSettings:
    port: str = "/dev/ttyACM0"
    baudrate: int = 921600
    connect_timeout_s: float = 3.0


@dataclass(frozen=True)
class TableSettings:
    segments: int = 4
    edition: str = "classic"
    seed: int = 0  # the simulated table's seed


@dataclass(frozen=True)
class HardwareSettings:
    leds: LedSettings = LedSettings()
    encoder: EncoderSettings = EncoderSettings()
    buttons: ButtonSettings = ButtonSettings()
    camera: CameraSettings = CameraSettings()
    bridge: BridgeSettings = BridgeSettings()
    table: TableSettings = TableSettings()

    def simulated(self) -> HardwareSettings:
        """The same settings with every device on its simulated backend."""
        from dataclasses import replace

        return replace(
            self,
            leds=replace(self.leds, backend="simulated"),
            encoder=replace(self.encoder, backend="simulated"),
            buttons=replace(self.buttons, backend="simulated"),
            camera=replace(self.camera, backend="simulated"),
        )
