"""The public interface of NOTATION.md: parse_position, legal_moves, Position.to_json, errors."""
import pytest

import engine
from engine.messages import card_name
from dogpos import position

K4 = ["K"] * 4


def classic4(*seats):
    return {"variant": "classic", "pieces": [list(s) for s in seats]}


def test_parse_and_to_json_round_trip():
    obj = {"variant": "classic", "board": 4, "pieces": [["T0", "K", "K", "H2"], ["T55", "K", "K", "K"],
                                                          K4, ["T37", "K", "K", "K"]], "last_card": "5"}
    pos = engine.parse_position(obj)
    out = pos.to_json()
    assert out["variant"] == "classic" and out["board"] == 4 and out["last_card"] == "5"
    assert sorted(out["pieces"][0]) == ["H2", "K", "K", "T0"]
    assert engine.parse_position(out) == pos
    assert set(out) <= {"variant", "board", "pieces", "last_card", "black_dog", "disc"}


def test_board_defaults_to_number_of_seats_and_order_inside_a_list_does_not_matter():
    a = engine.parse_position(classic4(["K", "T5", "K", "K"], K4, K4, K4))
    b = engine.parse_position({"variant": "classic", "board": 4, "pieces": [["T5", "K", "K", "K"], K4, K4, K4]})
    assert a == b and a.to_json()["board"] == 4


def test_empty_seats_are_null_and_survive_the_round_trip():
    obj = position(["T3"], None, ["T40"], None)
    pos = engine.parse_position(obj)
    assert pos.to_json()["pieces"][1] is None and pos.to_json()["pieces"][3] is None
    assert engine.parse_position(pos.to_json()) == pos


def test_six_segment_board():
    obj = {"variant": "classic", "board": 6, "pieces": [["T95", "K", "K", "K"]] + [K4] * 5}
    assert engine.parse_position(obj).to_json()["board"] == 6


def test_legal_moves_interface():
    pos = engine.parse_position(classic4(["T5", "K", "K", "K"], K4, K4, K4))
    plays = engine.legal_moves(pos, "7", seat=0)
    assert len(plays) == 1
    play = plays[0]
    assert isinstance(play.notation, str) and play.notation
    assert isinstance(play.result, engine.Position)
    res = play.result.to_json()
    assert sorted(res["pieces"][0]) == ["K", "K", "K", "T12"]
    assert engine.parse_position(res) == play.result


@pytest.mark.parametrize("obj,words", [
    ({"variant": "classic", "pieces": [K4] * 4, "colour": "red"}, ["colour"]),
    ({"variant": "classic", "pieces": [["T1", "K", "K", "K"], ["T1", "K", "K", "K"], K4, K4]}, ["T1"]),
    ({"variant": "classic", "pieces": [["H1", "H1", "K", "K"], K4, K4, K4]}, ["H1"]),
    ({"variant": "classic", "pieces": [["T1", "K", "K", "K", "K"], K4, K4, K4]}, ["5"]),
    ({"variant": "classic", "pieces": [["T1", "K", "K"], K4, K4, K4]}, ["3"]),
    ({"variant": "classic", "pieces": [["T1"] + ["K"] * 5, ["K"] * 6, None, None]}, ["6"]),
    ({"variant": "compact", "pieces": [K4] * 4}, ["4"]),
    ({"variant": "classic", "pieces": [["T64", "K", "K", "K"], K4, K4, K4]}, ["T64"]),
    ({"variant": "classic", "board": 6, "pieces": [["T96", "K", "K", "K"]] + [K4] * 5}, ["T96"]),
    ({"variant": "classic", "pieces": [["H4", "K", "K", "K"], K4, K4, K4]}, ["H4"]),
    ({"variant": "compact", "pieces": [["H3", "K", "K"]] + [["K"] * 3] * 3}, ["H3"]),
    ({"variant": "classic", "pieces": [["X1", "K", "K", "K"], K4, K4, K4]}, ["X1"]),
    ({"variant": "classic", "pieces": [[5, "K", "K", "K"], K4, K4, K4]}, ["5"]),
    ({"variant": "nope", "pieces": [K4] * 4}, ["nope"]),
    ({"pieces": [K4] * 4}, ["variant"]),
    ({"variant": "classic"}, ["pieces"]),
    ({"variant": "classic", "board": 5, "pieces": [K4] * 5}, ["5"]),
    ({"variant": "classic", "board": 6, "pieces": [K4] * 4}, ["6"]),
    ({"variant": "classic", "pieces": [None] * 4}, []),
    ([["K"]], []),
])
def test_bad_positions_are_rejected_naming_the_problem(obj, words):
    with pytest.raises(engine.PositionError) as err:
        engine.parse_position(obj)
    assert isinstance(err.value, engine.EngineError)
    for word in words:
        assert word in str(err.value)


@pytest.mark.parametrize("card", ["7x", "Joker", "", 7, None, "14"])
def test_unknown_card(card):
    pos = engine.parse_position(classic4(K4, K4, K4, K4))
    with pytest.raises(engine.CardError) as err:
        engine.legal_moves(pos, card, seat=0)
    assert isinstance(err.value, engine.EngineError)


@pytest.mark.parametrize("variant", ["classic", "compact"])
@pytest.mark.parametrize("card", ["1-7", "magnet", "copy", "partner", "black-1-7", "black-5", "black-6"])
def test_card_not_in_the_variant_deck(variant, card):
    pos = engine.parse_position(position([], [], [], [], variant=variant))
    with pytest.raises(engine.CardError) as err:
        engine.legal_moves(pos, card, seat=0)
    assert card_name(card, "en") in str(err.value) and variant in str(err.value)  # the card in words


@pytest.mark.parametrize("variant", ["classic", "compact"])
def test_every_deck_card_is_accepted(variant):
    pos = engine.parse_position(position([], [], [], [], variant=variant))
    for card in ("1/11", "2", "3", "4", "5", "6", "7", "8", "9", "10", "12", "13", "swap", "joker"):
        assert isinstance(engine.legal_moves(pos, card, seat=0), list)


@pytest.mark.parametrize("seat", [4, -1, 1])
def test_seat_that_does_not_play(seat):
    pos = engine.parse_position(position([], None, [], None))
    with pytest.raises(engine.EngineError):
        engine.legal_moves(pos, "2", seat=seat)


def test_errors_are_value_errors():
    assert issubclass(engine.PositionError, engine.EngineError)
    assert issubclass(engine.CardError, engine.EngineError)
    assert issubclass(engine.EngineError, ValueError)


def test_bad_last_card_is_an_engine_error():
    with pytest.raises(engine.EngineError) as err:
        engine.parse_position({"variant": "classic", "pieces": [K4] * 4, "last_card": "magnet"})
    assert "magnet" in str(err.value)


def test_bad_last_card_is_a_position_error():
    with pytest.raises(engine.PositionError):
        engine.parse_position({"variant": "classic", "pieces": [K4] * 4, "last_card": "magnet"})
