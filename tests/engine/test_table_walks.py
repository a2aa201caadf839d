"""The move generator's shortcuts agree with its field-by-field walk.

`Table.reach` walks a piece field by field. Asked for only some values (`only`), it must
report exactly those of the full walk; without royal ranks, `forward_plain_values` (no walk)
must give exactly what the walk gives; results built straight from the position must equal
moving the table. On positions from seeded games of every edition.
"""
import random

import pytest

import engine
from engine.bots import RandomBot
from engine.game import Game, play_game
from engine.moves import acting_seat
from engine.notation import place
from engine.position import KENNEL
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
    """`pieces_moved` / `pieces_swapped` (no table change) give what move, read, undo gives."""
    checked = 0
    for pos in positions(variant, players, seed=5):
        table = Table(pos)
        on_track = [p for p, loc in enumerate(table.loc) if 0 <= loc < 200]
        for p, loc in enumerate(table.loc):
            if loc < 0 or loc >= 999:
                continue
            for k, dest, _ in table.reach(p, 13):
                undo = table.move(p, dest)
                want = table.pieces_now()
                table.undo(undo)
                assert table.pieces_moved(p, dest) == want, (pos, p, dest)
                checked += 1
        for p in on_track:
            for q in on_track:
                if table.owner[p] < table.owner[q]:
                    a, b = table.loc[p], table.loc[q]
                    undo = table.move(p, b)  # q is captured ...
                    undo += table.move(q, a)  # ... and set on p's old field
                    want = table.pieces_now()
                    table.undo(undo)
                    assert table.pieces_swapped(p, q) == want, (pos, p, q)
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


def test_one_dog_run_tells_every_value_what_a_fresh_run_catches():
    """A black card runs the dog once, for its largest value: each value's run is the first k
    fields of it, and the values whose part of it ends on a piece are those whose fresh run
    ends on one (so a value's run catches a piece exactly when a smaller or equal value met it)."""
    checked = met = 0
    for seed in (5, 6):
        for pos in positions("black", 4, seed):
            table = Table(pos)
            if table.dog < 0:
                continue
            path = table.dog_run(7)
            meets = [j for j, f in enumerate(path, 1) if table.occ[f] >= 0]
            for k in range(1, 8):
                fresh = table.dog_run(k)
                assert path[:k] == fresh, (pos, k)
                undo, _, _ = table.move_dog(k)
                caught = [f for q, f in undo[1:]]  # the fields the dog took a piece from
                table.undo(undo)
                assert caught == [path[j - 1] for j in meets if j <= k], (pos, k)
                checked += 1
                met += bool(caught)
    assert checked > 200 and met > 20


@pytest.mark.parametrize("players", [4, 2])
def test_black_cards_worked_out_equal_moving_piece_dog_and_disc(players):
    """Every black card's plays (the piece, the dog's run, the disc turned on a paw) as the engine
    works them out from one run of the dog, without moving anything, equal those of moving
    piece and dog on the table, turning the disc and reading the pieces, value by value."""
    checked = turned = bitten = 0
    for seed in (5, 6, 7):
        for pos in positions("black", players, seed):
            for seat in pos.seats:
                if Table(pos).over:  # no plays at all once the game is over
                    continue
                for card, values in (("black-1-7", range(1, 8)), ("black-5", (5,)), ("black-6", (6,))):
                    want: dict[tuple, set[str]] = {}
                    table = Table(pos)
                    mover = acting_seat(pos, seat)
                    for p in table.pieces_of(mover):
                        if table.loc[p] >= KENNEL:
                            continue
                        for k, dest, _ in table.reach(p, max(values)):
                            if k not in values:
                                continue
                            frm = place(table.loc[p], table.owner[p], seat)
                            notation = f"{card}: {frm}-{place(dest, table.owner[p], seat)}"
                            undo = table.move(p, dest)
                            if table.dog >= 0:
                                start = table.dog
                                undo += table.move_dog(k)[0]
                                notation += f", dog T{start}-T{table.dog}"
                            if table.loc[p] in table.paws:
                                for direction, word in ((1, "clockwise"), (-1, "counter-clockwise")):
                                    disc_undo = table.turn_disc(direction)
                                    key = (table.pieces_now(), table.dog, table.disc)
                                    want.setdefault(key, set()).add(f"{notation}, disc {word}")
                                    table.undo(disc_undo)
                                turned += 1
                            else:
                                bitten += table.loc[p] == KENNEL
                                want.setdefault((table.pieces_now(), table.dog, table.disc), set()).add(notation)
                            table.undo(undo)
                    got = engine.legal_moves(pos, card, seat)
                    keys = [(p.result.pieces, p.result.black_dog if p.result.black_dog is not None else -1,
                             p.result.disc) for p in got]
                    assert sorted(keys) == sorted(want), (pos, card, seat)  # each position once
                    for play, key in zip(got, keys):
                        assert play.notation in want[key], (pos, card, seat, play.notation)
                        assert play.disc_turn == 0 or play.notation.endswith("clockwise")
                    checked += len(got)
    assert checked > 1000 and turned > 30 and bitten > 5


@pytest.mark.parametrize("variant,players", EDITIONS)
def test_clear_says_what_looking_at_each_field_says(variant, players):
    """`Table.clear` (one slice, wrapping past the last field) against looking field by field."""
    checked = 0
    for pos in positions(variant, players, seed=4):
        table = Table(pos)
        L = table.L
        for loc in range(L):
            for k in (1, 4, 7, 13):
                ahead = all(table.occ[(loc + i) % L] < 0 for i in range(1, k + 1))
                behind = all(table.occ[(loc - i) % L] < 0 for i in range(1, k + 1))
                assert table.clear(loc, k) == ahead and table.clear(loc, -k) == behind, (pos, loc, k)
                checked += 1
    assert checked > 5000
