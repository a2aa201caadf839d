"""The four buttons (confirm, undo, hint, mode): press, release and hold events by name."""
from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from hardware.bridge import ButtonEdge
from hardware.errors import DeviceUnavailable, HardwareError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ButtonPress:
    name: str
    kind: str  # "press", "release" or "hold"
    at: float


class Buttons:
    """Events from named buttons, read with `read()` or a `when_pressed` callback."""

    def __init__(self, names: tuple[str, ...], clock: Callable[[], float] = time.monotonic) -> None:
        self.names = names
        self.clock = clock
        self.when_pressed: Callable[[ButtonPress], None] | None = None
        self._events: deque[ButtonPress] = deque(maxlen=256)
        self._down: dict[str, bool] = {n: False for n in names}
        self._lock = threading.Lock()

    def _event(self, name: str, kind: str) -> None:
        ev = ButtonPress(name, kind, self.clock())
        with self._lock:
            if kind in ("press", "release"):
                self._down[name] = kind == "press"
            self._events.append(ev)
        if kind == "press" and self.when_pressed:
            self.when_pressed(ev)

    def is_pressed(self, name: str) -> bool:
        return self._down[name]

    def read(self) -> list[ButtonPress]:
        with self._lock:
            out = list(self._events)
            self._events.clear()
        return out

    def close(self) -> None:
        pass


class GpioButtons(Buttons):
    """gpiozero `Button`s, one per name; `pin_factory` None means the default (a real Pi)."""

    def __init__(self, pins: Mapping[str, int], pull_up: bool = True, bounce_ms: int = 30, hold_s: float = 1.0,
                 pin_factory=None, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(tuple(pins), clock)
        from gpiozero import Button
        from gpiozero.exc import GPIOZeroError

        self.pins = dict(pins)
        self.devices = {}
        try:
            for name, pin in pins.items():
                b = Button(pin, pull_up=pull_up, bounce_time=(bounce_ms / 1000) or None, hold_time=hold_s,
                           pin_factory=pin_factory)
                b.when_pressed = lambda _d=None, n=name: self._event(n, "press")
                b.when_released = lambda _d=None, n=name: self._event(n, "release")
                b.when_held = lambda _d=None, n=name: self._event(n, "hold")
                self.devices[name] = b
        except GPIOZeroError as exc:
            self.close()
            raise DeviceUnavailable(f"buttons: {type(exc).__name__}: {exc}") from None

    def close(self) -> None:
        for b in self.devices.values():
            b.close()
        self.devices.clear()


class BridgeButtons(Buttons):
    """Buttons wired to the microcontroller, reported over the bridge by index."""

    def __init__(self, link, indices: Mapping[str, int], clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(tuple(indices), clock)
        by_index = {i: n for n, i in indices.items()}

        def on_event(event: object) -> None:
            if isinstance(event, ButtonEdge) and event.index in by_index:
                self._event(by_index[event.index], "press" if event.pressed else "release")

        link.subscribe(on_event)


class ButtonDriver:
    """Presses simulated buttons by driving their mock pins (closed contact = low with pull-up)."""

    def __init__(self, pin_factory, pins: Mapping[str, int], pull_up: bool = True) -> None:
        self.pull_up = pull_up
        try:
            self.pins = {name: pin_factory.pin(p) for name, p in pins.items()}
        except Exception as exc:
            raise HardwareError(f"cannot drive simulated button pins: {exc}") from None

    def set(self, name: str, pressed: bool) -> None:
        pin = self.pins[name]
        if pressed == self.pull_up:
            pin.drive_low()
        else:
            pin.drive_high()

    def press(self, name: str) -> None:
        """A full click: down, then up."""
        self.set(name, True)
        self.set(name, False)
