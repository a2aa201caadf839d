"""Build the devices named in the settings: one backend per device, chosen by configuration.

Each device opens on its own; one that cannot (no Pi, no camera, library missing) is left
out and its reason kept in `Devices.problems`, so that `dogtable hw test` can report every
device. `simulate=True` (or backend "simulated") puts a device on the simulated table:
gpiozero devices on a `MockFactory`, a recording LED strip, frames from `PlayTable`.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace

import engine
from hardware.bridge import BridgeLink, FirmwareBridgeLink
from hardware.buttons import BridgeButtons, ButtonDriver, Buttons, GpioButtons
from hardware.camera import CameraSource, FileSource, OpenCvCamera, PiCamera2Source, SimTableCamera
from hardware.encoder import BridgeDiscEncoder, DiscEncoder, GpioDiscEncoder, QuadratureDriver
from hardware.errors import DeviceUnavailable, HardwareError
from hardware.ledmap import LedMap
from hardware.leds import BridgeLeds, LedRings, PowerBudget, SimulatedStrip, Ws281xStrip
from hardware.machine import is_raspberry_pi
from hardware.settings import HardwareSettings

log = logging.getLogger(__name__)


@dataclass
class Devices:
    """The open devices (None where unavailable) and why the missing ones are missing."""

    settings: HardwareSettings
    leds: LedRings | None = None
    encoder: DiscEncoder | None = None
    buttons: Buttons | None = None
    camera: CameraSource | None = None
    table: object | None = None  # hardware.simtable.play.PlayTable when anything is simulated
    bridge: BridgeLink | None = None
    strip: SimulatedStrip | None = None
    problems: dict[str, str] = field(default_factory=dict)
    pin_factory: object | None = None

    def close(self) -> None:
        for dev in (self.leds, self.encoder, self.buttons, self.camera, self.bridge):
            if dev is not None:
                try:
                    dev.close()
                except Exception:  # closing must go on for the other devices
                    log.exception("closing %r failed", dev)
        if self.pin_factory is not None:
            self.pin_factory.close()

    def __enter__(self) -> Devices:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def start_position(edition: str, segments: int) -> engine.Position:
    """All pieces in the kennels: the table before a game."""
    try:
        variant = engine.get_variant(edition)
    except engine.EngineError:
        variant = None
    if variant is not None:
        try:
            return engine.parse_position({"variant": edition, "board": segments, "pieces": [["K"] * variant.pieces] * segments})
        except engine.EngineError:
            pass
    # Editions the engine cannot parse yet: draw their board with classic pieces.
    kind = {"black": "black", "royal": "royal", "royal-basic": "royal"}.get(edition, "standard")
    board = engine.load_board(kind, segments)
    classic = engine.get_variant("classic")
    return engine.Position(classic, board, tuple((engine.KENNEL,) * classic.pieces for _ in range(segments)))


def load_ledmap(settings: HardwareSettings) -> LedMap:
    s = settings.leds
    if s.map:
        return LedMap.load(s.map)
    home = 4
    try:
        home = engine.get_variant(settings.table.edition).home_slots
    except engine.EngineError:
        pass
    return LedMap.generated(settings.table.segments, s.leds_per_ring, home_slots=home)


def open_devices(settings: HardwareSettings, simulate: bool = False, *, link: BridgeLink | None = None,
                 pin_factory=None, bridge: bool = False) -> Devices:
    """Open every configured device. `link` replaces the serial bridge (tests, simulation).

    `bridge=True` opens the bridge even when no LED, encoder or button backend uses it:
    the service wants the microcontroller's RFID reader on its own.
    """
    if simulate:
        settings = settings.simulated()
    devices = Devices(settings)
    backends = {settings.leds.backend, settings.encoder.backend, settings.buttons.backend}
    if "bridge" in backends or bridge:
        if link is None:
            try:
                b = settings.bridge
                link = FirmwareBridgeLink(b.port, b.baudrate, b.connect_timeout_s)
            except (DeviceUnavailable, HardwareError) as exc:
                devices.problems["bridge"] = str(exc)
                for name, backend in (("leds", settings.leds.backend), ("encoder", settings.encoder.backend),
                                      ("buttons", settings.buttons.backend)):
                    if backend == "bridge":
                        devices.problems[name] = str(exc)
        devices.bridge = link
    sims = "simulated" in backends or settings.camera.backend == "simulated"
    mock = None
    if settings.encoder.backend == "simulated" or settings.buttons.backend == "simulated":
        from gpiozero.pins.mock import MockFactory

        mock = pin_factory or MockFactory()
        devices.pin_factory = mock if pin_factory is None else None
    _open(devices, "leds", lambda: _leds(settings, devices))
    _open(devices, "encoder", lambda: _encoder(settings, devices, mock))
    _open(devices, "buttons", lambda: _buttons(settings, devices, mock))
    if sims:
        from hardware.simtable.play import PlayTable  # OpenCV (the renderer): only for a simulated device

        t = settings.table
        enc = settings.encoder
        devices.table = PlayTable(
            start_position(t.edition, t.segments),
            simulated_camera(settings),
            leds=devices.strip,
            ledmap=devices.leds.ledmap if devices.leds is not None else None,
            encoder_driver=QuadratureDriver(mock, enc.pin_a, enc.pin_b) if enc.backend == "simulated" else None,
            steps_per_quarter=enc.steps_per_quarter,
            buttons_driver=(ButtonDriver(mock, settings.buttons.pins, settings.buttons.pull_up)
                            if settings.buttons.backend == "simulated" else None),
        )
    _open(devices, "camera", lambda: _camera(settings, devices))
    return devices


def simulated_camera(settings: HardwareSettings):
    """The renderer behind the simulated camera; calibrate vision on its frames to read them."""
    # OpenCV (the renderer): only for a simulated camera
    from hardware.simtable.pose import CameraPose
    from hardware.simtable.render import SimTable

    t = settings.table
    resolution = (settings.camera.width, settings.camera.height)
    pose = CameraPose.fitting(engine.load_geometry(t.segments).size[1], resolution)
    return SimTable(segments=t.segments, seed=t.seed, resolution=resolution, pose=pose)


def _open(devices: Devices, name: str, make) -> None:
    if name in devices.problems:
        return
    try:
        dev = make()
    except (DeviceUnavailable, HardwareError) as exc:
        devices.problems[name] = str(exc)
        return
    except engine.EngineError as exc:
        devices.problems[name] = str(exc)
        return
    setattr(devices, name, dev)


def _no_gpio(what: str) -> None:
    if not is_raspberry_pi():
        raise DeviceUnavailable(f"{what} (gpio): not available on this machine (not a Raspberry Pi); "
                                f"use backend \"simulated\", or \"bridge\" with a Pico")


def _leds(settings: HardwareSettings, devices: Devices) -> LedRings | None:
    s = settings.leds
    if s.backend == "none":
        return None
    ledmap = load_ledmap(settings)
    count = s.count or ledmap.count
    budget = PowerBudget(s.max_current_ma, s.ma_per_channel, s.idle_ma_per_led)
    if s.backend == "simulated":
        devices.strip = SimulatedStrip(count)
        return LedRings(devices.strip, ledmap, s.brightness, budget)
    if s.backend == "ws281x":
        return LedRings(Ws281xStrip(count, s.pin, s.frequency_hz, s.dma, s.invert, s.order), ledmap, s.brightness, budget)
    if s.backend == "bridge":
        return LedRings(BridgeLeds(devices.bridge), ledmap, s.brightness, budget)
    raise HardwareError(f"leds.backend {s.backend!r} is unknown")


def _encoder(settings: HardwareSettings, devices: Devices, mock) -> DiscEncoder | None:
    s = settings.encoder
    if s.backend == "none":
        return None
    if s.backend == "simulated":
        return GpioDiscEncoder(s.pin_a, s.pin_b, s.steps_per_quarter, s.reverse, s.settle_s, 0, pin_factory=mock)
    if s.backend == "gpio":
        _no_gpio("encoder")
        return GpioDiscEncoder(s.pin_a, s.pin_b, s.steps_per_quarter, s.reverse, s.settle_s, s.bounce_ms)
    if s.backend == "bridge":
        return BridgeDiscEncoder(devices.bridge, s.steps_per_quarter, s.reverse, s.settle_s)
    raise HardwareError(f"encoder.backend {s.backend!r} is unknown")


def _buttons(settings: HardwareSettings, devices: Devices, mock) -> Buttons | None:
    s = settings.buttons
    if s.backend == "none":
        return None
    if s.backend == "simulated":
        # No debounce in simulation: a driven click has no chatter, and a bounce window
        # measured in wall time would make tests depend on the clock.
        return GpioButtons(s.pins, s.pull_up, 0, s.hold_s, pin_factory=mock)
    if s.backend == "gpio":
        _no_gpio("buttons")
        return GpioButtons(s.pins, s.pull_up, s.bounce_ms, s.hold_s)
    if s.backend == "bridge":
        return BridgeButtons(devices.bridge, s.bridge_index)
    raise HardwareError(f"buttons.backend {s.backend!r} is unknown")


def _camera(settings: HardwareSettings, devices: Devices) -> CameraSource | None:
    s = settings.camera
    if s.backend == "none":
        return None
    if s.backend == "simulated":
        return SimTableCamera(devices.table)
    if s.backend == "opencv":
        return OpenCvCamera(s.device, s.width, s.height, s.fps, s.exposure, s.white_balance, s.settle_s)
    if s.backend == "picamera2":
        return PiCamera2Source(s.width, s.height, s.fps, s.exposure, s.white_balance, s.settle_s)
    if s.backend == "file":
        return FileSource(s.path, s.width, s.height)
    raise HardwareError(f"camera.backend {s.backend!r} is unknown")


def with_backend(settings: HardwareSettings, device: str, backend: str) -> HardwareSettings:
    return replace(settings, **{device: replace(getattr(settings, device), backend=backend)})
