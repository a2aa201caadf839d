"""The worked examples of the DOG Royal rulebook (rules/dog-royal_de-fr-it.txt), and the
referee's reasons for illegal royal plays.

Page numbers are those printed in the German part of the rulebook.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

import engine

sys.path.insert(0, str(Path(__file__).parent))
import rb_helpers as h  # noqa: E402
from rb_helpers import CITIZEN, FOOL, KING, KNIGHT  # noqa: E402

RB = "royal-basic"


# --- p. 5: the green player with a 4, a 1-7 and a magnet ------------------------------------
# "Der grüne Spieler besitzt als Handkarten eine 4, eine 1-7 und einen Magneten. Er könnte
# mit der hinteren Figur (A) und der 1-7 oder dem Magneten bis auf das schwarze Feld hinter
# die rote Figur vorrücken oder mit der 1-7 sechs Felder vorwärts gehen und die rote Figur
# schlagen. Andererseits könnte er mit der 1-7 die Figur B ein Feld vorrücken um im Ziel die
# Lücke zu füllen. Etwas risikoreicher wäre es, mit der 4 die Figur C vier Felder
# zurückzuziehen (auf das Feld vor der roten Figur), um in der nächsten Runde dann mit der
# 1-7 ins Ziel zu ziehen. Dann bestünde aber die Gefahr, dass der rote Spieler mit einer 1/11
# oder einer 1-7 die Figur C schlagen könnte."
#
# Reconstruction: green is seat 2 with start field S. C stands on S, red on S-5, A on S-11
# (six behind red), B in H1 and a fourth green piece in H3 (the gap is H2).
GREEN = 2
S = h.start(GREEN)
A, RED, C = f"T{S - 11}", f"T{S - 5}", f"T{S}"


def green_example(variant: str = RB) -> dict:
    if variant == RB:
        return h.royal_pos({0: [RED, "K", "K", "K"], GREEN: [A, "H1", C, "H3"]}, variant=RB)
    # royal: C is the king, A the knight, B the citizen, red's piece a fool
    return h.royal_pos({0: ["K", "K", "K", RED], GREEN: [C, A, "H1", "H3"]}, variant="royal")


def test_green_example_one_to_seven():
    js = green_example()
    plays = h.moves(js, "1-7", GREEN)
    # A to the field behind red
    assert h.has(plays, h.move(js, GREEN, A, f"T{S - 6}"))
    # A six fields, capturing red
    assert h.has(plays, h.move(h.move(js, GREEN, A, RED), 0, RED, "K"))
    # B one field in the home, filling the gap
    assert h.has(plays, h.move(js, GREEN, "H1", "H2"))
    # all options: A 1..7, B 1, C 1..7 (C cannot go straight from its start field into home)
    assert len(plays) == 15


def test_green_example_magnet():
    js = green_example()
    plays = h.moves(js, "magnet", GREEN)
    assert h.has(plays, h.move(js, GREEN, A, f"T{S - 6}"))
    # C is pulled all the way round to the field behind A; B (home) cannot use the magnet
    assert h.result_keys(plays) == {
        h.key(h.move(js, GREEN, A, f"T{S - 6}")),
        h.key(h.move(js, GREEN, C, f"T{S - 12}")),
    }


def test_green_example_four_back_then_home_and_reds_threat():
    js = green_example()
    plays = h.moves(js, "4", GREEN)
    back = h.move(js, GREEN, C, f"T{S - 4}")  # "auf das Feld vor der roten Figur"
    assert h.result_keys(plays) == {
        h.key(back),
        h.key(h.move(js, GREEN, C, f"T{S + 4}")),
        h.key(h.move(js, GREEN, A, f"T{S - 7}")),
        h.key(h.move(js, GREEN, A, f"T{S - 15}")),
    }
    # next round the 1-7 brings C home (5 steps: H0; H1 is taken by B)
    assert h.has(h.moves(back, "1-7", GREEN), h.move(back, GREEN, f"T{S - 4}", "H0"))
    # ... but red can capture C with a 1/11 or a 1-7 first
    caught = h.move(h.move(back, 0, RED, f"T{S - 4}"), GREEN, f"T{S - 4}", "K")
    assert h.has(h.moves(back, "1/11", 0), caught)
    assert h.has(h.moves(back, "1-7", 0), caught)


def test_green_example_under_royal_rules_king_c_is_safe_from_the_red_fool():
    # Same options in royal (C king, A knight, B citizen; red fool) -- but a king "darf nur
    # von anderen Königen geschlagen werden", so red's threat disappears.
    js = green_example("royal")
    one_seven = h.moves(js, "1-7", GREEN)
    assert h.has(one_seven, h.put(js, GREEN, KNIGHT, f"T{S - 6}"))
    assert h.has(one_seven, h.put(h.put(js, GREEN, KNIGHT, RED), 0, FOOL, "K"))
    assert h.has(one_seven, h.put(js, GREEN, CITIZEN, "H2"))
    back = h.put(js, GREEN, KING, f"T{S - 4}")
    assert h.has(h.moves(js, "4", GREEN), back)
    assert h.has(h.moves(js, "magnet", GREEN), h.put(js, GREEN, KNIGHT, f"T{S - 6}"))
    for card in ("1/11", "1-7"):
        assert all(h.seat_locs(p, GREEN)[KING] == f"T{S - 4}" for p in h.moves(back, card, 0)), card


# --- p. 5: the 4 backwards from the start field --------------------------------------------
# "Besonders reizvoll ist es, eine Figur, die auf dem Startfeld steht, um 4 Felder rückwärts
# zu ziehen. So kann die Spielfigur ... mit der nächsten Karte (eine 1-7, 5, 6 oder 8) gleich
# ins Ziel gezogen werden."
def test_four_back_from_the_start_field_then_straight_home():
    js = h.royal_pos({0: ["T0", "K", "K", "K"]}, variant=RB)
    back = h.move(js, 0, "T0", "T60")
    assert h.has(h.moves(js, "4", 0), back)
    for card, slot in (("5", "H0"), ("6", "H1"), ("8", "H3")):
        assert h.has(h.moves(back, card, 0), h.move(back, 0, "T60", slot)), card
    homes = {loc for p in h.moves(back, "1-7", 0) for loc in h.seat_locs(p, 0) if loc.startswith("H")}
    assert homes == {"H0", "H1", "H2"}


# --- p. 4: copy after a 1-7 ---------------------------------------------------------------
# "Wird eine Kopie z.B. nach einer 1-7 gespielt (der Spieler ist 3 Felder weit gezogen), darf
# der Ausspieler auch 1-7 Felder weit gehen (z.B. 6 Felder)."
@pytest.mark.parametrize("variant", [RB, "royal"])
def test_copy_after_one_to_seven_may_move_another_distance(variant):
    # the previous player (red) moved 3 with the 1-7; blue copies it and moves 6
    js = h.royal_pos({0: ["T5", "K", "K", "K"], 1: ["K", "K", "K", "T20"]}, variant=variant, last_card="1-7")
    plays = h.moves(js, "copy", 1)
    assert h.has(plays, h.move(js, 1, "T20", "T26"))
    assert h.result_keys(plays) == h.result_keys(h.moves(js, "1-7", 1))


# "Die Kopie gilt nicht rundenübergreifend. Sie kann also nicht als erste Karte einer neuen
# Runde ... ausgespielt werden."
@pytest.mark.parametrize("variant", [RB, "royal"])
def test_copy_is_never_the_first_card(variant):
    js = h.royal_pos({0: ["T5", "K", "K", "K"]}, variant=variant)
    assert h.moves(js, "copy", 0) == []


# --- p. 3-4: magnet and swap -----------------------------------------------------------------
# "Die Figur muss komplett an die Figur herangezogen werden, so dass sie direkt hinter ihr
# steht. Es ist nicht erlaubt, vorher stehen zu bleiben. ... Mit einem Magneten kann ein
# Spieler nicht ins Ziel ziehen"
def test_magnet_goes_all_the_way_and_not_into_home():
    js = h.royal_pos({0: ["T58", "H1", "H2", "H3"], 1: ["T9", "K", "K", "K"]}, variant=RB)
    assert h.result_keys(h.moves(js, "magnet", 0)) == {h.key(h.move(js, 0, "T58", "T8"))}


# "Sind nur eigene bzw. geschützte Figuren auf dem Weg, kann die Karte nicht ausgespielt
# werden."
@pytest.mark.parametrize("variant", [RB, "royal"])
def test_swap_with_only_own_or_protected_pieces_cannot_be_played(variant):
    s1 = h.start(1)
    js = h.royal_pos({0: ["T3", "T30", "K", "K"], 1: [f"T{s1}", "K", "K", "K"]}, variant=variant)
    assert h.moves(js, "swap", 0) == []


# --- p. 6-7: the Royal rules ----------------------------------------------------------------
# "Ein Bürger darf also an anderen Bürgern oder Narren vorbeiziehen. Um eine ranghöhere
# Figur zu überholen, benötigt er eine grüne Karte."
def test_citizen_passes_citizens_and_fools_but_needs_green_for_a_knight():
    h.assert_plain_royal(1, 3, 4, 5, 7, 11)
    js = h.royal_pos({0: ["K", "K", "T1", "K"], 1: ["K", "K", "T3", "T4"], 2: ["K", "T5", "K", "K"]})
    plays = h.moves(js, "6", 0)
    assert not h.has(plays, h.put(js, 0, CITIZEN, "T7"))
    js2 = h.put(js, 2, KNIGHT, "K")
    assert h.has(h.moves(js2, "6", 0), h.put(js2, 0, CITIZEN, "T7"))
    assert h.has(h.moves(js, "10", 0), h.put(js, 0, CITIZEN, "T11"))


# "Sonderfall blockierte Startfelder: Eine fremde Figur auf dem eigenen Startfeld darf von
# jeder startenden Figur geschlagen werden. Somit darf z.B. auch ein fremder König auf meinem
# eigenen Startfeld von einem startenden Narren (aber auch von einem Narren, der eine
# komplette Runde gelaufen ist) geschlagen werden."
def test_foreign_king_on_my_start_field_taken_by_my_starting_fool_or_lapping_fool():
    s1 = h.start(1)
    h.assert_plain_royal(s1 - 2)
    js = h.royal_pos({0: [f"T{s1}", "K", "K", "K"], 1: ["H0", "H1", "H2", "K"]})
    assert h.result_keys(h.moves(js, "1/11", 1)) >= {h.key(h.put(h.put(js, 1, FOOL, f"T{s1}"), 0, KING, "K"))}
    lap = h.put(js, 1, FOOL, f"T{s1 - 2}")
    assert h.has(h.moves(lap, "2", 1), h.put(h.put(lap, 1, FOOL, f"T{s1}"), 0, KING, "K"))


# "Ritter: ... So darf er an einem König auf dessen Startfeld vorbeiziehen, benötigt dafür
# aber eine grüne Karte. Alle anderen Figuren auf dem Startfeld können vom Ritter mit
# beliebigen anderen blauen und roten Karten (Ausnahme: Magnet) übersprungen werden."
def test_knight_and_start_fields_example():
    s2 = h.start(2)
    frm = s2 - 2
    h.assert_plain_royal(frm, s2 + 2, s2 + 3)
    king_on_start = h.royal_pos({0: ["K", f"T{frm}", "K", "K"], 2: [f"T{s2}", "K", "K", "K"]})
    assert not h.has(h.moves(king_on_start, "5", 0), h.put(king_on_start, 0, KNIGHT, f"T{s2 + 3}"))
    assert h.has(h.moves(king_on_start, "4", 0), h.put(king_on_start, 0, KNIGHT, f"T{s2 + 2}"))
    fool_on_start = h.royal_pos({0: ["K", f"T{frm}", "K", "K"], 2: ["K", "K", "K", f"T{s2}"]})
    assert h.has(h.moves(fool_on_start, "5", 0), h.put(fool_on_start, 0, KNIGHT, f"T{s2 + 3}"))
    assert h.result_keys(h.moves(fool_on_start, "magnet", 0)) == {
        h.key(h.put(fool_on_start, 0, KNIGHT, f"T{s2 - 1}"))
    }


# "König: ... Auf allen Karten, mit denen der König nicht laufen kann, ist eine
# durchgestrichene Krone abgebildet. Startkarten zum Starten sowie ein Magnet oder ein
# Tauscher dürfen auf einen König gespielt bzw. angewandt werden."
def test_king_example_cards():
    js = h.royal_pos({0: ["T3", "H1", "H2", "H3"], 1: ["K", "K", "T30", "K"]})
    for card in ("8", "9", "10", "12", "13"):
        assert h.moves(js, card, 0) == [], card
    assert h.moves(js, "magnet", 0) and h.moves(js, "swap", 0)


# "Bürger: ... Damit kann er auch an ranghöheren Figuren oder an blockierten Startfeldern
# vorbeikommen."
def test_citizen_example_jump_past_king_and_blocked_start():
    sp = h.specials()
    s1 = h.start(1)
    assert sp[0] < s1 < sp[1]
    h.assert_plain_royal(sp[0] - 4, s1 + 1)
    js = h.royal_pos({0: ["K", "K", f"T{sp[0] - 4}", "K"], 1: [f"T{s1 + 1}", f"T{s1}", "K", "K"]})
    plays = h.moves(js, "4", 0)
    assert h.has(plays, h.put(js, 0, CITIZEN, f"T{sp[1]}"))


# "Narr: Der Narr kann, wenn er ins Ziel hineinzieht, bis zu 2 Punkte verfallen lassen."
def test_fool_example():
    js = h.royal_pos({0: ["K", "K", "K", "T61"]})
    # from T61, H3 is 7 fields away: a 9 forfeits 2, a 10 would have to forfeit 3
    assert h.has(h.moves(js, "9", 0), h.put(js, 0, FOOL, "H3"))
    assert not h.has(h.moves(js, "10", 0), h.put(js, 0, FOOL, "H3"))


# --- referee reasons -------------------------------------------------------------------------
def verdict(before: dict, after: dict, card: str, seat: int, lang: str = "en"):
    return engine.check(h.parse(before), h.parse(after), card, seat, lang=lang)


def test_reason_passing_a_higher_rank():
    h.assert_plain_royal(2, 4, 7)
    before = h.royal_pos({0: ["K", "K", "K", "T2"], 1: ["T4", "K", "K", "K"]})
    after = h.put(before, 0, FOOL, "T7")
    for lang in ("en", "de"):
        v = verdict(before, after, "5", 0, lang)
        assert not v.legal and v.plays == ()
        assert v.reason.strip()
        assert "T4" in v.reason, v.reason  # names the king that may not be passed
    assert verdict(before, after, "5", 0, "en").reason != verdict(before, after, "5", 0, "de").reason
    # the same move with the green 10 is fine one field further
    assert verdict(before, h.put(before, 0, FOOL, "T12"), "10", 0).legal


def test_reason_capturing_a_king():
    h.assert_plain_royal(2, 7)
    before = h.royal_pos({0: ["K", "K", "K", "T2"], 1: ["T7", "K", "K", "K"]})
    after = h.put(h.put(before, 0, FOOL, "T7"), 1, KING, "K")
    for lang in ("en", "de"):
        v = verdict(before, after, "5", 0, lang)
        assert not v.legal
        assert "T7" in v.reason, v.reason


def test_reason_king_with_a_big_card():
    before = h.royal_pos({0: ["T2", "K", "K", "K"]})
    after = h.put(before, 0, KING, "T10")
    for lang in ("en", "de"):
        v = verdict(before, after, "8", 0, lang)
        assert not v.legal
        assert "T2" in v.reason, v.reason


def test_reason_copy_as_first_card():
    before = h.royal_pos({0: ["T2", "K", "K", "K"]})
    after = h.put(before, 0, KING, "T5")
    for lang in ("en", "de"):
        v = verdict(before, after, "copy", 0, lang)
        assert not v.legal and v.reason.strip()


def test_reason_knight_landing_on_blocked_start():
    s1 = h.start(1)
    before = h.royal_pos({0: ["K", f"T{s1 - 3}", "K", "K"], 1: ["K", "K", "K", f"T{s1}"]})
    after = h.put(h.put(before, 0, KNIGHT, f"T{s1}"), 1, FOOL, "K")
    v = verdict(before, after, "3", 0)
    assert not v.legal
    assert f"T{s1}" in v.reason, v.reason


def test_check_accepts_citizen_jump_and_fool_forfeit():
    sp = h.specials()
    h.assert_plain_royal(sp[0] - 3)
    before = h.royal_pos({0: ["K", "K", f"T{sp[0] - 3}", "T62"]})
    assert verdict(before, h.put(before, 0, CITIZEN, f"T{sp[1]}"), "3", 0).legal
    assert verdict(before, h.put(before, 0, FOOL, "H3"), "8", 0).legal
    v = verdict(before, h.put(before, 0, FOOL, "H2"), "8", 0)
    assert not v.legal and v.reason.strip()
