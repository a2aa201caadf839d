"""The move generator's shortcuts agree with its field-by-field walk.

`Table.reach` walks a piece field by field. Asked for only some values (`only`), it must
report exactly those of the full walk; without royal ranks, `forward_plain_values` (no walk)
must give exactly what the walk gives; results built straight from the position must equal
moving the table. On positions from seeded games of every edition.
"""
import random

import pytest

from engine.bots import RandomBot
from engine.game import Game, play_game
from engine.table import Table

EDITIONS = [("classic", 4), ("classic", 6), ("compact", 3), ("royal-basic", 5), ("royal", 4), ("black", 4)]


def positions(variant, players, seed):
    seen = []

    class Recorder(RandomBot):
        def choose_turn(self, game, seat):
            seen.append(game.position)
            return super().choose_turn(game, seat)

    game = Game.new(variant, players, seed=seed)
    rng = random.Random(seed)
    play_game(game, {s: Recorder(rng) for s in game.seats})
    return seen[::7]


@pytest.mark.parametrize("variant,players", EDITIONS)
def test_shortcuts_match_the_walk(variant, players):
    checked = 0
    for pos in positions(variant, players, seed=3):
        table = Table(pos)
        for p, loc in enumerate(table.loc):
            if not 0 <= loc < 999:
                continue
            for green in (False, True):
                walked = table.reach(p, 13, green)
                for values in ((1, 11), (4,), (5,), (13,), (2, 3, 4), (1, 2, 3, 4, 5, 6, 7)):
                    want = [(k, dest) for k, dest, _ in walked if k in values]
                    only = table.reach(p, values[-1], green, sum(1 << k for k in values))
                    assert sorted((k, dest) for k, dest, _ in only) == sorted(want), (pos, p, values, green)
                    if len(values) == 2:  # a card with two values: the smaller first
                        assert [k for k, _, _ in only] == sorted(k for k, _, _ in only)
                    if not table.ranked and loc < 200:
                        plain = table.forward_plain_values(loc, table.owner[p], values)
                        assert sorted(plain) == sorted(want), (pos, p, values)
                    checked += 1
    assert checked > 1000


@pytest.mark.parametrize("variant,players", EDITIONS)
def test_direct_results_match_moving_the_table(variant, players):
    """`result_moved` / `result_swapped` (no table change) give what move, read, undo gives."""
    checked = 0
    for pos in positions(variant, players, seed=5):
        table = Table(pos)
        on_track = [p for p, loc in enumerate(table.loc) if 0 <= loc < 200]
        for p, loc in enumerate(table.loc):
            if loc < 0 or loc >= 999:
                continue
            for k, dest, _ in table.reach(p, 13):
                undo = table.move(p, dest)
                want = table.result("5")
                table.undo(undo)
                got = table.result_moved(p, dest, "5")
                assert got == want and got.pieces == want.pieces, (pos, p, dest)
                checked += 1
        for p in on_track:
            for q in on_track:
                if table.owner[p] < table.owner[q]:
                    a, b = table.loc[p], table.loc[q]
                    undo = table.move(p, b)  # q is captured ...
                    undo += table.move(q, a)  # ... and set on p's old field
                    want = table.result("swap")
                    table.undo(undo)
                    assert table.result_swapped(p, q, "swap") == want, (pos, p, q)
                    checked += 1
    assert checked > 200


@pytest.mark.parametrize("players", [4, 2])
def test_black_runs_worked_out_without_moving_match_moving_the_table(players):
    """A black card's result (the piece's move, then the dog's run capturing all it passes) as
    worked out from the table standing still equals moving piece and dog on the table."""
    checked = caught = 0
    for seed in (5, 6):
        for pos in positions("black", players, seed):
            table = Table(pos)
            if table.dog < 0:
                continue
            for p, loc in enumerate(table.loc):
                if loc < 0 or loc >= 999:
                    continue
                for k, dest, _ in table.reach(p, 7):
                    path = table.dog_run(k)
                    got = table.pieces_moved_dog_run(p, dest, path)
                    undo = table.move(p, dest)
                    dog_undo, _, end = table.move_dog(k)
                    assert end == path[-1] and len(path) == k
                    assert got == table.pieces_now(), (pos, p, dest, k)
                    caught += len(dog_undo) > 1
                    table.undo(dog_undo)
                    table.undo(undo)
                    checked += 1
    assert checked > 500 and caught > 20
