"""A linked table's door for its own board: a play made at another table is carried out here first.

When the game's position moves on through an event this table's board did not make (a play
at another table, the host's correction, an undo), the pieces here have not moved yet. Until a
settled reading of this table's board shows the game's position, readings are checked against
the job (`companion.remote.carry_out`) instead of going to the game: a wrong carrying-out is
named and lit until the board agrees, and the bots here wait. Everything else goes on to the
link's own door (the host, or the host's commit).
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from companion import table as T
from companion.remote.carry_out import CarryOut, Mismatch, carried_out, carry_leds, check
from companion.service import Service
from companion.stream import Update

log = logging.getLogger(__name__)

MOVES_BOARD = (T.BoardSettled, T.DiscTurned, T.SetPosition, T.Undo)


class CarryGate:
    def __init__(self, service: Service, forward: Callable[[T.Event], T.TableState], *,
                 on_change: Callable[[], None] = lambda: None) -> None:
        self.service = service
        self.forward = forward
        self.on_change = on_change  # the page and the rings should show the job anew
        self.lock = threading.Lock()
        self.pending: CarryOut | None = None
        self.mismatch: Mismatch | None = None
        with service.lock:
            self._last = service.state
            self._here: dict[str, str] = T.occupancy(service.state.position)  # what this table's board reads
        self.subscription = service.subscribe("carry-out", self._on_update)

    def stop(self) -> None:
        self.subscription.close()

    def busy(self) -> bool:
        """A play of another table still to carry out here: the bots and the undo window wait."""
        with self.lock:
            return self.pending is not None

    def leds(self) -> dict[str, str] | None:
        """The rings while a job is on: what to pick up and where it goes in the remote player's
        colour, what is wrong in the table's red (None: the game's)."""
        with self.lock:
            return carry_leds(self.pending, self.mismatch, coloured=True) if self.pending is not None else None

    def words(self, lang: str) -> str | None:
        with self.lock:
            said = self.mismatch.words if self.mismatch is not None else (
                self.pending.words if self.pending is not None else None)
        return said.get(lang, said.get("en")) if said else None

    def door(self, event: T.Event) -> T.TableState:
        with self.lock:
            pending = self.pending
        if pending is not None and isinstance(event, T.BoardSettled):
            reading = dict(event.fields)
            with self.lock:
                if carried_out(pending, reading):
                    self.pending, self.mismatch, self._here = None, None, reading
                else:
                    self.mismatch = check(pending, reading)
            self.on_change()
            return self.service.state
        if pending is not None and isinstance(event, T.DiscTurned) and event.source == "encoder":
            return self.service.state  # the person turning the disc for the other table's play
        if isinstance(event, T.BoardSettled):
            with self.lock:
                self._here = dict(event.fields)
        return self.forward(event)

    def _on_update(self, update: Update) -> None:
        st = update.state
        changed = False
        with self.lock:
            before, self._last = self._last, st
            if update.event is None:
                if update.game_id != getattr(self, "_game", update.game_id) or before.seq > st.seq:
                    self.pending, self.mismatch = None, None
                    self._here = T.occupancy(st.position)
                    changed = True
                self._game = update.game_id
                return
            self._game = update.game_id
            if not isinstance(update.event, MOVES_BOARD) or st.phase == "setup":
                return
            want = T.occupancy(st.position)
            if want == self._here:
                if self.pending is not None:
                    self.pending, self.mismatch, changed = None, None, True
            elif T.board_key(st.position) != T.board_key(before.position) or self.pending is not None:
                seat = st.verdict.seat if st.verdict is not None else st.turn
                base = self.pending.before if self.pending is not None else before.position
                try:
                    self.pending = CarryOut.of(base, st.position, seat)
                    self.mismatch, changed = None, True
                except ValueError as exc:  # another board: a new game is coming
                    log.info("no carrying out: %s", exc)
        if changed:
            self.on_change()
