"""The Black DOG disc's rotary encoder: raw steps in, quarter turns out.

A quarter turn of the disc is `steps_per_quarter` encoder steps. Turning fast can lose a
step, a worn encoder bounces, and a hand rests the disc a little past its detent; so
`QuarterTurnTracker` emits a quarter as soon as a full quarter of steps has gone by, and
when the disc comes to rest snaps whatever is left to the nearest quarter (which forgives
missed steps and drops bounce), then starts counting afresh.
"""
from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from hardware.bridge import EncoderSteps
from hardware.errors import DeviceUnavailable, HardwareError

log = logging.getLogger(__name__)

CLOCKWISE = 1
COUNTERCLOCKWISE = -1


@dataclass(frozen=True)
class QuarterTurn:
    direction: int  # +1 clockwise (seen from above), -1 counter-clockwise
    at: float

    @property
    def clockwise(self) -> bool:
        return self.direction > 0


class QuarterTurnTracker:
    """Pure logic, fed with step deltas and times; no clock of its own."""

    def __init__(self, steps_per_quarter: int, settle_s: float = 0.25) -> None:
        if steps_per_quarter < 1:
            raise ValueError("steps_per_quarter must be at least 1")
        self.steps_per_quarter = steps_per_quarter
        self.settle_s = settle_s
        self.residual = 0
        self.total = 0
        self._last_step: float | None = None

    def step(self, delta: int, now: float) -> list[QuarterTurn]:
        out = self.poll(now)  # a long pause before this step counts as having settled
        self.residual += delta
        self.total += delta
        self._last_step = now
        q = self.steps_per_quarter
        while abs(self.residual) >= q:
            d = 1 if self.residual > 0 else -1
            self.residual -= d * q
            out.append(QuarterTurn(d, now))
        return out

    def poll(self, now: float) -> list[QuarterTurn]:
        """Snap to the nearest quarter once no step has come for `settle_s`."""
        if self._last_step is None or now - self._last_step < self.settle_s:
            return []
        self._last_step = None
        r, q = self.residual, self.steps_per_quarter
        self.residual = 0
        # More than half a quarter counts (missed steps); half or less is bounce or a nudge.
        if 2 * abs(r) > q:
            return [QuarterTurn(1 if r > 0 else -1, now)]
        return []


def steps_per_quarter_from(steps: int, quarters: int) -> int:
    """Calibration: steps counted while turning the disc `quarters` quarter turns."""
    if quarters == 0 or steps == 0:
        raise ValueError("turn the disc at least one quarter while counting")
    return max(1, round(abs(steps) / abs(quarters)))


class DiscEncoder:
    """Quarter-turn events from some source of steps. Read them with `read()` or a callback."""

    def __init__(self, steps_per_quarter: int = 6, reverse: bool = False, settle_s: float = 0.25,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.tracker = QuarterTurnTracker(steps_per_quarter, settle_s)
        self.reverse = reverse
        self.clock = clock
        self.when_quarter_turn: Callable[[QuarterTurn], None] | None = None
        self._events: deque[QuarterTurn] = deque(maxlen=256)
        self._lock = threading.Lock()

    @property
    def steps(self) -> int:
        """Steps counted since start (clockwise positive)."""
        return self.tracker.total

    def _steps(self, delta: int, now: float | None = None) -> None:
        if self.reverse:
            delta = -delta
        with self._lock:
            turns = self.tracker.step(delta, self.clock() if now is None else now)
            self._events.extend(turns)
        self._dispatch(turns)

    def poll(self, now: float | None = None) -> None:
        """Let a resting disc snap; call this regularly (the service's loop does)."""
        with self._lock:
            turns = self.tracker.poll(self.clock() if now is None else now)
            self._events.extend(turns)
        self._dispatch(turns)

    def _dispatch(self, turns: list[QuarterTurn]) -> None:
        if self.when_quarter_turn:
            for t in turns:
                self.when_quarter_turn(t)

    def read(self, now: float | None = None) -> list[QuarterTurn]:
        """Quarter turns since the last read (polls first)."""
        self.poll(now)
        with self._lock:
            out = list(self._events)
            self._events.clear()
        return out

    def close(self) -> None:
        pass


class GpioDiscEncoder(DiscEncoder):
    """gpiozero `RotaryEncoder` on two pins; `pin_factory` None means the default (a real Pi)."""

    def __init__(self, pin_a: int, pin_b: int, steps_per_quarter: int = 6, reverse: bool = False,
                 settle_s: float = 0.25, bounce_ms: int = 0, pin_factory=None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(steps_per_quarter, reverse, settle_s, clock)
        from gpiozero import RotaryEncoder
        from gpiozero.exc import GPIOZeroError

        try:
            # max_steps=0: count without limit; quarters are our business, not gpiozero's.
            self.device = RotaryEncoder(pin_a, pin_b, max_steps=0, bounce_time=(bounce_ms / 1000) or None,
                                        pin_factory=pin_factory)
        except GPIOZeroError as exc:
            raise DeviceUnavailable(f"encoder on GPIO{pin_a}/GPIO{pin_b}: {type(exc).__name__}: {exc}") from None
        self._seen = self.device.steps
        self.device.when_rotated = self._rotated

    def _rotated(self) -> None:
        steps = self.device.steps
        delta, self._seen = steps - self._seen, steps
        if delta:
            self._steps(delta)

    def close(self) -> None:
        self.device.close()


class BridgeDiscEncoder(DiscEncoder):
    """Steps counted by the microcontroller, arriving as deltas over the bridge."""

    def __init__(self, link, steps_per_quarter: int = 6, reverse: bool = False, settle_s: float = 0.25,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(steps_per_quarter, reverse, settle_s, clock)

        def on_event(event: object) -> None:
            if isinstance(event, EncoderSteps) and event.delta:
                self._steps(event.delta)

        link.subscribe(on_event)


class QuadratureDriver:
    """Turns a simulated encoder: drives the two mock pins through real quadrature edges."""

    # gpiozero's encoder pins pull up: a contact closed to ground reads active (low).
    CW = ((0, 1), (0, 0), (1, 0), (1, 1))  # (a, b) levels after each edge, one step clockwise
    CCW = ((1, 0), (0, 0), (0, 1), (1, 1))

    def __init__(self, pin_factory, pin_a: int, pin_b: int) -> None:
        try:
            self.a = pin_factory.pin(pin_a)
            self.b = pin_factory.pin(pin_b)
        except Exception as exc:
            raise HardwareError(f"cannot drive simulated encoder pins GPIO{pin_a}/GPIO{pin_b}: {exc}") from None

    def _set(self, a: int, b: int) -> None:
        for pin, level in ((self.a, a), (self.b, b)):
            if pin.state != level:
                pin.drive_high() if level else pin.drive_low()

    def turn(self, steps: int) -> None:
        seq = self.CW if steps > 0 else self.CCW
        for _ in range(abs(steps)):
            for a, b in seq:
                self._set(a, b)

    def bounce(self, times: int = 1) -> None:
        """Contact chatter on pin A: half an edge forwards and back, no net step."""
        for _ in range(times):
            self._set(0, 1)
            self._set(1, 1)
