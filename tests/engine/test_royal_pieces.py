"""royal: ranks, the four pieces' abilities and the special fields (RULES.md §5).

Royal lists are [king, knight, citizen, fool]. Fields in segment 0 that a test lands on are
checked against the board's (editable) special fields first.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import rb_helpers as h  # noqa: E402
from rb_helpers import CITIZEN, FOOL, KING, KNIGHT  # noqa: E402

RANK_NAMES = {KING: "king", KNIGHT: "knight", CITIZEN: "citizen", FOOL: "fool"}


def piece_at(loc: str, rank: int) -> list[str]:
    out = ["K"] * 4
    out[rank] = loc
    return out


def pos(seats: dict[int, list[str]], last_card: str | None = None) -> dict:
    return h.royal_pos(seats, last_card=last_card)


def dests(plays, js: dict, seat: int, rank: int) -> set[str]:
    """Where the given piece ends in the plays that moved it."""
    before = js["pieces"][seat][rank]
    return {h.seat_locs(p, seat)[rank] for p in plays} - {before}


# --- ranks and passing ---------------------------------------------------------------------
@pytest.mark.parametrize("mover,blocker", [
    (CITIZEN, CITIZEN), (CITIZEN, FOOL), (FOOL, FOOL), (KNIGHT, CITIZEN), (KNIGHT, KNIGHT),
    (KING, KING), (KING, KNIGHT),
])
def test_a_piece_may_pass_equal_and_lower_ranks(mover, blocker):
    # "Eine Figur darf immer nur gleichrangige oder rangniedrigere Figuren überholen. Ein
    # Bürger darf also an anderen Bürgern oder Narren vorbeiziehen."
    h.assert_plain_royal(2, 4, 7)
    js = pos({0: piece_at("T2", mover), 1: piece_at("T4", blocker)})
    assert h.has(h.moves(js, "5", 0), h.put(js, 0, mover, "T7"))


@pytest.mark.parametrize("mover,blocker", [
    (CITIZEN, KNIGHT), (CITIZEN, KING), (FOOL, CITIZEN), (FOOL, KNIGHT), (FOOL, KING), (KNIGHT, KING),
])
@pytest.mark.parametrize("card", ["5", "1-7"])
def test_a_piece_may_not_pass_a_higher_rank_with_blue_or_red_cards(mover, blocker, card):
    # "Um eine ranghöhere Figur zu überholen, benötigt er eine grüne Karte."
    h.assert_plain_royal(2, 4, 7)
    js = pos({0: piece_at("T2", mover), 1: piece_at("T4", blocker)})
    plays = h.moves(js, card, 0)
    assert not h.has(plays, h.put(js, 0, mover, "T7"))
    if card == "1-7":
        # it may still stop in front of the higher piece
        assert h.has(plays, h.put(js, 0, mover, "T3"))


def test_rank_applies_to_pieces_of_the_own_colour():
    # "Zwischen den Figuren wird eine Rangfolge eingeführt, die auch für die Figuren der
    # eigenen Farbe gilt."
    h.assert_plain_royal(2, 4, 7)
    js = pos({0: ["K", "T4", "T2", "K"]})  # own knight on T4, own citizen on T2
    plays = h.moves(js, "5", 0)
    assert not h.has(plays, h.put(js, 0, CITIZEN, "T7"))
    assert h.has(plays, h.put(js, 0, KNIGHT, "T9"))


def test_one_eleven_as_eleven_obeys_rank_but_one_is_fine():
    h.assert_plain_royal(2, 3, 6, 13)
    js = pos({0: piece_at("T2", FOOL), 2: piece_at("T6", CITIZEN)})
    plays = h.moves(js, "1/11", 0)
    assert not h.has(plays, h.put(js, 0, FOOL, "T13"))
    assert h.has(plays, h.put(js, 0, FOOL, "T3"))


@pytest.mark.parametrize("blocker", [KING, KNIGHT, CITIZEN])
def test_green_ten_ignores_rank(blocker):
    # "Mit grünen Karten wird die Rangfolge der Figuren außer Kraft gesetzt. Somit kann eine
    # rangniedrigere Figur auch eine ranghöhere Figur überspringen."
    h.assert_plain_royal(2, 5, 12)
    js = pos({0: piece_at("T2", FOOL), 1: piece_at("T5", blocker)})
    assert h.has(h.moves(js, "10", 0), h.put(js, 0, FOOL, "T12"))


def test_green_four_ignores_rank_forwards_and_backwards():
    # Green cards are 4 and 10 (RULES.md §5); the 4 moves forward or backward.
    h.assert_plain_royal(10, 12, 14, 6)
    js = pos({0: piece_at("T10", FOOL), 1: piece_at("T12", KING), 2: piece_at("T7", KING)})
    plays = h.moves(js, "4", 0)
    assert h.has(plays, h.put(js, 0, FOOL, "T14"))
    assert h.has(plays, h.put(js, 0, FOOL, "T6"))


def test_green_cards_still_do_not_pass_a_blocked_start_field():
    # "Startfeld, das mit einer gleichfarbigen Figur besetzt ist, blockiert aber weiterhin
    # (Ausnahme: Ritter)."
    s1 = h.start(1)
    js = pos({0: piece_at(f"T{s1 - 3}", FOOL), 1: piece_at(f"T{s1}", FOOL)})
    plays = h.moves(js, "10", 0)
    assert plays == []
    plays4 = h.moves(js, "4", 0)
    assert not h.has(plays4, h.put(js, 0, FOOL, f"T{s1 + 1}"))
    back = pos({0: piece_at(f"T{s1 + 2}", FOOL), 1: piece_at(f"T{s1}", FOOL)})
    assert not h.has(h.moves(back, "4", 0), h.put(back, 0, FOOL, f"T{s1 - 2}"))


def test_green_cards_still_do_not_pass_inside_home():
    # "Auch im Ziel darf weiterhin nicht übersprungen werden."
    js = pos({0: ["K", "T57", "K", "H1"]})  # knight on T57, own fool in H1
    # T57 + 10: T58..T63, T0, H0, H1 (occupied), H2 -> home impossible; track T3 fine
    assert dests(h.moves(js, "10", 0), js, 0, KNIGHT) == {"T3"}


# --- capture -------------------------------------------------------------------------------
@pytest.mark.parametrize("victim", [KNIGHT, CITIZEN, FOOL])
def test_capture_ignores_rank(victim):
    # "Ansonsten darf jede Figur jede andere schlagen (auch ranghöhere)."
    h.assert_plain_royal(2, 7)
    js = pos({0: piece_at("T2", FOOL), 1: piece_at("T7", victim)})
    assert h.has(h.moves(js, "5", 0), h.put(h.put(js, 0, FOOL, "T7"), 1, victim, "K"))


@pytest.mark.parametrize("mover", [KNIGHT, CITIZEN, FOOL])
@pytest.mark.parametrize("card", ["5", "1-7"])
def test_king_can_only_be_captured_by_a_king(mover, card):
    # "Seine Majestät der König darf nur von anderen Königen geschlagen werden!"
    h.assert_plain_royal(2, 7)
    js = pos({0: piece_at("T2", mover), 1: piece_at("T7", KING)})
    plays = h.moves(js, card, 0)
    assert all(h.seat_locs(p, 1)[KING] == "T7" for p in plays)
    assert not any(h.seat_locs(p, 0)[mover] == "T7" for p in plays)


def test_a_king_captures_a_king():
    h.assert_plain_royal(2, 7)
    js = pos({0: piece_at("T2", KING), 1: piece_at("T7", KING)})
    assert h.has(h.moves(js, "5", 0), h.put(h.put(js, 0, KING, "T7"), 1, KING, "K"))


def test_own_king_cannot_be_captured_by_own_piece_but_king_captures_own_piece():
    h.assert_plain_royal(2, 7)
    js = pos({0: ["T7", "K", "K", "T2"]})  # own king on T7, own fool on T2
    plays = h.moves(js, "5", 0)
    assert not any(h.seat_locs(p, 0)[FOOL] == "T7" for p in plays)
    js2 = pos({0: ["T2", "K", "K", "T7"]})
    assert h.has(h.moves(js2, "5", 0), h.put(h.put(js2, 0, KING, "T7"), 0, FOOL, "K"))


def test_foreign_king_on_own_start_field_is_captured_by_any_starting_piece():
    # "Eine fremde Figur auf dem eigenen Startfeld darf von jeder startenden Figur geschlagen
    # werden. Somit darf z.B. auch ein fremder König auf meinem eigenen Startfeld von einem
    # startenden Narren ... geschlagen werden."
    s1 = h.start(1)
    js = pos({0: piece_at(f"T{s1}", KING)})  # red king on blue's start field, blue all in kennel
    plays = h.moves(js, "13", 1)
    want = {h.key(h.put(h.put(js, 1, r, f"T{s1}"), 0, KING, "K")) for r in (KING, KNIGHT, CITIZEN, FOOL)}
    assert h.result_keys(plays) == want  # one start per distinct piece: the pieces are not alike


def test_foreign_king_on_own_start_field_is_captured_after_a_lap():
    # "... (aber auch von einem Narren, der eine komplette Runde gelaufen ist)"
    s1 = h.start(1)
    h.assert_plain_royal(s1 - 6)
    js = pos({0: piece_at(f"T{s1}", KING), 1: piece_at(f"T{s1 - 6}", FOOL)})
    assert h.has(h.moves(js, "6", 1), h.put(h.put(js, 1, FOOL, f"T{s1}"), 0, KING, "K"))


def test_foreign_king_on_a_third_seats_start_field_stays_safe():
    # Only the owner of that start field may capture the king there (RULES.md §5).
    s1 = h.start(1)
    h.assert_plain_royal(s1 - 6)
    js = pos({0: piece_at(f"T{s1}", KING), 2: piece_at(f"T{s1 - 6}", FOOL)})
    plays = h.moves(js, "6", 2)
    assert not any(h.seat_locs(p, 2)[FOOL] == f"T{s1}" for p in plays)


def test_start_is_illegal_when_an_own_piece_stands_on_the_start_field():
    # RULES.md §3.2; here the own king blocks and cannot move 13.
    js = pos({0: ["T0", "K", "K", "K"]})
    assert h.moves(js, "13", 0) == []


# --- king ------------------------------------------------------------------------------------
KING_SETUP = {0: ["T20", "H1", "H2", "H3"], 1: ["T44", "K", "K", "K"]}


@pytest.mark.parametrize("card,n", [
    ("1/11", 1), ("2", 1), ("3", 1), ("4", 2), ("5", 1), ("6", 1), ("1-7", 7),
    ("8", 0), ("9", 0), ("10", 0), ("12", 0), ("13", 0),
    ("magnet", 1), ("swap", 1),
])
def test_king_moves_only_with_values_one_to_seven(card, n):
    # "Dafür darf der König nur mit Karten des Wertes 1 bis 7 laufen. ... Startkarten zum
    # Starten sowie ein Magnet oder ein Tauscher dürfen auf einen König gespielt bzw.
    # angewandt werden." RULES.md §5: 1/11 only as 1 [decision]; the 4 both ways.
    js = pos(KING_SETUP)
    plays = h.moves(js, card, 0)
    assert len(plays) == n
    if card == "1/11":
        assert h.has(plays, h.put(js, 0, KING, "T21"))
    if card == "4":
        assert h.result_keys(plays) == {h.key(h.put(js, 0, KING, "T24")), h.key(h.put(js, 0, KING, "T16"))}
    if card == "magnet":
        assert h.has(plays, h.put(js, 0, KING, "T43"))
    if card == "swap":
        assert h.has(plays, h.put(h.put(js, 0, KING, "T44"), 1, KING, "T20"))


@pytest.mark.parametrize("last,n", [("5", 1), ("1/11", 1), ("1-7", 7), ("magnet", 1),
                                    ("8", 0), ("10", 0), ("12", 0), ("13", 0)])
def test_copy_moves_the_king_only_if_the_copied_card_could(last, n):
    # "Achtung: Ein Kopierer darf für einen König nur dann gespielt werden, wenn die zuvor
    # gespielte Karte auch für den König regulär eingesetzt werden kann."
    js = pos(KING_SETUP, last_card=last)
    assert len(h.moves(js, "copy", 0)) == n


@pytest.mark.parametrize("card", ["13", "1/11"])
def test_start_cards_start_a_king(card):
    js = pos({0: ["K", "H1", "H2", "H3"]})
    assert h.result_keys(h.moves(js, card, 0)) == {h.key(h.put(js, 0, KING, "T0"))}


# --- knight ----------------------------------------------------------------------------------
@pytest.mark.parametrize("blocker", [KNIGHT, CITIZEN, FOOL])
@pytest.mark.parametrize("card,k", [("8", 8), ("1-7", 7), ("13", 13)])
def test_knight_passes_blocked_start_fields(blocker, card, k):
    # "Für den Ritter sind Startfelder, die von einer gleichfarbigen Figur besetzt sind,
    # keine Blockade. ... Alle anderen Figuren auf dem Startfeld können vom Ritter mit
    # beliebigen anderen blauen und roten Karten (Ausnahme: Magnet) übersprungen werden."
    s1 = h.start(1)
    frm, to = s1 - 4, s1 - 4 + k
    js = pos({0: piece_at(f"T{frm}", KNIGHT), 1: piece_at(f"T{s1}", blocker)})
    assert h.has(h.moves(js, card, 0), h.put(js, 0, KNIGHT, f"T{to}"))
    # a citizen in the same place is blocked
    jc = pos({0: piece_at(f"T{frm}", CITIZEN), 1: piece_at(f"T{s1}", blocker)})
    assert not any(h.seat_locs(p, 0)[CITIZEN] == f"T{to}" for p in h.moves(jc, card, 0))


def test_knight_may_not_land_on_a_blocked_start_field():
    # "Er darf sie nicht betreten, aber über sie hinweg ziehen."
    s1 = h.start(1)
    js = pos({0: piece_at(f"T{s1 - 4}", KNIGHT), 1: piece_at(f"T{s1}", FOOL)})
    assert dests(h.moves(js, "1-7", 0), js, 0, KNIGHT) == {f"T{s1 - 4 + k}" for k in (1, 2, 3, 5, 6, 7)}
    assert not h.has(h.moves(js, "4", 0), h.put(js, 0, KNIGHT, f"T{s1}"))


def test_knight_needs_a_green_card_to_pass_a_king_on_its_start_field():
    # "So darf er an einem König auf dessen Startfeld vorbeiziehen, benötigt dafür aber eine
    # grüne Karte."
    s1 = h.start(1)
    js = pos({0: piece_at(f"T{s1 - 4}", KNIGHT), 1: piece_at(f"T{s1}", KING)})
    assert not h.has(h.moves(js, "8", 0), h.put(js, 0, KNIGHT, f"T{s1 + 4}"))
    assert dests(h.moves(js, "1-7", 0), js, 0, KNIGHT) == {f"T{s1 - 4 + k}" for k in (1, 2, 3)}
    assert h.has(h.moves(js, "10", 0), h.put(js, 0, KNIGHT, f"T{s1 + 6}"))


def test_knight_with_magnet_stops_behind_a_blocked_start_field():
    # "(Ausnahme: Magnet)"
    s1 = h.start(1)
    js = pos({0: piece_at(f"T{s1 - 4}", KNIGHT), 1: piece_at(f"T{s1}", FOOL)})
    assert h.result_keys(h.moves(js, "magnet", 0)) == {h.key(h.put(js, 0, KNIGHT, f"T{s1 - 1}"))}


def test_only_the_knight_enters_home_past_an_own_piece_on_the_start_field():
    # "Als einzige Figur kann der Ritter beim ins Ziel ziehen auch über einen eigenen Stein
    # auf dem Startfeld in sein eigenes Ziel ziehen."
    js = pos({0: ["K", "T62", "K", "T0"]})  # knight T62, own fool on own start T0
    assert dests(h.moves(js, "3", 0), js, 0, KNIGHT) == {"H0", "T1"}
    jc = pos({0: ["K", "K", "T62", "T0"]})  # a citizen instead
    assert dests(h.moves(jc, "3", 0), jc, 0, CITIZEN) == set()


def test_knight_entering_home_past_own_king_obeys_rank():
    # "Allerdings muss er hierbei auch die Rangfolge einhalten."
    js = pos({0: ["T0", "T62", "K", "K"]})  # own king on T0
    assert dests(h.moves(js, "3", 0), js, 0, KNIGHT) == set()
    assert dests(h.moves(js, "4", 0), js, 0, KNIGHT) >= {"H1", "T2"}


# --- citizen ---------------------------------------------------------------------------------
def test_citizen_may_jump_to_the_next_free_special_field():
    # "Bürger: Wenn der Bürger auf ein Sonderfeld zieht, darf er, nachdem er eine Karte
    # gezogen hat, auf das nächste freie Sonderfeld im Uhrzeigersinn springen."
    sp = h.specials()
    h.assert_plain_royal(sp[0] - 3)
    js = pos({0: piece_at(f"T{sp[0] - 3}", CITIZEN)})
    plays = h.moves(js, "3", 0)
    assert h.result_keys(plays) == {
        h.key(h.put(js, 0, CITIZEN, f"T{sp[0]}")),
        h.key(h.put(js, 0, CITIZEN, f"T{sp[1]}")),
    }
    # RULES.md §5: the jump draws no card; the landing drew one.
    assert [p.draws for p in plays] == [1, 1]


def test_citizen_jump_skips_occupied_special_fields_and_ignores_rank_and_blocks():
    # "Damit kann er auch an ranghöheren Figuren oder an blockierten Startfeldern
    # vorbeikommen." The jump goes to the next FREE special field; it never captures.
    sp = h.specials()
    s1 = h.start(1)
    assert sp[0] < s1 < sp[1], "layout: blue's start field lies between the first two special fields"
    king_field = (s1 + sp[1]) // 2
    h.assert_plain_royal(sp[0] - 3, king_field)
    js = pos({
        0: piece_at(f"T{sp[0] - 3}", CITIZEN),
        1: [f"T{king_field}", f"T{s1}", "K", f"T{sp[1]}"],  # king, knight blocking its start, fool on sp[1]
    })
    plays = h.moves(js, "3", 0)
    assert h.result_keys(plays) == {
        h.key(h.put(js, 0, CITIZEN, f"T{sp[0]}")),
        h.key(h.put(js, 0, CITIZEN, f"T{sp[2]}")),
    }


def test_citizen_does_not_jump_when_no_special_field_is_free():
    sp = h.specials()
    h.assert_plain_royal(sp[0] - 3)
    js = pos({0: piece_at(f"T{sp[0] - 3}", CITIZEN), 2: [f"T{sp[1]}", f"T{sp[2]}", f"T{sp[3]}", "K"]})
    assert h.result_keys(h.moves(js, "3", 0)) == {h.key(h.put(js, 0, CITIZEN, f"T{sp[0]}"))}


def test_citizen_passing_a_special_field_neither_draws_nor_jumps():
    sp = h.specials()
    h.assert_plain_royal(sp[0] - 3, sp[0] + 2)
    js = pos({0: piece_at(f"T{sp[0] - 3}", CITIZEN)})
    plays = h.moves(js, "5", 0)
    assert h.result_keys(plays) == {h.key(h.put(js, 0, CITIZEN, f"T{sp[0] + 2}"))}
    assert plays[0].draws == 0


def test_citizen_may_jump_after_a_magnet_landing():
    # The magnet is an active move onto a special field ("Dies kann durch eine Zahlenkarte
    # oder durch den Magneten geschehen").
    sp = h.specials()
    h.assert_plain_royal(sp[0] - 3, sp[0] + 1)
    js = pos({0: piece_at(f"T{sp[0] - 3}", CITIZEN), 1: piece_at(f"T{sp[0] + 1}", FOOL)})
    plays = h.moves(js, "magnet", 0)
    assert h.result_keys(plays) == {
        h.key(h.put(js, 0, CITIZEN, f"T{sp[0]}")),
        h.key(h.put(js, 0, CITIZEN, f"T{sp[1]}")),
    }
    assert all(p.draws == 1 for p in plays)


def test_other_pieces_do_not_jump():
    sp = h.specials()
    h.assert_plain_royal(sp[0] - 3)
    for rank in (KING, KNIGHT, FOOL):
        js = pos({0: piece_at(f"T{sp[0] - 3}", rank)})
        assert h.result_keys(h.moves(js, "3", 0)) == {h.key(h.put(js, 0, rank, f"T{sp[0]}"))}, RANK_NAMES[rank]


# --- fool ------------------------------------------------------------------------------------
@pytest.mark.parametrize("card,want", [
    ("6", {"T4", "H1", "H2", "H3"}),   # exact H3, or forfeit 1 (H2) or 2 (H1)
    ("8", {"T6", "H3"}),               # forfeit 2 to stop in H3
    ("9", {"T7"}),                     # would need to forfeit 3
    ("5", {"T3", "H0", "H1", "H2"}),
])
def test_fool_may_forfeit_up_to_two_points_entering_home(card, want):
    # "Narr: Der Narr kann, wenn er ins Ziel hineinzieht, bis zu 2 Punkte verfallen lassen."
    js = pos({0: piece_at("T62", FOOL)})
    assert dests(h.moves(js, card, 0), js, 0, FOOL) == want


def test_fool_forfeit_needs_a_free_path_in_home():
    # Home cannot be passed (RULES.md §3.5): with H1 taken, H3 and H2 are out of reach.
    js = pos({0: ["H1", "K", "K", "T62"]})
    assert dests(h.moves(js, "8", 0), js, 0, FOOL) == {"T6"}
    assert dests(h.moves(js, "6", 0), js, 0, FOOL) == {"T4"}


def test_fool_forfeit_cannot_land_on_an_occupied_home_slot():
    js = pos({0: ["H3", "K", "K", "T62"]})
    assert dests(h.moves(js, "8", 0), js, 0, FOOL) == {"T6"}
    assert dests(h.moves(js, "6", 0), js, 0, FOOL) == {"T4", "H1", "H2"}


def test_fool_forfeits_nothing_on_the_track():
    # "Im Verlaufe des Spiels darf der Narr auf der umlaufenden Bahn – wie alle anderen
    # Figuren auch – keine Punkte verfallen lassen."
    h.assert_plain_royal(15)
    js = pos({0: piece_at("T10", FOOL)})
    assert dests(h.moves(js, "5", 0), js, 0, FOOL) == {"T15"}


def test_fool_forfeits_only_when_entering_home_not_inside_it():
    # RULES.md §5 "when entering home" -- a fool already in home moves by the exact value.
    js = pos({0: piece_at("H0", FOOL)})
    assert h.moves(js, "5", 0) == []
    assert dests(h.moves(js, "3", 0), js, 0, FOOL) == {"H3"}


@pytest.mark.parametrize("rank", [KING, KNIGHT, CITIZEN])
def test_only_the_fool_forfeits(rank):
    js = pos({0: piece_at("T62", rank)})
    card = "6"
    want = {"T4", "H3"}
    assert dests(h.moves(js, card, 0), js, 0, rank) == want


# --- special fields --------------------------------------------------------------------------
def test_special_fields_are_one_per_segment():
    # [assumption] RULES.md §5: one special field per segment, never a start field.
    b = h.royal_board()
    sp = h.specials()
    assert len(sp) == b.segments
    assert {f // b.segment_length for f in sp} == set(range(b.segments))
    assert not set(sp) & set(b.start_fields)


@pytest.mark.parametrize("card,k", [("5", 5), ("1-7", 5), ("1/11", 1), ("13", 13)])
def test_landing_on_a_special_field_draws_a_card(card, k):
    # "Ein Spieler, der eine Figur aktiv auf ein Sonderfeld ... zieht, zieht sofort eine
    # zusätzliche Karte vom Kartenstapel. Dies kann durch eine Zahlenkarte oder durch den
    # Magneten geschehen."
    sp = h.specials()[1]
    frm = sp - k
    h.assert_plain_royal(frm)
    js = pos({0: piece_at(f"T{frm}", FOOL)})
    plays = h.moves(js, card, 0)
    on = h.plays_to(plays, h.put(js, 0, FOOL, f"T{sp}"))
    assert len(on) == 1 and on[0].draws == 1
    assert all(p.draws == 0 for p in plays if p not in on)


def test_landing_with_capture_on_a_special_field_draws():
    sp = h.specials()[1]
    h.assert_plain_royal(sp - 5)
    js = pos({0: piece_at(f"T{sp - 5}", FOOL), 1: piece_at(f"T{sp}", CITIZEN)})
    on = h.plays_to(h.moves(js, "5", 0), h.put(h.put(js, 0, FOOL, f"T{sp}"), 1, CITIZEN, "K"))
    assert len(on) == 1 and on[0].draws == 1


def test_four_backward_onto_a_special_field_draws():
    # The 4 is a number card ("Zahlenkarte"); RULES.md lists no exception for backward moves.
    sp = h.specials()[1]
    h.assert_plain_royal(sp + 4)
    js = pos({0: piece_at(f"T{sp + 4}", FOOL)})
    on = h.plays_to(h.moves(js, "4", 0), h.put(js, 0, FOOL, f"T{sp}"))
    assert len(on) == 1 and on[0].draws == 1


def test_magnet_onto_a_special_field_draws():
    sp = h.specials()[1]
    h.assert_plain_royal(sp - 6, sp + 1)
    js = pos({0: piece_at(f"T{sp - 6}", FOOL), 1: piece_at(f"T{sp + 1}", FOOL)})
    plays = h.moves(js, "magnet", 0)
    assert len(plays) == 1 and plays[0].draws == 1


def test_copy_onto_a_special_field_draws():
    sp = h.specials()[1]
    h.assert_plain_royal(sp - 5)
    js = pos({0: piece_at(f"T{sp - 5}", FOOL)}, last_card="5")
    plays = h.moves(js, "copy", 0)
    assert len(plays) == 1 and plays[0].draws == 1


def test_swap_onto_a_special_field_draws_nothing():
    # "Durch Tauschen von zwei Figuren (von denen eine auf einem Sonderfeld steht) bekommt
    # der Spieler keine neue Karte."
    sp = h.specials()[1]
    h.assert_plain_royal(sp - 5)
    js = pos({0: piece_at(f"T{sp - 5}", CITIZEN), 1: piece_at(f"T{sp}", FOOL)})
    plays = h.moves(js, "swap", 0)
    assert h.result_keys(plays) == {h.key(h.put(h.put(js, 0, CITIZEN, f"T{sp}"), 1, FOOL, f"T{sp - 5}"))}
    assert plays[0].draws == 0  # and the swapped citizen does not jump


def test_start_and_plain_moves_draw_nothing():
    h.assert_plain_royal(3)
    js = pos({0: ["K", "K", "K", "K"]})
    plays = h.moves(js, "13", 0)
    assert len(plays) == 4 and all(p.draws == 0 for p in plays)
    js2 = pos({0: piece_at("T1", FOOL)})
    assert [p.draws for p in h.moves(js2, "2", 0)] == [0]
