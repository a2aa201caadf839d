"""Bots: a random player and a greedy one that scores the position after each option."""
from __future__ import annotations

import random

from engine.game import Game
from engine.moves import Play
from engine.position import HOME, KENNEL, Position

# Cards worth keeping (given away last in the exchange, discarded last).
_KEEP = {"joker": 9, "7": 8, "1/11": 7, "13": 7, "4": 6, "swap": 5, "copy": 5, "partner": 5}


def progress(pos: Position, seat: int) -> float:
    """How far a seat's pieces have come: home counts most, the kennel nothing."""
    board = pos.board
    L = board.track_length
    start = board.start_field(seat)
    score = 0.0
    for loc in pos.pieces[seat] or ():
        if loc == KENNEL:
            continue
        if loc >= HOME:
            score += L + 20 + 4 * (loc - HOME)
        else:
            score += 8 + (loc - start) % L
    return score


def evaluate(pos: Position, seat: int) -> float:
    """Own team's progress minus the best other team's (solo: each seat its own team)."""
    mine = set(pos.team(seat))
    own = sum(progress(pos, s) for s in mine)
    others = [sum(progress(pos, t) for t in pos.team(s)) for s in pos.seats if s not in mine]
    return own - (max(others) if others else 0.0)


class RandomBot:
    """Picks any legal play at random (seeded)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

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


BOTS = {"random": RandomBot, "greedy": GreedyBot}
