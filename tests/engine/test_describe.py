"""Plays in words: the rulebooks' own examples and the sentences a family should hear, in English and German."""
from __future__ import annotations

import re

import engine
from engine.describe import describe_play, landmark
from engine.messages import LANGUAGES


def _pos(pieces: list, variant: str = "classic", **extra: object) -> engine.Position:
    return engine.parse_position({"variant": variant, "pieces": pieces, **extra})


def _play(pos: engine.Position, card: str, seat: int, notation: str) -> engine.Play:
    found = [p for p in engine.legal_moves(pos, card, seat) if p.notation == notation]
    assert found, [p.notation for p in engine.legal_moves(pos, card, seat)]
    return found[0]


def test_a_piece_comes_out_and_a_start_capture_is_said() -> None:
    pos = _pos([["K", "K", "K", "K"], ["T0", "K", "K", "K"], None, ["K", "K", "K", "K"]])
    play = _play(pos, "13", 0, "13: K-T0")
    assert describe_play(pos, play, 0) == "Red brings a piece from the kennel onto the start field, captures Blue on Red's start field"
    assert describe_play(pos, play, 0, "de") == "Rot bringt einen Stein aus dem Startbereich aufs Startfeld, schlägt Blau auf dem Startfeld von Rot"


def test_a_split_seven_into_the_home_and_on_the_track_with_a_burn() -> None:
    # Blue (start T16): 5 into the home from T12, 2 from T38 to T40 passing Green's piece on T39
    pos = _pos([["K"] * 4, ["T12", "T38", "K", "K"], ["T39", "K", "K", "K"], ["K"] * 4])
    play = _play(pos, "7", 1, "7: T12-H0, T38-T40")
    assert describe_play(pos, play, 1) == ("Blue: 7 split — 5 into the home (first field), 2 to 8 fields before Yellow's start, "
                                                "burns Green 7 fields past Green's start")
    assert describe_play(pos, play, 1, "de") == ("Blau: 7 geteilt — 5 ins Ziel (erstes Feld), 2 auf das 8. Feld vor dem Startfeld von Gelb, "
                                                      "verbrennt Grün 7 Felder hinter dem Startfeld von Grün")


def test_the_rulebook_seven_example_one_in_the_home_one_capture_five_burning_two() -> None:
    """DOG (3 pieces) rulebook: yellow's 7 moves B one field in the home, C one field capturing
    blue, and D the other five, burning green and red on the way."""
    pos = _pos([["T36", "K", "K"], ["T21", "K", "K"], ["T34", "K", "K"], ["H0", "T20", "T31"]], "compact")
    play = _play(pos, "7", 3, "7: T20-T21, T31-T36, H0-H1")
    words = describe_play(pos, play, 3)
    assert words == ("Yellow: 7 split — 1 to 5 fields past Blue's start, 5 to 4 fields past Green's start, "
                     "1 into the home (second field), captures Blue 5 fields past Blue's start, "
                     "burns Green 2 fields past Green's start, captures Red 4 fields past Green's start")


def test_a_seven_passing_an_own_piece_names_the_right_piece() -> None:
    pos = _pos([["T5", "T10", "K", "K"], ["K"] * 4, ["K"] * 4, ["K"] * 4])
    play = _play(pos, "7", 0, "7: T5-T12")
    assert describe_play(pos, play, 0) == "Red moves 7 to 4 fields before Blue's start, burns Red 6 fields before Blue's start"


def test_joker_four_back_swap_and_a_void_swap() -> None:
    pos = _pos([["T5", "K", "K", "K"], ["T13", "K", "K", "K"], ["K"] * 4, ["K"] * 4])
    assert describe_play(pos, _play(pos, "joker", 0, "joker as 1/11: K-T0"), 0) == \
        "Red: joker as 1/11 — brings a piece from the kennel onto the start field"
    assert describe_play(pos, _play(pos, "4", 0, "4: T5-T1 back"), 0) == "Red moves 4 back to just past Red's start"
    assert describe_play(pos, _play(pos, "swap", 0, "swap: T5<>T13"), 0) == "Red swaps with Blue: 5 fields past Red's start ↔ 3 fields before Blue's start"
    assert describe_play(pos, _play(pos, "swap", 0, "swap: T5<>T13"), 0, "de") == (
        "Rot tauscht mit Blau: 5 Felder hinter dem Startfeld von Rot ↔ 3 Felder vor dem Startfeld von Blau")
    alone = _pos([["T5", "K", "K", "K"], ["K"] * 4, ["K"] * 4, ["K"] * 4])
    void = [p for p in engine.legal_moves(alone, "swap", 0) if p.result.same_board(alone)]
    assert void and describe_play(alone, void[0], 0) == "Red lays the swap card down without effect"


def test_royal_names_the_piece_and_black_names_the_dog_and_the_disc() -> None:
    pos = _pos([["T5", "K", "K", "K"], ["K"] * 4, ["K"] * 4, ["K"] * 4], "royal")
    assert describe_play(pos, _play(pos, "5", 0, "5: T5-T10"), 0) == "Red moves the king 5 to 6 fields before Blue's start"
    assert describe_play(pos, _play(pos, "5", 0, "5: T5-T10"), 0, "de") == "Rot zieht den König 5 auf das 6. Feld vor dem Startfeld von Blau"
    black = _pos([["T5", "K", "K", "K"], ["K"] * 4, ["K"] * 4, ["K"] * 4], "black", black_dog="T21", disc=0)
    dog = [p for p in engine.legal_moves(black, "black-5", 0) if "dog" in p.notation][0]
    assert describe_play(black, dog, 0).endswith("moves the black dog to 6 fields before Green's start")
    turning = _play(black, "2", 0, "2: T5-T7, disc clockwise")
    assert describe_play(black, turning, 0) == "Red moves 2 to 7 fields past Red's start, turns the disc clockwise"
    back = _play(black, "2", 0, "2: T5-T7, disc counter-clockwise")
    assert describe_play(black, back, 0, "de") == (
        "Rot zieht 2 auf das 7. Feld hinter dem Startfeld von Rot, dreht die Scheibe gegen den Uhrzeigersinn")


def test_every_play_of_a_seeded_game_has_words_in_every_language_without_field_numbers() -> None:
    """A family reads the board, which prints no field numbers: no "T41", no "H2", no card id."""
    from engine.game import Game
    from engine.messages import LANGUAGES, card_name

    notation = re.compile(r"\b[TH]\d+\b")

    def word(card: str) -> re.Pattern:
        return re.compile(rf"(?<![\w-]){re.escape(card)}(?![\w-])")
    for variant in ("classic", "royal", "black"):
        game = Game.new(variant, 4, seed=2)
        game.deal()
        for seat in game.seats:
            for card, play in game.options(seat)[:30]:
                for lang in LANGUAGES:
                    words = describe_play(game.position, play, seat, lang)
                    assert words and "{" not in words and not notation.search(words), (play.notation, words)
                    # a card id said as it is ("Karte swap"), unless the language's name holds it ("swap card")
                    raw = [c for c in (play.card, play.as_card) if word(c).search(words) and not word(c).search(card_name(c, lang))]
                    assert not raw, words


def test_every_track_field_is_named_by_the_nearest_start_field() -> None:
    pos = _pos([["K"] * 4, ["K"] * 4, ["K"] * 4, ["K"] * 4])  # starts T0, T16, T32, T48
    assert landmark(pos, 16, "en") == "on Blue's start field"
    assert landmark(pos, 16, "en", "to") == "onto Blue's start field"
    assert landmark(pos, 15, "en") == "just before Blue's start"
    assert landmark(pos, 17, "de") == "direkt hinter dem Startfeld von Blau"
    assert landmark(pos, 13, "en") == "3 fields before Blue's start"
    assert landmark(pos, 13, "de", "to") == "auf das 3. Feld vor dem Startfeld von Blau"
    assert landmark(pos, 61, "fr") == "3 cases avant la case départ de Rouge"  # across the track's end
    assert landmark(pos, 8, "it") == "8 caselle prima della casella di partenza di Blu"  # halfway: towards where it goes
    for field in range(64):
        for lang in LANGUAGES:
            assert not re.search(r"\d{2}|T\d", landmark(pos, field, lang)), (field, lang)


def test_the_referee_names_the_nearest_legal_play_in_words_not_notation() -> None:
    # Red moves 7 past Blue's piece on T3 but leaves it standing: the burn is missing
    before = _pos([["T0", "K", "K", "K"], ["T3", "K", "K", "K"], ["K"] * 4, ["K"] * 4])
    after = _pos([["T7", "K", "K", "K"], ["T3", "K", "K", "K"], ["K"] * 4, ["K"] * 4])
    said = {lang: engine.check(before, after, "7", 0, lang).reason for lang in ("en", "de", "fr", "it", "nl")}
    assert said["en"].startswith("close to the legal play “Red moves 7 to 7 fields past Red's start, "
                                 "burns Blue 3 fields past Red's start”, but the blue piece on T3")
    assert said["de"].startswith("fast der erlaubte Zug „Rot zieht 7 auf das 7. Feld hinter dem Startfeld von Rot, "
                                 "verbrennt Blau 3 Felder hinter dem Startfeld von Rot“, aber")
    assert all("T0-T7" not in text for text in said.values()), said
    # nothing moved: the example is worded too
    assert engine.check(before, before, "5", 0).reason == (
        "nothing moved, but the 5 must be played in full (for example: “Red moves 5 to 5 fields past Red's start”)")
