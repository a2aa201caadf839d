"""200 seeded self-play games per edition and player count run to the end without error.

Each game is checked as it goes: every play the bots make is one `legal_moves` offered,
its result parses back from its own JSON, and pieces are conserved; the game ends with
exactly the winner the position says.
"""
import random

import pytest

import engine
from engine.bots import GreedyBot, HastyBot
from engine.game import Game, play_game

GAMES = 200
COMBOS = [(v, n) for v, counts in (
    ("classic", (2, 3, 4, 5, 6)),
    ("compact", (2, 3, 4)),
    ("royal-basic", (2, 3, 4, 5, 6)),
    ("royal", (2, 3, 4, 5, 6)),
    ("black", (2, 3, 4)),
) for n in counts]


class Checked(HastyBot):
    """A hasty bot that also checks every play it makes against the engine's own contract."""

    def choose(self, game, seat, options):
        card, play = super().choose(game, seat, options)
        again = engine.parse_position(play.result.to_json())
        assert again == play.result
        pieces = sum(len(p) for p in play.result.pieces if p is not None)
        assert pieces == sum(len(p) for p in game.position.pieces if p is not None)
        occupied = [loc for p in play.result.pieces if p for loc in p if loc < engine.HOME]
        if play.result.black_dog is not None:
            occupied.append(play.result.black_dog)
        assert len(occupied) == len(set(occupied)), "two pieces on one field"
        return card, play


@pytest.mark.parametrize("variant,players", COMBOS, ids=[f"{v}-{n}" for v, n in COMBOS])
def test_seeded_games_run_to_the_end(variant, players):
    lengths = []
    for g in range(GAMES):
        game = Game.new(variant, players, seed=g)
        rng = random.Random(g)
        # every fourth game with full-hand greedy bots, so both ways of choosing are exercised
        bot = GreedyBot if g % 4 == 0 else Checked
        play_game(game, {s: bot(rng) for s in game.seats})
        winner = game.winner
        assert winner is not None and game.log[-1].kind == "win"
        assert all(game.position.is_finished(s) for s in winner)
        lengths.append(game.plies)
    assert min(lengths) > 0
