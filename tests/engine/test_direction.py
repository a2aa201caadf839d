"""Counter-clockwise play (RULES.md §2): every card of classic and compact, walked the other way.

Field numbers stay physical, so a forward move goes from higher to lower T numbers, the 4
backwards goes up, and a piece of seat s enters its home passing over its own start field
T(16s) coming from T(16s+1). Expected plays are written out by hand from the rulebooks; the
mirror test then checks the same over many seeded positions: a position and its mirror image
(fields reflected, seats reflected with them, direction flipped) give mirrored plays.
"""
import random

import pytest

import engine
from engine.bots import RandomBot
from engine.game import Game, initial_position, play_game
from engine.locations import HOME

CCW = "counter-clockwise"
EMPTY4 = ["K", "K", "K", "K"]


def pos(variant, pieces, **extra):
    return engine.parse_position({"variant": variant, "pieces": pieces, "direction": CCW, **extra})


def plays(p, card, seat=0):
    return sorted(x.notation for x in engine.legal_moves(p, card, seat))


def own(variant, *locs):
    """Seat 0's pieces: `locs`, the rest in the kennel."""
    n = engine.get_variant(variant).pieces
    return [*locs, *["K"] * (n - len(locs))]


def others(variant):
    n = engine.get_variant(variant).pieces
    return [["K"] * n for _ in range(3)]


EDITIONS = ("classic", "compact")


@pytest.mark.parametrize("variant", EDITIONS)
class TestEveryCardCounterClockwise:
    def test_number_cards_walk_the_field_numbers_down(self, variant):
        p = pos(variant, [own(variant, "T20"), *others(variant)])
        for card, k in (("2", 2), ("3", 3), ("5", 5), ("6", 6), ("8", 8), ("9", 9), ("10", 10), ("12", 12)):
            assert plays(p, card) == [f"{card}: T20-T{20 - k}"]
        assert plays(p, "13") == ["13: K-T0", "13: T20-T7"]
        assert plays(p, "1/11") == ["1/11: K-T0", "1/11: T20-T19", "1/11: T20-T9"]

    def test_moves_wrap_past_field_zero(self, variant):
        p = pos(variant, [own(variant, "T40"), *others(variant)])  # seat 0 left its start long ago
        assert plays(p, "8") == ["8: T40-T32"]
        q = pos(variant, [own(variant, "T3"), *others(variant)])
        # T3 is 3 steps before seat 0's start T0: the 5 goes over it into the home or on round
        assert plays(q, "5") == ["5: T3-H1", "5: T3-T62"]

    def test_the_4_goes_back_upward(self, variant):
        p = pos(variant, [own(variant, "T20"), *others(variant)])
        assert plays(p, "4") == ["4: T20-T16", "4: T20-T24 back"]

    def test_the_4_back_from_the_start_field_then_home(self, variant):
        p = pos(variant, [own(variant, "T0"), *others(variant)])
        assert "4: T0-T4 back" in plays(p, "4")
        q = pos(variant, [own(variant, "T4"), *others(variant)])
        assert "5: T4-H0" in plays(q, "5")  # T4, T3, T2, T1, over T0 into H0

    def test_home_entry_passes_the_own_start_field_coming_from_t1(self, variant):
        p = pos(variant, [own(variant, "T1"), *others(variant)])
        assert plays(p, "2") == ["2: T1-H0", "2: T1-T63"]
        slots = engine.get_variant(variant).home_slots
        assert f"1/11: T1-H{slots - 1}" not in plays(p, "1/11")  # 11 is far too many
        assert plays(pos(variant, [own(variant, "T1"), *others(variant)]), "3") == ["3: T1-H1", "3: T1-T62"]

    def test_a_piece_on_its_start_field_does_not_go_straight_home(self, variant):
        p = pos(variant, [own(variant, "T0"), *others(variant)])
        assert plays(p, "2") == ["2: T0-T62"]

    def test_protected_start_fields_block_the_other_way_round(self, variant):
        # blue (seat 1) stands on its start field T16: red on T20 cannot pass it going down
        n = engine.get_variant(variant).pieces
        p = pos(variant, [own(variant, "T20"), ["T16", *["K"] * (n - 1)], *others(variant)[:2]])
        assert plays(p, "5") == []
        assert plays(p, "3") == ["3: T20-T17"]
        assert "4: T20-T24 back" in plays(p, "4")
        q = pos(variant, [own(variant, "T12"), ["T16", *["K"] * (n - 1)], *others(variant)[:2]])
        assert "4: T12-T16 back" not in plays(q, "4")  # nor landed on from behind

    def test_the_7_splits_and_burns_what_it_passes_going_down(self, variant):
        n = engine.get_variant(variant).pieces
        p = pos(variant, [own(variant, "T20"), ["T17", *["K"] * (n - 1)], *others(variant)[:2]])
        seven = engine.legal_moves(p, "7", 0)
        whole = next(x for x in seven if x.notation == "7: T20-T13")
        assert whole.result.pieces[1] == (engine.KENNEL,) * n  # blue on T17 was passed: burned

    def test_the_7_burns_on_the_way_into_the_home(self, variant):
        n = engine.get_variant(variant).pieces
        # red on T3 and T30; yellow (seat 3) on T1: a 4-part from T3 passes T2, T1, T0 into H0
        p = pos(variant, [own(variant, "T3", "T30"), *others(variant)[:2], ["T1", *["K"] * (n - 1)]])
        seven = {x.notation: x for x in engine.legal_moves(p, "7", 0)}
        play = seven["7: T3-H0, T30-T27"]
        assert play.result.pieces[3] == (engine.KENNEL,) * n
        assert play.result.pieces[0][:2] == (27, HOME)

    def test_swap_and_joker(self, variant):
        n = engine.get_variant(variant).pieces
        p = pos(variant, [own(variant, "T20"), ["T30", *["K"] * (n - 1)], *others(variant)[:2]])
        assert plays(p, "swap") == ["swap: T20<>T30"]
        jokers = plays(p, "joker")
        assert "joker as 5: T20-T15" in jokers and "joker as 4: T20-T24 back" in jokers
        assert "joker as 1/11: K-T0" in jokers


def test_editions_without_the_option_refuse_it_with_the_reason():
    for variant, sentence in (("black", "Black DOG is played clockwise only"),
                              ("royal", "DOG Royal is played clockwise only"),
                              ("royal-basic", "DOG Royal is played clockwise only")):
        with pytest.raises(engine.PositionError, match=sentence):
            engine.parse_position({"variant": variant, "pieces": [EMPTY4] * 4, "direction": CCW})
        with pytest.raises(ValueError, match=sentence):
            initial_position(engine.get_variant(variant), 4, direction=CCW)
    with pytest.raises(engine.PositionError, match="direction must be one of"):
        engine.parse_position({"variant": "classic", "pieces": [EMPTY4] * 4, "direction": "widdershins"})


def test_direction_in_the_json_only_when_not_the_plain_clockwise():
    cw = engine.parse_position({"variant": "classic", "pieces": [EMPTY4] * 4})
    assert cw.direction == "clockwise" and "direction" not in cw.to_json()
    ccw = pos("classic", [EMPTY4] * 4)
    assert ccw.to_json()["direction"] == CCW and engine.parse_position(ccw.to_json()) == ccw
    assert ccw != cw
    brandi = engine.parse_position({"variant": "brandi", "pieces": [EMPTY4] * 4})
    assert brandi.direction == CCW and brandi.to_json()["direction"] == CCW
    other = engine.parse_position({"variant": "brandi", "pieces": [EMPTY4] * 4, "direction": "clockwise"})
    assert engine.parse_position(other.to_json()).direction == "clockwise"
    # a result keeps the direction it was played in
    p = pos("classic", [["T20", "K", "K", "K"], EMPTY4, EMPTY4, EMPTY4])
    assert engine.legal_moves(p, "5", 0)[0].result.direction == CCW


def test_turns_and_the_solo_exchange_go_to_the_right_counter_clockwise():
    game = Game.new("classic", 4, seed=1, direction=CCW)
    assert [game.next_seat(s) for s in (0, 1, 2, 3)] == [3, 0, 1, 2]
    assert game.position.play_order == (0, 3, 2, 1)
    solo = Game.new("classic", 3, seed=1, direction=CCW)
    assert [solo.next_seat(s) for s in solo.seats] == [2, 0, 1]
    solo.deal()
    before = {s: list(solo.hands[s]) for s in solo.seats}
    given = {s: before[s][0] for s in solo.seats}
    solo.exchange(lambda g, s: given[s])
    for s in solo.seats:
        assert given[s] in solo.hands[solo.next_seat(s)]
    team = Game.new("classic", 4, seed=1, direction=CCW)
    assert team.position.partner(0) == 2 and team.position.partner(3) == 1  # partners sit opposite


# --- the mirror property --------------------------------------------------------------
def mirror(p: engine.Position) -> engine.Position:
    """Fields reflected (T f -> T -f), seats with them (s -> -s, so each start field stays its
    owner's), the direction flipped."""
    S = p.board.segments
    L = p.board.track_length

    def f(loc):
        return (-loc) % L if loc < HOME else loc

    pieces = [None] * S
    for s, locs in enumerate(p.pieces):
        if locs is not None:
            pieces[(-s) % S] = tuple(sorted(f(x) for x in locs))
    flipped = "clockwise" if p.direction == CCW else CCW
    return engine.Position(p.variant, p.board, tuple(pieces), p.last_card, None, 0, flipped,
                           frozenset(f(x) for x in p.moved_onto_start))


def sample_positions(variant, players, direction, games, every, seed0):
    """Positions from seeded random games, with the seat to play: every `every`-th ply."""
    out = []
    for g in range(games):
        game = Game.new(variant, players, seed=seed0 + g, direction=direction)
        rng = random.Random(seed0 + g)
        bots = {s: RandomBot(rng) for s in game.seats}

        class Sampler(RandomBot):
            def choose_turn(self, game, seat):
                if game.plies % every == 0:
                    out.append((game.position, seat))
                return RandomBot.choose_turn(self, game, seat)

        play_game(game, {s: Sampler(bots[s].rng) for s in game.seats})
    return out


MIRROR_CASES = [("classic", 4), ("classic", 3), ("classic", 6), ("compact", 4), ("compact", 2), ("brandi", 4)]


@pytest.mark.parametrize("variant,players", MIRROR_CASES, ids=[f"{v}-{n}" for v, n in MIRROR_CASES])
def test_a_position_and_its_mirror_give_mirrored_plays(variant, players):
    cards = [c for c, _ in engine.get_variant(variant).deck]
    checked = 0
    for direction in ("clockwise", CCW):
        for p, seat in sample_positions(variant, players, direction, games=1, every=12, seed0=100):
            m = mirror(p)
            assert m.direction != p.direction and mirror(m) == p
            S = p.board.segments
            for card in cards:
                ours = {(r.pieces, r.moved_onto_start)
                        for r in (mirror(x.result) for x in engine.legal_moves(p, card, seat))}
                theirs = {(x.result.pieces, x.result.moved_onto_start)
                          for x in engine.legal_moves(m, card, (-seat) % S)}
                assert ours == theirs, (p.to_json(), card, seat)
                checked += 1
    assert checked > 200  # the games were long enough to sample many positions
