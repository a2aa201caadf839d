"""The simulated table's physical side: pieces a person moves by clicking, cards in hands, bots.

This is the world the table service watches, not the service's belief about it: a click
moves a piece here, and only a settled board reading tells the table (companion.table)
what happened, exactly as a camera would. With `vision=True` the reading really comes from
the hardware room's renderer and the vision room's pipeline.
"""
from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import engine
from engine.bots import make_bot
from engine.evaluate import SeatView
from engine.position import HOME, KENNEL, Position, canonical
from companion.table import Deal, TableError, TableState, occupancy, seat_view

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BotMove:
    """What a bot does on its turn: play a card (with the play), or lay down / discard."""

    action: str  # play | sitout | discard | discard_redraw
    card: str | None = None
    play: engine.Play | None = None


def move_piece(pos: Position, frm: str, to: str) -> Position:
    """A person moves what stands on `frm` to `to`; a piece standing there goes to its kennel."""
    board = pos.board
    try:
        fk, fs, fi = engine.parse_field_id(frm)
        tk, ts, ti = engine.parse_field_id(to)
    except engine.EngineError as exc:
        raise TableError(str(exc)) from None
    pieces = [None if p is None else list(p) for p in pos.pieces]
    dog = pos.black_dog
    if fk == "T" and dog == fi:
        if tk != "T" or tk == "T" and ti in board.start_owner:
            raise TableError("the black dog only stands on track fields that are not start fields")
        victim = _at(pieces, ti)
        if victim:
            pieces[victim[0]][victim[1]] = KENNEL
        return _build(pos, pieces, ti)
    who = _find(pieces, fk, fs, fi)
    if who is None:
        raise TableError(f"there is no piece on {frm}")
    seat, idx = who
    if tk == "T":
        if ti >= board.track_length:
            raise TableError(f"field {to} does not exist")
        if dog == ti:
            raise TableError("the black dog stands there")
        victim = _at(pieces, ti)
        if victim and victim != who:
            pieces[victim[0]][victim[1]] = KENNEL
        pieces[seat][idx] = ti
    elif tk == "H":
        if ts != seat or ti >= pos.variant.home_slots:
            raise TableError(f"{to} is not a home field of this piece")
        if HOME + ti in pieces[seat]:
            raise TableError(f"{to} is taken")
        pieces[seat][idx] = HOME + ti
    else:
        if ts != seat:
            raise TableError(f"{to} is another player's kennel")
        pieces[seat][idx] = KENNEL
    return _build(pos, pieces, dog)


def _find(pieces: list, kind: str, seat: int, idx: int) -> tuple[int, int] | None:
    if kind == "T":
        return _at(pieces, idx)
    if not 0 <= seat < len(pieces) or pieces[seat] is None:
        return None
    want = HOME + idx if kind == "H" else KENNEL
    for i, loc in enumerate(pieces[seat]):
        if loc == want:
            return seat, i
    return None


def _at(pieces: list, field: int) -> tuple[int, int] | None:
    for s, locs in enumerate(pieces):
        for i, loc in enumerate(locs or ()):
            if loc == field:
                return s, i
    return None


def _build(pos: Position, pieces: list, dog: int | None) -> Position:
    return Position(pos.variant, pos.board,
                    tuple(None if p is None else canonical(pos.variant, p) for p in pieces),
                    pos.last_card, dog, pos.disc)


class SimTable:
    """The physical simulated table: the board as it stands, hands, and seats played by bots.

    Not thread-safe: the service calls it under its lock.
    """

    def __init__(self, position: Position, bots: tuple[int, ...] = (), seed: int = 0,
                 reader: Callable[[Position], dict[str, str]] | None = None, levels: tuple[str, ...] = (),
                 think_s: float = 1.0, deadline_after: Callable[[float], Callable[[], bool]] | None = None) -> None:
        self.board = position
        self.bots = tuple(bots)
        self.levels = dict(zip(self.bots, levels))  # seat -> engine.bots.BOTS name; unlisted seats: greedy
        self.seed = seed
        # reads the physical board as the camera would; default: exactly what stands there
        self.reader = reader or occupancy
        self.settled: dict[str, str] | None = None
        self.think_s = think_s  # [service] bot_think_s: how long a bot may search per decision
        self.deadline_after = deadline_after or time_limit

    def read(self) -> dict[str, str]:
        return self.reader(self.board)

    def move(self, frm: str, to: str) -> None:
        self.board = move_piece(self.board, frm, to)

    def turn_disc(self, direction: int) -> None:
        from companion.table import rotate_disc

        self.board = rotate_disc(self.board, direction)

    def deal(self, state: TableState) -> Deal:
        """The round's deal (seeded by round): hands of the size the table expects now, and the stock.

        The service journals it, so a resumed game holds the same cards, not a new deal.
        """
        rng = random.Random(self.seed * 7919 + state.round_no)
        deck = [c for c, n in state.variant.deck for _ in range(n)]
        rng.shuffle(deck)
        hands = tuple(tuple(deck.pop() for _ in range(state.hand_size(s))) if s in state.seats else ()
                      for s in range(len(state.position.pieces)))
        return Deal(state.round_no, hands, tuple(deck))

    def seat_view(self, state: TableState, seat: int) -> SeatView:
        """What the seat knows now (`companion.table.seat_view`): its hand, the cards seen, hand sizes."""
        return seat_view(state, seat)

    def bot_move(self, state: TableState) -> BotMove:
        """The seat's bot's choice (its level, greedy by default), from the cards the table says it holds.

        The bot sees what its seat knows (`seat_view`) and may think for `think_s` seconds.
        """
        seat = state.turn
        hand = list(state.hands[seat]) if state.hands is not None else []
        rng = random.Random(self.seed * 31 + state.seq)
        options = []
        for card in dict.fromkeys(hand):
            for play in engine.legal_moves(state.position, card, seat):
                options.append((card, play))
        if options:
            bot = make_bot(self.levels.get(seat, "greedy"), rng, self.deadline_after(self.think_s))
            card, play = bot.choose(self.seat_view(state, seat), seat, options)
            return BotMove("play", card, play)
        if not hand or state.position.is_team_game:
            return BotMove("sitout")
        redraw = state.drawn[seat] == 0
        return BotMove("discard_redraw" if redraw else "discard", min(hand, key=lambda c: _VALUE.get(c, 0)))


def time_limit(seconds: float) -> Callable[[], bool]:
    """A deadline for a bot: True once `seconds` have passed (the service's clock, not the engine's)."""
    end = time.monotonic() + seconds
    return lambda: time.monotonic() >= end


# How much a card is worth keeping (RULES.md §3.11: partners help each other with the exchange).
_VALUE = {"joker": 9, "7": 8, "1/11": 7, "13": 7, "4": 6, "swap": 5, "copy": 5, "partner": 5, "magnet": 5,
          "1-7": 6, "black-1-7": 6}
START_CARDS = ("1/11", "13", "joker")


def choose_gift(state: TableState, seat: int) -> str:
    """The card a bot gives in the exchange.

    To a partner with no piece on the track (or on its start field) a start card, which it
    needs to begin; otherwise the card the bot values least. A solo player never helps its
    left neighbour: it gives its least useful card.
    """
    assert state.hands is not None
    hand = state.hands[seat]
    to = state.receiver(seat)
    pos = state.position
    if pos.partner(seat) == to and _needs_start(pos, to):
        starts = [c for c in hand if c in START_CARDS]
        if len(starts) > 1 or (starts and not _needs_start(pos, seat)):
            return min(starts, key=lambda c: (_VALUE.get(c, 0), c))
    return min(hand, key=lambda c: (_VALUE.get(c, 0), c))


def _needs_start(pos: Position, seat: int) -> bool:
    """No piece on the track: only a start card lets this seat move at all."""
    return all(loc == KENNEL or loc >= HOME for loc in pos.pieces[seat] or ())
