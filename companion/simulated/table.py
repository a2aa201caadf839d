"""The simulated table: a client of the service, as the real table's devices are.

It holds the physical side the service cannot see — the board as it stands, the dealer's
deck, the seats bots play — and speaks to the service only with the events a device can
send (`Service.submit`): a settled board reading after a piece was moved, a card seen, a
disc turned, a deal. It follows the service's stream of updates to deal when a round
begins, to set the board right after an undo or a correction, and to let its bots play.
"""
from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable

import engine
from companion import table as T
from companion.service import Service
from companion.simulated.board import move_piece
from companion.simulated.players import Bots, deal
from companion.stream import Update

log = logging.getLogger(__name__)

SENT_KEPT = 64  # events this table sent, remembered so that it does not follow them up twice
BOT_WAIT_S = 1.0  # how long the bots' loop sleeps when nothing changes (a stop is seen at once)
BOT_RETRY_S = 2.0  # after a bot could not play: give a person time to put the board right


class SimulatedTable:
    """The physical simulated table. Its methods may be called from any thread."""

    def __init__(self, service: Service, *, bots: tuple[int, ...] = (), levels: tuple[str, ...] = (),
                 seed: int = 0, think_s: float = 1.0,
                 reader: Callable[[engine.Position], dict[str, str]] | None = None,
                 undo_window_s: float | None = None, linked: str | None = None) -> None:
        self.service = service
        # "host" or "joined" when this table plays a game with other tables (companion.remote):
        # a joined table's people neither deal nor set the pieces out (the host's table does),
        # and at either the people carry out the plays made at the other tables
        self.linked = linked
        # whether a play of another table is still to carry out here (the link's gate says): the
        # simulated people carry it out, and the bots wait until it is done
        self.carry_busy: Callable[[], bool] = lambda: False
        self.seed = seed
        self.bots = Bots(bots, levels, seed, think_s)
        # After a person's action (or an undo) the next bot waits this long, so that the person
        # can still take it back alone: their own undo is refused once a bot has acted after it.
        # None: the service's [service] undo_window_s.
        self.undo_window_s = service.settings.service.undo_window_s if undo_window_s is None else undo_window_s
        self._window: tuple[int, float] = (-1, 0.0)  # (seq of the person's latest action or undo, its end)
        # reads the physical board as the camera would; default: exactly what stands there
        self.reader = reader or T.occupancy
        self.lock = threading.RLock()
        self.board: engine.Position | None = None
        self.game_id: int | None = None
        self.stopping = threading.Event()
        self.threads: list[threading.Thread] = []
        self._reported: dict | None = None
        self._sent: collections.deque[T.Event] = collections.deque(maxlen=SENT_KEPT)
        self.subscription = service.subscribe("simulated-table", self._on_update)

    # --- games ------------------------------------------------------------------------
    def open(self, setup: T.Setup, resume: bool = True) -> bool:
        """Open the service's game and set the pieces out (a new game: the camera confirms them)."""
        with self.lock:
            resumed = self.service.open(setup, resume)
            self._follow_game(resumed)
            return resumed

    def new_game(self, variant: str, players: int, direction: str | None = None) -> None:
        with self.lock:
            self.service.new_game(variant, players, direction)
            self._follow_game(resumed=False)

    def _follow_game(self, resumed: bool) -> None:
        self.game_id = self.service.game_id
        self.bots.seed = self.seed + self.game_id  # each game its own hands and choices, the same on a resume
        self.board = self.physical_from_state()
        self._deal_if_due()  # a resumed game holds the journaled deal: only an old journal lacks one
        if not resumed and self.linked != "joined":  # the simulated players set the pieces out: the camera confirms
            self.submit(T.BoardSettled.of(self.read(), "sim"))
        self._report()

    # --- what a device can do ---------------------------------------------------------
    def submit(self, event: T.Event) -> T.TableState:
        """An event from this table (or from the page, through it): submitted, then followed up."""
        with self.lock:
            state = self._send(event)
            self._react(event)
            return state

    def read(self) -> dict[str, str]:
        assert self.board is not None
        return self.reader(self.board)

    def move(self, frm: str, to: str) -> None:
        """A click on the simulated table: move the piece; settle when the move is complete."""
        with self.lock:
            self.board = move_piece(self._board(), frm, to)
            if self._complete(self.board):
                self.submit(T.BoardSettled.of(self.read(), "sim"))
            else:
                self._report()

    def settle(self) -> None:
        with self.lock:
            self._board()
            self.submit(T.BoardSettled.of(self.read(), "sim"))

    def turn_disc(self, direction: int) -> None:
        with self.lock:
            if self.service.state.variant.name != "black":
                raise T.TableError(f"{self.service.state.variant.name} has no disc; only Black DOG does")
            self.board = T.rotate_disc(self._board(), direction)
            self.submit(T.DiscTurned(direction, "sim"))
            self.submit(T.BoardSettled.of(self.read(), "sim"))

    def stage_play(self, index: int) -> None:
        """A play picked from the page's list: the simulated player sets it out on the board.

        A play that turns the disc stops before the turn, as a person would.
        """
        with self.lock:
            st = self.service.state
            if st.card is None or not 0 <= index < len(st.plays):
                raise T.TableError("choose one of the listed plays of the card in play")
            play = st.plays[index]
            self.board = T.unturned(play) if play.disc_turn else play.result
            self.submit(T.BoardSettled.of(self.read(), "sim"))

    def carry_out(self) -> None:
        """The people here carry out a play made at another table; the camera then sees it done."""
        with self.lock:
            if self.linked is None or not self.carry_busy():
                return
            self.board = self.service.state.position
            self.submit(T.BoardSettled.of(self.read(), "sim"))

    def give(self, seat: int, card: str | None, source: str = "web") -> None:
        """A card given in the exchange; with no card named, the seat's bot chooses it."""
        with self.lock:
            st = self.service.state
            if card is None and st.hands is not None and seat in st.still_to_give():
                card = self.bots.gift(st, seat)
            self.submit(T.CardGiven(seat, card, source))

    def set_bots(self, seats: list[int]) -> None:
        with self.lock:
            bad = [s for s in seats if s not in self.service.state.seats]
            if bad:
                raise T.TableError(f"seat {bad[0]} does not play in this game (seats: {list(self.service.state.seats)})")
            self.bots.seats = tuple(seats)
            self._report()

    # --- following the service --------------------------------------------------------
    def _on_update(self, update: Update) -> None:
        with self.lock:
            if self.stopping.is_set():
                return
            if update.game_id != self.game_id:
                self._follow_game(resumed=False)  # a new game from another client (the page)
            elif update.event is not None and not any(e is update.event for e in self._sent):
                self._react(update.event)  # an event another client sent straight to the service

    def _send(self, event: T.Event) -> T.TableState:
        """Submit an event this table followed up itself (the stream brings it back too)."""
        self._sent.append(event)
        return self.service.submit(event)

    def _react(self, event: T.Event) -> None:
        """What the people at the table do after an event: deal, turn the disc back, set the board."""
        st = self.service.state
        if isinstance(event, T.Undo):
            # the simulated player turns the disc back as well (a real one does it by hand)
            while self.service.state.disc_delta:
                step = -1 if self.service.state.disc_delta > 0 else 1
                self._send(T.DiscTurned(step, "sim"))
            st = self.service.state
        if isinstance(event, (T.Undo, T.SetPosition)):
            self.board = st.position
        elif self.linked is not None and isinstance(event, (T.BoardSettled, T.DiscTurned)):
            self.board = self.physical_from_state()  # a play made at another table, carried out here
        self._deal_if_due()
        self._report()

    def _deal_if_due(self) -> None:
        """The simulated dealer deals when a round starts (the deal is journaled like any event)."""
        st = self.service.state
        if self.linked == "joined":
            return  # the hosting table deals
        if st.hands is None and st.phase in ("exchange", "play") and not st.gifts:
            self._send(deal(st, self.seed + self.service.game_id))

    def _report(self) -> None:
        """Tell the pages when the board as it stands changed (as a real table's camera status does)."""
        seen = self.view()
        if seen != self._reported:
            self._reported = seen
            self.service.touch()

    def view(self) -> dict:
        """The board as it stands, whether a move is staged on it, the bots' seats and how long
        they wait after a person's action before playing (undo_window_s): for the page."""
        with self.lock:
            board = self._board()
            return {"board": board.field_occupancy(),
                    "staged": T.board_key(board) != T.board_key(self.physical_from_state()),
                    "bots": list(self.bots.seats), "undo_window_s": self.undo_window_s}

    def physical_from_state(self) -> engine.Position:
        """The board the service believes stands on the table (its last reading, else its position)."""
        st = self.service.state
        if st.reading is not None:
            seen = T.reading_to_position(st.position, dict(st.reading), (st.position.disc + st.disc_delta) % 4)
            if isinstance(seen, engine.Position):
                return seen
        return st.position

    def _complete(self, board: engine.Position) -> bool:
        """A move is complete when it gives a legal play or puts the board back: no need for 'done'."""
        st = self.service.state
        key = T.board_key(board)
        if key == T.board_key(st.position) and (st.flag is not None or st.phase == "setup"):
            return True
        if st.phase == "setup" or st.card is None:
            return key != T.board_key(st.position)  # moved without a card: the referee says so at once
        return any(T.board_key(p.result) == key or (p.disc_turn and T.board_key(T.unturned(p)) == key)
                   for p in st.plays)

    def _board(self) -> engine.Position:
        if self.board is None:
            raise T.TableError("the simulated table has no game yet")
        return self.board

    # --- the bots ---------------------------------------------------------------------
    def bot_step(self) -> bool:
        """If a bot's seat is to play, play one step of its turn. Returns whether it did anything."""
        with self.lock:
            st = self.service.state
            if st.phase not in ("exchange", "play") or st.flag is not None or self.carry_busy():
                return False
            if st.phase == "exchange":
                givers = [s for s in st.still_to_give() if s in self.bots.seats]
                if not givers or st.hands is None:
                    return False
                self.submit(T.CardGiven(givers[0], self.bots.gift(st, givers[0]), "bot"))
                return True
            if st.turn not in self.bots.seats:
                return False
            if st.card is not None and st.card_seat != st.turn:
                return False
            self.play_bot_turn()
            return True

    def play_bot_turn(self) -> None:
        """Let the bot play the seat whose turn it is (any seat: a button on the page asks)."""
        with self.lock:
            st = self.service.state
            if st.phase == "exchange" and st.hands is not None:
                # the exchange is this "turn": a bot chooses the card of every seat still to give
                while self.service.state.phase == "exchange":
                    seat = self.service.state.still_to_give()[0]
                    self.submit(T.CardGiven(seat, self.bots.gift(self.service.state, seat), "bot"))
                return
            if st.phase == "exchange":
                self.submit(T.ExchangeDone("bot"))
                st = self.service.state
            if st.phase != "play":
                raise T.TableError("nobody can play now")
            if st.flag is not None:
                raise T.TableError("put the board right first")
            mv = self.bots.move(st)
            if mv.action == "sitout":
                self.submit(T.SitOut(st.turn, "bot"))
                return
            self.submit(T.CardSeen(mv.card or "", st.turn, "bot"))
            if mv.action == "play" and mv.play is not None:
                self.board = mv.play.result if not mv.play.disc_turn else T.unturned(mv.play)
                self.submit(T.BoardSettled.of(self.read(), "sim"))
                if mv.play.disc_turn:
                    self.board = T.rotate_disc(self.board, mv.play.disc_turn)
                    self.submit(T.DiscTurned(mv.play.disc_turn, "bot"))
                    self.submit(T.BoardSettled.of(self.read(), "sim"))
            else:
                self.submit(T.Discard(mv.action == "discard_redraw", "bot"))

    def start_bots(self) -> None:
        t = threading.Thread(target=self._bot_loop, name="bots", daemon=True)
        t.start()
        self.threads.append(t)

    def undo_window_left(self) -> float:
        """Seconds the bots still wait after a person's latest action or undo (0: they may play).

        The window starts when the bots' loop first sees that action (it wakes on every change).
        """
        with self.lock:
            st = self.service.state
            top = st.history[-1] if st.history else None
            human = top.seq if top is not None and top.before is not None and top.seat not in self.bots.seats else -1
            undone = next((e.seq for e in reversed(st.log) if e.kind == "undo"), -1)
            seq = max(human, undone)
            if seq < 0 or self.undo_window_s <= 0:
                return 0.0
            now = time.monotonic()
            if seq != self._window[0]:
                self._window = (seq, now + self.undo_window_s)
            return max(0.0, self._window[1] - now)

    def _bot_loop(self) -> None:
        """Let the bots play their seats until stopped. Nothing a bot does ends the loop: a
        refused play waits for a person to put the board right, any other failure is logged
        once per kind and the loop goes on after a pause."""
        delay = self.service.settings.service.bot_delay_s
        failed: set[str] = set()
        while not self.stopping.is_set():
            try:
                version = self.service.version
                if self.stopping.wait(delay):
                    return
                left = self.undo_window_left()
                if left > 0:  # a person may still take their action back: an undo ends the wait early
                    self.service.wait_for_change(version, left)
                    continue
                if not self.bot_step():
                    self.service.wait_for_change(version, BOT_WAIT_S)
            except (T.TableError, engine.EngineError) as exc:
                log.warning("bot could not play: %s", exc)
                self.stopping.wait(BOT_RETRY_S)
            except Exception as exc:  # noqa: BLE001 - a bot's fault must not stop the other bots or the game
                key = f"{type(exc).__name__}: {exc}"
                if key not in failed:
                    failed.add(key)
                    log.exception("a bot failed; the bots go on after a pause")
                self.stopping.wait(BOT_RETRY_S)

    def stop(self) -> None:
        self.stopping.set()
        self.subscription.close()
        for t in self.threads:
            t.join(timeout=5)
