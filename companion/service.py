"""The table service: the pure table session wrapped with a journal, a lock, LEDs and bots.

Every input (camera, RFID, buttons, web page, bots) becomes a `companion.table` event and
goes through `Service.submit`: journal first (synced to disk), then the new state takes
effect, then LEDs, speech and web pages are told. One lock orders everything, so the
journal's order is the order the state saw.
"""
from __future__ import annotations

import json
import logging
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import engine
from companion import table as T
from companion.journal import Journal
from companion.settings import Settings
from companion.sim import SimTable, choose_gift, move_piece

log = logging.getLogger(__name__)

LedWriter = Callable[[dict[str, str]], None]


@dataclass(frozen=True)
class Timing:
    """The last measured latencies (seconds), for the web page and the bench script."""

    card_to_leds: float = 0.0
    settle_to_verdict: float = 0.0


class Service:
    def __init__(self, settings: Settings, journal: Journal, *, sim: bool = True, seed: int = 0,
                 leds: LedWriter | None = None, reader: Callable | None = None) -> None:
        self.settings = settings
        self.journal = journal
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.version = 0
        self.leds_out = leds
        self.flash: tuple[float, dict[str, str]] = (0.0, {})
        self.timing = Timing()
        self.sim_enabled = sim
        self.seed = seed
        self.reader = reader
        self.stopping = threading.Event()
        # one thread ends every accept flash: a timer per play let a fast client pile up threads
        self.flash_wakeup = threading.Event()
        self.flash_thread: threading.Thread | None = None
        self.game_id = 0
        self.state: T.TableState
        self.sim: SimTable | None = None
        self.lang = settings.service.lang
        self.threads: list[threading.Thread] = []
        # the real table's devices (companion.devices), for the web page; None in the sim
        self.devices_status: dict | None = None

    # --- games --------------------------------------------------------------------------
    def open(self, setup: T.Setup, resume: bool = True) -> bool:
        """Resume the journal's open game if it has this setup; otherwise start a new one.

        The new game's setup is checked (T.new_state) before anything is written: a setup
        that cannot start a game raises TableError and leaves the journal and game as they were.
        """
        with self.lock:
            fresh = T.new_state(setup)
            record = self.journal.latest_open() if resume else None
            if record is not None and (record.setup.variant, record.setup.players) == (setup.variant, setup.players):
                self.game_id = record.id
                started = time.perf_counter()
                self.state = T.replay(record.setup, self.journal.events(record.id))
                log.info("resumed game %d at event %d in %.2f s", record.id, self.state.seq,
                         time.perf_counter() - started)
                resumed = True
            else:
                if record is not None:
                    self.journal.finish(record.id, won=False)
                if hasattr(self, "state") and self.game_id:
                    self.journal.finish(self.game_id, won=self.state.winner is not None)
                self.game_id = self.journal.new_game(setup)
                self.state = fresh
                resumed = False
            if self.sim_enabled:
                self.sim = SimTable(self.state.position, self.settings.service.bots, seed=self.seed + self.game_id,
                                    reader=self.reader, levels=self.settings.service.bot_levels,
                                    think_s=self.settings.service.bot_think_s)
                self.sim.board = self._physical_from_state()
                self._deal_if_due()  # a resumed game holds the journaled deal: only an old journal lacks one
                if not resumed:  # the simulated players set the pieces out: the camera confirms
                    self._submit(T.BoardSettled.of(self.sim.read(), "sim"))
            self._bump()
            return resumed

    def new_game(self, variant: str, players: int) -> None:
        """A new game from the web page; a bad variant or player count changes nothing (TableError)."""
        with self.lock:
            mode = self.state.mode if hasattr(self, "state") else self.settings.service.mode
            self.open(T.Setup(variant, players, mode), resume=False)

    def _physical_from_state(self) -> engine.Position:
        st = self.state
        if st.reading is not None:
            seen = T.reading_to_position(st.position, dict(st.reading), (st.position.disc + st.disc_delta) % 4)
            if isinstance(seen, engine.Position):
                return seen
        return st.position

    # --- events -------------------------------------------------------------------------
    def submit(self, event: T.Event) -> T.TableState:
        with self.lock:
            if isinstance(event, T.CardGiven) and event.card is None and self.state.hands is not None \
                    and event.seat in self.state.still_to_give():
                # "this bot gives" from the page: the bot chooses its card
                event = T.CardGiven(event.seat, choose_gift(self.state, event.seat), event.source)
            state = self._submit(event)
            if isinstance(event, T.Undo) and self.sim is not None:
                # the simulated player turns the disc back as well (a real one does it by hand)
                while self.state.disc_delta:
                    step = -1 if self.state.disc_delta > 0 else 1
                    state = self._submit(T.DiscTurned(step, "sim"))
            return state

    def _submit(self, event: T.Event) -> T.TableState:
        started = time.perf_counter()
        new, effects = T.apply(self.state, event)  # pure: raises before anything is written
        self.journal.append(self.game_id, self.state.seq, event)
        old, self.state = self.state, new
        if new.phase == "over" and old.phase != "over":
            self.journal.finish(self.game_id, won=new.winner is not None)
        self._after(old, new, event, effects)
        elapsed = time.perf_counter() - started
        if isinstance(event, T.CardSeen):
            self.timing = Timing(elapsed, self.timing.settle_to_verdict)
        elif isinstance(event, T.BoardSettled) and new.verdict is not old.verdict:
            self.timing = Timing(self.timing.card_to_leds, elapsed)
        self._bump()
        return new

    def _after(self, old: T.TableState, new: T.TableState, event: T.Event, effects: tuple[T.Effect, ...]) -> None:
        for eff in effects:
            if eff.kind == "ok" and eff.fields and new.mode != "referee":
                self.flash = (time.monotonic() + self.settings.service.accept_flash_s,
                              {f: "ok" for f in eff.fields})
                self._end_flash_later()
            if eff.kind in ("error", "say") and eff.text:
                log.info("%s", eff.text.get(self.lang, ""))
                if self.settings.service.speak and eff.kind == "error":
                    self._speak(eff.text.get(self.lang, ""))
        if self.sim is not None:
            if isinstance(event, (T.Undo, T.SetPosition)):
                self.sim.board = new.position
            self._deal_if_due()
        self._write_leds()

    def _deal_if_due(self) -> None:
        """The simulated dealer deals when a round starts (the deal is journaled like any event)."""
        st = self.state
        if self.sim is not None and st.hands is None and st.phase in ("exchange", "play") and not st.gifts:
            self._submit(self.sim.deal(st))

    def _speak(self, text: str) -> None:
        exe = shutil.which("espeak-ng") or shutil.which("espeak")
        if exe:
            subprocess.Popen([exe, "-v", self.lang, text],  # espeak-ng names its voices en, de, fr, it, nl
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def _bump(self) -> None:
        self.version += 1
        self.changed.notify_all()

    # --- LEDs ---------------------------------------------------------------------------
    def leds_now(self) -> dict[str, str]:
        until, roles = self.flash
        if time.monotonic() < until:
            return roles
        return T.leds(self.state)

    def _write_leds(self) -> None:
        if self.leds_out is not None:
            try:
                self.leds_out(self.leds_now())
            except Exception:  # a broken LED strip must not stop the referee
                log.exception("LED update failed")

    def _end_flash_later(self) -> None:
        if self.flash_thread is None:
            self.flash_thread = threading.Thread(target=self._flash_loop, name="flash", daemon=True)
            self.flash_thread.start()
        self.flash_wakeup.set()

    def _flash_loop(self) -> None:
        while not self.stopping.is_set():
            self.flash_wakeup.wait()
            self.flash_wakeup.clear()
            while not self.stopping.is_set():
                with self.lock:
                    left = self.flash[0] - time.monotonic()
                if left <= 0:
                    break
                self.stopping.wait(left + 0.01)
            self._refresh_leds()

    def _refresh_leds(self) -> None:
        with self.lock:
            self._write_leds()
            self._bump()

    def refresh_leds(self) -> None:
        self._refresh_leds()

    def set_devices_status(self, **changes: object) -> None:
        """What the devices say (missing ones, camera state, a card to ask about) for the web page."""
        with self.lock:
            old = self.devices_status or {}
            new = {**old, **changes}
            if new != old:
                self.devices_status = new
                self._bump()

    # --- the simulated table ------------------------------------------------------------
    def sim_move(self, frm: str, to: str) -> None:
        """A click on the simulated table: move the piece; settle when the move is complete."""
        with self.lock:
            sim = self._need_sim()
            sim.board = move_piece(sim.board, frm, to)
            if self._complete(sim.board):
                self._submit(T.BoardSettled.of(sim.read(), "sim"))
            else:
                self._bump()

    def sim_settle(self) -> None:
        with self.lock:
            sim = self._need_sim()
            self._submit(T.BoardSettled.of(sim.read(), "sim"))

    def sim_disc(self, direction: int) -> None:
        with self.lock:
            sim = self._need_sim()
            if self.state.variant.name != "black":
                raise T.TableError(f"{self.state.variant.name} has no disc; only Black DOG does")
            sim.turn_disc(direction)
            self._submit(T.DiscTurned(direction, "sim"))
            self._submit(T.BoardSettled.of(sim.read(), "sim"))

    def sim_stage_play(self, index: int) -> T.BoardSettled:
        """A play picked from the page's list: the simulated player sets it out on the board.

        Returns the settled board for the caller to submit, as if the camera had seen it (the
        web route submits it). A play that turns the disc stops before the turn, as a person would.
        """
        with self.lock:
            sim = self._need_sim()
            st = self.state
            if st.card is None or not 0 <= index < len(st.plays):
                raise T.TableError("choose one of the listed plays of the card in play")
            play = st.plays[index]
            sim.board = T._unturned(play) if play.disc_turn else play.result
            return T.BoardSettled.of(sim.read(), "sim")

    def _complete(self, board: engine.Position) -> bool:
        """A move is complete when it gives a legal play or puts the board back: no need for 'done'."""
        st = self.state
        key = T.board_key(board)
        if key == T.board_key(st.position) and (st.flag is not None or st.phase == "setup"):
            return True
        if st.phase == "setup" or st.card is None:
            return key != T.board_key(st.position)  # moved without a card: the referee says so at once
        return any(T.board_key(p.result) == key or (p.disc_turn and T.board_key(T._unturned(p)) == key)
                   for p in st.plays)

    def _need_sim(self) -> SimTable:
        if self.sim is None:
            raise T.TableError("there is no simulated table in this service (use dogtable sim)")
        return self.sim

    def bot_step(self) -> bool:
        """If a bot's seat is to play, play one step of its turn. Returns whether it did anything."""
        with self.lock:
            sim = self.sim
            st = self.state
            if sim is None or st.phase not in ("exchange", "play") or st.flag is not None:
                return False
            if st.phase == "exchange":
                givers = [s for s in st.still_to_give() if s in sim.bots]
                if not givers or st.hands is None:
                    return False
                self._submit(T.CardGiven(givers[0], choose_gift(st, givers[0]), "bot"))
                return True
            if st.turn not in sim.bots:
                return False
            if st.card is not None and st.card_seat != st.turn:
                return False
            self.play_bot_turn()
            return True

    def play_bot_turn(self) -> None:
        """Let the greedy bot play the seat whose turn it is (any seat: a web button asks)."""
        with self.lock:
            sim = self._need_sim()
            st = self.state
            if st.phase == "exchange" and st.hands is not None:
                # the exchange is this "turn": a bot chooses the card of every seat still to give
                while self.state.phase == "exchange":
                    seat = self.state.still_to_give()[0]
                    self._submit(T.CardGiven(seat, choose_gift(self.state, seat), "bot"))
                return
            if st.phase == "exchange":
                self._submit(T.ExchangeDone("bot"))
                st = self.state
            if st.phase != "play":
                raise T.TableError("nobody can play now")
            if st.flag is not None:
                raise T.TableError("put the board right first")
            mv = sim.bot_move(st)
            if mv.action == "sitout":
                self._submit(T.SitOut(st.turn, "bot"))
                return
            self._submit(T.CardSeen(mv.card or "", st.turn, "bot"))
            if mv.action == "play" and mv.play is not None:
                sim.board = mv.play.result if not mv.play.disc_turn else T._unturned(mv.play)
                self._submit(T.BoardSettled.of(sim.read(), "sim"))
                if mv.play.disc_turn:
                    sim.turn_disc(mv.play.disc_turn)
                    self._submit(T.DiscTurned(mv.play.disc_turn, "bot"))
                    self._submit(T.BoardSettled.of(sim.read(), "sim"))
            else:
                self._submit(T.Discard(mv.action == "discard_redraw", "bot"))

    def start_bots(self) -> None:
        t = threading.Thread(target=self._bot_loop, name="bots", daemon=True)
        t.start()
        self.threads.append(t)

    def _bot_loop(self) -> None:
        delay = self.settings.service.bot_delay_s
        while not self.stopping.is_set():
            with self.lock:
                version = self.version
            if self.stopping.wait(delay):
                return
            try:
                if not self.bot_step():
                    with self.lock:
                        if self.version == version:
                            self.changed.wait(timeout=1.0)
            except (T.TableError, engine.EngineError) as exc:
                log.warning("bot could not play: %s", exc)
                self.stopping.wait(2.0)

    def stop(self) -> None:
        self.stopping.set()
        self.flash_wakeup.set()
        with self.lock:
            self._bump()

    # --- what the web page sees ---------------------------------------------------------
    def wait_for_change(self, version: int, timeout: float) -> int:
        with self.lock:
            if self.version == version:
                self.changed.wait(timeout)
            return self.version

    def snapshot(self, viewer: int | None = None) -> dict:
        """The state for one page: `viewer` is the seat the phone picked (None: a spectator).

        Only the viewer's own hand is in it (and the card it gave face down in the exchange);
        other seats are counts. At a real table nobody's hand is known (hands_known false).
        """
        with self.lock:
            st = self.state
            out = T.state_to_json(st)
            seat = viewer if viewer in st.seats else None
            out["viewer"] = seat
            out["hand"] = list(st.hands[seat]) if st.hands is not None and seat is not None else None
            out["given"] = next((c for s, c in st.gifts if s == seat), None) if seat is not None else None
            out["leds"] = self.leds_now()
            out["version"] = self.version
            out["game_id"] = self.game_id
            out["lang"] = self.lang
            out["timing_ms"] = {k: round(v * 1000, 2) for k, v in asdict(self.timing).items()}
            out["devices"] = self.devices_status
            out["journal_repaired"] = self.journal.repaired
            if self.sim is not None:
                sim = self.sim
                out["board"] = sim.board.field_occupancy()
                out["staged"] = T.board_key(sim.board) != T.board_key(self._physical_from_state())
                out["sim"] = {"bots": list(sim.bots)}
            else:
                out["board"] = st.position.field_occupancy()
                out["staged"] = False
                out["sim"] = None
            return out

    def manual_board(self, position_json: dict) -> None:
        """The web page's manual entry for a real table: the board as the person says it is."""
        self.submit(T.BoardSettled.of(T.occupancy(engine.parse_position(position_json)), "web"))

    def set_bots(self, seats: list[int]) -> None:
        with self.lock:
            sim = self._need_sim()
            bad = [s for s in seats if s not in self.state.seats]
            if bad:
                raise T.TableError(f"seat {bad[0]} does not play in this game (seats: {list(self.state.seats)})")
            sim.bots = tuple(seats)
            self._bump()

    def export(self, fmt: str = "json") -> dict | str:
        """The running game's record (companion.record): a dict for "json", the text for "txt"."""
        from companion import record

        if fmt not in ("json", "txt"):
            raise T.TableError(f"export format {fmt!r} is unknown (json or txt)")
        with self.lock:
            g = self.journal.game(self.game_id)
            # hands are hidden information until the game is over: the deal and the exchange show counts
            rec = record.game_record(g.setup, self.journal.timed_events(self.game_id), game_id=g.id,
                                     created=g.created, ended=g.ended, public=self.state.phase != "over")
        return record.to_text(rec) if fmt == "txt" else rec


def geometry_json(segments: int, variant: engine.Variant) -> dict:
    g = engine.load_geometry(segments)
    board = variant.board(segments)
    return {
        "segments": segments, "size": list(g.size), "field_radius": g.field_radius,
        "centres": {k: list(v) for k, v in g.centres.items()},
        "colours": list(board.colours), "start_fields": [f"T{f}" for f in board.start_fields],
        "home_slots": variant.home_slots,
        "disc_fields": [f"T{f}" for f in board.disc_fields], "paw_fields": [f"T{f}" for f in board.paw_fields],
        "special_fields": [f"T{f}" for f in board.special_fields],
        "disc_radius": g.disc_radius, "centre_radius": g.centre_radius,
        "discard": {"centre": list(g.discard_centre), "size": list(g.discard_size)},
    }


def dumps(obj: object) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()
