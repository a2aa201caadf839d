"""RULES.md §2–§4, rule by rule: plays that must be legal and plays that must not.

Seats on the 4-board: 0 red (start T0), 1 blue (T16), 2 green (T32), 3 yellow (T48).
Movement is clockwise = increasing field numbers; home is entered by passing over the
own start field. `position(...)` fills each seat's list up with kennel pieces.
"""
import pytest

from dogpos import key, moved, plays, position, result_list, results, unchanged

E = []  # a seat with every piece in the kennel


def seats4(**where):
    """Four seats; where = {"s0": [...], ...}."""
    return [where.get(f"s{s}", []) for s in range(4)]


# --- §2 board, numbering, home entry, teams ---------------------------------------------

@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_2_home_entered_by_passing_over_own_start(seat):
    start = 16 * seat
    src = f"T{(start - 1) % 64}"
    s = seats4(**{f"s{seat}": [src]})
    obj = position(*s)
    assert results(obj, "2", seat) == {moved(obj, seat, src, "H0"), moved(obj, seat, src, f"T{start + 1}")}
    # one step lands on the own start field (not yet home); 11 overshoots home
    assert results(obj, "1/11", seat) == {moved(obj, seat, src, f"T{start}"),
                                          moved(obj, seat, src, f"T{start + 10}"),
                                          moved(obj, seat, "K", f"T{start}")}


@pytest.mark.parametrize("card,home,track", [
    ("5", "H0", 1), ("6", "H1", 2), ("7", "H2", 3), ("8", "H3", 4), ("joker", None, None),
])
@pytest.mark.parametrize("seat", [0, 2])
def test_2_from_four_before_start(seat, card, home, track):
    start = 16 * seat
    src = f"T{(start - 4) % 64}"
    obj = position(*seats4(**{f"s{seat}": [src]}))
    got = results(obj, card, seat)
    if card == "joker":
        for k, h in ((5, "H0"), (6, "H1"), (7, "H2"), (8, "H3")):
            assert moved(obj, seat, src, h) in got
        return
    assert got == {moved(obj, seat, src, home), moved(obj, seat, src, f"T{start + track}")}


def test_2_overshooting_home_stays_on_track():
    """Zetplicht: a piece 5 short of home with only a 9 must go round again."""
    obj = position(["T60"], E, E, E)
    assert results(obj, "9", 0) == {moved(obj, 0, "T60", "T5")}
    assert results(obj, "10", 0) == {moved(obj, 0, "T60", "T6")}


def test_2_clockwise_and_wrap_round():
    obj = position(E, ["T62"], E, E)
    assert results(obj, "5", 1) == {moved(obj, 1, "T62", "T3")}
    assert results(obj, "2", 1) == {moved(obj, 1, "T62", "T0")}


def test_2_six_board_wrap_and_last_seat_home():
    obj = position(E, E, E, E, E, ["T94", "T79"], board=6)
    got = results(obj, "2", 5)
    assert got == {moved(obj, 5, "T94", "T0"), moved(obj, 5, "T79", "H0"), moved(obj, 5, "T79", "T81")}


def test_2_teams_of_four_players():
    obj = position(["H0", "H1", "H2", "H3"], ["T20"], ["T40"], ["T50"])
    assert results(obj, "5", 0) == {moved(obj, 2, "T40", "T45")}
    assert results(obj, "5", 1) == {moved(obj, 1, "T20", "T25")}


@pytest.mark.parametrize("seat,partner", [(0, 3), (1, 4), (2, 5), (3, 0), (4, 1), (5, 2)])
def test_2_teams_of_six_players(seat, partner):
    s = [[f"T{16 * t + 5}"] for t in range(6)]
    s[seat] = ["H0", "H1", "H2", "H3"]
    obj = position(*s, board=6)
    src = f"T{16 * partner + 5}"
    assert results(obj, "3", seat) == {moved(obj, partner, src, f"T{16 * partner + 8}")}


# --- §3.1 exact values --------------------------------------------------------------------

def test_3_1_exact_value_inside_home():
    obj = position(["H2"], E, E, E)
    # 1 moves H2 -> H3; 11 cannot be used; 1/11 may also start a kennel piece
    assert results(obj, "1/11", 0) == {moved(obj, 0, "H2", "H3"), moved(obj, 0, "K", "T0")}
    assert results(obj, "2", 0) == set()
    assert results(obj, "7", 0) == set()


# --- §3.2 start -----------------------------------------------------------------------------

@pytest.mark.parametrize("card", ["1/11", "13", "joker"])
def test_3_2_start_from_kennel(card):
    obj = position(E, E, E, E)
    expect = {moved(obj, 1, "K", "T16")}
    if card == "joker":
        expect.add(unchanged(obj))  # the joker may also be laid down as a void swap
    assert results(obj, card, 1) == expect


@pytest.mark.parametrize("card", ["1/11", "13"])
def test_3_2_start_captures_foreign_piece_on_own_start(card):
    obj = position(["T16"], E, E, E)
    assert results(obj, card, 1) == {moved(obj, 1, "K", "T16", (0, "T16"))}


@pytest.mark.parametrize("card", ["1/11", "13", "joker"])
def test_3_2_own_piece_on_start_makes_start_illegal(card):
    obj = position(E, ["T16"], E, E)
    got = results(obj, card, 1)
    # the kennel piece never comes out (it would have to capture its own protected piece)
    assert all(k[1].count("K") == 3 for k in got)
    if card == "1/11":
        assert got == {moved(obj, 1, "T16", "T17"), moved(obj, 1, "T16", "T27")}


def test_3_2_no_kennel_piece_no_start():
    obj = position(E, ["T20", "H0", "H1", "H2"], E, E)
    assert results(obj, "13", 1) == {moved(obj, 1, "T20", "T33")}


def test_3_2_start_for_the_partner():
    obj = position(["H0", "H1", "H2", "H3"], E, E, E)
    assert results(obj, "13", 0) == {moved(obj, 2, "K", "T32")}


# --- §3.3 protected piece on its own start field ----------------------------------------

def test_3_3_cannot_be_passed_or_landed_on_forwards():
    obj = position(["T14"], ["T16"], E, E)
    assert results(obj, "3", 0) == set()
    assert results(obj, "2", 0) == set()
    assert results(obj, "7", 0) == set()
    assert results(obj, "1/11", 0) == {moved(obj, 0, "T14", "T15"), moved(obj, 0, "K", "T0")}


def test_3_3_blocks_own_pieces_too():
    obj = position(E, ["T16", "T12"], E, E)
    assert results(obj, "5", 1) == {moved(obj, 1, "T16", "T21")}
    assert results(obj, "4", 1) == {moved(obj, 1, "T16", "T20"), moved(obj, 1, "T16", "T12", (1, "T12")),
                                    moved(obj, 1, "T12", "T8")}


def test_3_3_own_piece_on_start_blocks_the_way_home():
    obj = position(E, ["T16", "T14"], E, E)
    assert results(obj, "2", 1) == {moved(obj, 1, "T16", "T18")}
    assert results(obj, "3", 1) == {moved(obj, 1, "T16", "T19")}


def test_3_3_cannot_be_passed_or_landed_on_backwards():
    obj = position(["T18"], ["T16"], E, E)
    assert results(obj, "4", 0) == {moved(obj, 0, "T18", "T22")}
    obj = position(["T20"], ["T16"], E, E)
    assert results(obj, "4", 0) == {moved(obj, 0, "T20", "T24")}


def test_3_3_cannot_be_swapped():
    obj = position(["T5"], ["T16", "T20"], E, E)
    assert results(obj, "swap", 0) == {key([["T20", "K", "K", "K"], ["T16", "T5", "K", "K"], E + ["K"] * 4,
                                             ["K"] * 4])}


def test_3_3_protected_however_it_got_there():
    """A piece that lands on its own start field by moving is protected too."""
    obj = position(["T14"], ["T12"], E, E)
    (play,) = [p for p in plays(obj, "4", 1) if "T16" in p.result.to_json()["pieces"][1]]
    nxt = play.result.to_json()
    assert results(nxt, "2", 0) == set()
    assert results(nxt, "3", 0) == set()
    assert results(nxt, "swap", 0) == {unchanged(nxt)}  # void: nothing to swap with


def test_3_3_foreign_piece_on_a_start_field_is_not_protected():
    obj = position(["T16"], ["T14"], ["T12"], E)
    assert moved(obj, 1, "T14", "T16", (0, "T16")) in results(obj, "2", 1)
    assert moved(obj, 2, "T12", "T17") in results(obj, "5", 2)
    # the 7 burns both pieces it passes, blue's too (blue is not on its own start field)
    assert results(obj, "7", 2) == {moved(obj, 2, "T12", "T19", (0, "T16"), (1, "T14"))}
    assert key([["T12", "K", "K", "K"], ["T14", "K", "K", "K"], ["T16", "K", "K", "K"], ["K"] * 4]) \
        in results(obj, "swap", 2)


# --- §3.4 capture ----------------------------------------------------------------------------

def test_3_4_landing_captures_own_piece():
    obj = position(["T10", "T12"], E, E, E)
    assert results(obj, "2", 0) == {moved(obj, 0, "T10", "T12", (0, "T12")), moved(obj, 0, "T12", "T14")}


def test_3_4_landing_captures_foreign_piece_passing_does_not():
    obj = position(["T10"], ["T12"], E, E)
    assert results(obj, "2", 0) == {moved(obj, 0, "T10", "T12", (1, "T12"))}
    assert results(obj, "5", 0) == {moved(obj, 0, "T10", "T15")}


# --- §3.5 home -------------------------------------------------------------------------------

def test_3_5_entering_home_is_optional():
    obj = position(["T62"], E, E, E)
    assert results(obj, "3", 0) == {moved(obj, 0, "T62", "H0"), moved(obj, 0, "T62", "T1")}


def test_3_5_exact_landing_in_home():
    obj = position(["H0"], E, E, E)
    assert results(obj, "3", 0) == {moved(obj, 0, "H0", "H3")}
    obj = position(["H1"], E, E, E)
    assert results(obj, "3", 0) == set()


def test_3_5_no_passing_inside_home():
    obj = position(["T63", "H0", "H1"], E, E, E)
    assert results(obj, "3", 0) == {moved(obj, 0, "T63", "T2")}
    assert results(obj, "2", 0) == {moved(obj, 0, "T63", "T1"), moved(obj, 0, "H1", "H3")}


def test_3_5_no_backward_into_home_or_inside_home():
    obj = position(["T2"], E, E, E)
    assert results(obj, "4", 0) == {moved(obj, 0, "T2", "T6"), moved(obj, 0, "T2", "T62")}
    obj = position(["H3", "H2"], E, E, E)
    assert results(obj, "4", 0) == set()


def test_3_5_no_entry_straight_from_own_start():
    obj = position(["T0"], E, E, E)
    for card, dest in (("5", "T5"), ("6", "T6"), ("8", "T8"), ("7", "T7")):
        assert results(obj, card, 0) == {moved(obj, 0, "T0", dest)}


@pytest.mark.parametrize("seat", [0, 3])
def test_3_5_four_back_from_start_then_home(seat):
    start = 16 * seat
    obj = position(*seats4(**{f"s{seat}": [f"T{start}"]}))
    back = f"T{(start - 4) % 64}"
    got = plays(obj, "4", seat)
    assert {key(p.result.to_json()["pieces"]) for p in got} == {
        moved(obj, seat, f"T{start}", f"T{start + 4}"), moved(obj, seat, f"T{start}", back)}
    nxt = [p.result.to_json() for p in got if back in p.result.to_json()["pieces"][seat]][0]
    for card, slot in (("5", "H0"), ("6", "H1"), ("7", "H2"), ("8", "H3")):
        assert moved(nxt, seat, back, slot) in results(nxt, card, seat)


# --- §3.6 the 4 -------------------------------------------------------------------------------

def test_3_6_four_back_passes_without_capture_and_captures_on_landing():
    obj = position(["T10"], ["T8"], E, E)
    assert results(obj, "4", 0) == {moved(obj, 0, "T10", "T14"), moved(obj, 0, "T10", "T6")}
    obj = position(["T10"], ["T6"], E, E)
    assert moved(obj, 0, "T10", "T6", (1, "T6")) in results(obj, "4", 0)


def test_3_6_four_back_over_a_foreign_start_field():
    obj = position(E, E, ["T34"], E)
    assert moved(obj, 2, "T34", "T30") in results(obj, "4", 2)
    obj = position(["T34"], E, E, E)  # green's start is empty: red may pass it backwards
    assert moved(obj, 0, "T34", "T30") in results(obj, "4", 0)


# --- §3.7 swap -----------------------------------------------------------------------------

def test_3_7_swap_with_opponent_or_partner():
    obj = position(["T5"], ["T20"], ["T40"], E)
    assert results(obj, "swap", 0) == {
        key([["T20", "K", "K", "K"], ["T5", "K", "K", "K"], ["T40", "K", "K", "K"], ["K"] * 4]),
        key([["T40", "K", "K", "K"], ["T20", "K", "K", "K"], ["T5", "K", "K", "K"], ["K"] * 4]),
    }


def test_3_7_swap_is_compulsory_even_when_harmful():
    obj = position(["T62"], ["T17"], E, E)
    got = results(obj, "swap", 0)
    assert got == {key([["T17", "K", "K", "K"], ["T62", "K", "K", "K"], ["K"] * 4, ["K"] * 4])}
    assert unchanged(obj) not in got  # no void play while a swap exists


@pytest.mark.parametrize("variant", ["classic", "compact"])
def test_3_7_void_play_when_no_swap_exists(variant):
    # own piece protected; the others in home, kennel or protected
    obj = position(["T0"], ["T16", "H0"], ["H1"], E, variant=variant)
    got = plays(obj, "swap", 0)
    assert len(got) == 1
    assert key(got[0].result.to_json()["pieces"]) == unchanged(obj)
    assert got[0].result.to_json()["last_card"] == "swap"
    # only own pieces on the track
    obj = position(["T5", "T9"], E, E, E, variant=variant)
    assert results(obj, "swap", 0) == {unchanged(obj)}


def test_3_7_never_with_home_or_kennel_pieces():
    obj = position(["T5", "H0"], ["T20", "H0"], E, E)
    assert results(obj, "swap", 0) == {key([["T20", "H0", "K", "K"], ["T5", "H0", "K", "K"], ["K"] * 4, ["K"] * 4])}


def test_3_7_own_piece_on_a_foreign_start_can_be_swapped():
    obj = position(["T16"], ["T30"], E, E)
    assert results(obj, "swap", 0) == {key([["T30", "K", "K", "K"], ["T16", "K", "K", "K"], ["K"] * 4, ["K"] * 4])}


# --- §3.8 joker --------------------------------------------------------------------------

JOKER_POSITIONS = [
    position(["T62", "T10"], ["T12"], ["H0"], ["T50"]),
    position(["T0", "H1"], ["T16", "T3"], E, ["T60"]),
    position(["T14", "T30"], ["T40"], None, None),
    position(["T45"], ["T2", "H2"], ["T47"], None, variant="compact", board=4),
]


CARDS = ("1/11", "2", "3", "4", "5", "6", "7", "8", "9", "10", "12", "13", "swap")
# (position, seat): where a swap exists for the seat, and where it is void (no swap possible)
JOKER_CASES = [(0, 0), (0, 1), (0, 3), (1, 1), (1, 3), (2, 0), (2, 1), (3, 0), (3, 1), (3, 2)]
JOKER_VOID_CASES = [(0, 2), (1, 0), (1, 2)]


def _union(obj, seat):
    union = set()
    for card in CARDS:
        union |= results(obj, card, seat)
    return union


@pytest.mark.parametrize("i,seat", JOKER_CASES)
def test_3_8_joker_is_the_union_of_the_cards(i, seat):
    obj = JOKER_POSITIONS[i]
    assert results(obj, "swap", seat) != {unchanged(obj)}
    assert results(obj, "joker", seat) == _union(obj, seat)


@pytest.mark.parametrize("i,seat", JOKER_VOID_CASES)
def test_3_8_joker_is_the_union_of_the_cards_void_swap(i, seat):
    obj = JOKER_POSITIONS[i]
    assert results(obj, "swap", seat) == {unchanged(obj)}
    assert results(obj, "joker", seat) == _union(obj, seat)


def test_3_8_joker_includes_the_void_swap():
    """Rulebook example position: green may lay a swap without effect; a joker as swap too."""
    obj = position(["T27"], ["T21"], ["T32"], ["H1", "H3", "T20", "T25"])
    assert results(obj, "swap", 2) == {unchanged(obj)}
    assert unchanged(obj) in results(obj, "joker", 2)


# --- §3.10 partner play, §3.13 solo games ---------------------------------------------------

def test_3_10_finished_seat_moves_partner_pieces_only():
    obj = position(["H0", "H1", "H2", "H3"], ["T20"], ["T40"], ["T50"])
    for card in ("2", "4", "swap", "7"):
        for k in results(obj, card, 0):
            assert k[1] == ("K", "K", "K", "T20") or card == "swap"
            assert k[0] == ("H0", "H1", "H2", "H3")
    assert results(obj, "swap", 0) == {
        key([["H0", "H1", "H2", "H3"], ["T40", "K", "K", "K"], ["T20", "K", "K", "K"], ["T50", "K", "K", "K"]]),
        key([["H0", "H1", "H2", "H3"], ["T20", "K", "K", "K"], ["T50", "K", "K", "K"], ["T40", "K", "K", "K"]]),
    }


def test_3_13_solo_game_over_when_four_pieces_home():
    obj = position(["H0", "H1", "H2", "H3", "K"], ["T20"], None, None)
    assert results(obj, "2", 1) == set()
    assert results(obj, "13", 0) == set()


def test_3_13_solo_fifth_piece_waits_and_game_ends():
    obj = position(["H1", "H2", "H3", "T60", "K"], ["T20"], None, None)
    got = plays(obj, "5", 0)
    win = [p for p in got if "H0" in p.result.to_json()["pieces"][0]]
    assert len(win) == 1 and win[0].result.winner() == (0,)


def test_3_13_solo_five_pieces_all_movable():
    obj = position(["T3", "T10", "T20", "T30", "T40"], ["T50"], ["T60"], None)
    assert len(results(obj, "2", 0)) == 5
    assert len(result_list(obj, "2", 0)) == 5


# --- §4 the 7 -------------------------------------------------------------------------------

def test_4_seven_split_over_two_pieces():
    obj = position(["T10", "T30"], E, E, E)
    assert results(obj, "7", 0) == {key([[f"T{10 + a}", f"T{30 + 7 - a}", "K", "K"], *[["K"] * 4] * 3])
                                    for a in range(8)}


def test_4_seven_burns_own_pieces_and_burned_pieces_stay_burned():
    obj = position(["T10", "T12"], E, E, E)
    expect = {key([[f"T{10 + a}", f"T{12 + 7 - a}", "K", "K"], *[["K"] * 4] * 3]) for a in range(5)}
    expect |= {key([[f"T{10 + a}", "K", "K", "K"], *[["K"] * 4] * 3]) for a in (5, 6, 7)}
    assert results(obj, "7", 0) == expect
    # (no result has A beyond B's final field with B still on the track: passing burns)


def test_4_seven_burns_passed_and_landed_foreign_pieces():
    obj = position(["T10"], ["T12"], ["T17"], E)
    assert results(obj, "7", 0) == {key([["T17", "K", "K", "K"], ["K"] * 4, ["K"] * 4, ["K"] * 4])}


def test_4_seven_burns_foreign_piece_on_own_start_on_the_way_home():
    obj = position(["T62", "T30"], ["T0"], E, E)
    got = results(obj, "7", 0)
    assert key([["H3", "T31", "K", "K"], ["K"] * 4, ["K"] * 4, ["K"] * 4]) in got
    assert all(not any(x.startswith("H") for x in k[0]) or k[1] == ("K",) * 4 for k in got)


def test_4_seven_must_use_all_points():
    obj = position(["H0", "T14"], ["T16"], E, E)  # at most 3 + 1 points can be spent
    assert results(obj, "7", 0) == set()
    obj = position(["H0", "T13"], ["T16"], E, E)  # 3 + 2 ... still short
    assert results(obj, "7", 0) == set()


def test_4_seven_never_starts_a_piece():
    obj = position(E, E, E, E)
    assert results(obj, "7", 0) == set()


def test_4_seven_partner_continuation_in_team_game():
    obj = position(["H1", "H2", "H3", "T63"], E, ["T40"], E)
    assert results(obj, "7", 0) == {
        key([["H1", "H2", "H3", "T6"], ["K"] * 4, ["T40", "K", "K", "K"], ["K"] * 4]),
        key([["H0", "H1", "H2", "H3"], ["K"] * 4, ["T45", "K", "K", "K"], ["K"] * 4]),
    }


def test_4_seven_no_continuation_in_solo_game():
    obj = position(["H1", "H2", "H3", "T63", "K"], ["T40"], None, None)
    assert results(obj, "7", 0) == {key([["H1", "H2", "H3", "T6", "K"], ["T40", "K", "K", "K", "K"], None, None])}


def test_4_seven_closes_gaps_in_home():
    obj = position(["H0", "H2", "T61"], E, E, E)
    got = results(obj, "7", 0)
    assert key([["H0", "H2", "H3", "K"], *[["K"] * 4] * 3]) in got  # H2-H3 1, H0-H2 2, T61-H0 4
    assert key([["H1", "H2", "H3", "K"], *[["K"] * 4] * 3]) not in got  # would need 8 points
    assert key([["H1", "H3", "T61", "K"], *[["K"] * 4] * 3]) not in got  # 5 points left unspent


def test_4_seven_no_duplicate_results():
    obj = position(["T61", "T62"], E, E, E)
    got = result_list(obj, "7", 0)
    assert len(got) == len(set(got))


def test_3_6_four_no_duplicate_results():
    """T5-T9 forward and T5-T1 back both capture an own piece and leave the same position."""
    obj = position(["T1", "T5", "T9"], E, E, E)
    got = result_list(obj, "4", 0)
    assert len(got) == len(set(got))
