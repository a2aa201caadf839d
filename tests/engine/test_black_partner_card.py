"""Black DOG: the partner card for the whole team, the deck's replaced cards, and
the fifth piece of 2-3 player games (RULES.md §6; rulebook rules/black-dog_de-en-fr-it.txt,
online manual rules/online-dog_bsw-manual_de.txt).

Every rule has its legal side and its illegal side with the referee's reason in every
language the referee speaks. The partner card is also compared with the naive second
enumerator (naive.partner_plays), which shares no code with engine/moves.py.
"""
from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import engine
from engine.bots import GreedyBot, RandomBot
from engine.game import Game, play_game
from engine.messages import LANGS
from engine.moves import START_CARDS, HandMoves

sys.path.insert(0, str(Path(__file__).parent))
import naive  # noqa: E402
import rb_helpers as h  # noqa: E402

KENNEL = engine.KENNEL


def bp(seats, dog, **kw) -> dict:
    return h.black_pos(seats, dog, **kw)


def verdict(before: dict, after: dict, card: str, seat: int, lang: str = "en"):
    return engine.check(h.parse(before), h.parse(after), card, seat, lang=lang)


def naive_keys(js: dict, seat: int) -> set:
    return naive.partner_plays(js, seat)


def engine_keys(js: dict, card: str, seat: int) -> set:
    out = set()
    for play in h.moves(js, card, seat):
        r = play.result.to_json()
        out.add((naive.result_key(r), r["black_dog"], r["disc"]))
    return out


# --- 1. partner card: the whole team, once either player is finished -------------------------
# "Nachdem ein Spieler alle 4 Spielfiguren im Ziel hat, dürfen die Spieler dieses Teams die 4
# Bewegungspunkte auf die ihres Partners und auch auf Figuren anderer Spieler (auch komplett
# auf die Gegner) aufteilen – nicht jedoch auf die Figur des Black DOG." (also EN "the players
# of this team", FR "les joueurs de cette équipe", IT "i giocatori di questa squadra")

FINISHED_RED = {0: ["H0", "H1", "H2", "H3"], 1: ["T17", "K", "K", "K"], 2: ["T33", "K", "K", "K"]}


def test_partner_of_a_finished_player_may_move_an_opponent():
    # seat 0 has H0-H3, seat 1 a piece on T17, seat 2 one on T33, the dog on T45; seat 2 plays
    # the partner card: seat 1's piece T17 -> T21 is legal.
    h.assert_plain_black(*range(17, 22), *range(33, 38), 45)
    before = bp(FINISHED_RED, "T45")
    after = h.move(before, 1, "T17", "T21")
    assert h.has(h.moves(before, "partner", 2), after)
    for lang in LANGS:
        v = verdict(before, after, "partner", 2, lang)
        assert v.legal, v.reason
    # and every split between the own piece and the opponent's, nothing else
    want = {h.key(h.move(h.move(before, 1, "T17", f"T{17 + a}"), 2, "T33", f"T{33 + 4 - a}")) for a in range(5)}
    assert h.result_keys(h.moves(before, "partner", 2)) == want


def test_the_finished_player_and_the_partner_both_may_move_opponents():
    # seat 2 finished: now seat 0 (not finished) may split over seat 1's and seat 3's pieces too
    h.assert_plain_black(*range(1, 6), *range(17, 22), *range(49, 54), 60)
    before = bp({0: ["T1", "K", "K", "K"], 1: ["T17", "K", "K", "K"], 2: ["H0", "H1", "H2", "H3"],
                 3: ["T49", "K", "K", "K"]}, "T60")
    split = h.move(h.move(before, 1, "T17", "T19"), 3, "T49", "T51")  # all four points on opponents
    assert verdict(before, split, "partner", 0).legal
    assert verdict(before, split, "partner", 2).legal  # the finished player too
    assert engine_keys(before, "partner", 0) == naive_keys(before, 0)
    assert engine_keys(before, "partner", 2) == naive_keys(before, 2)


TEAM_WORD = {"en": "team", "de": "team", "fr": "équipe", "it": "squadra", "nl": "team"}


def test_before_anyone_of_the_team_is_finished_opponents_are_not_allowed():
    h.assert_plain_black(*range(17, 22), *range(33, 38), 45, 60)
    before = bp({0: ["T60", "H1", "H2", "H3"], 1: ["T17", "K", "K", "K"], 2: ["T33", "K", "K", "K"]}, "T45")
    after = h.move(before, 1, "T17", "T21")
    assert not h.has(h.moves(before, "partner", 2), after)
    for lang in LANGS:
        v = verdict(before, after, "partner", 2, lang)
        assert not v.legal
        assert "T17" in v.reason and "4" in v.reason, v.reason
        assert TEAM_WORD[lang] in v.reason.lower(), v.reason
    assert "another team" in verdict(before, after, "partner", 2, "en").reason
    assert "anderen Team" in verdict(before, after, "partner", 2, "de").reason
    # a mixed split is just as illegal: two points own, two on the opponent
    mixed = h.move(h.move(before, 2, "T33", "T35"), 1, "T17", "T19")
    v = verdict(before, mixed, "partner", 2)
    assert not v.legal and "another team" in v.reason


def test_an_opponent_finishing_does_not_open_the_partner_card_for_the_other_team():
    # red (team 0+2) is finished; blue plays for team 1+3, where nobody is: blue may not move
    # green's piece
    h.assert_plain_black(*range(17, 22), *range(33, 38), 45)
    before = bp(FINISHED_RED, "T45")
    after = h.move(before, 2, "T33", "T37")
    assert not h.has(h.moves(before, "partner", 1), after)
    v = verdict(before, after, "partner", 1)
    assert not v.legal and "another team" in v.reason and "Blue" in v.reason, v.reason
    assert h.result_keys(h.moves(before, "partner", 1)) == {h.key(h.move(before, 1, "T17", "T21"))}


def test_partner_card_never_moves_the_black_dog_even_for_a_finished_team():
    h.assert_plain_black(*range(17, 22), *range(33, 38), 45, 49)
    before = bp(FINISHED_RED, "T45")
    after = h.with_dog(before, "T49")  # all four points on the dog
    assert all(p.result.black_dog == 45 for p in h.moves(before, "partner", 2))
    for lang in LANGS:
        v = verdict(before, after, "partner", 2, lang)
        assert not v.legal and "T45" in v.reason, v.reason
    assert "never" in verdict(before, after, "partner", 2, "en").reason
    assert "nie" in verdict(before, after, "partner", 2, "de").reason


def test_copy_of_a_partner_card_follows_the_same_team_rule():
    h.assert_plain_black(*range(17, 22), *range(33, 38), 45)
    before = bp(FINISHED_RED, "T45", last_card="partner")
    after = h.move(before, 1, "T17", "T21")
    assert verdict(before, after, "copy", 2).legal
    unfinished = bp({0: ["T60", "H1", "H2", "H3"], 1: ["T17", "K", "K", "K"], 2: ["T33", "K", "K", "K"]},
                    "T45", last_card="partner")
    v = verdict(unfinished, h.move(unfinished, 1, "T17", "T21"), "copy", 2)
    assert not v.legal and "another team" in v.reason


def test_solo_partner_card_moves_any_seat_from_the_start():
    # "Die 4 Bewegungspunkte der Partner-Karte können immer auch auf Figuren anderer Spieler
    # aufgeteilt werden" (2-3 players); nobody is home here
    h.assert_plain_black(*range(1, 6), *range(17, 22), *range(33, 38), 45)
    before = bp({0: ["T1", "K", "K", "K", "K"], 1: ["T17", "K", "K", "K", "K"], 2: ["T33", "K", "K", "K", "K"]},
                "T45", present=(0, 1, 2), n=5)
    after = h.move(h.move(before, 0, "T1", "T3"), 2, "T33", "T35")
    assert verdict(before, after, "partner", 1).legal
    assert engine_keys(before, "partner", 1) == naive_keys(before, 1)


def test_partner_card_on_a_crowded_board_agrees_with_the_naive_enumerator():
    # red finished, twelve pieces on the track, paws within reach: green's partner card may
    # use any of them (1373 distinct results when written; the count is not asserted, the set is)
    js = bp({0: ["H0", "H1", "H2", "H3"], 1: ["T17", "T20", "T26", "T30"], 2: ["T33", "T36", "T43", "T46"],
             3: ["T50", "T52", "T60", "T62"]}, "T45")
    got = engine_keys(js, "partner", 2)
    assert got == naive_keys(js, 2)
    assert any(disc != 0 for _, _, disc in got)  # some splits end on a paw and turn the disc
    assert any(pieces[3] != ("T50", "T52", "T60", "T62") for pieces, _, _ in got)  # opponents moved


def _random_black(rng: random.Random, players: int) -> dict:
    """A random legal Black DOG position, often with a finished player (for the partner card)."""
    board = h.black_board()
    seats = {2: (0, 2), 3: (0, 1, 2), 4: (0, 1, 2, 3)}[players]
    n = 4 if players == 4 else 5
    taken: set[int] = set()
    pieces: dict[int, list[str]] = {}
    for s in seats:
        homes = 4 if rng.random() < 0.3 else rng.randrange(0, 3)
        locs = [f"H{j}" for j in sorted(rng.sample(range(4), homes))]
        for _ in range(min(n - homes, rng.randrange(0, 3))):
            f = rng.choice([f for f in range(board.track_length) if f not in taken])
            taken.add(f)
            locs.append(f"T{f}")
        pieces[s] = locs + ["K"] * (n - len(locs))
    dog = rng.choice([f for f in range(board.track_length) if f not in taken and f not in board.start_fields])
    return bp(pieces, f"T{dog}", disc=rng.randrange(4), present=seats, n=n)


@pytest.mark.parametrize("players", [4, 3, 2])
def test_partner_card_agrees_with_the_naive_enumerator(players):
    rng = random.Random(1100 + players)
    checked = finished = 0
    for _ in range(60):
        js = _random_black(rng, players)
        pos = h.parse(js)
        seat = rng.choice(pos.seats)
        assert engine_keys(js, "partner", seat) == naive_keys(js, seat), js
        checked += 1
        finished += any(pos.is_finished(s) for s in pos.seats)
    assert checked == 60 and finished >= 10  # the rule under test is exercised


# --- 2. the deck: new cards replace 4, 5, 6 and 7; no joker ---------------------------------
def test_black_deck_is_the_split_of_rules_md():
    # RULES.md §6 [assumption kept in the deck file]: 8 each of 1/11, 2, 3, partner, black-5,
    # black-6, black-1-7, 8, 9, 10, 12, 13, swap, plus 3 magnet and 3 copy = 110
    v = engine.get_variant("black")
    eight = ("1/11", "2", "3", "partner", "black-5", "black-6", "black-1-7", "8", "9", "10", "12", "13", "swap")
    assert dict(v.deck) == {**{c: 8 for c in eight}, "magnet": 3, "copy": 3}
    assert v.deck_size == 110
    assert dict(v.replaced) == {"4": "partner", "5": "black-5", "6": "black-6", "7": "black-1-7"}
    text = (Path(engine.__file__).parent / "data" / "decks" / "black.toml").read_text()
    assert "[assumption]" in text


@pytest.mark.parametrize("card,instead", [("4", "partner"), ("5", "black-5"), ("6", "black-6"), ("7", "black-1-7")])
def test_replaced_cards_are_a_clear_error(card, instead):
    pos = h.parse(bp({0: ["T1", "K", "K", "K"]}, "T45"))
    with pytest.raises(engine.CardError) as err:
        engine.legal_moves(pos, card, 0)
    msg = str(err.value)
    assert f"'{card}'" in msg and "not in the black deck" in msg and f"'{instead}'" in msg, msg
    assert "\n" not in msg
    after = h.parse(bp({0: ["T5", "K", "K", "K"]}, "T45"))
    for lang in LANGS:
        with pytest.raises(engine.CardError) as err:
            engine.check(pos, after, card, 0, lang=lang)
        assert f"'{instead}'" in str(err.value)
    with pytest.raises(engine.CardError) as err:
        engine.check(pos, after, card, 0, lang="de")
    assert "gibt es im Deck black nicht" in str(err.value)
    with pytest.raises(engine.CardError):
        HandMoves(pos, 0)(card)
    with pytest.raises(engine.PositionError):  # a copy of it cannot be set up either
        h.parse(bp({0: ["T1", "K", "K", "K"]}, "T45", last_card=card))


def test_joker_is_not_in_the_black_deck():
    # "Das Fragezeichen gibt es bei Black Dog nicht."
    pos = h.parse(bp({0: ["T1", "K", "K", "K"]}, "T45"))
    with pytest.raises(engine.CardError, match="not in the black deck"):
        engine.legal_moves(pos, "joker", 0)


def test_the_other_editions_keep_their_4_to_7():
    pos = engine.parse_position({"variant": "classic", "pieces": [["T1", "K", "K", "K"]] + [["K"] * 4] * 3})
    for card in ("4", "5", "6", "7", "joker"):
        assert engine.legal_moves(pos, card, 0)


def test_cli_moves_card_4_in_black_is_one_line_exit_2(tmp_path):
    pos = tmp_path / "pos.json"
    pos.write_text('{"variant": "black", "pieces": [["T1","K","K","K"],["K","K","K","K"],'
                   '["K","K","K","K"],["K","K","K","K"]], "black_dog": "T45"}')
    cli = Path(sys.executable).parent / "dogtable"
    done = subprocess.run([str(cli), "moves", str(pos), "--card", "4", "--seat", "0"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "'4'" in lines[0] and "partner" in lines[0] and "black deck" in lines[0], lines
    after = tmp_path / "after.json"
    after.write_text(pos.read_text().replace('"T1"', '"T5"'))
    done = subprocess.run([str(cli), "check", str(pos), str(after), "--card", "7", "--seat", "0", "--lang", "de"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "black-1-7" in done.stderr and "Deck black nicht" in done.stderr, done.stderr


# --- 3. 2-3 players: the fifth piece -----------------------------------------------------
# DE "Wurden alle Figuren eines Spielers geschlagen, so kommt die 5. Figur neben den
# „Start“-Bereich, aber nicht auf das Startfeld." EN "put the 5th piece next to the starting
# area", FR "son 5ème pion doit être placé à côté de la zone de départ", IT "il 5° segnalino
# torna allora vicino alla zona di partenza". The kennel area holds four: the fifth waits
# beside it, a kennel piece like the others (K), and only a start card brings a piece out.

def test_capturing_the_last_piece_leaves_all_five_in_the_kennel():
    h.assert_plain_black(*range(10, 14))
    card, k = "3", 3
    before = bp({0: ["T10", "K", "K", "K", "K"], 2: ["T13", "K", "K", "K", "K"]}, "T45", present=(0, 2), n=5)
    captured = h.move(h.move(before, 0, "T10", "T13"), 2, "T13", "K")
    assert h.result_keys(h.moves(before, card, 0)) == {h.key(captured)}
    assert verdict(before, captured, card, 0).legal
    # illegal: green's fifth piece put on its start field as at the start of the game
    s2 = h.start(2, h.black_board())
    wrong = h.move(captured, 2, "K", f"T{s2}")
    for lang in LANGS:
        v = verdict(before, wrong, card, 0, lang)
        assert not v.legal and f"T{s2}" in v.reason and "5" in v.reason, v.reason
    assert "beside the kennel" in verdict(before, wrong, card, 0, "en").reason
    assert "neben den Startbereich" in verdict(before, wrong, card, 0, "de").reason


def test_the_black_dog_capturing_the_last_piece_is_the_same():
    # black-5: own piece T1 -> T6, then the dog T42 -> T47 passes green's piece on T44
    h.assert_plain_black(*range(1, 7), *range(42, 48))
    before = bp({0: ["T1", "K", "K", "K", "K"], 2: ["T44", "H0", "K", "K", "K"]}, "T42", present=(0, 2), n=5)
    after = h.with_dog(h.move(h.move(before, 0, "T1", "T6"), 2, "T44", "K"), "T47")
    assert verdict(before, after, "black-5", 0).legal
    # green still has a piece home: not all captured, so no fifth-piece reason, but still illegal
    wrong = h.move(after, 2, "K", "T32")
    v = verdict(before, wrong, "black-5", 0)
    assert not v.legal and "beside the kennel" not in v.reason
    all_out = bp({0: ["T1", "K", "K", "K", "K"], 2: ["T44", "K", "K", "K", "K"]}, "T42", present=(0, 2), n=5)
    after = h.with_dog(h.move(h.move(all_out, 0, "T1", "T6"), 2, "T44", "K"), "T47")
    v = verdict(all_out, h.move(after, 2, "K", "T32"), "black-5", 0)
    assert not v.legal and "beside the kennel" in v.reason, v.reason


def test_a_seat_with_all_five_in_the_kennel_needs_a_start_card():
    s1 = h.start(1, h.black_board())
    js = bp({0: ["T5", "K", "K", "K", "K"], 1: ["K"] * 5, 2: ["T40", "K", "K", "K", "K"]}, "T45",
            present=(0, 1, 2), n=5)
    out = h.move(js, 1, "K", f"T{s1}")
    for card in ("1/11", "13"):
        assert h.result_keys(h.moves(js, card, 1)) == {h.key(out)}
    for card in ("2", "3", "8", "black-5", "magnet", "swap"):
        assert h.moves(js, card, 1) == []
        v = verdict(js, out, card, 1)
        assert not v.legal and "start card" in v.reason, (card, v.reason)
    # the partner card has plays here (solo: any seat's pieces), but none starts a piece
    v = verdict(js, out, "partner", 1)
    assert not v.legal and "start card (1/11 or 13)" in v.reason, v.reason
    assert "Startkarte" in verdict(js, out, "partner", 1, "de").reason


def test_the_fifth_piece_is_a_normal_kennel_piece():
    # four out (two home, two on the track), the fifth in the kennel: a start card brings it out
    h.assert_plain_black(20, 30)
    js = bp({0: ["T20", "T30", "H0", "H1", "K"], 1: ["T50", "K", "K", "K", "K"]}, "T45", present=(0, 1), n=5)
    assert h.has(h.moves(js, "1/11", 0), h.move(js, 0, "K", "T0"))


class _Recording(Game):
    """A game that keeps every play with the position before it."""

    def apply(self, seat, card, play):
        self.record.append((self.position, seat, play))
        super().apply(seat, card, play)


@pytest.mark.parametrize("players", [2, 3])
def test_whole_solo_games_follow_the_fifth_piece_rule_and_the_new_deck(players):
    all_captured = 0
    for g in range(12):
        game = _Recording.new("black", players, seed=g)
        game.record = []
        deck = Counter(game.deck)
        assert deck == Counter(dict(game.variant.deck)) and not {"4", "5", "6", "7", "joker"} & set(deck)
        rng = random.Random(g)
        bots = {s: (GreedyBot if i % 2 else RandomBot)(rng) for i, s in enumerate(game.seats)}
        play_game(game, bots)
        assert game.winner is not None
        played = {e.card for e in game.log if e.card}
        assert not {"4", "5", "6", "7", "joker"} & played
        for before, seat, play in game.record:
            for s in before.seats:
                was = before.pieces[s].count(KENNEL)
                now = play.result.pieces[s].count(KENNEL)
                if now < was:  # a piece came out of the kennel: only by the seat's own start card
                    assert s == seat and play.as_card in START_CARDS, play.notation
                    assert now == was - 1 and before.board.start_field(s) in play.result.pieces[s]
            for s in play.result.seats:
                locs = play.result.pieces[s]
                assert len(locs) == 5
                if all(loc == KENNEL for loc in locs) and any(loc != KENNEL for loc in before.pieces[s]):
                    all_captured += 1
    assert all_captured > 0, "no seat had all its pieces captured: the games do not exercise the rule"


@pytest.mark.parametrize("replaces,problem", [
    ({"4": "joker"}, "'joker' must be a card of this deck"),   # the replacement is not in the deck
    ({"2": "partner"}, "not in this deck"),                   # the deck still has a plain 2
    ({"four": "partner"}, "must be a DOG card"),
    ("partner", "must be a table"),
])
def test_a_damaged_replaces_table_names_file_key_and_problem(monkeypatch, replaces, problem):
    from engine import rulesdata

    real = rulesdata._read_toml("decks/black.toml")
    monkeypatch.setattr(rulesdata, "_read_toml", lambda name: {**real, "replaces": replaces})
    monkeypatch.setattr(rulesdata, "load_deck", rulesdata.load_deck.__wrapped__)
    with pytest.raises(engine.DataError) as err:
        rulesdata.load_replaced.__wrapped__("black")
    assert "decks/black.toml" in str(err.value) and problem in str(err.value), str(err.value)
