"""Undo, lay-downs, discards, out-of-turn cards and private words where hands are known."""
from __future__ import annotations

import json
import logging

import pytest

from companion import record
from companion import table as T
from companion.table import hints
from table_hands import Game, dealt

# Red (0) and Green (2) against Blue (1) and Yellow (3); every piece in its kennel.
# Red and Blue hold a 13 to start with; Blue's 7 cannot move then, its 13 can.
HANDS = [["13", "13", "5", "8", "9", "10"], ["7", "13", "5", "8", "9", "10"],
         ["2", "3", "5", "8", "9", "10"], ["2", "3", "5", "8", "9", "10"]]


def _game(hands=HANDS, **kw) -> Game:
    return Game(*dealt(hands, **kw))


def _texts(js: dict) -> str:
    return json.dumps([e["text"]["en"] for e in js["log"]]) + json.dumps(js["verdict"]) + json.dumps(js["hint"])


def _replays(g: Game) -> None:
    """The record of the journal re-plays to the board the table believes in."""
    rec = record.game_record(g.setup, g.journal())
    _, pos = record.replay_record(rec)
    assert T.board_key(pos) == T.board_key(g.state.position)


def test_own_undo_of_a_card_that_cannot_move_takes_back_that_card_not_the_previous_play() -> None:
    g = _game()
    g.play("13")  # Red brings a piece out
    red_out = g.state.position
    g.do(T.CardSeen("7", 1))  # Blue: the 7 cannot move, the 13 could: "undo, then play another card"
    assert T.stuck(g.state) == "no_play_other"
    g.do(T.Undo("web", seat=1))
    assert g.state.card is None and g.state.position == red_out and g.state.turn == 1
    assert [a.kind for a in g.state.history if a.kind != "give"] == ["play"]
    assert g.state.history[-1].seat == 0
    g.play("13")
    _replays(g)


def test_own_undo_is_refused_once_another_seat_acted_and_names_no_card() -> None:
    g = _game()
    g.play("13")
    g.play("13")  # Blue
    before = g.state
    with pytest.raises(T.TableError, match="^Blue has played since: only the host can take back more$"):
        T.apply(before, T.Undo("web", seat=0))
    assert T.own_undo_refusal(before, 0) == "Blue has played since: only the host can take back more"
    assert T.own_undo_refusal(before, 1) is None
    assert T.state_to_json(before, viewer=0)["can_undo_mine"] is False
    assert T.state_to_json(before, viewer=1)["can_undo_mine"] is True
    g.do(T.Undo("web", seat=1))  # Blue's own: its 13 is back in its hand, Red's play stands
    assert g.state.turn == 1 and sorted(g.state.hands[1]) == sorted(HANDS[1])
    assert g.state.history[-1].seat == 0
    with pytest.raises(T.TableError, match="^Red has played since: only the host can take back more$"):
        T.apply(g.state, T.Undo("web", seat=1))


def test_host_undo_walks_back_one_action_at_a_time_naming_each_through_the_exchange() -> None:
    g = _game()
    g.play("13")
    g.play("13")
    g.do(T.Undo("web"))
    assert g.state.log[-1].text["en"] == "undone: Blue brings a piece from the kennel onto the start field (13: K-T16)", g.state.log[-1].text["en"]
    g.do(T.Undo("web"))
    assert g.state.log[-1].text["en"].startswith("undone: Red")
    assert g.state.history[-1].kind == "give"  # the exchange's last gift is next
    gifts = sum(1 for a in g.state.history if a.kind == "give")
    for _ in range(gifts):
        g.do(T.Undo("web"))
        assert "gives a card face down" in g.state.log[-1].text["en"]
    assert g.state.phase == "exchange" and g.state.still_to_give() == g.state.seats
    g.do(T.Undo("web"))
    assert g.state.log[-1].text["en"] == "there is nothing to undo"
    assert T.replay(g.setup, g.events) == g.state
    _replays(g)


def test_undo_of_a_lay_down_keeps_the_play_before_it_in_the_record() -> None:
    hands = [["13", "13", "5", "8", "9", "10"], ["2", "3", "5", "8", "9", "10"],
             ["2", "3", "5", "8", "9", "10"], ["2", "3", "5", "8", "9", "10"]]
    g = _game(hands)
    g.play("13")
    g.do(T.SitOut(1))  # Blue holds no start card: nothing can move
    assert 1 in g.state.out
    kinds = [p["kind"] for p in record.game_record(g.setup, g.journal())["plays"]]
    assert kinds == ["play", "sitout"]
    g.do(T.Undo("web", seat=1))
    rec = record.game_record(g.setup, g.journal())
    assert [p["kind"] for p in rec["plays"]] == ["play"] and rec["plays"][0]["seat"] == 0
    assert 1 not in g.state.out and g.state.turn == 1
    _replays(g)


def test_a_lay_down_is_refused_while_a_card_of_the_hand_can_move() -> None:
    g = _game()
    g.play("13")
    with pytest.raises(T.TableError, match="^you can still play: the 13 can move$"):
        T.apply(g.state, T.SitOut(1))
    with pytest.raises(T.TableError, match="Blue's turn, not Green's"):
        T.apply(g.state, T.SitOut(2))


def test_a_real_table_accepts_the_lay_down_and_says_the_card_shown_could_move() -> None:
    st = T.new_state(T.Setup("classic", 4))
    st, _ = T.apply(st, T.BoardSettled.of(T.occupancy(st.position)))
    st, _ = T.apply(st, T.ExchangeDone())
    st, _ = T.apply(st, T.CardSeen("13"))
    st, eff = T.apply(st, T.SitOut(0))
    assert 0 in st.out and st.turn == 1
    assert st.log[-1].text["en"] == "Red lays the hand down, though the 13 in play could move"
    assert st.log[-1].to is None  # everybody saw the 13 on the table


def test_no_single_card_is_discarded_in_a_team_game_nor_while_a_card_can_move() -> None:
    g = _game()
    g.do(T.CardSeen("5", 0))
    with pytest.raises(T.TableError, match="lays the whole hand down"):
        T.apply(g.state, T.Discard())
    solo = _game([["7", "13", "5", "8", "9", "10"], ["2", "3", "5", "8", "9", "10"],
                  ["2", "3", "5", "8", "9", "10"]], players=3)
    pos = solo.state.position.to_json()
    pos["pieces"] = [["K"] * 5] * 3 + [None]
    solo.do(T.SetPosition(json.dumps(pos)))
    solo.do(T.CardSeen("7", 0))
    with pytest.raises(T.TableError, match="^you can still play: the 13 can move$"):
        T.apply(solo.state, T.Discard(redraw=True))


def test_a_joker_offers_no_void_swap_when_it_has_a_real_play() -> None:
    g = _game([["joker", "13", "5", "8", "9", "10"]] + HANDS[1:])
    g.do(T.CardSeen("joker", 0))
    assert g.state.plays and not any("no swap" in p.notation for p in g.state.plays)
    assert all(T.board_key(p.result) != T.board_key(g.state.position) for p in g.state.plays)
    with pytest.raises(T.TableError):
        T.apply(g.state, T.Discard())  # a joker that can move is not laid down without effect
    swap = _game([["swap", "13", "5", "8", "9", "10"]] + HANDS[1:])
    swap.do(T.CardSeen("swap", 0))  # classic: a swap with no swap possible is laid down without effect
    assert len(swap.state.plays) == 1
    swap.do(T.Discard())
    assert swap.state.history[-1].kind == "play" and swap.state.turn == 1


def test_a_card_out_of_turn_from_a_phone_is_refused_and_the_table_hears_nothing() -> None:
    g = _game()
    before = g.state
    with pytest.raises(T.TableError, match="^it is Red's turn, not Blue's$"):
        T.apply(before, T.CardSeen("13", 1))
    # at a real table everybody saw the card laid: the referee says so to all
    st = T.new_state(T.Setup("classic", 4))
    st, _ = T.apply(st, T.BoardSettled.of(T.occupancy(st.position)))
    st, _ = T.apply(st, T.ExchangeDone())
    st, _ = T.apply(st, T.CardSeen("13", 1))
    assert st.verdict is not None and not st.verdict.legal and st.log[-1].to is None


def test_words_about_a_card_in_a_hand_reach_its_holder_alone() -> None:
    g = _game(mode="training")
    g.play("13")
    g.do(T.CardSeen("7", 1))  # Blue's 7 cannot move; the words say Blue has another card that can
    private = g.state.log[-1]
    assert private.text["en"] == "Blue cannot move with the 7: play another card" and private.to == 1
    for viewer in (None, 0, 2, 3):
        js = T.state_to_json(g.state, viewer=viewer)
        assert "cannot move" not in _texts(js) and js["stuck"] is None and js["card"] is None
    mine = T.state_to_json(g.state, viewer=1)
    assert "Blue cannot move with the 7: play another card" in _texts(mine) and mine["stuck"] == "no_play_other"
    g.do(T.Undo("web", seat=1))
    assert g.state.log[-1].to == 1  # taking the 7 back names it: Blue's words too
    g.do(T.CardSeen("13", 1))  # a card that can move is on the table for all; its hint is Blue's
    assert g.state.hint is not None
    assert T.state_to_json(g.state, viewer=1)["hint"] is not None
    assert T.state_to_json(g.state, viewer=0)["hint"] is None and T.state_to_json(g.state)["hint"] is None
    assert T.state_to_json(g.state)["card"] == "13"


def test_a_failing_hint_gives_no_hint_logs_once_and_the_card_stands(monkeypatch, caplog) -> None:
    def broken(*_a, **_k):
        raise IndexError("tuple index out of range")
    monkeypatch.setattr(hints, "best_hint", broken)
    g = _game(mode="training")
    with caplog.at_level(logging.ERROR, logger="companion.table.hints"):
        g.do(T.CardSeen("13", 0))
        g.do(T.Undo("web", seat=0))
        g.do(T.CardSeen("13", 0))
        g.do(T.AskHint())
    assert g.state.card == "13" and g.state.hint is None and g.state.plays
    assert sum("no hint for seat" in r.getMessage() for r in caplog.records) == 1


def test_host_undo_walks_back_over_the_end_of_a_round_into_the_round_before() -> None:
    stuck_hands = [["2", "3", "5", "8", "9", "10"]] * 4  # nobody holds a start card: everybody lays down
    g = _game(stuck_hands)
    for seat in (0, 1, 2, 3):
        g.do(T.SitOut(seat))
    assert g.state.round_no == 1 and g.state.phase == "exchange" and g.state.hands is None
    g.do(T.Undo("web"))  # Yellow's lay-down, and with it the end of the round
    st = g.state
    assert st.round_no == 0 and st.phase == "play" and st.out == frozenset({0, 1, 2}) and st.turn == 3
    assert sorted(st.hands[3]) == sorted(stuck_hands[3])
    assert st.log[-1].text["en"] == "undone: Yellow lays down the hand and sits out this round"
    assert T.replay(g.setup, g.events) == st
    _replays(g)


def test_the_page_s_rings_light_a_hint_only_for_the_card_s_holder() -> None:
    g = _game(mode="training")
    g.do(T.CardSeen("13", 0))
    hinted = set(g.state.hint.fields)
    assert hinted and all(T.state_to_json(g.state, viewer=0)["leds"][f] == "hint" for f in hinted)
    for viewer in (None, 1):
        assert "hint" not in T.state_to_json(g.state, viewer=viewer)["leds"].values()


def test_six_players_a_hand_with_two_13s_is_not_laid_down() -> None:
    g = _game([["13", "13", "5", "8", "9", "10"]] + [["2", "3", "5", "8", "9", "10"]] * 5, players=6)
    for _ in range(2):
        with pytest.raises(T.TableError, match="^you can still play: the 13 can move$"):
            T.apply(g.state, T.SitOut(0))
    assert 0 not in g.state.out
    g.play("13")
    g.do(T.SitOut(1))  # Blue holds nothing that can move: it lays down
    assert 1 in g.state.out and g.state.turn == 2


def test_a_hand_whose_only_play_is_a_swap_without_effect_may_be_laid_down() -> None:
    hands = [["13", "13", "5", "8", "9", "10"], ["swap", "2", "3", "5", "8", "9"],
             ["2", "3", "5", "8", "9", "10"], ["2", "3", "5", "8", "9", "10"]]
    g = _game(hands)
    g.play("13")  # Red's piece on its start field is protected: Blue's swap has nothing to swap
    g.do(T.SitOut(1))  # no piece of Blue's can move: Blue passes for the round
    assert 1 in g.state.out
