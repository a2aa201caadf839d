"""Black DOG (RULES.md §6): deck and positions, the black dog, black cards, partner, swap,
magnet, copy. The disc has its own file (test_black_disc.py).

Fields come from the (editable) black board: tests that need ordinary fields check that
they are neither start fields nor disc fields first.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

import engine

sys.path.insert(0, str(Path(__file__).parent))
import rb_helpers as h  # noqa: E402

BLACK_CARDS = ("black-1-7", "black-5", "black-6")


blue = h.blue


def bp(seats, dog, **kw) -> dict:
    return h.black_pos(seats, dog, **kw)


# --- deck and positions ------------------------------------------------------------------
def test_black_edition_parameters():
    # RULES.md §1: 4 pieces (5 in solo games), 4 home slots, 2-4 players, 5 cards a round,
    # 110 cards.
    v = engine.get_variant("black")
    assert v.pieces == 4 and v.solo_pieces == 5 and v.home_slots == 4
    assert set(v.players) == {2, 3, 4}
    assert set(v.cards_per_round) == {5}
    assert v.deck_size == 110
    assert v.board_kind == "black"


def test_black_deck_card_kinds():
    # RULES.md §6: "No joker, no 7 split, no ±4. Cards: start cards 1/11 and 13; blue numbers
    # move forward; swap, magnet, copy ...; partner; black-1-7, black-5, black-6".
    cards = engine.get_variant("black").cards
    assert {"1/11", "13", "swap", "magnet", "copy", "partner", "black-1-7", "black-5", "black-6"} <= cards
    assert "joker" not in cards and "7" not in cards
    assert any(c.isdigit() and c not in ("13",) for c in cards), "no blue number card"


@pytest.mark.parametrize("card", ["joker", "7"])
def test_cards_outside_the_black_deck_are_rejected(card):
    pos = h.parse(bp({0: ["T2", "K", "K", "K"]}, "T42"))
    with pytest.raises(engine.CardError):
        engine.legal_moves(pos, card, 0)


def test_a_four_in_the_black_deck_only_moves_forward():
    # RULES.md §6: no ±4 (if the deck file has a blue 4 at all, it is a plain number).
    if "4" not in engine.get_variant("black").cards:
        pos = h.parse(bp({0: ["T20", "K", "K", "K"]}, "T42"))
        with pytest.raises(engine.CardError):
            engine.legal_moves(pos, "4", 0)
        return
    h.assert_plain_black(*range(26, 31), 50)
    js = bp({0: ["T26", "K", "K", "K"]}, "T50")
    assert h.result_keys(h.moves(js, "4", 0)) == {h.key(h.move(js, 0, "T26", "T30"))}


def test_black_position_round_trip():
    js = bp({0: ["T2", "K", "H0", "K"]}, "T21", disc=2)
    out = h.parse(js).to_json()
    assert out["variant"] == "black"
    assert out["black_dog"] == "T21" and out["disc"] == 2


def test_black_is_played_on_the_four_board_only():
    js = {"variant": "black", "board": 6, "pieces": [["K"] * 4] * 6, "black_dog": "T21", "disc": 0}
    with pytest.raises(engine.PositionError):
        h.parse(js)


def test_black_solo_has_five_pieces():
    # "Jeder Spieler spielt mit 5 Figuren" (2 and 3 players)
    js = bp({0: ["T0", "K", "K", "K", "K"], 1: ["T16", "K", "K", "K", "K"]}, "T21", present=(0, 1), n=5)
    h.parse(js)


def test_black_dog_cannot_share_a_field_or_stand_on_a_start_field():
    with pytest.raises(engine.PositionError):
        h.parse(bp({0: ["T2", "K", "K", "K"]}, "T2"))
    with pytest.raises(engine.PositionError):
        h.parse(bp({}, "T16"))


# --- black cards ---------------------------------------------------------------------------
def test_black_five_moves_own_piece_then_the_dog():
    # "Also z. B. bei der schwarzen „5“ 5 Felder mit der eigenen Figur und dann 5 Felder mit
    # dem Black DOG."
    h.assert_plain_black(*range(10, 16), *range(42, 48))
    js = bp({0: ["T10", "K", "K", "K"]}, "T42")
    plays = h.moves(js, "black-5", 0)
    want = h.with_dog(h.move(js, 0, "T10", "T15"), "T47")
    assert h.result_keys(plays) == {h.key(want)}
    assert plays[0].disc_turn == 0


def test_black_six_and_the_dog_skipping_a_start_field():
    # "Die Startfelder umgeht er und zählt diese Felder auch nicht mit."
    s1 = h.start(1, h.black_board())
    frm = s1 - 6
    h.assert_plain_black(frm, *range(frm + 1, s1), s1 + 1, 43, 49)
    js = bp({0: ["T43", "K", "K", "K"]}, f"T{frm}")
    dest, _ = h.dog_walk(frm, 6)
    assert dest == s1 + 1
    want = h.with_dog(h.move(js, 0, "T43", "T49"), f"T{dest}")
    assert h.result_keys(h.moves(js, "black-6", 0)) == {h.key(want)}


def test_black_one_to_seven_moves_piece_and_dog_by_the_same_chosen_value():
    # "Der Spieler bestimmt selbst, welchen Wert (von 1 bis 7) diese Karte besitzt. Zuerst
    # zieht er mit einer seiner Spielfiguren und anschließend noch zusätzlich mit dem Black
    # DOG jeweils um den gewählten Wert."
    h.assert_plain_black(*range(10, 16), 17)
    js = bp({0: ["T10", "K", "K", "K"]}, "T42")
    want = set()
    for v in range(1, 8):
        dest, _ = h.dog_walk(42, v)
        assert dest not in h.black_board().disc_fields
        want.add(h.key(h.with_dog(h.move(js, 0, "T10", f"T{10 + v}"), f"T{dest}")))
    plays = h.moves(js, "black-1-7", 0)
    assert h.result_keys(plays) == want
    assert len(plays) == 7


@pytest.mark.parametrize("card", BLACK_CARDS)
def test_black_card_needs_an_own_piece_that_can_move(card):
    # "Kann der Spieler mit keiner seiner eigenen Figuren ziehen, so kann er diese Karte nicht
    # nutzen."
    js = bp({}, "T42")
    assert h.moves(js, card, 0) == []


def test_black_card_with_a_blocked_own_piece():
    s1 = h.start(1, h.black_board())
    h.assert_plain_black(s1 - 2, s1 - 1)
    js = bp({0: [f"T{s1 - 2}", "K", "K", "K"], 1: [f"T{s1}", "K", "K", "K"]}, "T42")
    assert h.moves(js, "black-5", 0) == []
    assert h.moves(js, "black-6", 0) == []
    plays = h.moves(js, "black-1-7", 0)
    dest, _ = h.dog_walk(42, 1)
    assert h.result_keys(plays) == {h.key(h.with_dog(h.move(js, 0, f"T{s1 - 2}", f"T{s1 - 1}"), f"T{dest}"))}


# --- the black dog ---------------------------------------------------------------------------
def test_dog_captures_everything_it_passes_or_lands_on_but_skips_start_fields():
    # "Sie verjagt immer alle Figuren, an denen sie vorbeikommt oder auf die sie zieht."
    # "Eine Spielfigur, die auf einem Startfeld steht, wird vom Black DOG somit nicht
    # geschlagen und steht diesem auch nicht blockierend im Wege."  RULES.md §6: "does not
    # touch pieces on them" -- also a foreign piece on a start field.
    b = h.black_board()
    L = b.track_length
    dog = L - 2
    dest, passed = h.dog_walk(dog, 5)
    assert dest == 4 and passed == [L - 1, 1, 2, 3]
    h.assert_plain_black(dog, *passed, dest, 5, *range(26, 32))
    js = bp({
        0: ["T26", "T3", "K", "K"],            # own piece on T3 will be bitten too
        1: ["T0", "T5", "K", "K"],             # blue on red's start field: untouched; T5 beyond
        2: ["T2", "T4", "K", "K"],             # passed and landed on
        3: [f"T{L - 1}", "K", "K", "K"],       # passed
    }, f"T{dog}")
    want = bp({0: ["T31", "K", "K", "K"], 1: ["T0", "T5", "K", "K"]}, "T4")
    assert h.has(h.moves(js, "black-5", 0), want)


def test_dog_passes_a_protected_piece_without_touching_it():
    s1 = h.start(1, h.black_board())
    dog = s1 - 2
    dest, passed = h.dog_walk(dog, 5)
    assert s1 not in passed and dest == s1 + 4
    h.assert_plain_black(dog, s1 - 1, *range(s1 + 1, s1 + 5), *range(42, 48))
    js = bp({0: ["T42", "K", "K", "K"], 1: [f"T{s1}", f"T{s1 - 1}", f"T{s1 + 4}", "K"]}, f"T{dog}")
    want = bp({0: ["T47", "K", "K", "K"], 1: [f"T{s1}", "K", "K", "K"]}, f"T{dest}")
    assert h.result_keys(h.moves(js, "black-5", 0)) == {h.key(want)}


def test_a_piece_landing_on_the_dog_is_captured():
    # "Ist ein Spieler gezwungen, auf das Feld zu ziehen, auf dem der Black DOG steht, gilt
    # diese Figur des Spielers ebenfalls als geschlagen."
    card, k = blue()
    h.assert_plain_black(*range(10, 11 + k))
    js = bp({0: ["T10", "K", "K", "K"]}, f"T{10 + k}")
    assert h.result_keys(h.moves(js, card, 0)) == {h.key(h.move(js, 0, "T10", "K"))}


def test_pieces_may_pass_the_dog():
    card, k = blue()
    assert k >= 2
    h.assert_plain_black(*range(10, 11 + k))
    js = bp({0: ["T10", "K", "K", "K"]}, "T11")
    assert h.result_keys(h.moves(js, card, 0)) == {h.key(h.move(js, 0, "T10", f"T{10 + k}"))}


def test_black_card_piece_landing_on_the_dog_is_captured_and_the_dog_still_moves():
    h.assert_plain_black(*range(10, 14))
    js = bp({0: ["T10", "K", "K", "K"]}, "T13")
    dest, _ = h.dog_walk(13, 3)
    assert h.has(h.moves(js, "black-1-7", 0), h.with_dog(h.move(js, 0, "T10", "K"), f"T{dest}"))


def test_dog_bites_the_piece_that_was_just_moved():
    h.assert_plain_black(*range(10, 16))
    js = bp({0: ["T10", "K", "K", "K"]}, "T12")
    dest, passed = h.dog_walk(12, 5)
    assert 15 in passed
    want = h.with_dog(h.move(js, 0, "T10", "K"), f"T{dest}")
    assert h.result_keys(h.moves(js, "black-5", 0)) == {h.key(want)}


def test_dog_never_moves_with_ordinary_cards():
    card, k = blue()
    h.assert_plain_black(*range(10, 11 + k))
    js = bp({0: ["T10", "K", "K", "K"]}, "T42")
    assert all(p.result.to_json()["black_dog"] == "T42" for p in h.moves(js, card, 0))


# --- swap, magnet, copy ------------------------------------------------------------------------
def test_swap_never_takes_the_dog():
    # "Geschützte Spielfiguren ..., Figuren im Ziel sowie der Black DOG dürfen nicht getauscht
    # werden. Sind nur eigene bzw. geschützte Figuren auf dem Weg, kann die Karte nicht
    # ausgespielt werden."
    s1 = h.start(1, h.black_board())
    js = bp({0: ["T10", "T12", "K", "K"], 1: [f"T{s1}", "H0", "K", "K"]}, "T20")
    assert h.moves(js, "swap", 0) == []


def test_swap_with_an_unprotected_piece():
    s1 = h.start(1, h.black_board())
    h.assert_plain_black(10, 30)
    js = bp({0: ["T10", "K", "K", "K"], 1: [f"T{s1}", "H0", "T30", "K"]}, "T20")
    plays = h.moves(js, "swap", 0)
    assert h.result_keys(plays) == {h.key(h.move(h.move(js, 0, "T10", "T30"), 1, "T30", "T10"))}
    assert plays[0].disc_turn == 0


def test_magnet_may_stop_behind_the_dog():
    # "... direkt auf das Feld unmittelbar hinter die nächste Figur (egal welcher Farbe, auch
    # Black DOG) gezogen."
    h.assert_plain_black(10, 19, 20)
    js = bp({0: ["T10", "K", "K", "K"]}, "T20")
    assert h.result_keys(h.moves(js, "magnet", 0)) == {h.key(h.move(js, 0, "T10", "T19"))}


def test_magnet_directly_behind_the_dog_cannot_be_played():
    # "Auch kann der Magnet nicht für eine Spielfigur gespielt werden, die direkt hinter einer
    # anderen Figur steht."
    js = bp({0: ["T19", "K", "K", "K"]}, "T20")
    assert h.moves(js, "magnet", 0) == []


def test_magnet_not_into_home():
    # "Mit einem Magneten kann ein Spieler nicht ins Ziel ziehen"
    h.assert_plain_black(60, 4, 5, 30)
    js = bp({0: ["T60", "K", "K", "K"], 1: ["T5", "K", "K", "K"]}, "T30")
    assert h.result_keys(h.moves(js, "magnet", 0)) == {h.key(h.move(js, 0, "T60", "T4"))}


def test_copy_is_never_the_first_card():
    js = bp({0: ["T10", "K", "K", "K"]}, "T42")
    assert h.moves(js, "copy", 0) == []


@pytest.mark.parametrize("last", ["black-5", "black-1-7", "partner", "magnet", "13", "swap"])
def test_copy_plays_like_the_last_card(last):
    h.assert_plain_black(10, 30, 42)
    js = bp({0: ["T10", "K", "K", "K"], 1: ["T30", "K", "K", "K"], 2: ["T42", "K", "K", "K"]}, "T50",
            last_card=last)
    originals = h.moves(js, last, 0)
    assert originals
    copies = h.moves(js, "copy", 0)
    assert h.result_keys(copies) == h.result_keys(originals)
    assert {(h.rkey(p), p.disc_turn) for p in copies} == {(h.rkey(p), p.disc_turn) for p in originals}


def test_copy_after_an_eleven_may_start_a_piece():
    # "Wird eine Kopie z. B. nach einer 1/11 gespielt (der Spieler ist 11 Felder weit
    # gezogen), darf der Ausspieler die Karte auch verwenden, um mit einer Figur auf das
    # Startfeld zu ziehen."
    s1 = h.start(1, h.black_board())
    h.assert_plain_black(30, 42)
    js = bp({0: ["T42", "K", "K", "K"], 1: ["T30", "K", "K", "K"]}, "T60", last_card="1/11")
    plays = h.moves(js, "copy", 1)
    assert h.has(plays, h.move(js, 1, "K", f"T{s1}"))
    assert all(p.card == "copy" and p.as_card == "1/11" for p in plays)


def test_copy_after_copy_in_black():
    # "Wird eine Kopie nach einer Kopie gespielt, so kopiert sie ebenfalls die zuvor
    # kopierte Karte."
    h.assert_plain_black(*range(10, 16), 26, 42, 50)
    js = bp({0: ["T10", "K", "K", "K"], 1: ["T26", "K", "K", "K"]}, "T50", last_card="black-5")
    first = h.moves(js, "copy", 0)
    assert first
    after = first[0].result
    assert h.result_keys(engine.legal_moves(after, "copy", 1)) == h.result_keys(
        engine.legal_moves(after, "black-5", 1))


# --- partner ---------------------------------------------------------------------------------
def test_partner_splits_four_points_over_own_and_partner_pieces():
    # "Partner: Die 4 Bewegungspunkte können beliebig auf eigene sowie auf Figuren des
    # Partners aufgeteilt werden. Auch hier müssen die Punkte dabei vollständig aufgebraucht
    # werden."
    h.assert_plain_black(*range(1, 6), *range(42, 47), 26, 50, 60)
    js = bp({0: ["T1", "K", "K", "K"], 2: ["T42", "K", "K", "K"], 1: ["T26", "K", "K", "K"],
             3: ["T50", "K", "K", "K"]}, "T60")
    want = {h.key(h.move(h.move(js, 0, "T1", f"T{1 + a}"), 2, "T42", f"T{42 + 4 - a}")) for a in range(5)}
    plays = h.moves(js, "partner", 0)
    assert h.result_keys(plays) == want
    assert all(p.disc_turn == 0 for p in plays)


def test_partner_uses_all_four_points_on_the_partner_if_own_pieces_cannot_move():
    # "Er kann (bzw. muss, wenn er selbst nicht ziehen kann) die 4 Bewegungspunkte auch
    # komplett für die Figuren seines Partners verwenden."
    h.assert_plain_black(*range(42, 47))
    js = bp({2: ["T42", "K", "K", "K"]}, "T60")
    assert h.result_keys(h.moves(js, "partner", 0)) == {h.key(h.move(js, 2, "T42", "T46"))}


def test_partner_card_cannot_be_played_without_four_points():
    s1 = h.start(1, h.black_board())
    h.assert_plain_black(s1 - 4)
    js = bp({0: [f"T{s1 - 4}", "K", "K", "K"], 1: [f"T{s1}", "K", "K", "K"]}, "T60")
    assert h.moves(js, "partner", 0) == []


def test_partner_card_after_all_own_pieces_are_home_moves_partner_and_opponents_not_the_dog():
    # "Nachdem ein Spieler alle 4 Spielfiguren im Ziel hat, dürfen die Spieler dieses Teams
    # die 4 Bewegungspunkte auf die ihres Partners und auch auf Figuren anderer Spieler (auch
    # komplett auf die Gegner) aufteilen – nicht jedoch auf die Figur des Black DOG."
    h.assert_plain_black(*range(26, 31), *range(42, 47), *range(50, 55), 60)
    js = bp({0: ["H0", "H1", "H2", "H3"], 1: ["T26", "K", "K", "K"], 2: ["T42", "K", "K", "K"],
             3: ["T50", "K", "K", "K"]}, "T60")
    plays = h.moves(js, "partner", 0)
    want = set()
    for a in range(5):
        for b in range(5 - a):
            c = 4 - a - b
            r = h.move(h.move(h.move(js, 1, "T26", f"T{26 + a}"), 2, "T42", f"T{42 + b}"), 3, "T50", f"T{50 + c}")
            want.add(h.key(r))
    assert h.result_keys(plays) == want
    assert all(p.result.to_json()["black_dog"] == "T60" for p in plays)


def test_partner_card_never_moves_opponents_while_own_pieces_are_out():
    h.assert_plain_black(*range(1, 6), *range(26, 31), 60)
    js = bp({0: ["T1", "K", "K", "K"], 1: ["T26", "K", "K", "K"]}, "T60")
    plays = h.moves(js, "partner", 0)
    assert h.result_keys(plays) == {h.key(h.move(js, 0, "T1", "T5"))}


def test_partner_card_in_solo_games_moves_any_seats_pieces():
    # "Die 4 Bewegungspunkte der Partner-Karte können immer auch auf Figuren anderer Spieler
    # aufgeteilt werden – nicht jedoch auf die Figur des Black DOG."
    h.assert_plain_black(*range(1, 6), *range(26, 31), 60)
    js = bp({0: ["T1", "K", "K", "K", "K"], 1: ["T26", "K", "K", "K", "K"]}, "T60", present=(0, 1), n=5)
    want = {h.key(h.move(h.move(js, 0, "T1", f"T{1 + a}"), 1, "T26", f"T{26 + 4 - a}")) for a in range(5)}
    assert h.result_keys(h.moves(js, "partner", 0)) == want


def test_partner_card_captures_on_landing_not_when_passing():
    h.assert_plain_black(*range(1, 6), 60)
    js = bp({0: ["T1", "K", "K", "K"], 1: ["T3", "T5", "K", "K"]}, "T60")
    want = h.move(h.move(js, 0, "T1", "T5"), 1, "T5", "K")
    # (Whether one piece may take the 4 points in two parts, 2 + 2, and so capture on T3
    # too, is not settled by RULES.md; this test only asks for the one-part play.)
    assert h.has(h.moves(js, "partner", 0), want)


def test_partner_card_part_landing_on_the_dog_is_captured():
    h.assert_plain_black(*range(1, 6))
    js = bp({0: ["T1", "K", "K", "K"]}, "T5")
    assert h.result_keys(h.moves(js, "partner", 0)) == {h.key(h.move(js, 0, "T1", "K"))}


def test_partner_card_brings_partner_pieces_home():
    s2 = h.start(2, h.black_board())
    h.assert_plain_black(s2 - 2, s2 - 1, s2 + 1, s2 + 2, 60)
    js = bp({2: [f"T{s2 - 2}", "K", "K", "K"]}, "T60")
    want = {h.key(h.move(js, 2, f"T{s2 - 2}", loc)) for loc in ("H1", f"T{s2 + 2}")}
    assert h.result_keys(h.moves(js, "partner", 0)) == want


# --- referee reasons -------------------------------------------------------------------------
def verdict(before: dict, after: dict, card: str, seat: int, lang: str = "en"):
    return engine.check(h.parse(before), h.parse(after), card, seat, lang=lang)


def test_reason_black_card_without_the_dog_moving():
    h.assert_plain_black(*range(10, 16), *range(42, 48))
    before = bp({0: ["T10", "K", "K", "K"]}, "T42")
    after = h.move(before, 0, "T10", "T15")
    for lang in ("en", "de"):
        v = verdict(before, after, "black-5", 0, lang)
        assert not v.legal and v.reason.strip()
        assert "T47" in v.reason or "T42" in v.reason, v.reason
    assert verdict(before, h.with_dog(after, "T47"), "black-5", 0).legal


def test_reason_swap_with_the_dog():
    h.assert_plain_black(10, 20)
    before = bp({0: ["T10", "K", "K", "K"]}, "T20")
    after = h.with_dog(h.move(before, 0, "T10", "T20"), "T10")
    for lang in ("en", "de"):
        v = verdict(before, after, "swap", 0, lang)
        assert not v.legal and v.reason.strip()
        low = v.reason.lower()
        assert any(w in low for w in ("t20", "t10", "dog", "hund")), v.reason


def test_reason_piece_that_should_have_been_captured_by_the_dog():
    h.assert_plain_black(*range(10, 16))
    card, k = blue()
    before = bp({0: ["T10", "K", "K", "K"]}, f"T{10 + k}")
    after = h.with_dog(h.move(before, 0, "T10", f"T{11 + k}"), f"T{10 + k}")
    v = verdict(before, after, card, 0)
    assert not v.legal and v.reason.strip()
