"""The worked examples of the classic (Dutch) and compact (English part) rulebooks, and
the BSW online manual, as concrete positions (seat 0 red, 1 blue, 2 green, 3 yellow).
"""
import pytest

from dogpos import key, moved, plays, position, results, unchanged

E = []


@pytest.mark.parametrize("variant", ["classic", "compact"])
def test_example_green_four_back_then_yellow_splits_the_seven(variant):
    """Green holds 4, 5 and swap; A stands on green's start field. Green cannot swap A and
    plays the 4 backwards. Yellow then splits a 7: B one field to close the gap in home,
    C one field capturing the blue piece, D the remaining 5 burning green's and red's pieces."""
    yellow = ["H1", "H3", "T20", "T25"] if variant == "classic" else ["H1", "T20", "T25"]
    obj = position(["T27"], ["T21"], ["T32"], yellow, variant=variant)
    # green: the swap cannot take A (protected on its own start field): only a void play
    assert results(obj, "swap", 2) == {unchanged(obj)}
    assert results(obj, "5", 2) == {moved(obj, 2, "T32", "T37")}
    four = {p.result.to_json()["pieces"][2].count("T28"): p for p in plays(obj, "4", 2)}
    assert results(obj, "4", 2) == {moved(obj, 2, "T32", "T36"), moved(obj, 2, "T32", "T28")}
    after_green = four[1].result.to_json()
    # yellow's 7: B H1->H2 (1), C T20->T21 capturing blue (1), D T25->T30 burning red T27, green T28 (5)
    expect = moved(after_green, 3, "H1", "H2")
    yellow_after = ["H2", "H3", "T21", "T30"] if variant == "classic" else ["H2", "T21", "T30"]
    n = len(yellow_after)
    expect = key([["K"] * n, ["K"] * n, ["K"] * n, yellow_after])
    assert expect in results(after_green, "7", 3)
    # without green's 4 back, A on its start field would still block yellow's D at T32
    assert all(k[2] == tuple(sorted(["T32"] + ["K"] * (n - 1))) for k in results(obj, "7", 3))


def test_example_four_back_from_start_then_into_home_classic():
    """Classic: a piece on its start field goes 4 back; then 5, 6, 7, 8 or a joker bring it home."""
    obj = position(E, E, ["T32"], E)
    assert moved(obj, 2, "T32", "T28") in results(obj, "4", 2)
    nxt = position(E, E, ["T28"], E)
    for card, slot in (("5", "H0"), ("6", "H1"), ("7", "H2"), ("8", "H3"), ("joker", "H0")):
        assert moved(nxt, 2, "T28", slot) in results(nxt, card, 2)


def test_example_four_back_from_start_then_into_home_compact():
    """Compact (RULES.md: 3 home slots): 5, 6, 7 bring it home; the rulebook's 8 overshoots H2
    (its text is copied from the classic game; the 3-slot home decides)."""
    obj = position(E, E, ["T28"], E, variant="compact")
    for card, slot in (("5", "H0"), ("6", "H1"), ("7", "H2")):
        assert moved(obj, 2, "T28", slot) in results(obj, card, 2)
    assert results(obj, "8", 2) == {moved(obj, 2, "T28", "T36")}


def test_example_no_points_forfeited_go_round_again():
    """Zetplicht: a piece 5 short of home with only higher cards must go round again."""
    obj = position(["T60"], E, E, E)  # 5 fields to H0 (T61 T62 T63 T0 H0)
    assert moved(obj, 0, "T60", "H0") in results(obj, "5", 0)
    for card in ("9", "10", "12", "13"):
        assert all("H" not in "".join(k[0]) for k in results(obj, card, 0))


def test_example_never_straight_home_from_start_even_after_a_full_round():
    obj = position(["T0", "H1"], E, E, E)
    for card in ("2", "3", "5", "6", "7", "8"):
        # the H1 piece may move on inside home, but the T0 piece never joins it
        assert all(len([x for x in k[0] if x.startswith("H")]) == 1 for k in results(obj, card, 0)), card


def test_example_seven_split_five_and_two():
    obj = position(["T3", "T40"], E, E, E)
    assert key([["T8", "T42", "K", "K"], ["K"] * 4, ["K"] * 4, ["K"] * 4]) in results(obj, "7", 0)
    assert key([["T5", "T45", "K", "K"], ["K"] * 4, ["K"] * 4, ["K"] * 4]) in results(obj, "7", 0)


@pytest.mark.parametrize("variant", ["classic", "compact"])
def test_example_seven_last_piece_needs_four_rest_to_partner(variant):
    """Exception: the last piece needs 4 points; the 7 brings it home, 3 go to a partner piece."""
    home = ["H1", "H2", "H3"] if variant == "classic" else ["H1", "H2"]
    obj = position(home + ["T61"], E, ["T40"], E, variant=variant)  # T61 -> T62 T63 T0 H0: 4
    n = len(home) + 1
    expect = key([["H0"] + home, ["K"] * n, ["T43"] + ["K"] * (n - 1), ["K"] * n])
    assert expect in results(obj, "7", 0)


def test_example_seven_burns_own_pieces():
    obj = position(["T10", "T12"], E, E, E)
    assert key([["T17", "K", "K", "K"], ["K"] * 4, ["K"] * 4, ["K"] * 4]) in results(obj, "7", 0)


def test_example_swap_only_own_or_protected_pieces_laid_down_without_effect():
    obj = position(["T5", "T20"], ["T16"], ["H0", "H1"], ["K"])
    assert results(obj, "swap", 0) == {unchanged(obj)}


@pytest.mark.parametrize("variant,n", [("classic", 5), ("compact", 3)])
def test_example_solo_game_one_piece_starts_on_the_start_field(variant, n):
    obj = position(["T0"], ["T16"], None, None, variant=variant)
    assert len(obj["pieces"][0]) == n
    # start is illegal while the own piece stands on the start field; 1 and 11 move it
    assert results(obj, "1/11", 0) == {moved(obj, 0, "T0", "T1"), moved(obj, 0, "T0", "T11")}


def test_example_partner_starts_with_start_card():
    """Team game: a player whose pieces are all home plays a start card for the partner."""
    obj = position(E, ["H0", "H1", "H2", "H3"], E, E)
    assert results(obj, "1/11", 1) == {moved(obj, 3, "K", "T48")}


def test_bsw_landing_exactly_on_start_is_not_home():
    obj = position(["T61"], E, E, E)
    assert results(obj, "3", 0) == {moved(obj, 0, "T61", "T0")}
    nxt = position(["T0"], E, E, E)
    assert all("H0" not in k[0] for k in results(nxt, "5", 0))
