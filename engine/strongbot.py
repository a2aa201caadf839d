"""Bots that play DOG well: `club` (the evaluation of engine.evaluate, one ply) and `strong`
(the same, checked by a look-ahead over the next opponent's possible hands).

Deterministic given the `random.Random` they are built with. The look-ahead's size is a
budget of samples, and a service that wants a time limit passes a `deadline` callable
(True once time is up): the engine itself never reads a clock.
"""
from __future__ import annotations

import random
from collections.abc import Callable

from engine.evaluate import Knowledge, evaluate, hand_value, mover_of, quick_score
from engine.moves import START_CARDS, Play, legal_moves_for_hand
from engine.position import HOME, KENNEL, Position


DRAW = 6.0  # an extra card (royal special field)


def without(hand, card: str) -> tuple[str, ...]:
    """The hand after one `card` has left it."""
    out = list(hand)
    if card in out:
        out.remove(card)
    return tuple(out)


def option_scores(know: Knowledge, seat: int, options: list[tuple[str, Play]]) -> list[float]:
    """The club evaluation of each (card, play): the position it leaves and the cards kept."""
    out = []
    for card, play in options:
        after = without(know.hand, card)
        # royal special field: the extra card drawn is worth an average kept card
        out.append(evaluate(play.result, seat, know, after, know.own_threat(after)) + DRAW * play.draws)
    return out


class ClubBot:
    """Scores every option with the full evaluation (danger, card counting, tempo, partner)."""

    def __init__(self, rng: random.Random, deadline: Callable[[], bool] | None = None) -> None:
        self.rng = rng
        self.deadline = deadline
        self.gift: tuple[int, str] | None = None  # (round, card) given to the partner

    # --- what the seat knows ---------------------------------------------------------
    def knowledge(self, game, seat: int, options: list[tuple[str, Play]]) -> Knowledge:
        if game is None:  # a caller that knows the position only: the options' cards are the hand
            pos = options[0][1].result
            return Knowledge(pos.variant, list(dict.fromkeys(c for c, _ in options)))
        gift = self.gift[1] if self.gift and self.gift[0] == game.round_no else None
        return Knowledge.from_game(game, seat, gift)

    def scores(self, game, seat: int, options: list[tuple[str, Play]]) -> list[float]:
        return option_scores(self.knowledge(game, seat, options), seat, options)

    def choose(self, game, seat: int, options: list[tuple[str, Play]]) -> tuple[str, Play]:
        scores = self.scores(game, seat, options)
        best = max(range(len(options)), key=lambda i: (scores[i], -i))
        return options[best]

    # --- exchange and discards ---------------------------------------------------------
    def give(self, game, seat: int) -> str:
        hand = game.hands[seat]
        pos = game.position
        partner = pos.partner(seat)

        def cost(card: str) -> tuple[float, float]:
            mine = hand_value(pos, seat, hand) - hand_value(pos, seat, without(hand, card))
            help_ = 0.0
            if partner is not None:
                help_ = gift_value(pos, partner, card)
            else:  # solo: the left neighbour is an opponent; a start card or joker helps them most
                mine += 4.0 if card in START_CARDS or card == "joker" else 0.0
            return mine - help_, self.rng.random()

        card = min(hand, key=cost)
        self.gift = (game.round_no, card) if partner is not None else None
        return card

    def discard(self, game, seat: int) -> str:
        hand = game.hands[seat]
        pos = game.position
        return min(hand, key=lambda c: (hand_value(pos, seat, hand) - hand_value(pos, seat, without(hand, c)),
                                        self.rng.random()))


def gift_value(pos: Position, partner: int, card: str) -> float:
    """How much a card helps the partner: a start card most when all their pieces wait."""
    mover = mover_of(pos, partner)
    locs = pos.pieces[mover]
    kennel = sum(1 for x in locs if x >= KENNEL)
    on_track = sum(1 for x in locs if x < HOME)
    if card in START_CARDS or card == "joker":
        if kennel and not on_track:
            return 20.0  # without it they may sit out the whole round
        if kennel:
            return 6.0
    return 0.0


class StrongBot(ClubBot):
    """The club evaluation, then a look-ahead on the best few options.

    For each of the `width` best options (unless the best is far ahead) it deals the next
    opponent `samples` hands from the unseen cards (what this seat knows), lets them answer
    with the play that gains them most progress (often a capture), and keeps the option whose
    answered positions score best on average. `width * samples` is the budget; a `deadline`
    that turns True cuts each option to the samples already looked at (at least one).
    """

    width = 3
    samples = 4

    def choose(self, game, seat: int, options: list[tuple[str, Play]]) -> tuple[str, Play]:
        scores = self.scores(game, seat, options)
        order = sorted(range(len(options)), key=lambda i: (-scores[i], i))
        if game is None or len(options) == 1:
            return options[order[0]]
        top = order[:self.width]
        if scores[top[0]] - scores[top[1]] > 15.0:
            return options[top[0]]  # one option is far ahead: nothing to look at
        know = self.knowledge(game, seat, options)
        pos = game.position
        nxt = _next_seat(pos, seat)
        size = len(game.hands.get(nxt, ()))
        if size == 0 or pos.seating.team[nxt] == pos.seating.team[seat]:
            return options[top[0]]
        pool = [card for card, n in know.unseen.items() for _ in range(n)]
        if len(pool) < size:
            return options[top[0]]
        hands = [tuple(self.rng.sample(pool, size)) for _ in range(self.samples)]
        best, best_score = top[0], float("-inf")
        for i in top:
            card, play = options[i]
            after = without(know.hand, card)
            mine = know.own_threat(after)
            total = 0.0
            n = 0
            for hand in hands:
                if self.deadline is not None and n and self.deadline():
                    break
                reply = _reply(play.result, nxt, hand)
                total += evaluate(reply, seat, know, after, mine)
                n += 1
            value = total / n
            if value > best_score:
                best, best_score = i, value
        return options[best]


def _next_seat(pos: Position, seat: int) -> int:
    seats = pos.seats
    return seats[(seats.index(seat) + 1) % len(seats)]


def _reply(pos: Position, seat: int, hand: tuple[str, ...]) -> Position:
    """The position after `seat` answers with the play from `hand` that gains it most progress."""
    by_card = legal_moves_for_hand(pos, list(hand), seat)
    best, best_score = pos, float("-inf")
    for plays in by_card.values():
        for play in plays:
            score = quick_score(play.result, seat)
            if score > best_score:
                best, best_score = play.result, score
    return best
