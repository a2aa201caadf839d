"""The state of a table session: what the service believes about the game, as one frozen value.

`TableState` holds the believed position, the round's card bookkeeping (the variant's
6-5-4-3-2 cycle, who laid the hand down, whose turn it is), the card in play with its legal
plays, the table's last verdict and hint, and the log the page shows. `new_state` starts a
game; the events change it only through `companion.table.flow.apply`.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import engine
from engine.game import initial_position
from engine.position import Position
from companion.table.events import TableError

MODES = ("referee", "highlight", "training")
PHASES = ("setup", "exchange", "play", "over")
LOG_KEEP = 400  # entries kept in the state (the journal keeps everything)


@dataclass(frozen=True)
class Setup:
    variant: str
    players: int
    mode: str = "highlight"
    dealer: int | None = None  # None: the last seat deals, so the first seat starts
    direction: str | None = None  # "clockwise" or "counter-clockwise"; None: the edition's own way


@dataclass(frozen=True)
class TableVerdict:
    """The table's verdict on a card shown or a board settled, in every language.

    Not the engine's `engine.referee.Verdict` (one before/after check in one language): this
    one names the seat and card, the accepted play's notation, and the fields to light.
    """

    legal: bool
    seat: int
    card: str
    play: str | None
    reason: dict[str, str]  # language -> words
    fields: tuple[str, ...]  # fields that changed (green) or are wrong (red)
    to: int | None = None  # as LogEntry.to: a verdict on a card only its holder saw is theirs alone


@dataclass(frozen=True)
class TableHint:
    """A hint as the table shows it: the play, why in every language, and the fields to light.

    Made from the engine's `engine.hints.Hint` (the reasons behind the best play) for the page
    and the LED rings, which need words per language and field ids rather than the play itself.
    """

    play: str  # the notation
    why: dict[str, str]
    fields: tuple[str, ...]
    words: dict[str, str] = field(default_factory=dict)  # the play in words, per language


@dataclass(frozen=True)
class LogEntry:
    seq: int
    kind: str
    seat: int | None
    text: dict[str, str]
    notation: str | None = None  # a play's notation, shown on tap beside the words
    # who may read it: None everybody; a seat index, that seat alone (words that name or imply
    # a card in its hand, where hands are known: nobody else at the table saw that card)
    to: int | None = None


@dataclass(frozen=True)
class Action:
    """One action that stands in the game, newest last in `TableState.history`; undo pops it.

    kind: play | out (the hand laid down) | discard | give (a card in the exchange) | exchange
    (a real table's exchange done) | fix (the board corrected by hand) | turn (the turn set by
    hand) | start (the starting position set by hand: the game's first fact, not undone).
    `text` is what the table saw, in every language, so an undo can name what it takes back
    without naming a card nobody saw. `before` is the whole state before the action: undo
    restores it, which is sound across a round's end (the deal, the exchange and the card
    counting are all in it). The record of the game is read from here.
    """

    seq: int
    kind: str
    seat: int | None
    round_no: int
    text: dict[str, str]
    card: str | None = None  # a gift's card is known only where hands are, and private
    notation: str | None = None
    position: Position | None = field(default=None, compare=False, repr=False)  # fix/start: the board set
    before: TableState | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Effect:
    """What the service should do besides showing the new state: flash, speak."""

    kind: str  # ok | error | say
    fields: tuple[str, ...] = ()
    text: dict[str, str] = field(default_factory=dict)
    to: int | None = None  # as LogEntry.to: None for everybody (spoken aloud), else one seat's words


@dataclass(frozen=True)
class TableState:
    setup: Setup
    position: Position  # what the service believes stands on the board
    mode: str
    phase: str
    round_no: int
    dealer: int
    turn: int
    played: tuple[int, ...]  # cards used this round per seat index (played or discarded)
    drawn: tuple[int, ...]  # extra cards drawn this round (royal special fields, solo redraw)
    out: frozenset[int]
    card: str | None = None  # the card in play, waiting for the board to settle
    card_seat: int | None = None
    plays: tuple[engine.Play, ...] = ()
    disc_delta: int = 0  # the disc as the encoder has it, minus the believed position's disc
    flag: TableVerdict | None = None  # something is wrong: waiting for the board to be put right
    verdict: TableVerdict | None = None  # the last verdict given
    hint: TableHint | None = None
    reading: tuple[tuple[str, str], ...] | None = None  # the last settled board
    log: tuple[LogEntry, ...] = ()
    seq: int = 0
    history: tuple[Action, ...] = field(default=(), repr=False)  # the actions that stand, newest last
    # Hands by seat index, where the service knows them (the simulated table); None at a real
    # table. Never sent to a page whole: Service.snapshot shows a viewer only its own hand.
    hands: tuple[tuple[str, ...], ...] | None = None
    stock: tuple[str, ...] = ()  # cards left to draw from (royal special fields, solo redraws)
    gifts: tuple[tuple[int, str | None], ...] = ()  # exchange: (seat, card given face down) so far
    given: tuple[tuple[int, str | None], ...] = ()  # this round's exchange once done (card None where unknown)
    # Card counting for the hints and the bots: the cards laid down or shown since the deck was
    # last shuffled (as far as the table saw them), and how many cards the deck still holds,
    # counted from what was dealt and drawn, so the table knows when the pile is shuffled anew.
    seen: tuple[str, ...] = ()
    deck_left: int = 0

    @property
    def undo_to(self) -> TableState | None:
        """The state before the latest action that can be taken back (None: nothing to undo)."""
        return self.history[-1].before if self.history else None

    @property
    def seats(self) -> tuple[int, ...]:
        return self.position.seats

    @property
    def variant(self) -> engine.Variant:
        return self.position.variant

    def cards_this_round(self) -> int:
        cycle = self.variant.cards_per_round
        return cycle[self.round_no % len(cycle)]

    def hand_size(self, seat: int) -> int:
        if seat in self.out:
            return 0
        return max(0, self.cards_this_round() + self.drawn[seat] - self.played[seat])

    @property
    def winner(self) -> tuple[int, ...] | None:
        return self.position.winner()

    def receiver(self, seat: int) -> int:
        """Who gets the seat's card in the exchange: the partner; in solo games the left neighbour."""
        partner = self.position.partner(seat)
        return partner if partner is not None else self.position.next_seat(seat)

    def still_to_give(self) -> tuple[int, ...]:
        given = {s for s, _ in self.gifts}
        return tuple(s for s in self.seats if s not in given) if self.phase == "exchange" else ()


def new_state(setup: Setup) -> TableState:
    """A new game waiting for the camera (or a person) to confirm the starting position."""
    try:
        variant = engine.get_variant(setup.variant)
        position = initial_position(variant, setup.players, direction=setup.direction)
    except (engine.EngineError, ValueError) as exc:
        raise TableError(str(exc)) from None
    if setup.mode not in MODES:
        raise TableError(f"unknown mode '{setup.mode}' (choose {', '.join(MODES)})")
    seats = position.seats
    dealer = position.play_order[-1] if setup.dealer is None else setup.dealer
    if dealer not in seats:
        raise TableError(f"dealer seat {dealer} does not play (seats: {list(seats)})")
    n = len(position.pieces)
    state = TableState(
        setup=setup, position=position, mode=setup.mode, phase="setup", round_no=0, dealer=dealer,
        turn=position.next_seat(dealer), played=(0,) * n, drawn=(0,) * n, out=frozenset(),
        deck_left=variant.deck_size,
    )
    return dealt_from_deck(state, state.cards_this_round() * len(seats))


def dealt_from_deck(state: TableState, count: int) -> TableState:
    """`count` cards left the deck (dealt or drawn; the hands already hold them).

    RULES.md §3.11: when the deck runs out, the pile of cards laid down is shuffled into a new
    one. Then every card not in a hand is back in the deck and none has been seen.
    """
    if count <= state.deck_left:
        return replace(state, deck_left=state.deck_left - count)
    held = sum(state.hand_size(s) for s in state.seats)
    return replace(state, seen=(), deck_left=max(0, state.variant.deck_size - held))

