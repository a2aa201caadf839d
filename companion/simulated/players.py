"""The simulated table's people: the dealer, and the seats that bots play.

Each bot sees only what its seat knows (`companion.table.seat_view`): its own hand, the
cards played, the hand sizes. A bot chooses; the simulated table carries its choice out
on the board and the service learns of it as it would from a camera.
"""
from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import engine
from engine.bots import make_bot
from engine.position import HOME, KENNEL, Position
from companion.table import Deal, TableState, offered_plays, seat_view, stuck_rule

log = logging.getLogger(__name__)

# The simpler level a seat falls back to when its bot fails: the simpler bots search less (the
# greedy one weighs each play once, the random one nothing), so they are less to go wrong.
# None: pick any legal play, which needs nothing but the list of plays.
FALLBACK: dict[str, str | None] = {"strong": "club", "club": "greedy", "beginner": "greedy", "hasty": "greedy",
                                   "greedy": "random", "random": None}


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
        self.failed: set[tuple[int, str]] = set()  # (seat, what failed) already logged

    def level(self, seat: int) -> str:
        return self.levels.get(seat, "greedy")

    def move(self, state: TableState) -> BotMove:
        """The choice of the bot whose turn it is, from the cards the table says it holds.

        A bot that fails (an exception in its search or its evaluation) costs the seat its
        level, not the game: logged once, and the seat plays on one level simpler.
        """
        seat = state.turn
        hand = list(state.hands[seat]) if state.hands is not None else []
        rng = random.Random(self.seed * 31 + state.seq)
        options = []
        for card in dict.fromkeys(hand):
            # as the table offers them: a card with a real play is not laid down without effect
            for play in offered_plays(state.position, engine.legal_moves(state.position, card, seat)):
                options.append((card, play))
        if options:
            card, play = self._choose(state, seat, options, rng)
            return BotMove("play", card, play)
        least = min(hand, key=lambda c: KEEP_VALUE.get(c, 0)) if hand else None
        if stuck_rule(state.variant) == "discard" and hand:
            return BotMove("discard", least)
        if not hand or state.position.is_team_game:
            return BotMove("sitout")
        redraw = state.drawn[seat] == 0
        return BotMove("discard_redraw" if redraw else "discard", least)

    def _choose(self, state: TableState, seat: int, options: list[tuple[str, engine.Play]],
                rng: random.Random) -> tuple[str, engine.Play]:
        level: str | None = self.level(seat)
        while level is not None:
            try:
                bot = make_bot(level, rng, self.deadline_after(self.think_s))
                choice = bot.choose(seat_view(state, seat), seat, options)
                if choice not in options:
                    raise ValueError(f"chose {choice!r}, which is not one of the legal plays")
                return choice
            except Exception as exc:  # noqa: BLE001 - whatever breaks in a bot, the seat plays on
                simpler = FALLBACK.get(level)
                self.report(seat, f"bot {level}", exc, f"the seat plays on as {simpler or 'any legal play'}")
                level = simpler
                if level is not None:
                    self.levels[seat] = level
                else:
                    self.levels[seat] = "random"
        return rng.choice(options)

    def gift(self, state: TableState, seat: int) -> str:
        """The card the seat's bot gives in the exchange (any card of the hand if that fails)."""
        try:
            return choose_gift(state, seat)
        except Exception as exc:  # noqa: BLE001 - any card of the hand is a legal gift
            self.report(seat, "gift", exc, "it gives the first card of the hand")
            assert state.hands is not None
            return state.hands[seat][0]

    def report(self, seat: int, what: str, exc: BaseException, then: str) -> None:
        """Log a bot's failure once per seat and kind (the bots go on; a log full of the same
        line would hide everything else)."""
        if (seat, what) in self.failed:
            return
        self.failed.add((seat, what))
        log.error("seat %d: %s failed (%s: %s); %s", seat, what, type(exc).__name__, exc, then, exc_info=exc)


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
