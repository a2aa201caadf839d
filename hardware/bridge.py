"""The one narrow seam between hardware and the microcontroller bridge.

LEDs, encoder and buttons on the MCU all go through a `BridgeLink`: set ring states by
field index, and receive input events. `FirmwareBridgeLink` sits on
`firmware_bridge.client.BridgeClient`; `LoopbackLink` is an in-memory stand-in that
records what was sent and lets a test (or the simulated table) inject input.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from hardware.errors import DeviceUnavailable
from hardware.leds import Light

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EncoderSteps:
    delta: int
    at: float


@dataclass(frozen=True)
class ButtonEdge:
    index: int
    pressed: bool
    at: float


@dataclass(frozen=True)
class CardTag:
    """An RFID tag held to the reader on the microcontroller (a card with a sticker)."""

    uid: bytes
    at: float

    @property
    def uid_hex(self) -> str:
        return self.uid.hex(":")


BridgeInput = EncoderSteps | ButtonEdge | CardTag
Listener = Callable[[BridgeInput], None]


class BridgeLink(Protocol):
    def set_fields(self, fields: Mapping[int, Light]) -> None: ...
    def subscribe(self, listener: Listener) -> None: ...
    def close(self) -> None: ...


class _Fanout:
    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()

    def subscribe(self, listener: Listener) -> None:
        with self._lock:
            self._listeners.append(listener)

    def emit(self, event: BridgeInput) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(event)
            except Exception:  # one consumer's bug must not starve the others
                log.exception("bridge listener failed")


class LoopbackLink(_Fanout):
    """In-memory bridge: `fields` is what the MCU would show; `spin`/`press` inject input."""

    def __init__(self, clock=time.monotonic) -> None:
        super().__init__()
        self.fields: dict[int, Light] = {}
        self.updates = 0
        self.clock = clock
        self.closed = False

    def set_fields(self, fields: Mapping[int, Light]) -> None:
        self.fields = dict(fields)
        self.updates += 1

    def spin(self, steps: int) -> None:
        self.emit(EncoderSteps(steps, self.clock()))

    def press(self, index: int, pressed: bool = True) -> None:
        self.emit(ButtonEdge(index, pressed, self.clock()))

    def scan(self, uid: bytes) -> None:
        self.emit(CardTag(bytes(uid), self.clock()))

    def close(self) -> None:
        self.closed = True


class FirmwareBridgeLink(_Fanout):
    """The real MCU over serial (firmware_bridge.client.BridgeClient)."""

    def __init__(self, port: str, baudrate: int = 921600, connect_timeout_s: float = 3.0) -> None:
        super().__init__()
        try:  # pyserial: only a real link loads it; if it cannot load, the bridge is one device missing
            from firmware_bridge.client import BridgeClient, BridgeError
            from firmware_bridge.types import ButtonEvent, CardScan, EncoderDelta, FieldLight
        except ImportError as exc:
            raise DeviceUnavailable(f"bridge: the firmware_bridge client is not available ({exc})") from None
        self._field_light = FieldLight
        self._encoder_type, self._button_type, self._card_type = EncoderDelta, ButtonEvent, CardScan
        try:
            self.client = BridgeClient(port, baudrate, on_event=self._on_event)
        except ValueError as exc:  # a port name or baud rate that cannot work
            raise DeviceUnavailable(f"bridge: {exc}") from None
        try:
            self.identity = self.client.connect(timeout=connect_timeout_s)
        except (BridgeError, OSError) as exc:
            self.client.close()
            raise DeviceUnavailable(f"bridge on {port}: {exc}") from None
        if self.identity is None:
            self.client.close()
            raise DeviceUnavailable(f"bridge on {port}: no answer from the microcontroller within {connect_timeout_s} s")

    def _on_event(self, event: object) -> None:
        if isinstance(event, self._encoder_type):
            self.emit(EncoderSteps(event.delta, event.at))  # type: ignore[attr-defined]
        elif isinstance(event, self._button_type):
            self.emit(ButtonEdge(event.index, event.pressed, event.at))  # type: ignore[attr-defined]
        elif isinstance(event, self._card_type):
            self.emit(CardTag(event.uid, event.at))  # type: ignore[attr-defined]

    def set_fields(self, fields: Mapping[int, Light]) -> None:
        # The MCU's patterns: our "flash"/"blink"/"pulse" exist there under the same names.
        self.client.set_leds({i: self._field_light(tuple(light.colour), light.pattern) for i, light in fields.items()})

    def close(self) -> None:
        self.client.close()
