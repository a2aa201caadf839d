"""Hints that teach: positions where the right idea is known, and the hint must name it.

Each test builds a position by hand (classic, 4 players: red 0 and green 2 against blue 1
and yellow 3; start fields T0, T16, T32, T48), asks for the hint over the plays of the
cards in hand, and checks the play chosen and the reason's message key.
"""
import re
from pathlib import Path

import pytest

import engine
from engine import messages
from engine.evaluate import Knowledge
from engine.hints import explain

ROOT = Path(__file__).resolve().parents[2]


def pos(pieces, variant="classic", **extra):
    return engine.parse_position({"variant": variant, "pieces": pieces, **extra})


def hint_for(position, seat, hand):
    options = [(card, play) for card in dict.fromkeys(hand) for play in engine.legal_moves(position, card, seat)]
    return explain(position, seat, options, Knowledge(position.variant, hand))


def test_a_capture_is_played_and_named() -> None:
    p = pos([["T10", "T40", "K", "K"], ["T15", "K", "K", "K"], ["K"] * 4, ["K"] * 4])
    hint = hint_for(p, 0, ["5"])
    assert hint.play.notation == "5: T10-T15"
    assert hint.reason.key == "hint_capture"
    assert hint.second[1].notation == "5: T40-T45" and hint.worse.key == "worse_no_capture"
    assert hint.text("en").startswith("captures the blue piece on T15; the next best play is worse")
    assert hint.text("de").startswith("schlägt eine Figur: ") and "Blau auf T15" in hint.text("de")


def test_the_saving_four_backwards_is_played_and_named() -> None:
    # red's piece just past its start field: 4 back puts it 3 fields in front of the home
    p = pos([["T1", "T30", "K", "K"], ["T20", "K", "K", "K"], ["K"] * 4, ["K"] * 4])
    hint = hint_for(p, 0, ["4"])
    assert hint.play.notation == "4: T1-T61 back"
    assert hint.reason.key == "hint_back4"
    assert "T61" in hint.text("en") and "4" in hint.text("de")


def test_the_start_card_is_kept_while_the_start_field_is_taken() -> None:
    # red stands on its own start field: no piece can come out now, so the 5 moves it off
    # and the 13 is kept to bring the next piece out
    p = pos([["T0", "K", "K", "K"], ["T40", "K", "K", "K"], ["K"] * 4, ["K"] * 4])
    hint = hint_for(p, 0, ["13", "5"])
    assert hint.card == "5" and hint.play.notation == "5: T0-T5"
    assert hint.reason.key == "hint_keep_start"
    assert hint.second[0] == "13" and hint.worse.key == "worse_spends_start"


def test_a_finished_player_helps_the_partner() -> None:
    # red is home: its cards move green's pieces
    p = pos([["H0", "H1", "H2", "H3"], ["T60", "K", "K", "K"], ["T33", "T44", "K", "K"], ["K"] * 4])
    hint = hint_for(p, 0, ["3"])
    assert hint.play.notation in ("3: T33-T36", "3: T44-T47")
    assert hint.reason.key == "hint_partner"
    assert "green" in hint.text("en") and "Grün" in hint.text("de")


def test_the_next_best_leaves_a_piece_on_a_start_field_where_a_start_card_captures_it() -> None:
    # T40-T48 would park red's piece on yellow's start field with yellow's pieces in the kennel
    p = pos([["T10", "T40", "K", "K"], ["T20", "K", "K", "K"], ["K"] * 4, ["K"] * 4])
    hint = hint_for(p, 0, ["8"])
    assert hint.play.notation == "8: T10-T18"
    assert hint.second[1].notation == "8: T40-T48"
    assert hint.worse.key == "worse_start_field"
    assert "yellow's start field" in hint.text("en").lower()


def test_the_next_best_leaves_a_piece_in_front_of_an_opponent() -> None:
    # T27-T32 jumps red's piece over blue's and leaves it 3 fields in front: T10-T15 is safe
    p = pos([["T10", "T27", "K", "K"], ["T29", "K", "K", "K"], ["K"] * 4, ["K"] * 4])
    hint = hint_for(p, 0, ["5"])
    assert hint.play.notation == "5: T10-T15"
    assert hint.second[1].notation == "5: T27-T32"
    assert hint.worse.key == "worse_danger_at"
    assert "3 fields in front of the blue piece on T29" in hint.text("en")


def test_no_options_no_hint_and_one_option_has_no_next_best() -> None:
    p = pos([["T10", "K", "K", "K"], ["K"] * 4, ["K"] * 4, ["K"] * 4])
    assert explain(p, 0, []) is None
    hint = hint_for(p, 0, ["2"])
    assert hint.second is None and hint.worse is None
    assert hint.text("en") == "moves the red piece on T10 2 fields on"


def test_every_hint_text_is_in_the_catalogue_in_all_five_languages() -> None:
    used = set(re.findall(r'"((?:hint|worse)_[a-z0-9_]+)"', (ROOT / "engine" / "hints.py").read_text(encoding="utf-8")))
    assert used
    catalogue = messages.load_catalogue("engine", "engine")  # no fallback to English here
    for key in sorted(used):
        fields = sorted(re.findall(r"{(\w+)}", catalogue["en"][key]))
        for lang in messages.LANGS:
            text = catalogue[lang].get(key)
            assert text, (key, lang, "missing")
            assert sorted(re.findall(r"{(\w+)}", text)) == fields, (key, lang, text)
            if lang != "en":
                assert text != catalogue["en"][key], (key, lang, "still English")


@pytest.mark.parametrize("variant,players", [("classic", 4), ("royal", 4), ("black", 4), ("classic", 3)])
def test_hints_on_seeded_game_positions_always_pick_an_offered_play_and_render(variant, players) -> None:
    import random

    from engine.bots import GreedyBot
    from engine.game import Game, play_game

    seen = []

    class Recorder(GreedyBot):
        def choose(self, game, seat, options):
            if len(seen) < 25 and game.plies % 5 == 0:
                seen.append((game.position, seat, list(game.hands[seat]), options))
            return super().choose(game, seat, options)

    game = Game.new(variant, players, seed=3)
    rng = random.Random(3)
    play_game(game, {s: Recorder(rng) for s in game.seats})
    assert seen
    for position, seat, hand, options in seen:
        hint = explain(position, seat, options, Knowledge(position.variant, hand))
        assert any(hint.play is play for _, play in options)
        for lang in messages.LANGS:
            assert hint.text(lang) and "{" not in hint.text(lang)


def test_a_finished_seat_s_card_that_moves_only_another_seat_s_piece_gets_a_hint() -> None:
    """Green is home and plays Black DOG's partner card; its one play moves Yellow's piece,
    not a piece of Green's partner Red: the hint names no partner's piece (it used to fail)."""
    pos = engine.parse_position({"variant": "black", "black_dog": "T57", "disc": 3,
                                 "pieces": [["H1", "H2", "H3", "K"], ["H0", "H1", "H2", "H3"],
                                            ["H0", "H1", "H2", "H3"], ["T24", "H1", "H2", "H3"]]})
    plays = engine.legal_moves(pos, "partner", 2)
    assert [p.notation for p in plays] == ["partner: T24-T28"]
    hint = explain(pos, 2, [("partner", p) for p in plays])
    assert hint is not None and hint.play is plays[0] and hint.reason.key != "hint_partner"
    assert hint.reason.text("en")
