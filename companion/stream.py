"""The service's one door out: every change, in order, to every subscriber.

After an event is journaled and applied, the service publishes an `Update` (sequence
number, event, effects, new state). Each subscriber has its own queue and its own thread,
so a slow subscriber (an LED strip that hangs, a phone on bad Wi-Fi, the link to another
table) never holds the service's lock: publishing only appends to the queues.
"""
from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from companion.table import Effect, Event, TableState

log = logging.getLogger(__name__)

QUEUE_LIMIT = 10_000  # updates a stuck subscriber may fall behind before the oldest are dropped


@dataclass(frozen=True)
class Update:
    """One change of the service.

    `event` is None when no event changed the game: a new game opened (the state is its
    start), or something only the page shows changed (a device's status, the language).
    `seq` is the journal's sequence number of the event (for a game opened: the state's
    next number); `version` counts every change, for pages that compare what they sent.
    """

    seq: int
    event: Event | None
    effects: tuple[Effect, ...]
    state: TableState
    game_id: int
    version: int
    submitted: float = field(default=0.0, compare=False)  # time.perf_counter() when the event came in


Callback = Callable[[Update], None]


class Subscription:
    """One subscriber's queue and the thread that hands it the updates, oldest first."""

    def __init__(self, name: str, callback: Callback, on_close: Callable[[Subscription], None]) -> None:
        self.name = name
        self.callback = callback
        self._on_close = on_close
        self._queue: collections.deque[Update] = collections.deque()
        self._ready = threading.Condition()
        self._busy = False
        self._closed = False
        self.dropped = 0
        self._thread = threading.Thread(target=self._run, name=f"stream-{name}", daemon=True)
        self._thread.start()

    def put(self, update: Update) -> None:
        """Never blocks: the caller holds the service's lock."""
        with self._ready:
            if len(self._queue) >= QUEUE_LIMIT:
                self._queue.popleft()
                self.dropped += 1
                if self.dropped == 1:
                    log.warning("subscriber %s is behind by %d updates: the oldest are dropped", self.name,
                                QUEUE_LIMIT)
            self._queue.append(update)
            self._ready.notify()

    def wait_idle(self, timeout: float) -> bool:
        """Until every update put so far was handed over (tests and the simulated table use it)."""
        deadline = time.monotonic() + timeout
        with self._ready:
            while self._queue or self._busy:
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    return False
                self._ready.wait(left)
        return True

    def close(self) -> None:
        with self._ready:
            self._closed = True
            self._ready.notify_all()
        self._on_close(self)
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while True:
            with self._ready:
                while not self._queue and not self._closed:
                    self._busy = False
                    self._ready.notify_all()
                    self._ready.wait()
                if self._closed:
                    self._busy = False
                    self._ready.notify_all()
                    return
                update = self._queue.popleft()
                self._busy = True
            try:
                self.callback(update)
            except Exception:  # one subscriber's fault must not stop the others or the game
                log.exception("subscriber %s failed on update %d", self.name, update.version)


class Publisher:
    """The set of subscriptions; the service publishes under its lock."""

    def __init__(self) -> None:
        self._subs: list[Subscription] = []
        self._lock = threading.Lock()

    def subscribe(self, name: str, callback: Callback) -> Subscription:
        sub = Subscription(name, callback, self._remove)
        with self._lock:
            self._subs.append(sub)
        return sub

    def publish(self, update: Update) -> None:
        with self._lock:
            subs = list(self._subs)
        for sub in subs:
            sub.put(update)

    def close(self) -> None:
        with self._lock:
            subs = list(self._subs)
        for sub in subs:
            sub.close()

    def _remove(self, sub: Subscription) -> None:
        with self._lock:
            if sub in self._subs:
                self._subs.remove(sub)
