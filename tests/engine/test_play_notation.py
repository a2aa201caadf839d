"""A play's notation reads back as the play (engine.parse_play): every play the engine lists,
on positions of every edition and every card of its deck, and nothing that is not a legal play."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import engine
from engine.bots import RandomBot
from engine.game import Game, play_game

GOLDEN = Path(__file__).with_name("golden_plays.json")  # positions from seeded games of every edition


def golden_rows() -> list[tuple[engine.Position, int]]:
    return [(engine.parse_position(row["position"]), row["seat"]) for row in json.loads(GOLDEN.read_text())]


def game_positions(variant: str, players: int, seed: int, every: int) -> list[tuple[engine.Position, int]]:
    """(position, seat to move) at every `every`-th turn of a seeded random game."""
    seen: list[tuple[engine.Position, int]] = []

    class Recorder(RandomBot):
        def choose_turn(self, game, seat):
            seen.append((game.position, seat))
            return super().choose_turn(game, seat)

    game = Game.new(variant, players, seed=seed)
    rng = random.Random(seed)
    play_game(game, {s: Recorder(rng) for s in game.seats})
    return seen[::every]


def same(a: engine.Play, b: engine.Play) -> bool:
    return (a.notation, a.result, a.card, a.as_card, a.draws, a.disc_turn) == (
        b.notation, b.result, b.card, b.as_card, b.draws, b.disc_turn)


# the golden positions lack these two: a 6-board royal-basic game and a 4-seat compact one
EXTRA = [("royal-basic", 6), ("compact", 4)]


@pytest.mark.parametrize("part", range(4))
def test_every_listed_play_reads_back_as_itself(part):
    # every other golden position (the golden file checks them all against the recorded plays)
    rows = golden_rows()[part::8]
    rows += [row for variant, players in EXTRA for row in game_positions(variant, players, 31, 40)][part::8]
    editions = set()
    checked = 0
    for pos, seat in rows:
        for card, _ in pos.variant.deck:
            plays = engine.legal_moves(pos, card, seat)
            for play in plays:
                got = engine.parse_play(pos, play.notation, seat)
                assert same(got, play), (pos, seat, play.notation, got.notation)
                # the notation without the spaces after its commas and with more around it
                squeezed = play.notation.replace(", ", ",")
                assert same(engine.parse_play(pos, f"  {squeezed.replace(': ', ' :  ')} ", seat), play)
                checked += 1
            editions.add((pos.variant.name, pos.board.segments))
    assert checked > 750  # each part: about 1,000 plays read back
    assert {v for v, _ in editions} == {"classic", "compact", "royal-basic", "royal", "black"}
    assert {s for _, s in editions} == {4, 6}


def test_without_a_seat_the_play_is_that_of_the_seat_whose_piece_moves():
    """Unless the text fits another seat's play too, one that leaves another position: "H0-H1"
    names a home slot of whichever seat plays it. Then the seat must be given."""
    checked = ambiguous = 0
    for pos, seat in golden_rows()[::3]:
        for card in ("1/11", "4", "swap", "black-5", "1-7", "7"):
            if card not in pos.variant.cards:
                continue
            for play in engine.legal_moves(pos, card, seat)[:6]:
                others = [s for s in pos.seats if s != seat and any(
                    p.notation == play.notation and p.result != play.result for p in engine.legal_moves(pos, card, s))]
                if others:
                    with pytest.raises(engine.NotationError, match="say which"):
                        engine.parse_play(pos, play.notation)
                    ambiguous += 1
                else:
                    got = engine.parse_play(pos, play.notation)
                    assert got.notation == play.notation and got.result == play.result, (pos, play.notation)
                    checked += 1
    assert checked > 100


def test_a_text_two_seats_could_play_needs_the_seat():
    pos = classic(K4, ["H0", "K", "K", "K"], ["H0", "K", "K", "K"], K4)
    with pytest.raises(engine.NotationError, match="is a play of seats 1, 2: say which"):
        engine.parse_play(pos, "1/11: H0-H1")
    assert engine.parse_play(pos, "1/11: H0-H1", 2).result.pieces[2] == (201, 999, 999, 999)


def classic(*seats, **extra):
    return engine.parse_position({"variant": "classic", "pieces": [list(s) for s in seats], **extra})


K4 = ["K"] * 4
POS = classic(["T60", "T3", "K", "K"], ["T7", "K", "K", "K"], ["T40", "K", "K", "K"], ["H0", "K", "K", "K"])


def test_the_forms_of_docs_notation_read():
    assert engine.parse_play(POS, "5: T60-H0", 0).result.pieces[0] == (3, 200, 999, 999)
    assert engine.parse_play(POS, "4: T3-T63 back", 0).result.pieces[0] == (60, 63, 999, 999)
    assert engine.parse_play(POS, "swap: T3<>T40", 0).result.pieces[2] == (3, 999, 999, 999)
    assert engine.parse_play(POS, "joker as 7: T3-T10", 0).as_card == "7"
    assert engine.parse_play(POS, "7:T3-T5,T60-H0", 0).notation == "7: T3-T5, T60-H0"
    assert engine.parse_play(POS, "1/11: K-T0").card == "1/11"  # seat 0's start field: seat 0's play
    black = engine.parse_position({"variant": "black", "board": 4, "black_dog": "T26", "disc": 0,
                                   "pieces": [["T27", "K", "K", "K"], K4, K4, K4]})
    ran = engine.parse_play(black, "black-5: T27-T32, dog T26-T31", 0)
    assert ran.result.black_dog == 31
    royal = engine.parse_position({"variant": "royal", "pieces": [K4, K4, K4, K4]})
    assert engine.parse_play(royal, "1/11: K-T0 (knight)", 0).notation == "1/11: K-T0 (knight)"


@pytest.mark.parametrize("text,says", [
    ("5 T60-H0", "no ':'"),
    ("", "no ':'"),
    ("five: T60-H0", "'five' is not a card id"),
    ("joker 7: T3-T10", "is not a card"),
    ("partner: T3-T7", "not in the classic deck"),
    ("5: T60_H0", "'T60_H0' is not a part of a play"),
    ("5: T60-H0, ", "'' is not a part of a play"),
    ("4: T3-T63 backwards", "not a part of a play"),
    ("swap: T3<>", "not a part of a play"),
])
def test_malformed_text_names_the_problem(text, says):
    with pytest.raises(engine.NotationError, match="^[^\n]*$") as err:
        engine.parse_play(POS, text, 0)
    assert says in str(err.value)


@pytest.mark.parametrize("text,seat", [
    ("5: T60-T1", 0),  # past its start field: the 5 may also go home, but T1 is its own move ...
    ("5: T3-T9", 0),  # ... a field too far
    ("4: T3-T7 back", 0),  # back the wrong way
    ("swap: T3<>T60", 0),  # both the mover's own
    ("5: T7-T12", 0),  # another seat's piece
    ("5: T3-T8, T60-T61", 0),  # a 5 moves one piece
    ("7: T3-T10", 1),  # seat 1 has no piece on T3
])
def test_a_legal_looking_text_that_is_not_a_legal_play_is_refused(text, seat):
    if text == "5: T60-T1":  # the one legal play among these, as a check that the text reads at all
        assert engine.parse_play(POS, text, seat).notation == text
        return
    with pytest.raises(engine.NotationError, match="is not a legal play for seat"):
        engine.parse_play(POS, text, seat)


def test_no_seat_plays_it():
    with pytest.raises(engine.NotationError, match="is not a legal play for any seat"):
        engine.parse_play(POS, "13: T60-T10")


def test_an_unknown_seat_is_refused_as_by_legal_moves():
    with pytest.raises(engine.CardError):
        engine.parse_play(POS, "5: T60-H0", 7)
