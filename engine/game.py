"""A whole game (RULES.md §3.9–§3.13): deck, rounds, exchange, turns, cannot-play, win.

`Game` is a step-by-step state machine, so the companion service can follow a real table
one event at a time, and `play_game` runs one to the end with bots. Randomness comes only
from the `random.Random` passed in: a seed gives the same game every time.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from engine.errors import DataError
from engine.moves import Play, legal_moves_for_hand
from engine.position import KENNEL, Position, canonical
from engine.rulesdata import Variant, get_variant, load_board


@dataclass(frozen=True)
class GameEvent:
    """One thing that happened, for logs, journals and replays."""

    kind: str  # deal | exchange | play | discard | draw | out | reshuffle | win
    seat: int | None = None
    card: str | None = None
    notation: str | None = None
    detail: str | None = None


def seats_for(players: int) -> tuple[int, tuple[int, ...]]:
    """Board segments and occupied seats for a player count.

    [decision] 2 players sit opposite (seats 0 and 2); 3 players at 0, 1, 2 of the 4-board;
    5 players at 0..4 of the 6-board (RULES.md §2).
    """
    if players == 2:
        return 4, (0, 2)
    if players in (3, 4):
        return 4, tuple(range(players))
    if players in (5, 6):
        return 6, tuple(range(players))
    raise ValueError(f"DOG is played by 2 to 6 players, not {players}")


def initial_position(variant: Variant, players: int, rng: random.Random | None = None,
                     direction: str | None = None) -> Position:
    """The game start (RULES.md §3.12): kennels full, one piece out where the edition says so.

    Royal lets each player choose which piece starts; black lets a player place the black
    dog on any disc field: both choices are drawn from `rng` (a table sets them by hand).
    `direction`: "clockwise" or "counter-clockwise" (None: the edition's default); a direction
    the edition's rulebook does not allow raises ValueError with the reason.
    """
    rng = rng or random.Random(0)
    try:
        played = variant.check_direction(direction or variant.default_direction)
    except DataError as exc:
        raise ValueError(str(exc)) from None
    segments, seats = seats_for(players)
    if players not in variant.players:
        raise ValueError(f"{variant.name} is played by {', '.join(map(str, variant.players))} players, not {players}")
    board = load_board(variant.board_kind, segments)
    team = players in (4, 6)
    n = variant.pieces if team else variant.solo_pieces
    pieces: list[tuple[int, ...] | None] = [None] * segments
    for s in seats:
        locs = [KENNEL] * n
        if not team or variant.start_on_field == "all":
            chosen = rng.randrange(n) if variant.name == "royal" else 0
            locs[chosen] = board.start_field(s)
        pieces[s] = canonical(variant, locs)
    dog = rng.choice(board.disc_fields) if "black_dog" in variant.rules else None
    return Position(variant, board, tuple(pieces), None, dog, 0, played)


@dataclass
class Game:
    """The state of a game between turns. Mutable: it is the one thing that changes."""

    variant: Variant
    rng: random.Random
    position: Position
    deck: list[str]
    discard: list[str] = field(default_factory=list)
    hands: dict[int, list[str]] = field(default_factory=dict)
    dealer: int = 0
    round_no: int = 0
    turn: int = 0  # seat to play
    out: set[int] = field(default_factory=set)  # seats that sat out this round
    log: list[GameEvent] = field(default_factory=list)
    plies: int = 0
    branching: list[int] = field(default_factory=list)  # options per turn, for statistics
    _winner_of: Position | None = field(default=None, repr=False, compare=False)
    _winner: tuple[int, ...] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def new(cls, variant: str, players: int, seed: int | None = None, direction: str | None = None) -> Game:
        v = get_variant(variant)
        rng = random.Random(seed)
        pos = initial_position(v, players, rng, direction)
        deck = [card for card, count in v.deck for _ in range(count)]
        rng.shuffle(deck)
        dealer = rng.choice(pos.seats)
        return cls(variant=v, rng=rng, position=pos, deck=deck, dealer=dealer)

    # --- seats ------------------------------------------------------------------------
    @property
    def seats(self) -> tuple[int, ...]:
        return self.position.seats

    def next_seat(self, seat: int) -> int:
        """The next seat in the order of play (counter-clockwise: the right-hand neighbour)."""
        return self.position.next_seat(seat)

    @property
    def winner(self) -> tuple[int, ...] | None:
        # asked after every turn: worked out once per position
        if self._winner_of is not self.position:
            self._winner_of = self.position
            self._winner = self.position.winner()
        return self._winner

    @property
    def is_solo(self) -> bool:
        return not self.position.is_team_game

    # --- rounds -----------------------------------------------------------------------
    def cards_this_round(self) -> int:
        cycle = self.variant.cards_per_round
        return cycle[self.round_no % len(cycle)]

    def draw(self) -> str:
        if not self.deck:
            self.deck, self.discard = self.discard, []
            self.rng.shuffle(self.deck)
            self.log.append(GameEvent("reshuffle", detail=str(len(self.deck))))
        return self.deck.pop()

    def deal(self) -> None:
        """Deal a new round: the dealer deals, then passes the deck on to the next seat in the
        order of play (clockwise: the left-hand neighbour), who starts."""
        n = self.cards_this_round()
        self.hands = {s: [] for s in self.seats}
        first = self.next_seat(self.dealer)
        for _ in range(n):
            seat = first
            for _ in self.seats:
                self.hands[seat].append(self.draw())
                seat = self.next_seat(seat)
        self.out = set()
        self.turn = first
        self.log.append(GameEvent("deal", seat=self.dealer, detail=str(n)))

    def exchange(self, choose) -> None:
        """Partners swap one card face down; solo games pass one card to the next seat in the
        order of play (clockwise: to the left).

        `choose(game, seat) -> card` picks the card a seat gives away.
        """
        given = {s: choose(self, s) for s in self.seats}
        for s, card in given.items():
            self.hands[s].remove(card)
        for s, card in given.items():
            to = self.position.partner(s) if not self.is_solo else self.next_seat(s)
            self.hands[to].append(card)
            self.log.append(GameEvent("exchange", seat=s, card=card, detail=str(to)))

    def end_round(self) -> None:
        self.round_no += 1
        self.dealer = self.next_seat(self.dealer)

    # --- turns ------------------------------------------------------------------------
    def options(self, seat: int) -> list[tuple[str, Play]]:
        """Every (card, play) the seat may make now, each card id once."""
        hand = self.hands.get(seat, ())
        if not hand:
            return []
        by_card = legal_moves_for_hand(self.position, hand, seat)
        return [(card, play) for card, plays in by_card.items() for play in plays]

    def apply(self, seat: int, card: str, play: Play) -> None:
        self.hands[seat].remove(card)
        self.discard.append(card)
        self.position = play.result
        self.plies += 1
        self.log.append(GameEvent("play", seat=seat, card=card, notation=play.notation))
        for _ in range(play.draws):  # royal special field: one extra card at once
            drawn = self.draw()
            self.hands[seat].append(drawn)
            self.log.append(GameEvent("draw", seat=seat, card=drawn, detail="special field"))

    def sit_out(self, seat: int) -> None:
        """Team games: no card can be played, so the whole hand is shown and discarded."""
        self.discard.extend(self.hands[seat])
        self.log.append(GameEvent("out", seat=seat, detail=" ".join(self.hands[seat])))
        self.hands[seat] = []
        self.out.add(seat)

    def round_over(self) -> bool:
        return all(not hand for hand in self.hands.values())

    def start_new_round_position(self) -> None:
        # last_card belongs to one round: copy never reaches across rounds.
        p = self.position
        self.position = Position(p.variant, p.board, p.pieces, None, p.black_dog, p.disc, p.direction,
                                 p.moved_onto_start)


def play_game(game: Game, bots: dict[int, object], max_rounds: int = 10_000) -> Game:
    """Run a game to its end with one bot per seat; returns the finished game."""
    while game.winner is None:
        if game.round_no >= max_rounds:
            raise RuntimeError(f"no winner after {max_rounds} rounds")
        game.deal()
        game.start_new_round_position()
        game.exchange(lambda g, s: bots[s].give(g, s))
        while not game.round_over() and game.winner is None:
            seat = game.turn
            if game.hands[seat]:
                _take_turn(game, seat, bots[seat])
            game.turn = game.next_seat(seat)
        if game.winner is None:
            game.discard.extend(c for hand in game.hands.values() for c in hand)
            game.hands = {s: [] for s in game.seats}
            game.end_round()
    game.log.append(GameEvent("win", detail=" ".join(map(str, game.winner))))
    return game


BRANCHING_SAMPLE = 50  # count every option of the hand on every 50th ply (for statistics)


def _take_turn(game: Game, seat: int, bot) -> None:
    quick = getattr(bot, "choose_turn", None)
    if quick is not None:  # a bot that picks without listing every option of the hand
        if game.plies % BRANCHING_SAMPLE == 0:
            game.branching.append(len(game.options(seat)))
        picked = quick(game, seat)
        if picked is not None:
            game.apply(seat, *picked)
            return
    options = game.options(seat)
    if not options and game.variant.stuck == "discard":
        # Brändi Dog: a player who cannot play lays one card down per turn, and plays on with
        # the rest at the next turn (the board may have changed by then)
        card = bot.discard(game, seat)
        game.hands[seat].remove(card)
        game.discard.append(card)
        game.log.append(GameEvent("discard", seat=seat, card=card))
        return
    if not options and game.is_solo:
        card = bot.discard(game, seat)
        game.hands[seat].remove(card)
        game.discard.append(card)
        game.hands[seat].append(game.draw())
        game.log.append(GameEvent("draw", seat=seat, card=card))
        options = game.options(seat)
        if not options:
            card = bot.discard(game, seat)
            game.hands[seat].remove(card)
            game.discard.append(card)
            game.log.append(GameEvent("discard", seat=seat, card=card))
            return
    if not options:
        game.sit_out(seat)
        return
    if quick is None:
        game.branching.append(len(options))
    card, play = bot.choose(game, seat, options)
    game.apply(seat, card, play)
