"""Plays in words: the rulebooks' own examples and the sentences a family should hear, in English and German."""
from __future__ import annotations

import engine
from engine.describe import describe_play


def _pos(pieces: list, variant: str = "classic", **extra: object) -> engine.Position:
    return engine.parse_position({"variant": variant, "pieces": pieces, **extra})


def _play(pos: engine.Position, card: str, seat: int, notation: str) -> engine.Play:
    found = [p for p in engine.legal_moves(pos, card, seat) if p.notation == notation]
    assert found, [p.notation for p in engine.legal_moves(pos, card, seat)]
    return found[0]


def test_a_piece_comes_out_and_a_start_capture_is_said() -> None:
    pos = _pos([["K", "K", "K", "K"], ["T0", "K", "K", "K"], None, ["K", "K", "K", "K"]])
    play = _play(pos, "13", 0, "13: K-T0")
    assert describe_play(pos, play, 0) == "Red brings a piece out, captures Blue on T0"
    assert describe_play(pos, play, 0, "de") == "Rot bringt einen Stein heraus, schlägt Blau auf T0"


def test_a_split_seven_into_the_home_and_on_the_track_with_a_burn() -> None:
    # Blue (start T16): 5 into the home from T12, 2 from T38 to T40 passing Green's piece on T39
    pos = _pos([["K"] * 4, ["T12", "T38", "K", "K"], ["T39", "K", "K", "K"], ["K"] * 4])
    play = _play(pos, "7", 1, "7: T12-H0, T38-T40")
    assert describe_play(pos, play, 1) == "Blue: 7 split — 5 to the home, 2 to T40, burns Green on T39"
    assert describe_play(pos, play, 1, "de") == "Blau: 7 geteilt — 5 ins Ziel, 2 auf T40, verbrennt Grün auf T39"


def test_the_rulebook_seven_example_one_in_the_home_one_capture_five_burning_two() -> None:
    """DOG (3 pieces) rulebook: yellow's 7 moves B one field in the home, C one field capturing
    blue, and D the other five, burning green and red on the way."""
    pos = _pos([["T36", "K", "K"], ["T21", "K", "K"], ["T34", "K", "K"], ["H0", "T20", "T31"]], "compact")
    play = _play(pos, "7", 3, "7: T20-T21, T31-T36, H0-H1")
    words = describe_play(pos, play, 3)
    assert words == ("Yellow: 7 split — 1 to T21, 5 to T36, 1 to the home, captures Blue on T21, "
                     "burns Green on T34, captures Red on T36")


def test_a_seven_passing_an_own_piece_names_the_right_piece() -> None:
    pos = _pos([["T5", "T10", "K", "K"], ["K"] * 4, ["K"] * 4, ["K"] * 4])
    play = _play(pos, "7", 0, "7: T5-T12")
    assert describe_play(pos, play, 0) == "Red moves 7 to T12, burns Red on T10"


def test_joker_four_back_swap_and_a_void_swap() -> None:
    pos = _pos([["T5", "K", "K", "K"], ["T13", "K", "K", "K"], ["K"] * 4, ["K"] * 4])
    assert describe_play(pos, _play(pos, "joker", 0, "joker as 1/11: K-T0"), 0) == \
        "Red: joker as 1/11 — brings a piece out"
    assert describe_play(pos, _play(pos, "4", 0, "4: T5-T1 back"), 0) == "Red moves 4 back to T1"
    assert describe_play(pos, _play(pos, "swap", 0, "swap: T5<>T13"), 0) == "Red swaps T5 with Blue on T13"
    assert describe_play(pos, _play(pos, "swap", 0, "swap: T5<>T13"), 0, "de") == "Rot tauscht T5 mit Blau auf T13"
    alone = _pos([["T5", "K", "K", "K"], ["K"] * 4, ["K"] * 4, ["K"] * 4])
    void = [p for p in engine.legal_moves(alone, "swap", 0) if p.result.same_board(alone)]
    assert void and describe_play(alone, void[0], 0) == "Red lays the swap down without effect"


def test_royal_names_the_piece_and_black_names_the_dog_and_the_disc() -> None:
    pos = _pos([["T5", "K", "K", "K"], ["K"] * 4, ["K"] * 4, ["K"] * 4], "royal")
    assert describe_play(pos, _play(pos, "5", 0, "5: T5-T10"), 0) == "Red moves the king 5 to T10"
    assert describe_play(pos, _play(pos, "5", 0, "5: T5-T10"), 0, "de") == "Rot zieht den König 5 auf T10"
    black = _pos([["T5", "K", "K", "K"], ["K"] * 4, ["K"] * 4, ["K"] * 4], "black", black_dog="T21", disc=0)
    dog = [p for p in engine.legal_moves(black, "black-5", 0) if "dog" in p.notation][0]
    assert describe_play(black, dog, 0).endswith(f"moves the black dog to T{dog.result.black_dog}")
    turning = _play(black, "2", 0, "2: T5-T7, disc clockwise")
    assert describe_play(black, turning, 0) == "Red moves 2 to T7, turns the disc clockwise"
    back = _play(black, "2", 0, "2: T5-T7, disc counter-clockwise")
    assert describe_play(black, back, 0, "de") == "Rot zieht 2 auf T7, dreht die Scheibe gegen den Uhrzeigersinn"


def test_every_play_of_a_seeded_game_has_words_in_both_languages() -> None:
    from engine.game import Game

    for variant in ("classic", "royal", "black"):
        game = Game.new(variant, 4, seed=2)
        game.deal()
        for seat in game.seats:
            for card, play in game.options(seat)[:30]:
                for lang in ("en", "de"):
                    words = describe_play(game.position, play, seat, lang)
                    assert words and "{" not in words and "T-" not in words, (play.notation, words)


def test_the_referee_names_the_nearest_legal_play_in_words_not_notation() -> None:
    # Red moves 7 past Blue's piece on T3 but leaves it standing: the burn is missing
    before = _pos([["T0", "K", "K", "K"], ["T3", "K", "K", "K"], ["K"] * 4, ["K"] * 4])
    after = _pos([["T7", "K", "K", "K"], ["T3", "K", "K", "K"], ["K"] * 4, ["K"] * 4])
    said = {lang: engine.check(before, after, "7", 0, lang).reason for lang in ("en", "de", "fr", "it", "nl")}
    assert said["en"].startswith("close to the legal play “Red moves 7 to T7, burns Blue on T3”, but the blue piece on T3")
    assert said["de"].startswith("fast der erlaubte Zug „Rot zieht 7 auf T7, verbrennt Blau auf T3“, aber")
    assert all("T0-T7" not in text for text in said.values()), said
    # nothing moved: the example is worded too
    assert engine.check(before, before, "5", 0).reason == (
        "nothing moved, but the 5 must be played in full (for example: “Red moves 5 to T5”)")
