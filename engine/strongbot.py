"""Bots that play DOG well: `club` (the evaluation of engine.evaluate, one ply) and `strong`
(the same, checked by a look-ahead over the other seats' possible hands).

Deterministic given the `random.Random` they are built with. The look-ahead's size is a
budget of samples, and a service that wants a time limit passes a `deadline` callable
(True once time is up): the engine itself never reads a clock.
"""
from __future__ import annotations

import random
from collections.abc import Callable

from engine.evaluate import Knowledge, SeatView, evaluate, hand_value, mover_of, quick_score
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
    def view(self, game, seat: int) -> SeatView | None:
        """What the seat knows, from a `Game`, a `SeatView` the caller built, or nothing (None)."""
        if game is None or isinstance(game, SeatView):
            return game
        gift = self.gift[1] if self.gift and self.gift[0] == game.round_no else None
        return SeatView.of_game(game, seat, gift)

    def knowledge(self, view: SeatView | None, options: list[tuple[str, Play]]) -> Knowledge:
        if view is None:  # a caller that knows the position only: the options' cards are the hand
            pos = options[0][1].result
            return Knowledge(pos.variant, list(dict.fromkeys(c for c, _ in options)))
        return view.knowledge()

    def scores(self, game, seat: int, options: list[tuple[str, Play]]) -> list[float]:
        return option_scores(self.knowledge(self.view(game, seat), options), seat, options)

    def choose(self, game, seat: int, options: list[tuple[str, Play]]) -> tuple[str, Play]:
        """The best of `options`; `game` is a `Game`, a `SeatView`, or None (the position only)."""
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
    """The club evaluation, then a look-ahead on the best few options, up to its own next play.

    For each of the `width` best options (unless the best is far ahead) it deals the other
    seats `samples` hands from the unseen cards (what this seat knows; the partner holds the
    card we gave it), lets each answer in turn with the play that gains its team most progress
    (often a capture), then plays its own next card from the cards kept the same way (none
    playable: a team seat sits out and loses them), and keeps the option whose positions then
    score best on average. Looking up to the own next play is what pays: it sees a piece left
    where the second opponent reaches it, a partner's play to build on, and cards that will
    not move next turn. `width * samples` is the budget; a `deadline` that turns True cuts
    each option to the samples already looked at (at least one).
    """

    width = 3
    samples = 4
    cycle = True  # every other seat answers (False: only the next seat, if an opponent)
    own = True  # after the answers, the own next play from the cards kept
    margin = 15.0  # the best option this far ahead of the second: no look-ahead

    looked = 0  # sampled positions the last decision looked at (width * samples unless cut short)

    def choose(self, game, seat: int, options: list[tuple[str, Play]]) -> tuple[str, Play]:
        view = self.view(game, seat)
        self.looked = 0
        know = self.knowledge(view, options)
        scores = option_scores(know, seat, options)
        order = sorted(range(len(options)), key=lambda i: (-scores[i], i))
        if view is None or len(options) == 1:
            return options[order[0]]
        top = order[:self.width]
        if scores[top[0]] - scores[top[1]] > self.margin:
            return options[top[0]]  # one option is far ahead: nothing to look at
        pos = view.position
        sizes = dict(view.hand_sizes)
        # the seats that answer before our next turn: the next one only, or all of them (`cycle`)
        order_seats = _seats_after(pos, seat)
        if not self.cycle:
            order_seats = order_seats[:1]
        repliers = [s for s in order_seats if sizes.get(s, 0)]
        if not repliers or (not self.cycle and pos.seating.team[repliers[0]] == pos.seating.team[seat]):
            return options[top[0]]
        deals = self.deal_others(know, seat, pos, repliers, sizes)
        if not deals:
            return options[top[0]]
        best, best_score = top[0], float("-inf")
        self.looked = 0
        for i in top:
            card, play = options[i]
            after = without(know.hand, card)
            mine = know.own_threat(after)
            total = 0.0
            n = 0
            for hands in deals:
                if self.deadline is not None and n and self.deadline():
                    break
                reply = play.result
                for s in repliers:
                    reply = _reply(reply, s, hands[s])[0]
                if self.own and after:
                    # and our own next play from the cards kept (none: a team seat sits out)
                    reply, used = _reply(reply, seat, after)
                    rest = without(after, used) if used else (() if pos.is_team_game else after[1:])
                    total += evaluate(reply, seat, know, rest, know.own_threat(rest))
                else:
                    total += evaluate(reply, seat, know, after, mine)
                n += 1
            self.looked += n
            value = total / n
            if value > best_score:
                best, best_score = i, value
        return options[best]

    def deal_others(self, know: Knowledge, seat: int, pos: Position, repliers: list[int],
                    sizes: dict[int, int]) -> list[dict[int, tuple[str, ...]]]:
        """`samples` deals of the repliers' hands from the unseen cards (the partner holds our gift)."""
        pool = [card for card, n in know.unseen.items() for _ in range(n)]
        known = {s: () for s in repliers}
        partner = pos.partner(seat)
        gift = know.partner_gift
        if gift is not None and partner in known and sizes[partner] and gift in pool:
            known[partner] = (gift,)
            pool.remove(gift)
        need = sum(sizes[s] - len(known[s]) for s in repliers)
        if len(pool) < need:
            return []
        deals = []
        for _ in range(self.samples):
            drawn = self.rng.sample(pool, need)
            hands, at = {}, 0
            for s in repliers:
                k = sizes[s] - len(known[s])
                hands[s] = known[s] + tuple(drawn[at:at + k])
                at += k
            deals.append(hands)
        return deals


def _seats_after(pos: Position, seat: int) -> list[int]:
    """The other seats in playing order, starting left of `seat`."""
    seats = pos.seats
    k = seats.index(seat)
    return [seats[(k + j) % len(seats)] for j in range(1, len(seats))]


def _reply(pos: Position, seat: int, hand: tuple[str, ...]) -> tuple[Position, str | None]:
    """`seat`'s answer from `hand`: the play that gains it most progress (position, card; None: no play)."""
    by_card = legal_moves_for_hand(pos, list(hand), seat)
    best, best_card, best_score = pos, None, float("-inf")
    for card, plays in by_card.items():
        for play in plays:
            score = quick_score(play.result, seat)
            if score > best_score:
                best, best_card, best_score = play.result, card, score
    return best, best_card
