"""royal-basic (DOG Royal without the Royal rules): deck, positions and the new cards.

RULES.md §1 and §5; rulebook: rules/dog-royal_de-fr-it.txt (German part quoted).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

import engine

sys.path.insert(0, str(Path(__file__).parent))
import rb_helpers as h  # noqa: E402

RB = "royal-basic"
STUCK = ["H1", "H2", "H3"]  # three home pieces that cannot move (H1 is boxed in by H2)


def rb(seat0: list[str], others: dict[int, list[str]] | None = None, last_card: str | None = None) -> dict:
    seats = {0: seat0}
    seats.update(others or {})
    return h.royal_pos(seats, variant=RB, last_card=last_card)


# --- deck and positions ------------------------------------------------------------------
ROYAL_DECK = {
    "1/11": 10, "13": 10,
    "2": 7, "3": 7, "4": 7, "5": 7, "6": 7, "1-7": 7, "8": 7, "9": 7, "10": 7, "12": 7,
    "copy": 7, "swap": 7,
    "magnet": 6,
}


@pytest.mark.parametrize("variant", ["royal", RB])
def test_deck_is_the_110_cards_of_the_rulebook(variant):
    # "110 Spielkarten (je 10x die 11 und 13, je 7x 2, 3, 4, 5, 6, 1-7, 8, 9, 10, 12, = und
    # Tauscher, 6x Magnet)" -- RULES.md §1 table.
    v = engine.get_variant(variant)
    assert dict(v.deck) == ROYAL_DECK
    assert v.deck_size == 110


@pytest.mark.parametrize("variant", ["royal", RB])
def test_edition_parameters(variant):
    # "Es werden zu Rundenbeginn immer 5 Karten ausgeteilt." RULES.md §1: 4 pieces, 4 home
    # slots, 2-6 players, 5 cards per round.
    v = engine.get_variant(variant)
    assert v.pieces == 4
    assert v.home_slots == 4
    assert set(v.players) == {2, 3, 4, 5, 6}
    assert set(v.cards_per_round) == {5}
    if variant == "royal":
        assert engine.load_board(v.board_kind, 4).special_fields == h.royal_board().special_fields


@pytest.mark.parametrize("variant", ["royal", RB])
@pytest.mark.parametrize("card", ["7", "joker", "partner", "black-1-7", "black-5", "black-6"])
def test_cards_outside_the_royal_deck_are_rejected(variant, card):
    # "Bis auf die ursprüngliche 7 und den Joker sind alle Karten des Original-DOG auch im
    # DOG Royal enthalten." NOTATION.md: a card the variant's deck does not contain is rejected.
    pos = h.parse(h.royal_pos({0: ["T2", "K", "K", "K"]}, variant=variant))
    with pytest.raises(engine.CardError):
        engine.legal_moves(pos, card, 0)


def test_royal_piece_order_is_kept():
    # NOTATION.md: order inside a list matters in royal: [king, knight, citizen, fool].
    js = h.royal_pos({0: ["K", "T5", "H0", "K"], 1: ["T20", "K", "K", "H3"]})
    out = h.parse(js).to_json()
    assert out["variant"] == "royal"
    assert out["pieces"][0] == ["K", "T5", "H0", "K"]
    assert out["pieces"][1] == ["T20", "K", "K", "H3"]


def test_royal_basic_piece_order_does_not_matter():
    a = h.parse(rb(["T5", "K", "H0", "K"]))
    b = h.parse(rb(["K", "K", "T5", "H0"]))
    assert a == b


@pytest.mark.parametrize("variant", ["royal", RB])
def test_royal_solo_uses_four_pieces(variant):
    # The royal box has "24 Spielfiguren (pro Farbe 4 Figuren ...)": the solo rules for 2, 3
    # and 5 players add no fifth piece (RULES.md §1: 4 pieces/seat).
    ok = h.royal_pos({0: ["T0", "K", "K", "K"], 1: ["T16", "K", "K", "K"]}, variant=variant, present=(0, 1))
    h.parse(ok)
    five = h.royal_pos({0: ["T0", "K", "K", "K", "K"], 1: ["T16", "K", "K", "K", "K"]},
                       variant=variant, present=(0, 1))
    with pytest.raises(engine.PositionError):
        h.parse(five)


@pytest.mark.parametrize("variant", ["royal", RB])
def test_royal_six_board_parses(variant):
    # 2-6 players: 5 and 6 players use the 6-segment board.
    js = h.royal_pos({}, variant=variant, present=range(6), board=6)
    assert h.parse(js).to_json()["board"] == 6


@pytest.mark.parametrize("variant", ["royal", RB])
def test_black_keys_are_rejected_in_royal(variant):
    js = h.royal_pos({}, variant=variant)
    js["black_dog"] = "T21"
    with pytest.raises(engine.PositionError):
        h.parse(js)


# --- 1-7 -----------------------------------------------------------------------------------
def test_one_to_seven_moves_one_piece_1_to_7_without_burning():
    # "Mit dieser Karte wird eine Figur um bis zu 7 Felder vorwärts gezogen." RULES.md §5:
    # no split, no burning.
    js = rb(["T2"] + STUCK, {1: ["T4", "K", "K", "K"]})
    plays = h.moves(js, "1-7", 0)
    expected = {h.key(h.move(js, 0, "T2", f"T{2 + k}")) for k in range(1, 8)}
    # landing on T4 (2 steps) captures the blue piece
    expected.discard(h.key(h.move(js, 0, "T2", "T4")))
    expected.add(h.key(h.move(h.move(js, 0, "T2", "T4"), 1, "T4", "K")))
    assert h.result_keys(plays) == expected
    assert len(plays) == 7
    assert all(p.card == "1-7" for p in plays)


def test_one_to_seven_entering_home_is_optional():
    # RULES.md §3.5: entering home is optional. From T62 red reaches T63, T0, then H0..H3
    # or the track.
    js = rb(["T62", "K", "K", "K"])
    plays = h.moves(js, "1-7", 0)
    got = {tuple(sorted(h.seat_locs(p, 0))) for p in plays}
    want = {tuple(sorted([loc, "K", "K", "K"])) for loc in
            ["T63", "T0", "T1", "T2", "T3", "T4", "T5", "H0", "H1", "H2", "H3"]}
    assert got == want
    assert len(plays) == 11


def test_ten_moves_ten_in_royal_basic():
    # "Mit dieser Karte kann eine Figur um 10 Felder vorwärts bewegt werden. Die
    # Sonderfunktion tritt nur bei „Royal“ auf."
    js = rb(["T2"] + STUCK)
    assert h.result_keys(h.moves(js, "10", 0)) == {h.key(h.move(js, 0, "T2", "T12"))}


def test_piece_on_own_start_cannot_go_straight_home():
    # "Allerdings darf das nicht direkt vom Startfeld aus geschehen, auch wenn die Figur
    # bereits eine Runde gelaufen ist."
    js = rb(["T0", "K", "K", "K"])
    assert h.result_keys(h.moves(js, "5", 0)) == {h.key(h.move(js, 0, "T0", "T5"))}


# --- magnet ----------------------------------------------------------------------------------
def test_magnet_moves_directly_behind_the_next_piece_and_never_captures():
    # "Mit dem Magneten wird eine Figur vorwärts direkt auf das Feld hinter die nächste Figur
    # (egal welcher Farbe) gezogen."
    js = rb(["T2"] + STUCK, {1: ["T10", "K", "K", "K"]})
    plays = h.moves(js, "magnet", 0)
    assert h.result_keys(plays) == {h.key(h.move(js, 0, "T2", "T9"))}
    assert all(p.draws == 0 for p in plays)  # royal-basic has no special fields


def test_magnet_counts_own_pieces_as_the_next_piece():
    # "... hinter die nächste Figur (egal welcher Farbe)"
    js = rb(["T2", "T6", "H2", "H3"], {1: ["T20", "K", "K", "K"]})
    plays = h.moves(js, "magnet", 0)
    assert h.result_keys(plays) == {
        h.key(h.move(js, 0, "T2", "T5")),
        h.key(h.move(js, 0, "T6", "T19")),
    }


def test_magnet_must_actually_move():
    # "Die Figur muss komplett an die Figur herangezogen werden ... Es ist nicht erlaubt,
    # vorher stehen zu bleiben." RULES.md §5: not usable when already directly behind.
    js = rb(["T2"] + STUCK, {1: ["T3", "K", "K", "K"]})
    assert h.moves(js, "magnet", 0) == []


def test_magnet_never_enters_home():
    # "Mit einem Magneten kann ein Spieler nicht ins Ziel ziehen" -- the piece stays on the
    # track and passes its own (empty) start field.
    js = rb(["T60"] + STUCK, {1: ["T5", "K", "K", "K"]})
    plays = h.moves(js, "magnet", 0)
    assert h.result_keys(plays) == {h.key(h.move(js, 0, "T60", "T4"))}


def test_magnet_does_not_move_pieces_inside_home():
    # "... bzw. im Ziel Figuren vorwärts bewegen." (not allowed)
    js = rb(["H0", "H3", "K", "K"])
    assert h.moves(js, "magnet", 0) == []


def test_magnet_stops_behind_a_protected_piece():
    # A piece on its own start field cannot be passed or landed on (RULES.md §3.3).
    js = rb(["T10"] + STUCK, {1: ["T16", "K", "K", "K"]})
    assert h.result_keys(h.moves(js, "magnet", 0)) == {h.key(h.move(js, 0, "T10", "T15"))}


# --- copy ------------------------------------------------------------------------------------
def test_copy_cannot_be_the_first_card_of_a_round():
    # "Die Kopie gilt nicht rundenübergreifend. Sie kann also nicht als erste Karte einer
    # neuen Runde ... ausgespielt werden."
    js = rb(["T2", "K", "K", "K"])
    assert h.moves(js, "copy", 0) == []


@pytest.mark.parametrize("last", ["5", "4", "1/11", "13", "1-7", "magnet", "10"])
def test_copy_plays_exactly_like_the_last_card(last):
    # "Für den Spieler verhält es sich, als ob er die zuvor gespielte Karte selbst
    # ausgespielt hätte."
    js = rb(["T2", "T30", "K", "K"], {1: ["T20", "K", "K", "K"]}, last_card=last)
    copies = h.moves(js, "copy", 0)
    originals = h.moves(js, last, 0)
    assert originals, "test layout: the copied card must have plays"
    assert h.result_keys(copies) == h.result_keys(originals)
    assert all(p.card == "copy" and p.as_card == last for p in copies)


def test_copy_of_swap_swaps():
    js = rb(["T2", "K", "K", "K"], {1: ["T20", "K", "K", "K"]}, last_card="swap")
    copies = h.moves(js, "copy", 0)
    swapped = h.move(h.move(js, 0, "T2", "T20"), 1, "T20", "T2")
    assert h.result_keys(copies) == {h.key(swapped)}


def test_copy_after_copy_copies_the_same_card():
    # RULES.md §5: "copy after copy copies the same underlying card". (Black DOG rulebook:
    # "Wird eine Kopie nach einer Kopie gespielt, so kopiert sie ebenfalls die zuvor
    # kopierte Karte.")
    js = rb(["T2", "K", "K", "K"], {1: ["T20", "K", "K", "K"]}, last_card="5")
    first = h.moves(js, "copy", 0)
    assert len(first) == 1
    after = first[0].result
    second = engine.legal_moves(after, "copy", 1)
    fives = engine.legal_moves(after, "5", 1)
    assert fives
    assert h.result_keys(second) == h.result_keys(fives)
    # and a third copy still copies the 5
    third = engine.legal_moves(second[0].result, "copy", 0)
    assert h.result_keys(third) == h.result_keys(engine.legal_moves(second[0].result, "5", 0))


# --- swap ------------------------------------------------------------------------------------
def test_swap_without_target_cannot_be_played():
    # "Sind nur eigene bzw. geschützte Figuren auf dem Weg, kann die Karte nicht ausgespielt
    # werden." RULES.md §3.7: in royal-basic no void play.
    js = rb(["T2", "T30", "K", "K"], {1: ["T16", "H0", "K", "K"]})
    assert h.moves(js, "swap", 0) == []


def test_swap_exchanges_with_unprotected_track_pieces_only():
    # "Geschützte Spielfiguren (Figuren auf dem gleichfarbigen Startfeld) oder Figuren, die
    # schon im Ziel sind, dürfen nicht getauscht werden."
    js = rb(["T2", "K", "K", "K"], {1: ["T16", "H0", "T40", "K"], 2: ["T50", "K", "K", "K"]})
    plays = h.moves(js, "swap", 0)
    want = {
        h.key(h.move(h.move(js, 0, "T2", "T40"), 1, "T40", "T2")),
        h.key(h.move(h.move(js, 0, "T2", "T50"), 2, "T50", "T2")),
    }
    assert h.result_keys(plays) == want


# --- no Royal rules in royal-basic ---------------------------------------------------------
def test_royal_basic_has_no_ranks_no_king_limit_no_draws():
    # The Royal rules ("Rangfolge", "Sonderfelder", "Sonderfähigkeiten") only apply to royal.
    sp = h.specials()[0]
    h.assert_plain_royal(sp - 5, sp - 3)
    js = rb([f"T{sp - 5}"] + STUCK, {1: [f"T{sp - 3}", "K", "K", "K"]})
    plays = h.moves(js, "5", 0)
    assert h.result_keys(plays) == {h.key(h.move(js, 0, f"T{sp - 5}", f"T{sp}"))}
    assert all(p.draws == 0 for p in plays)
    # 8, 9, 12, 13 move any piece (no crossed-out crown in the basic game)
    for card, k in (("8", 8), ("9", 9), ("12", 12), ("13", 13)):
        dest = f"T{(sp - 5 + k) % 64}"
        assert h.has(h.moves(js, card, 0), h.move(js, 0, f"T{sp - 5}", dest)), card


def test_royal_basic_has_no_fool_forfeit():
    # The fool's ability is a Royal rule: in royal-basic every point must be used.
    js = rb(["T62", "K", "K", "K"])
    assert h.result_keys(h.moves(js, "8", 0)) == {h.key(h.move(js, 0, "T62", "T6"))}
