"""The bot levels (beginner, club, strong): whole seeded games, determinism, the time budget
hook, card counting against exact combinatorics, and the partner exchange.

No win rates here: telling them apart needs hundreds of games (scripts/bench_bots.py plays them),
and these are a few small ones.
"""
import math
import random
from collections import Counter
from itertools import combinations

import pytest

import engine
from engine.bots import BOTS, LEVELS
from engine.evaluate import Knowledge, SeatView
from engine.game import Game, play_game
from engine.strongbot import ClubBot, StrongBot


@pytest.mark.parametrize("variant,players", [("classic", 4), ("royal", 4), ("black", 4), ("classic", 2), ("compact", 3)])
def test_every_level_plays_a_seeded_game_to_the_end(variant, players) -> None:
    game = Game.new(variant, players, seed=11)
    rng = random.Random(11)
    bots = {s: BOTS[LEVELS[i % len(LEVELS)]](rng) for i, s in enumerate(game.seats)}
    play_game(game, bots)
    assert game.winner is not None and game.position.winner() == game.winner


def test_the_strong_bot_is_deterministic_given_its_seed() -> None:
    logs = []
    for _ in range(2):
        game = Game.new("classic", 4, seed=5)
        bots = {s: (StrongBot if s % 2 == 0 else BOTS["greedy"])(random.Random(100 + s)) for s in game.seats}
        play_game(game, bots)
        logs.append([(e.kind, e.seat, e.card, e.notation) for e in game.log])
    assert logs[0] == logs[1]


def test_a_deadline_that_has_passed_still_gives_a_legal_play_and_is_asked() -> None:
    asked = []

    def deadline() -> bool:
        asked.append(1)
        return True  # the service's time is up at once

    game = Game.new("classic", 4, seed=2)
    bots = {s: StrongBot(random.Random(s), deadline=deadline) if s == 0 else ClubBot(random.Random(s)) for s in game.seats}
    play_game(game, bots)
    assert game.winner is not None and asked  # the look-ahead consulted the budget and stopped early


def test_the_bot_plays_from_options_alone_when_no_game_is_given() -> None:
    # the simulated table's way: the options of the dealt cards, no game object
    p = engine.parse_position({"variant": "classic", "pieces": [["T10", "T40", "K", "K"], ["T15", "K", "K", "K"],
                                                                ["K"] * 4, ["K"] * 4]})
    options = [("5", play) for play in engine.legal_moves(p, "5", 0)]
    for level in LEVELS:
        card, play = BOTS[level](random.Random(0)).choose(None, 0, options)
        assert (card, play) in options
    assert StrongBot(random.Random(0)).choose(None, 0, options)[1].notation == "5: T10-T15"  # the capture


def test_card_counting_matches_exact_combinatorics() -> None:
    v = engine.get_variant("compact")
    know = Knowledge(v, ["7", "7", "13"], discard=["1/11", "1/11", "joker", "4"])
    unseen = know.unseen
    assert unseen["7"] == 3 and unseen["1/11"] == 3 and unseen["joker"] == 2 and unseen["13"] == 4
    cards = [c for c, n in unseen.items() for _ in range(n)]
    for covering_kinds, drawn in ((("1/11", "13", "joker"), 2), (("4", "joker"), 3), (("7",), 1)):
        covering = sum(unseen[c] for c in covering_kinds)
        total = math.comb(len(cards), drawn)
        misses = math.comb(len(cards) - covering, drawn)
        assert know.chance(covering, drawn) == pytest.approx(1 - misses / total)
    # brute force on a small pool: every hand of 2 from 6 cards, 2 of which are start cards
    small = Knowledge(engine.get_variant("classic"), [])
    small.unseen, small.total = {"13": 2, "2": 4}, 6
    pool = ["13", "13", "2", "2", "2", "2"]
    hands = list(combinations(range(6), 2))
    exact = sum(1 for h in hands if any(pool[i] == "13" for i in h)) / len(hands)
    assert small.threat(1, default_size=2).start == pytest.approx(exact)


def test_a_start_card_goes_to_a_partner_whose_pieces_all_wait_in_the_kennel() -> None:
    game = Game.new("classic", 4, seed=1)
    game.deal()
    game.hands[0] = ["13", "1/11", "5", "9"]
    bot = ClubBot(random.Random(0))
    # red has a piece out; green (partner, seat 2) has all four in the kennel
    game.position = engine.parse_position({"variant": "classic", "pieces": [
        ["T5", "K", "K", "K"], ["K"] * 4, ["K"] * 4, ["K"] * 4]})
    assert bot.give(game, 0) in ("13", "1/11")
    # once green is out and red still waits with three pieces, red keeps its start cards
    game.position = engine.parse_position({"variant": "classic", "pieces": [
        ["T5", "K", "K", "K"], ["K"] * 4, ["T40", "T36", "T34", "T33"], ["K"] * 4]})
    assert bot.give(game, 0) in ("5", "9")


class _Found(Exception):
    pass


def _look_ahead_decision(seed: int = 3):
    """A real decision of a seeded game at which the strong bot looks at its `width` best options
    ahead: (game copy, seat, options)."""
    import copy

    class Probe:
        def __init__(self, rng):
            self.inner = BOTS["greedy"](rng)

        def choose(self, game, seat, options):
            bot = StrongBot(random.Random(0))
            bot.choose(game, seat, options)
            if bot.looked == StrongBot.width * StrongBot.samples:  # the whole look-ahead
                raise _Found(copy.deepcopy(game), seat, options)
            return self.inner.choose(game, seat, options)

        def give(self, game, seat):
            return self.inner.give(game, seat)

        def discard(self, game, seat):
            return self.inner.discard(game, seat)

    game = Game.new("classic", 4, seed=seed)
    try:
        play_game(game, {s: Probe(random.Random(s)) for s in game.seats})
    except _Found as found:
        return found.args
    raise AssertionError("the strong bot never looked ahead in a whole game")


def test_a_seat_view_carries_what_the_game_tells_the_bot() -> None:
    game, seat, options = _look_ahead_decision()
    view = SeatView.of_game(game, seat)
    assert Counter(view.seen) == Counter(game.discard) and view.hand == tuple(game.hands[seat])
    # the same seeded bot chooses the same from the game and from the view alone
    assert StrongBot(random.Random(9)).choose(game, seat, options) == StrongBot(random.Random(9)).choose(view, seat, options)
    full = StrongBot(random.Random(9))
    full.choose(view, seat, options)
    assert full.looked == StrongBot.width * StrongBot.samples  # no deadline: the whole budget


@pytest.mark.parametrize("allowed", [0, 1, 4])
def test_a_deadline_that_turns_true_after_n_checks_stops_the_look_ahead(allowed: int) -> None:
    game, seat, options = _look_ahead_decision()
    checks = []

    def deadline() -> bool:  # the service's clock, faked: time is up after `allowed` checks
        checks.append(1)
        return len(checks) > allowed

    bot = StrongBot(random.Random(9), deadline=deadline)
    assert bot.choose(SeatView.of_game(game, seat), seat, options) in options
    budget = StrongBot.width * StrongBot.samples
    assert StrongBot.width <= bot.looked < budget  # each option still gets one sample, then it stops
    assert allowed < len(checks) <= allowed + StrongBot.width  # no more searching once it said so


def test_a_bot_without_a_deadline_parameter_is_made_by_name_all_the_same() -> None:
    from engine.bots import make_bot

    stop = lambda: True  # noqa: E731
    assert make_bot("strong", random.Random(1), stop).deadline is stop
    assert make_bot("club", random.Random(1), stop).deadline is stop
    assert isinstance(make_bot("greedy", random.Random(1), stop), BOTS["greedy"])


def test_the_look_ahead_deals_the_others_only_unseen_cards_and_the_partner_our_gift() -> None:
    from dataclasses import replace

    game, seat, options = _look_ahead_decision()
    partner = game.position.partner(seat)
    gift = game.hands[partner][0]  # say this is the card we gave our partner
    view = replace(SeatView.of_game(game, seat), gift=gift)
    know = view.knowledge()
    others = [s for s in game.seats if s != seat]
    sizes = dict(view.hand_sizes)
    deals = StrongBot(random.Random(1)).deal_others(know, seat, game.position, others, sizes)
    assert len(deals) == StrongBot.samples
    for hands in deals:
        assert {s: len(h) for s, h in hands.items()} == {s: sizes[s] for s in others}
        assert gift in hands[partner]
        dealt = Counter(c for h in hands.values() for c in h)
        assert not dealt - Counter(know.unseen)  # never a card this seat holds or has seen played
    assert len({tuple(sorted(h[others[0]])) for h in deals}) > 1  # samples, not one guess
