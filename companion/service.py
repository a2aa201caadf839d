"""The table service: the pure table session wrapped with a journal, a lock and one stream out.

One door in: every input (camera, encoder, buttons, RFID, a phone, a bot, the simulated
table) is a `companion.table` event given to `Service.submit`; the service does not know
which kind of client sent it. Journal first (synced to disk), then the new state takes
effect, then one `Update` goes to every subscriber (`companion.stream`): LEDs, speech,
the web page's streams, the simulated table. One lock orders everything, so the journal's
order is the order the state saw and the order the subscribers see.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from companion import record
from companion import table as T
from companion.journal import Journal
from companion.settings import Settings
from companion.stream import Callback, Publisher, Subscription, Update
from companion.texts import LANGS

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Timing:
    """The last measured latency (seconds) of a settled board to the referee's verdict."""

    settle_to_verdict: float = 0.0


class Service:
    def __init__(self, settings: Settings, journal: Journal) -> None:
        self.settings = settings
        self.journal = journal
        self.lock = threading.RLock()
        self.version = 0
        self.timing = Timing()
        self.stopping = threading.Event()
        self.game_id = 0
        self.state: T.TableState
        self.lang = settings.service.lang
        # what the devices say (missing ones, camera state, a card to ask about, the simulated
        # table's board) for the web page; None until a device reports
        self.devices_status: dict | None = None
        self._changed = threading.Condition(self.lock)
        self._publisher = Publisher()
        # a linked table's door (companion.remote): the local clients' events go through it
        # (to the hosting table, or checked against a play still to be carried out here),
        # and it commits what the game's order allows. None: a table on its own.
        self.door: Callable[[T.Event], T.TableState] | None = None
        self.hosted_by: str | None = None  # the hosting table's name, at a table that joined its game

    # --- the stream out -----------------------------------------------------------------
    def subscribe(self, name: str, callback: Callback) -> Subscription:
        """`callback(update)` for every change from now on, in order, on a thread of its own."""
        return self._publisher.subscribe(name, callback)

    def _publish(self, event: T.Event | None, effects: tuple[T.Effect, ...], submitted: float = 0.0) -> None:
        self.version += 1
        seq = self.state.seq - 1 if event is not None else self.state.seq
        self._publisher.publish(Update(seq, event, effects, self.state, self.game_id, self.version, submitted))
        self._changed.notify_all()

    def touch(self) -> None:
        """Something only the page shows changed (an LED flash ended): tell the subscribers."""
        with self.lock:
            self._publish(None, ())

    def wait_for_change(self, version: int, timeout: float) -> int:
        """The version once it differs from `version`, or after `timeout` seconds."""
        with self.lock:
            if self.version == version:
                self._changed.wait(timeout)
            return self.version

    # --- games --------------------------------------------------------------------------
    def open(self, setup: T.Setup, resume: bool = True) -> bool:
        """Resume the journal's open game if it has this setup; otherwise start a new one.

        The new game's setup is checked (T.new_state) before anything is written: a setup
        that cannot start a game raises TableError and leaves the journal and game as they were.
        """
        with self.lock:
            fresh = T.new_state(setup)
            open_game = self.journal.latest_open() if resume else None
            if open_game is not None and (open_game.setup.variant, open_game.setup.players) == (setup.variant,
                                                                                                setup.players):
                self.game_id = open_game.id
                started = time.perf_counter()
                self.state = T.replay(open_game.setup, self.journal.events(open_game.id))
                log.info("resumed game %d at event %d in %.2f s", open_game.id, self.state.seq,
                         time.perf_counter() - started)
                resumed = True
            else:
                if open_game is not None:
                    self.journal.finish(open_game.id, won=False)
                if hasattr(self, "state") and self.game_id:
                    self.journal.finish(self.game_id, won=self.state.winner is not None)
                self.game_id = self.journal.new_game(setup)
                self.state = fresh
                resumed = False
            self._publish(None, ())
            return resumed

    def new_game(self, variant: str, players: int, direction: str | None = None) -> None:
        """A new game from the page; a bad variant, player count or direction changes nothing (TableError)."""
        if self.hosted_by is not None:
            raise T.TableError(f"the hosting table {self.hosted_by} starts new games")
        with self.lock:
            mode = self.state.mode if hasattr(self, "state") else self.settings.service.mode
            self.open(T.Setup(variant, players, mode, direction=direction or None), resume=False)

    # --- the door in --------------------------------------------------------------------
    def submit(self, event: T.Event) -> T.TableState:
        """Apply one event: raises TableError (nothing written) when the table refuses it."""
        door = self.door
        if door is not None:
            return door(event)
        return self.commit(event)

    def commit(self, event: T.Event, seq: int | None = None) -> T.TableState:
        """Journal and apply one event, then publish it (the door's way in).

        `seq`: the sequence number the hosting table gave the event; a joined table commits
        only the next one (TableError otherwise: nothing written)."""
        with self.lock:
            if seq is not None and seq != self.state.seq:
                raise T.TableError(f"event {seq} is not the next one here ({self.state.seq})")
            started = time.perf_counter()
            new, effects = T.apply(self.state, event)  # pure: raises before anything is written
            self.journal.append(self.game_id, self.state.seq, event)
            old, self.state = self.state, new
            if new.phase == "over" and old.phase != "over":
                self.journal.finish(self.game_id, won=new.winner is not None)
            if isinstance(event, T.BoardSettled) and new.verdict is not old.verdict:
                self.timing = Timing(time.perf_counter() - started)
            self._publish(event, effects, started)
            return new

    def set_lang(self, lang: str) -> None:
        with self.lock:
            self.lang = lang
            self._publish(None, ())

    def set_devices_status(self, **changes: object) -> None:
        """What the devices say (missing ones, camera state, a card to ask about) for the web page."""
        with self.lock:
            old = self.devices_status or {}
            new = {**old, **changes}
            if new != old:
                self.devices_status = new
                self._publish(None, ())

    def stop(self) -> None:
        self.stopping.set()
        with self.lock:
            self._changed.notify_all()
        self._publisher.close()

    # --- what a page may see ------------------------------------------------------------
    def snapshot(self, viewer: int | None = None) -> dict:
        """The state for one page: `viewer` is the seat the phone holds (None: a spectator).

        Only the viewer's own hand is in it (and the card it gave face down in the exchange),
        and only the card seat's viewer sees a hint (it tells of the hand); other seats are
        counts. At a real table nobody's hand is known (hands_known false).
        """
        with self.lock:
            st = self.state
            seat = viewer if viewer in st.seats else None
            out = T.state_to_json(st, viewer=seat)
            out["viewer"] = seat
            out["hand"] = list(st.hands[seat]) if st.hands is not None and seat is not None else None
            out["given"] = next((c for s, c in st.gifts if s == seat), None) if seat is not None else None
            if st.hands is not None and seat != st.card_seat:
                # a hint is worked out from the card seat's hand ("keeps the 4 for later"): its own
                out["hint"] = None
                out["log"] = [e for e in out["log"] if e["kind"] != "hint" or e["seat"] == seat]
            out["version"] = self.version
            out["game_id"] = self.game_id
            out["lang"] = self.lang
            out["devices"] = self.devices_status
            out["journal_repaired"] = self.journal.repaired
            return out

    def export(self, fmt: str = "json", public: bool | None = None, lang: str = "en") -> dict | str:
        """The running game's record (companion.record): a dict for "json", the text (in `lang`) for "txt".

        `public`: None gives what anyone may see now: while the game is on, the deal and the
        cards given face down are left out; once it is over, the whole record. True leaves them
        out always; False gives the whole record at any time (the host's: the caller checks)."""
        if fmt not in ("json", "txt"):
            raise T.TableError(f"export format {fmt!r} is unknown (json or txt)")
        if lang not in LANGS:
            raise T.TableError(f"export language {lang!r} is unknown ({', '.join(LANGS)})")
        with self.lock:
            g = self.journal.game(self.game_id)
            events = self.journal.timed_events(self.game_id)
            hidden = self.state.phase != "over" if public is None else public
        # re-playing a long game takes a while: the table goes on meanwhile (the events are a copy)
        rec = record.game_record(g.setup, events, game_id=g.id, created=g.created, ended=g.ended, public=hidden)
        return record.to_text(rec, lang) if fmt == "txt" else rec
