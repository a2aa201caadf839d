"""Seeded self-play games per edition and player count run to the end without error.

Each game is checked as it goes: every play the bots make is one `legal_moves` offered,
pieces are conserved, no field holds two pieces, results parse back from their own JSON;
the game ends with exactly the winner the position says.

The suite plays the first GAMES seeds of each combination (clockwise) and the first
DIRECTION_GAMES of each played the other way (DIRECTION_COMBOS: counter-clockwise where a
rulebook allows it, and Brändi Dog both ways); scripts/selfplay_checked.py plays the full run
(200 seeds of each, through `play_checked` below) and prints figures.
"""
import random

import pytest

import engine
from engine.bots import GreedyBot
from engine.game import Game, play_game

GAMES = 20  # per combination: a tenth of the full checked run, so that the suite stays quick
COMBOS = [(v, n) for v, counts in (
    ("classic", (2, 3, 4, 5, 6)),
    ("compact", (2, 3, 4)),
    ("royal-basic", (2, 3, 4, 5, 6)),
    ("royal", (2, 3, 4, 5, 6)),
    ("black", (2, 3, 4)),
) for n in counts]
DIRECTION_GAMES = 4  # per combination: the same checks, a few games each (the walk is the same code)
DIRECTION_COMBOS = [(v, n, d) for v, counts, directions in (
    ("classic", (2, 3, 4, 5, 6), ("counter-clockwise",)),
    ("compact", (2, 3, 4), ("counter-clockwise",)),
    ("brandi", (4, 6), ("counter-clockwise", "clockwise")),
) for n in counts for d in directions]


class Checked(GreedyBot):
    """A greedy bot that checks every play it makes against the engine's own contract."""

    def choose(self, game, seat, options):
        card, play = super().choose(game, seat, options)
        result = play.result
        before = sum(len(p) for p in game.position.pieces if p is not None)
        assert sum(len(p) for p in result.pieces if p is not None) == before
        occupied = [loc for p in result.pieces if p for loc in p if loc < engine.HOME]
        if result.black_dog is not None:
            occupied.append(result.black_dog)
        assert len(occupied) == len(set(occupied)), "two pieces on one field"
        # the JSON round trip is dearer: a sample suffices, every 7th ply of each game (the same
        # plies whichever tests ran before in this process)
        if game.plies % 7 == 6:
            assert engine.parse_position(result.to_json()) == result
        return card, play


def play_checked(variant: str, players: int, seed: int, direction: str | None = None) -> Game:
    """Game `seed` of one combination, played to its end by checked bots (also the script's full run)."""
    game = Game.new(variant, players, seed=seed, direction=direction)
    assert game.position.direction == (direction or game.variant.default_direction)
    rng = random.Random(seed)
    play_game(game, {s: Checked(rng) for s in game.seats})
    winner = game.winner
    assert winner is not None and game.log[-1].kind == "win"
    assert all(game.position.is_finished(s) for s in winner)
    assert game.plies > 0
    return game


@pytest.mark.parametrize("variant,players", COMBOS, ids=[f"{v}-{n}" for v, n in COMBOS])
def test_seeded_games_run_to_the_end(variant, players):
    for g in range(GAMES):
        play_checked(variant, players, g)


@pytest.mark.parametrize("variant,players,direction", DIRECTION_COMBOS,
                         ids=[f"{v}-{n}-{d}" for v, n, d in DIRECTION_COMBOS])
def test_seeded_games_run_to_the_end_in_either_direction(variant, players, direction):
    for g in range(DIRECTION_GAMES):
        game = play_checked(variant, players, g, direction)
        assert game.position.direction == direction
