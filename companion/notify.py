"""systemd readiness and watchdog (Type=notify, WatchdogSec=) via sdnotify.

The watchdog is fed only while the service's lock can be taken: a service stuck in a
deadlock or an endless loop stops feeding it, and systemd restarts it. Outside systemd
(no NOTIFY_SOCKET) every call is a cheap no-op.
"""
from __future__ import annotations

import logging
import os
import threading

log = logging.getLogger(__name__)


class Notifier:
    def __init__(self) -> None:
        self.enabled = bool(os.environ.get("NOTIFY_SOCKET"))
        self.sd = None
        if self.enabled:
            import sdnotify

            self.sd = sdnotify.SystemdNotifier()
        usec = os.environ.get("WATCHDOG_USEC", "")
        self.watchdog_s = int(usec) / 1e6 if usec.isdigit() else 0.0
        self.stop_event = threading.Event()

    def _send(self, text: str) -> None:
        if self.sd is not None:
            self.sd.notify(text)

    def ready(self, status: str) -> None:
        self._send(f"READY=1\nSTATUS={status}")

    def status(self, status: str) -> None:
        self._send(f"STATUS={status}")

    def stopping(self) -> None:
        self._send("STOPPING=1")
        self.stop_event.set()

    def start_watchdog(self, healthy: threading.RLock | threading.Lock) -> None:
        """Ping at half the watchdog interval while `healthy` can be acquired in time."""
        if not self.enabled or self.watchdog_s <= 0:
            return
        interval = self.watchdog_s / 2

        def loop() -> None:
            while not self.stop_event.wait(interval):
                if healthy.acquire(timeout=interval):
                    healthy.release()
                    self._send("WATCHDOG=1")
                else:
                    log.error("service lock held for over %.1f s; not feeding the watchdog", interval)

        threading.Thread(target=loop, name="watchdog", daemon=True).start()
