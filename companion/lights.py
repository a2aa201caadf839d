"""The LED rings as a subscriber of the service: the roles of the fields after every change.

A play the referee accepts lights its fields green for `accept_flash_s` (not in referee
mode, where the table shows nothing of the plays); otherwise the rings show what
`companion.table.leds` says of the state. The strip is written on this subscriber's own
thread, so a hanging strip never holds up the game.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from companion import table as T
from companion.service import Service
from companion.stream import Subscription, Update

log = logging.getLogger(__name__)

LedWriter = Callable[[dict[str, str]], None]


@dataclass(frozen=True)
class Flash:
    until: float  # time.monotonic()
    roles: dict[str, str]


class Lights:
    def __init__(self, service: Service, writer: LedWriter | None = None) -> None:
        self.service = service
        self.writer = writer
        self.flash = Flash(0.0, {})
        self.card_to_leds = 0.0  # seconds from a card seen to its LEDs written, the last time
        self._lock = threading.Lock()
        self._state: T.TableState | None = None
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._flash_thread: threading.Thread | None = None
        # what the rings show instead of the game's roles while it returns roles (a linked table's
        # job of carrying out another table's play); None: always the game's
        self.overlay: Callable[[], dict[str, str] | None] | None = None
        self.subscription: Subscription = service.subscribe("lights", self.on_update)

    def roles(self, state: T.TableState) -> dict[str, str]:
        """What the rings show for `state` now: an accepted play's flash, else the state's roles."""
        over = self.overlay() if self.overlay is not None else None
        if over is not None:
            return over
        with self._lock:
            flash = self.flash
        if time.monotonic() < flash.until:
            return flash.roles
        return T.leds(state)

    def on_update(self, update: Update) -> None:
        changed = update.state is not self._state
        self._state = update.state
        flashed = False
        for eff in update.effects:
            if eff.kind == "ok" and eff.fields and update.state.mode != "referee":
                with self._lock:
                    self.flash = Flash(time.monotonic() + self.service.settings.service.accept_flash_s,
                                       {f: "ok" for f in eff.fields})
                flashed = True
        if not changed and not flashed:
            return  # a change only the page shows: the rings stay as they are
        self.write()
        if isinstance(update.event, T.CardSeen) and update.submitted:
            self.card_to_leds = time.perf_counter() - update.submitted
        if flashed:
            self._end_flash_later()
            self.service.touch()  # the page shows the flash too

    def write(self) -> None:
        """Write the rings from the newest state this subscriber saw."""
        if self.writer is None or self._state is None:
            return
        try:
            self.writer(self.roles(self._state))
        except Exception:  # a broken LED strip must not stop the referee
            log.exception("LED update failed")

    def refresh(self) -> None:
        """Light the rings again (after the camera blanked them for a frame)."""
        if self._state is None:
            self._state = self.service.state
        self.write()

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()
        self.subscription.close()

    def _end_flash_later(self) -> None:
        # one thread ends every flash: a timer per play let a fast client pile up threads
        if self._flash_thread is None:
            self._flash_thread = threading.Thread(target=self._flash_loop, name="flash", daemon=True)
            self._flash_thread.start()
        self._wake.set()

    def _flash_loop(self) -> None:
        while not self._stopping.is_set():
            self._wake.wait()
            self._wake.clear()
            while not self._stopping.is_set():
                with self._lock:
                    left = self.flash.until - time.monotonic()
                if left <= 0:
                    break
                self._stopping.wait(left + 0.01)
            if self._stopping.is_set():
                return
            self.write()
            self.service.touch()
