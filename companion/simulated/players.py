"""The simulated table's people: the dealer, and the seats that bots play.

Each bot sees only what its seat knows (`companion.table.seat_view`): its own hand, the
cards played, the hand sizes. A bot chooses; the simulated table carries its choice out
on the board and the service learns of it as it would from a camera.
"""
from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import engine
from engine.bots import make_bot
from engine.position import HOME, KENNEL, Position
from companion.table import Deal, TableState, seat_view


@dataclass(frozen=True)
class BotMove:
    """What a bot does on its turn: play a card (with the play), or lay down / discard."""

    action: str  # play | sitout | discard | discard_redraw
    card: str | None = None
    play: engine.Play | None = None


def time_limit(seconds: float) -> Callable[[], bool]:
    """A deadline for a bot: True once `seconds` have passed (the service's clock, not the engine's)."""
    end = time.monotonic() + seconds
    return lambda: time.monotonic() >= end


class Bots:
    """The seats bots play, each at its level (greedy unless the config names one)."""

    def __init__(self, seats: tuple[int, ...] = (), levels: tuple[str, ...] = (), seed: int = 0,
                 think_s: float = 1.0, deadline_after: Callable[[float], Callable[[], bool]] | None = None) -> None:
        self.seats = tuple(seats)
        self.levels = dict(zip(self.seats, levels))  # seat -> engine.bots.BOTS name; unlisted seats: greedy
        self.seed = seed
        self.think_s = think_s  # [service] bot_think_s: how long a bot may search per decision
        self.deadline_after = deadline_after or time_limit

    def move(self, state: TableState) -> BotMove:
        """The choice of the bot whose turn it is, from the cards the table says it holds."""
        seat = state.turn
        hand = list(state.hands[seat]) if state.hands is not None else []
        rng = random.Random(self.seed * 31 + state.seq)
        options = []
        for card in dict.fromkeys(hand):
            for play in engine.legal_moves(state.position, card, seat):
                options.append((card, play))
        if options:
            bot = make_bot(self.levels.get(seat, "greedy"), rng, self.deadline_after(self.think_s))
            card, play = bot.choose(seat_view(state, seat), seat, options)
            return BotMove("play", card, play)
        if not hand or state.position.is_team_game:
            return BotMove("sitout")
        redraw = state.drawn[seat] == 0
        return BotMove("discard_redraw" if redraw else "discard", min(hand, key=lambda c: KEEP_VALUE.get(c, 0)))


def deal(state: TableState, seed: int) -> Deal:
    """The round's deal (seeded by round): hands of the size the table expects now, and the stock.

    The service journals it, so a resumed game holds the same cards, not a new deal.
    """
    rng = random.Random(seed * 7919 + state.round_no)
    deck = [c for c, n in state.variant.deck for _ in range(n)]
    rng.shuffle(deck)
    hands = tuple(tuple(deck.pop() for _ in range(state.hand_size(s))) if s in state.seats else ()
                  for s in range(len(state.position.pieces)))
    return Deal(state.round_no, hands, tuple(deck))


# How much a card is worth keeping (RULES.md §3.11: partners help each other with the exchange).
KEEP_VALUE = {"joker": 9, "7": 8, "1/11": 7, "13": 7, "4": 6, "swap": 5, "copy": 5, "partner": 5, "magnet": 5,
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
            return min(starts, key=lambda c: (KEEP_VALUE.get(c, 0), c))
    return min(hand, key=lambda c: (KEEP_VALUE.get(c, 0), c))


def _needs_start(pos: Position, seat: int) -> bool:
    """No piece on the track: only a start card lets this seat move at all."""
    return all(loc == KENNEL or loc >= HOME for loc in pos.pieces[seat] or ())
