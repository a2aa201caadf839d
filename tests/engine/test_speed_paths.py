"""The engine's fast paths give what the plain way gives.

- The optional compiled engine (scripts/build_accelerator.py) never runs stale code: Python
  loads a built `engine/<module>.*.so` in place of the `.py` of the same name, so a build
  older than an edit would silently run the old rules. The build records the sources' hashes;
  here they must still match. Without a build (the default) the `.py` sources run.
- Same plays as without the shortcuts: `golden_plays.json` holds 112 positions from seeded
  random games of every edition (2 to 6 players) and, for every card of the deck, a digest
  of the plays the engine listed before it took the shortcuts this file checks: notation,
  result, card, as-card, draws and disc turn, in order. A shortcut must not change a play
  nor the order in which the plays are listed (bots pick by position in the list).
  After a deliberate rules change, rewrite the file with `python tests/engine/test_speed_paths.py`.
- A play's result is built when first read; it must be a plain value all the same.
- The 7 tries only the parts the other pieces can finish: on late-game positions (pieces in
  the home, where it cuts the most) it must find what the naive search (naive.py) finds.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import random
from pathlib import Path

import pytest

import engine
import engine.locations
import engine.moves
import engine.notation
import engine.position
import engine.table
import naive
from dogpos import key
from engine.bots import RandomBot
from engine.game import Game, play_game
from engine.table import Table, position_table

ROOT = Path(__file__).resolve().parents[2]
HOT = (engine.table, engine.moves, engine.position, engine.locations, engine.notation)
GOLDEN = Path(__file__).with_name("golden_plays.json")
GOLDEN_EDITIONS = [("classic", 4), ("classic", 6), ("compact", 3), ("royal-basic", 4), ("royal", 4), ("royal", 6),
                   ("black", 4), ("black", 2)]


def test_compiled_modules_are_built_from_the_current_sources():
    compiled = [m for m in HOT if not m.__file__.endswith(".py")]
    if not compiled:
        assert all(Path(m.__file__).parent == ROOT / "engine" for m in HOT)  # the sources themselves run
        return
    record = ROOT / "engine" / "accelerated.json"
    assert record.exists(), "compiled engine modules without engine/accelerated.json: rebuild or --clean"
    hashes = json.loads(record.read_text())["sources"]
    for m in HOT:
        name = f"engine/{m.__name__.split('.')[-1]}.py"
        now = hashlib.sha256((ROOT / name).read_bytes()).hexdigest()
        assert hashes.get(name) == now, (
            f"{name} changed since scripts/build_accelerator.py ran: rebuild, or run it with --clean")


def digest(plays: list[engine.Play]) -> str:
    text = json.dumps([[p.notation, p.result.to_json(), p.card, p.as_card, p.draws, p.disc_turn] for p in plays])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def game_positions(variant: str, players: int, seeds: range) -> list[tuple[engine.Position, int]]:
    """(position, seat to move) at every turn of seeded random games."""
    seen: list[tuple[engine.Position, int]] = []

    class Recorder(RandomBot):
        def choose_turn(self, game, seat):
            seen.append((game.position, seat))
            return super().choose_turn(game, seat)

    for seed in seeds:
        game = Game.new(variant, players, seed=seed)
        rng = random.Random(seed)
        play_game(game, {s: Recorder(rng) for s in game.seats})
    return seen


def write_golden() -> None:
    """The golden file as the engine at hand lists the plays (only after a deliberate rules change)."""
    rows = []
    for variant, players in GOLDEN_EDITIONS:
        seen = game_positions(variant, players, range(100, 103))
        for pos, seat in seen[5::max(1, len(seen) // 14)][:14]:
            cards = [c for c, _ in pos.variant.deck]
            rows.append({"position": pos.to_json(), "seat": seat,
                         "plays": {c: digest(engine.legal_moves(pos, c, seat)) for c in cards}})
    GOLDEN.write_text("[\n" + ",\n".join(json.dumps(row) for row in rows) + "\n]\n")


def test_every_card_lists_the_plays_it_listed_without_the_shortcuts():
    rows = json.loads(GOLDEN.read_text())
    assert len(rows) == 112
    assert {row["position"]["variant"] for row in rows} == {v for v, _ in GOLDEN_EDITIONS}
    differ = []
    for row in rows:
        pos = engine.parse_position(row["position"])
        assert set(row["plays"]) == {c for c, _ in pos.variant.deck}
        for card, want in row["plays"].items():
            if digest(engine.legal_moves(pos, card, row["seat"])) != want:
                differ.append((row["position"], row["seat"], card))
    assert not differ, f"{len(differ)} (position, seat, card) list other plays than before, e.g. {differ[0]}"


def test_a_position_keeps_what_it_worked_out_and_no_card_changes_it():
    """A position keeps its table (where each piece stands) for the next card asked about it;
    cards that move pieces work on a copy, so no card's search (the 7's parts, the black dog's
    run, a royal citizen's jump, the disc) may leave a trace in it, and asked again the cards
    list the same."""
    rows = json.loads(GOLDEN.read_text())
    for row in rows[::4]:
        pos = engine.parse_position(row["position"])
        for card in row["plays"]:
            engine.legal_moves(pos, card, row["seat"])
        kept = position_table(pos)
        fresh = Table(engine.parse_position(row["position"]))
        assert ((kept.loc, kept.occ, kept.home, kept.over, kept.dog, kept.disc)
                == (fresh.loc, fresh.occ, fresh.home, fresh.over, fresh.dog, fresh.disc))
        assert kept is position_table(pos)
        for card in reversed(list(row["plays"])):
            assert digest(engine.legal_moves(pos, card, row["seat"])) == row["plays"][card], (row["position"], card)


def test_no_card_moves_a_piece_on_the_positions_own_table(monkeypatch):
    """Stricter than the test above: moved and moved back is not enough, the kept table is
    shared by every later question about the position and must never change at all."""
    if not engine.table.__file__.endswith(".py"):
        pytest.skip("compiled tables call their own methods directly: nothing to watch")
    changed: list[Table] = []
    real_set = Table._set

    def watched_set(self, p, new):
        changed.append(self)
        real_set(self, p, new)

    monkeypatch.setattr(Table, "_set", watched_set)
    rows = json.loads(GOLDEN.read_text())
    kept = []
    for row in rows[::3]:
        pos = engine.parse_position(row["position"])
        for card in row["plays"]:
            engine.legal_moves(pos, card, row["seat"])
        kept.append(position_table(pos))
    assert changed  # the 7, the black cards, the disc moved pieces: on copies
    assert not any(t is k for t in changed for k in kept)


def test_a_changed_copy_of_a_position_works_its_own_facts_out():
    start = engine.parse_position({"variant": "classic", "pieces": [["T60", "T3", "K", "K"], ["T7", "K", "K", "K"],
                                                                    ["T40", "K", "K", "K"], ["H0", "K", "K", "K"]]})
    assert [p.notation for p in engine.legal_moves(start, "4", 0)] == [
        "4: T3-T7", "4: T60-T0", "4: T3-T63 back", "4: T60-T56 back"]
    # dataclasses.replace copies every field it is not told to change: never what start kept
    moved = dataclasses.replace(start, pieces=((10, 61, engine.KENNEL, engine.KENNEL), *start.pieces[1:]),
                                last_card="4")
    parsed = engine.parse_position(moved.to_json())
    assert [p.notation for p in engine.legal_moves(moved, "4", 0)] == [
        "4: T10-T14", "4: T61-H0", "4: T61-T1", "4: T10-T6 back", "4: T61-T57 back"]
    assert engine.legal_moves(moved, "4", 0) == engine.legal_moves(parsed, "4", 0)
    gone = dataclasses.replace(start, pieces=(start.pieces[0], None, start.pieces[2], None))  # two seats left
    assert gone.seats == (0, 2) and not gone.is_team_game and start.is_team_game


def test_a_play_is_a_value_whether_its_result_was_read_or_not():
    pos = engine.parse_position({"variant": "classic", "pieces": [["T60", "T3", "K", "K"], ["T7", "K", "K", "K"],
                                                                  ["T40", "K", "K", "K"], ["H0", "K", "K", "K"]]})
    first = engine.legal_moves(pos, "1/11", 0)
    again = engine.legal_moves(pos, "1/11", 0)
    assert [p.notation for p in first] == ["1/11: K-T0", "1/11: T3-T4", "1/11: T3-T14", "1/11: T60-T61",
                                           "1/11: T60-T7"]
    read = first[4].result  # T60 moves 11 past its start onto T7: seat 1's piece goes back to its kennel
    assert read is first[4].result  # built once
    assert read.to_json()["pieces"][:2] == [["T3", "T7", "K", "K"], ["K", "K", "K", "K"]]
    assert read.last_card == "1/11" and read.board is pos.board and read.variant is pos.variant
    assert first == again and hash(first[4]) == hash(again[4])  # `again` read no result before
    assert first[0] != first[1] and first[0] != ("1/11: K-T0",)
    assert "T3-T14" in repr(first[2]) and "\"T14\"" in repr(first[2])  # the result is shown too
    copied = engine.legal_moves(engine.parse_position({**pos.to_json(), "variant": "royal-basic", "last_card": "5"}),
                                "copy", 0)
    assert copied and all(p.result.last_card == "5" and p.card == "copy" and p.as_card == "5" for p in copied)


@pytest.mark.parametrize("variant,players", [("classic", 4), ("classic", 6), ("compact", 3), ("classic", 2)])
def test_the_seven_finds_what_the_naive_search_finds_late_in_games(variant, players):
    seen = game_positions(variant, players, range(7, 9))
    late = [(pos, seat) for pos, seat in seen[len(seen) // 2:]
            if any(loc >= engine.HOME for locs in pos.pieces if locs for loc in locs)]
    checked = 0
    for pos, seat in late[::6]:
        obj = pos.to_json()
        plays = engine.legal_moves(pos, "7", seat)
        got = [key(p.result.to_json()["pieces"]) for p in plays]
        assert len(got) == len(set(got))
        assert set(got) == naive.plays(obj, "7", seat), (obj, seat)
        checked += 1
    assert checked >= 15


def test_the_partner_card_finds_what_the_naive_search_finds_late_in_games():
    seen = game_positions("black", 4, range(7, 9))
    checked = 0
    for pos, seat in seen[len(seen) // 2::5]:
        obj = pos.to_json()
        got = {(key(p.result.to_json()["pieces"]), p.result.to_json()["black_dog"], p.result.disc)
               for p in engine.legal_moves(pos, "partner", seat)}
        assert got == naive.partner_plays(obj, seat), (obj, seat)
        checked += 1
    assert checked >= 15


if __name__ == "__main__":
    write_golden()


def test_a_position_copies_as_the_value_it_is():
    """`copy.deepcopy` of a game (the bots' look-ahead takes snapshots) copies its positions as
    themselves: they never change, and the compiled engine cannot rebuild its frozen classes
    field by field. The copy plays on as the game did."""
    import copy

    snapshots: list = []

    class Snapshot(RandomBot):
        def choose_turn(self, game, seat):
            if not snapshots and game.plies >= 30:
                snapshots.append((copy.deepcopy(game), game.position, seat))
            return super().choose_turn(game, seat)

    game = Game.new("royal", 4, seed=11)
    rng = random.Random(11)
    play_game(game, {s: Snapshot(rng) for s in game.seats})
    copied, pos, seat = snapshots[0]
    assert copied is not game and copied.position is pos and copy.copy(pos) is pos
    assert copied.position.seating == pos.seating and copied.hands[seat] and copied.hands is not game.hands
    for card in ("4", "1/11", "swap", "1-7"):
        assert digest(engine.legal_moves(copied.position, card, seat)) == digest(
            engine.legal_moves(engine.parse_position(pos.to_json()), card, seat))


@pytest.mark.parametrize("variant,players", GOLDEN_EDITIONS)
def test_plays_told_apart_by_their_change_are_those_told_apart_by_their_position(variant, players):
    """A card played as itself tells its plain moves and swaps apart by which pieces went where
    (engine.moves._Collector); telling every play apart by the position it leaves, as the joker
    does, must list exactly the same plays in the same order.

    Why it holds. Of a card played as itself, moves of one piece (royal: drawing a card there
    or not; Black DOG: the dog's run after it catching nothing, and the disc turned either way
    when the piece ends on a paw) onto a free field or onto another seat's piece, and swaps,
    are told apart by which pieces went where and the play's `disc_turn`. Two such moves leave
    the same position only if they are the same move (a seat's pieces stand on distinct
    fields, the moved piece's new field held none of its seat, and where the black dog ends
    tells the value) turned the same way (a quarter turn maps distinct positions to distinct
    ones, and the disc's orientation tells the way); two swaps only if they swap the same two
    pieces; and none leaves the position of another play of the same card: the others capture
    a piece of the mover's own seat or the black dog catches one (a kennel more for a seat
    whose pieces no such move sends home), turn the disc (only after a move onto a paw, itself
    a change), move more pieces or none, and a move that draws a card ends on a special field,
    a plain one elsewhere. Captures of the mover's own seat need the position outside royal
    (whose pieces are told apart by rank): a piece that captures one of its own seat leaves its
    own field empty and one piece more in the kennel whichever way it went (the 1-7 by two
    values, the 4 forward or back). A black card's plays on which the dog catches something are
    told apart by their move only while no moving piece stands on the dog's run: see
    test_two_pieces_on_the_dogs_run_that_leave_the_same_position_are_one_play. A joker plays as
    every card, and the same position may come from a plain move and a 7 moving one piece:
    there every play is told apart by its position.
    """
    checked = 0
    for pos, seat in game_positions(variant, players, range(20, 22))[::9]:
        table = position_table(pos)
        if table.over:
            continue
        for card in sorted(pos.variant.cards - {"joker"}):
            by_position = engine.moves._Collector(pos, table, card)
            by_position.by_move = False
            as_card = pos.last_card if card == "copy" else card
            if as_card is None or as_card == "copy":
                continue
            by_position.set_card(card, as_card)
            engine.moves._plays_as(pos, table, as_card, seat, by_position)
            plays = engine.legal_moves(pos, card, seat)
            assert [(p.notation, p.result) for p in plays] == [(p.notation, p.result) for p in by_position.plays], (
                pos, card, seat)
            checked += len(plays)
    assert checked > 300


def test_two_pieces_on_the_dogs_run_that_leave_the_same_position_are_one_play():
    """A black card's plays on which the dog catches something are told apart by their move
    only while no moving piece stands on the dog's run (engine.moves._black). Of one piece no
    two such plays leave the same position: each value ends the dog's run on another field, and
    the disc's two turns differ. Of two pieces p and p' by the same value they can only if one
    of them stands on the run: else the field p' stands on is its seat's after p's play (p'
    stays, or p took it from p'), and empty after p''s own. Here two do stand on it: T27
    moving 3 takes the own piece on T30 and the dog then catches T28; T28 moving 3 takes T31 and
    the dog catches T27. Both leave T30, T31 and two pieces in the kennel: one play."""
    pos = engine.parse_position({"variant": "black", "board": 4, "black_dog": "T26", "disc": 0,
                                 "pieces": [["T27", "T28", "T30", "T31"], ["K"] * 4, ["K"] * 4, ["K"] * 4]})
    plays = engine.legal_moves(pos, "black-1-7", 0)
    results = [(p.result.pieces, p.result.black_dog, p.result.disc) for p in plays]
    assert len(results) == len(set(results))
    same = [p.notation for p in plays if p.result.pieces[0] == (30, 31, 999, 999) and p.result.black_dog == 29]
    assert same == ["black-1-7: T27-T30, dog T26-T29"]
