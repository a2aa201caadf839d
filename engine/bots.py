"""Bots: a random player and a greedy one that scores the position after each option."""
from __future__ import annotations

import functools
import random
from collections.abc import Callable

from engine.game import Game
from engine.moves import Play
from engine.moves import HandMoves
from engine.position import HOME, KENNEL, Position
from engine.rulesdata import Board
from engine.strongbot import ClubBot, StrongBot

# Cards worth keeping (given away last in the exchange, discarded last).
_KEEP = {"joker": 9, "7": 8, "1/11": 7, "13": 7, "4": 6, "swap": 5, "copy": 5, "partner": 5}


def progress(pos: Position, seat: int) -> float:
    """How far a seat's pieces have come: home counts most, the kennel nothing."""
    return _progress(pos.board, seat, pos.pieces[seat] or (), pos.step)


@functools.lru_cache(maxsize=65536)
def _progress(board: Board, seat: int, locs: tuple[int, ...], step: int = 1) -> float:
    """`step`: +1 clockwise, -1 counter-clockwise (the way the pieces go)."""
    L = board.track_length
    start = board.start_field(seat)
    score = 0.0
    for loc in locs:
        if loc == KENNEL:
            continue
        if loc >= HOME:
            score += L + 20 + 4 * (loc - HOME)
        else:
            score += 8 + (step * (loc - start)) % L
    return score


def evaluate(pos: Position, seat: int) -> float:
    """Own team's progress minus the best other team's (solo: each seat its own team)."""
    seating = pos.seating
    board = pos.board
    pieces = pos.pieces
    mine = seating.team[seat]
    own = 0.0
    best_other = None
    for team in seating.teams:
        score = sum(_progress(board, s, pieces[s], pos.step) for s in team)
        if team == mine:
            own = score
        elif best_other is None or score > best_other:
            best_other = score
    return own - (best_other or 0.0)


def first_playable(game: Game, seat: int, rng: random.Random) -> tuple[str, list[Play]] | None:
    """The first card of the shuffled hand that can be played, with its plays.

    A uniform pick among the playable cards, found without working out the whole hand.
    """
    hand = list(dict.fromkeys(game.hands[seat]))
    rng.shuffle(hand)
    moves = HandMoves(game.position, seat)
    for card in hand:
        plays = moves(card)
        if plays:
            return card, plays
    return None


class RandomBot:
    """Plays a random playable card in a random one of its plays (seeded)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose_turn(self, game: Game, seat: int) -> tuple[str, Play] | None:
        found = first_playable(game, seat, self.rng)
        return None if found is None else (found[0], self.rng.choice(found[1]))

    def choose(self, game: Game, seat: int, options: list[tuple[str, Play]]) -> tuple[str, Play]:
        return self.rng.choice(options)

    def give(self, game: Game, seat: int) -> str:
        return self.rng.choice(game.hands[seat])

    def discard(self, game: Game, seat: int) -> str:
        return self.rng.choice(game.hands[seat])


class GreedyBot:
    """Plays the option whose result scores best; spends valuable cards only when they help."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, game: Game, seat: int, options: list[tuple[str, Play]]) -> tuple[str, Play]:
        best, best_score = options[0], float("-inf")
        for card, play in options:
            score = evaluate(play.result, seat) - 0.5 * _KEEP.get(card, 0) + self.rng.random() * 1e-3
            if score > best_score:
                best, best_score = (card, play), score
        return best

    def give(self, game: Game, seat: int) -> str:
        return min(game.hands[seat], key=lambda c: (_KEEP.get(c, 0), self.rng.random()))

    def discard(self, game: Game, seat: int) -> str:
        return self.give(game, seat)


class HastyBot(GreedyBot):
    """Plays the first card of its shuffled hand that can be played, in the play that scores best.

    Looks at one or two cards instead of the whole hand, so games run several times faster:
    good for long seeded test runs.
    """

    def choose_turn(self, game: Game, seat: int) -> tuple[str, Play] | None:
        found = first_playable(game, seat, self.rng)
        return None if found is None else self.choose(game, seat, [(found[0], p) for p in found[1]])


class BeginnerBot(GreedyBot):
    """A newcomer: plays like the greedy bot, but one turn in three picks any legal option."""

    def choose(self, game: Game, seat: int, options: list[tuple[str, Play]]) -> tuple[str, Play]:
        if self.rng.random() < 1 / 3:
            return self.rng.choice(options)
        return super().choose(game, seat, options)


BOTS = {"random": RandomBot, "greedy": GreedyBot, "hasty": HastyBot,
        "beginner": BeginnerBot, "club": ClubBot, "strong": StrongBot}
LEVELS = ("beginner", "club", "strong")  # the levels a seat can be given, weakest first


def make_bot(name: str, rng: random.Random, deadline: Callable[[], bool] | None = None):
    """The bot called `name` (a key of BOTS); a `deadline` (True once time is up) reaches the
    bots that search (club and strong), the others decide at once anyway."""
    cls = BOTS[name]
    if issubclass(cls, ClubBot):
        return cls(rng, deadline)
    return cls(rng)
