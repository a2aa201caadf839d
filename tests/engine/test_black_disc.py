"""Black DOG: the turning disc (RULES.md §6) and the rulebook's disc examples.

Rulebook: rules/black-dog_de-en-fr-it.txt, section "Wann wird die Drehscheibe gedreht?" and
"Black DOG: Wichtig". The disc and paw fields are board data [assumption]; every field here
is computed from `engine.load_board("black", 4)`.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

import engine

sys.path.insert(0, str(Path(__file__).parent))
import rb_helpers as h  # noqa: E402


blue = h.blue


def bp(seats, dog, **kw) -> dict:
    return h.black_pos(seats, dog, **kw)


def turned_pair(js: dict) -> set:
    """The two positions a compulsory quarter turn can give."""
    return {h.key(h.turn(js, +1)), h.key(h.turn(js, -1))}


def assert_two_turns(plays, landed: dict) -> None:
    """`landed` (before the disc turn) must appear exactly as its two turned versions."""
    got = [p for p in plays if h.rkey(p) in turned_pair(landed)]
    assert {h.rkey(p) for p in got} == turned_pair(landed)
    assert len(got) == 2
    by_dir = {p.disc_turn: h.rkey(p) for p in got}
    assert by_dir == {+1: h.key(h.turn(landed, +1)), -1: h.key(h.turn(landed, -1))}
    assert not h.has(plays, landed), "the turn is compulsory: no play may leave the disc unturned"


# --- the board data ----------------------------------------------------------------------------
def test_disc_and_paw_fields_are_consistent():
    # "Die Drehscheibe ... 8 Tatzen-Felder" (4 white, 4 black); a quarter turn maps disc
    # fields onto disc fields and paws onto paws.
    b = h.black_board()
    assert len(b.paw_fields) == 8
    assert set(b.paw_fields) <= set(b.disc_fields)
    assert not set(b.disc_fields) & set(b.start_fields)
    for f in b.disc_fields:
        for d in (+1, -1):
            g = h.rotate_field(f, d)
            assert g in b.disc_fields
            assert (g in b.paw_fields) == (f in b.paw_fields)
    # four quarter turns bring every field back
    f = h.first_paw(0)
    g = f
    for _ in range(4):
        g = h.rotate_field(g, +1)
    assert g == f


# --- active moves onto a paw turn the disc ----------------------------------------------------
def test_landing_on_a_paw_turns_the_disc_with_everything_on_it():
    # "Immer wenn ein Spieler mit einer Figur aktiv auf eines der 8 Tatzen-Felder zieht ...,
    # muss er die Drehscheibe um 90 Grad vor oder zurück ... drehen." RULES.md §6: "all
    # pieces and the black dog on the disc turn with it".
    card, k = blue()
    p0 = h.first_paw(0)
    other = h.disc_non_paw(1)         # a blue piece on the disc
    dog = max(d for d in h.disc_fields() if d // 16 == 2)  # the dog on the disc too
    h.assert_plain_black(p0 - k)
    js = bp({0: [f"T{p0 - k}", "K", "K", "K"], 1: [f"T{other}", "K", "K", "K"]}, f"T{dog}")
    plays = h.moves(js, card, 0)
    landed = h.move(js, 0, f"T{p0 - k}", f"T{p0}")
    assert_two_turns(plays, landed)
    assert len(plays) == 2
    cw = h.turn(landed, +1)
    assert cw["disc"] == 1 and h.turn(landed, -1)["disc"] == 3
    assert cw["pieces"][1][0] == f"T{h.rotate_field(other, +1)}"
    assert cw["black_dog"] == f"T{h.rotate_field(dog, +1)}"


def test_disc_orientation_wraps_around():
    # RULES.md §6 / NOTATION.md: disc is 0-3 quarter turns clockwise.
    card, k = blue()
    p0 = h.first_paw(0)
    h.assert_plain_black(p0 - k, 42)
    js = bp({0: [f"T{p0 - k}", "K", "K", "K"]}, "T42", disc=3)
    plays = h.moves(js, card, 0)
    assert sorted(p.result.to_json()["disc"] for p in plays) == [0, 2]


def test_landing_on_a_disc_field_that_is_no_paw_does_not_turn():
    card, k = blue()
    n0 = h.disc_non_paw(0)
    h.assert_plain_black(n0 - k, 42)
    start = n0 - k
    js = bp({0: [f"T{start}", "K", "K", "K"]}, "T42")
    # (passing a paw on the way is fine: only landing counts)
    plays = h.moves(js, card, 0)
    assert h.result_keys(plays) == {h.key(h.move(js, 0, f"T{start}", f"T{n0}"))}
    assert plays[0].disc_turn == 0


def test_passing_paws_does_not_turn():
    # "(nicht jedoch, wenn er an diesen vorbeizieht)"
    seg0 = [d for d in h.disc_fields() if d < 16]
    card, k = blue(at_least=max(seg0) - min(seg0) + 2)
    start = min(seg0) - 1
    dest = start + k
    assert dest > max(seg0), "layout: the blue card must carry the piece over the whole disc"
    h.assert_plain_black(start, dest)
    js = bp({0: [f"T{start}", "K", "K", "K"]}, "T42")
    plays = h.moves(js, card, 0)
    assert h.result_keys(plays) == {h.key(h.move(js, 0, f"T{start}", f"T{dest}"))}
    assert plays[0].disc_turn == 0


def test_start_card_options_and_the_disc():
    # RULES.md §6 lists the start card among the active moves: its 1 onto a paw turns; the
    # 11 past the paws and the start onto the start field do not.
    p0 = h.first_paw(0)
    h.assert_plain_black(p0 - 1, p0 + 10)
    js = bp({0: [f"T{p0 - 1}", "K", "K", "K"]}, "T42")
    plays = h.moves(js, "1/11", 0)
    assert_two_turns(plays, h.move(js, 0, f"T{p0 - 1}", f"T{p0}"))
    eleven = h.plays_to(plays, h.move(js, 0, f"T{p0 - 1}", f"T{p0 + 10}"))
    started = h.plays_to(plays, h.move(js, 0, "K", "T0"))
    assert len(eleven) == 1 and eleven[0].disc_turn == 0
    assert len(started) == 1 and started[0].disc_turn == 0
    assert len(plays) == 4


def test_capturing_on_a_paw_turns_the_disc():
    card, k = blue()
    p0 = h.first_paw(0)
    h.assert_plain_black(p0 - k)
    js = bp({0: [f"T{p0 - k}", "K", "K", "K"], 3: [f"T{p0}", "K", "K", "K"]}, "T42")
    landed = h.move(h.move(js, 0, f"T{p0 - k}", f"T{p0}"), 3, f"T{p0}", "K")
    assert_two_turns(h.moves(js, card, 0), landed)


# --- rulebook special cases ------------------------------------------------------------------
def test_swap_onto_a_paw_does_not_turn():
    # "Wird durch Ausspielen der Tausch-Karte eine Figur auf ein Tatzen-Feld gestellt,
    # erfolgt keine Drehung (da auf dem Feld bereits eine Figur stand)."
    p0 = h.first_paw(0)
    h.assert_plain_black(3, 42)
    js = bp({0: ["T3", "K", "K", "K"], 1: [f"T{p0}", "K", "K", "K"]}, "T42")
    plays = h.moves(js, "swap", 0)
    want = h.move(h.move(js, 0, "T3", f"T{p0}"), 1, f"T{p0}", "T3")
    assert h.result_keys(plays) == {h.key(want)}
    assert all(p.disc_turn == 0 for p in plays)


def test_magnet_onto_a_paw_turns():
    # "Wird eine Figur durch die Karte „Magnet“ auf ein Tatzen-Feld gezogen, erfolgt eine
    # Drehung (da sich hier die Figur zum Feld „hinbewegt“ hat)." Here the magnet stops
    # behind the black dog, which then turns with the disc.
    p0 = h.first_paw(0)
    assert p0 + 1 in h.black_board().disc_fields
    h.assert_plain_black(2)
    js = bp({0: ["T2", "K", "K", "K"]}, f"T{p0 + 1}")
    plays = h.moves(js, "magnet", 0)
    landed = h.move(js, 0, "T2", f"T{p0}")
    assert_two_turns(plays, landed)
    assert len(plays) == 2


def test_the_dogs_own_landing_on_a_paw_does_not_turn():
    # "Endet der Zug des Black DOG auf einem Tatzen-Feld, wird dadurch keine Drehung
    # ausgelöst!"
    p0 = h.first_paw(0)
    dog = p0 - 5
    h.assert_plain_black(dog, *range(10, 16))
    assert h.dog_walk(dog, 5)[0] == p0
    js = bp({0: ["T10", "K", "K", "K"]}, f"T{dog}")
    plays = h.moves(js, "black-5", 0)
    want = h.with_dog(h.move(js, 0, "T10", "T15"), f"T{p0}")
    assert h.result_keys(plays) == {h.key(want)}
    assert plays[0].disc_turn == 0


def test_piece_on_a_paw_bitten_by_the_dog_does_not_turn():
    # "Seltener Fall: Landet eine Spielfigur auf einem Tatzen-Feld, wird aber anschließend
    # vom Black DOG geschlagen, wird nicht gedreht! Die Drehung erfolgt ja immer erst zum
    # Abschluss des eigenen Spielzugs."
    p0 = h.first_paw(0)
    own, dog = p0 - 5, p0 - 2
    dest, passed = h.dog_walk(dog, 5)
    assert p0 in passed
    h.assert_plain_black(own, dog)
    js = bp({0: [f"T{own}", "K", "K", "K"]}, f"T{dog}")
    plays = h.moves(js, "black-5", 0)
    want = h.with_dog(h.move(js, 0, f"T{own}", "K"), f"T{dest}")
    assert h.result_keys(plays) == {h.key(want)}
    assert plays[0].disc_turn == 0


def test_black_card_order_piece_then_dog_then_disc():
    # "Grundsätzliche Reihenfolge: 1. Spielfigur ziehen 2. Gegebenenfalls Black DOG ziehen
    # 3. Gegebenenfalls Scheibe drehen"
    p0, p1 = h.first_paw(0), h.first_paw(1)
    own, dog = p0 - 5, p1 - 5
    dest, passed = h.dog_walk(dog, 5)
    assert dest == p1 and p0 not in passed
    h.assert_plain_black(own, dog, *passed)
    victim = passed[0]
    js = bp({0: [f"T{own}", "K", "K", "K"], 3: [f"T{victim}", "K", "K", "K"]}, f"T{dog}")
    landed = h.with_dog(h.move(h.move(js, 0, f"T{own}", f"T{p0}"), 3, f"T{victim}", "K"), f"T{p1}")
    plays = h.moves(js, "black-5", 0)
    assert_two_turns(plays, landed)
    assert len(plays) == 2
    # the dog turned with the disc from where it landed
    assert h.turn(landed, +1)["black_dog"] == f"T{h.rotate_field(p1, +1)}"


def test_partner_card_landing_several_paws_turns_once():
    # "Landen durch die Partner-Karte mehrere Figuren auf Tatzen-Feldern, wird die
    # Drehscheibe, dennoch nur einmal um 90 Grad gedreht."
    p0, p2 = h.first_paw(0), h.first_paw(2)
    own, mate = p0 - 2, p2 - 2
    h.assert_plain_black(own, mate, 60)
    js = bp({0: [f"T{own}", "K", "K", "K"], 2: [f"T{mate}", "K", "K", "K"]}, "T60")
    plays = h.moves(js, "partner", 0)
    landed = h.move(h.move(js, 0, f"T{own}", f"T{p0}"), 2, f"T{mate}", f"T{p2}")
    assert_two_turns(plays, landed)
    assert all(p.result.to_json()["disc"] in (0, 1, 3) for p in plays)


def test_partner_card_moving_the_partner_onto_a_paw_turns():
    p2 = h.first_paw(2)
    mate = p2 - 4
    h.assert_plain_black(mate, 60)
    js = bp({2: [f"T{mate}", "K", "K", "K"]}, "T60")
    plays = h.moves(js, "partner", 0)
    assert_two_turns(plays, h.move(js, 2, f"T{mate}", f"T{p2}"))
    assert len(plays) == 2


def test_black_card_own_piece_onto_a_paw_turns():
    p0 = h.first_paw(0)
    h.assert_plain_black(p0 - 3, 42, 43, 44, 45)
    js = bp({0: [f"T{p0 - 3}", "K", "K", "K"]}, "T42")
    plays = h.moves(js, "black-1-7", 0)
    dest, _ = h.dog_walk(42, 3)
    landed = h.with_dog(h.move(js, 0, f"T{p0 - 3}", f"T{p0}"), f"T{dest}")
    assert_two_turns(plays, landed)


# --- referee -----------------------------------------------------------------------------------
def verdict(before: dict, after: dict, card: str, seat: int, lang: str = "en"):
    return engine.check(h.parse(before), h.parse(after), card, seat, lang=lang)


@pytest.mark.parametrize("direction", [+1, -1])
def test_check_accepts_either_turn(direction):
    card, k = blue()
    p0 = h.first_paw(0)
    h.assert_plain_black(p0 - k, 42)
    before = bp({0: [f"T{p0 - k}", "K", "K", "K"]}, "T42")
    after = h.turn(h.move(before, 0, f"T{p0 - k}", f"T{p0}"), direction)
    v = verdict(before, after, card, 0)
    assert v.legal and v.plays


def test_check_rejects_a_missing_turn_with_a_reason():
    card, k = blue()
    p0 = h.first_paw(0)
    h.assert_plain_black(p0 - k, 42)
    before = bp({0: [f"T{p0 - k}", "K", "K", "K"]}, "T42")
    after = h.move(before, 0, f"T{p0 - k}", f"T{p0}")
    for lang in ("en", "de"):
        v = verdict(before, after, card, 0, lang)
        assert not v.legal and v.reason.strip()
        low = v.reason.lower()
        assert f"T{p0}" in v.reason or "disc" in low or "scheibe" in low, v.reason


def test_check_rejects_a_turn_after_a_swap():
    p0 = h.first_paw(0)
    h.assert_plain_black(3, 42)
    before = bp({0: ["T3", "K", "K", "K"], 1: [f"T{p0}", "K", "K", "K"]}, "T42")
    swapped = h.move(h.move(before, 0, "T3", f"T{p0}"), 1, f"T{p0}", "T3")
    assert verdict(before, swapped, "swap", 0).legal
    v = verdict(before, h.turn(swapped, +1), "swap", 0)
    assert not v.legal and v.reason.strip()
