"""The table session on its own: scripted games, flags, corrections, rounds, modes."""
from __future__ import annotations

import dataclasses
import json

import pytest

import engine
from companion import table as T
from companion.simulated.scripted import scripted_game


def _variants() -> list[tuple[str, int]]:
    out = []
    for name, v in engine.load_variants().items():
        players = 4 if 4 in v.players else v.players[0]
        out.append((name, players))
        solo = [n for n in v.players if n in (2, 3)]
        if solo:
            out.append((name, solo[-1]))
    return out


@pytest.mark.parametrize("variant,players", _variants())
def test_scripted_game_every_illegal_play_flagged_every_legal_one_accepted(variant: str, players: int) -> None:
    try:
        T.new_state(T.Setup(variant, players))
    except T.TableError as exc:
        pytest.skip(f"{variant} not playable by the engine yet: {exc}")
    counts = {"legal": 0, "illegal": 0, "back": 0}
    state = None
    for seed in (1, 2):
        for step, state in scripted_game(variant, players, seed=seed, illegal_rate=0.2, undo_rate=0.05):
            if step.expect == "legal":
                assert state.flag is None and state.verdict is not None and state.verdict.legal and state.verdict.play, \
                    (step, state.verdict)
            elif step.expect == "illegal":
                assert state.flag is not None and not state.flag.legal, step
                assert state.flag.reason["en"] and state.flag.reason["de"]
                assert set(T.leds(state).values()) == {"error"}
            elif step.expect == "back":
                assert state.flag is None
            counts[step.expect] = counts.get(step.expect, 0) + 1
        assert state is not None and state.phase == "over" and state.winner
    assert counts["legal"] > 100 and counts["illegal"] > 10


def _start(variant: str = "classic", players: int = 4, mode: str = "highlight") -> T.TableState:
    st = T.new_state(T.Setup(variant, players, mode))
    st, _ = T.apply(st, T.BoardSettled.of(T.occupancy(st.position)))
    assert st.phase == "exchange"
    st, _ = T.apply(st, T.ExchangeDone())
    return st


def _board(pos: engine.Position) -> T.BoardSettled:
    return T.BoardSettled.of(T.occupancy(pos))


def _pos(pieces: list, variant: str = "classic") -> engine.Position:
    return engine.parse_position({"variant": variant, "pieces": pieces})


def test_setup_waits_for_the_starting_position_and_names_the_difference() -> None:
    st = T.new_state(T.Setup("classic", 4))
    wrong = _pos([["T3", "K", "K", "K"], ["K"] * 4, ["K"] * 4, ["K"] * 4])
    st, eff = T.apply(st, _board(wrong))
    assert st.phase == "setup" and st.flag is not None and "T3" in st.flag.reason["en"]
    with pytest.raises(T.TableError):
        T.apply(st, T.CardSeen("5"))
    st, _ = T.apply(st, _board(st.position))
    assert st.phase == "exchange" and st.flag is None


def test_moving_without_a_card_is_flagged_until_put_back() -> None:
    st = _start()
    moved = _pos([["T3", "K", "K", "K"], ["K"] * 4, ["K"] * 4, ["K"] * 4])
    st, eff = T.apply(st, _board(moved))
    assert st.flag is not None and "no card" in st.flag.reason["en"] and "T3" in st.flag.fields
    assert T.leds(st) == {"T3": "error"}
    assert [e.kind for e in eff] == ["error"]
    st2, eff2 = T.apply(st, _board(moved))  # the same wrong board again: said once
    assert eff2 == ()
    st, _ = T.apply(st2, _board(st.position))
    assert st.flag is None and st.log[-1].kind == "back"


def test_card_lights_movers_and_targets_and_a_wrong_move_is_explained_then_corrected() -> None:
    st = _start()
    st, _ = T.apply(st, T.CardSeen("1/11"))
    assert T.leds(st) == {"S0K3": "movable", "T0": "target"}
    wrong = _pos([["T5", "K", "K", "K"], ["K"] * 4, ["K"] * 4, ["K"] * 4])
    st, _ = T.apply(st, _board(wrong))
    assert st.flag is not None
    assert "start field T0" in st.flag.reason["en"] and "Startfeld T0" in st.flag.reason["de"]
    right = _pos([["T0", "K", "K", "K"], ["K"] * 4, ["K"] * 4, ["K"] * 4])
    st, eff = T.apply(st, _board(right))  # corrected straight into a legal play: accepted
    assert st.flag is None and st.verdict.legal and st.turn == 1 and st.played[0] == 1
    assert eff[0].kind == "ok" and eff[0].fields == ("T0",)


def test_referee_mode_is_quiet_and_training_gives_a_hint_with_a_reason() -> None:
    pos = _pos([["T60", "T10", "K", "K"], ["T12", "K", "K", "K"], ["K"] * 4, ["K"] * 4])
    st = T.apply(_start(mode="referee"), T.SetPosition(json.dumps(pos.to_json())))[0]
    st, _ = T.apply(st, T.CardSeen("2"))
    assert T.leds(st) == {}
    st, _ = T.apply(st, T.SetMode("training"))
    assert st.hint is not None and st.hint.play.endswith("T10-T12")
    assert st.hint.why["en"].startswith("captures the blue piece on T12; the next best play is worse")
    assert st.hint.why["de"].startswith("schlägt eine Figur: ") and "Blau auf T12" in st.hint.why["de"]
    st, _ = T.apply(st, T.CardSeen("5"))
    assert st.hint.play.endswith("T60-H0") and st.hint.why["en"].startswith("brings the red piece on T60 into the home")
    assert "hint" in T.leds(st).values()


def test_not_your_turn_is_said_and_changes_nothing() -> None:
    st = _start()
    st2, eff = T.apply(st, T.CardSeen("1/11", seat=1))
    assert st2.card is None and st2.turn == 0 and not st2.verdict.legal
    assert "Red's turn" in st2.verdict.reason["en"]


def test_round_bookkeeping_cards_per_round_sit_out_and_next_round() -> None:
    st = _start(players=4)
    assert st.cards_this_round() == 6 and st.turn == 0
    for seat in (0, 1, 2, 3):
        st, _ = T.apply(st, T.SitOut(seat))
    assert st.round_no == 1 and st.cards_this_round() == 5 and st.phase == "exchange"
    assert st.dealer == 0 and st.turn == 1 and st.out == frozenset()
    # the cycle 6-5-4-3-2 and back to 6
    for _ in range(4):
        st, _ = T.apply(st, T.ExchangeDone())
        for seat in st.seats:
            st, _ = T.apply(st, T.SitOut(seat))
    assert st.round_no == 5 and st.cards_this_round() == 6


def test_solo_discard_with_redraw_keeps_the_turn() -> None:
    st = _start(players=3)
    assert not st.position.is_team_game
    with pytest.raises(T.TableError, match="the 4 can move: play it"):  # from the start field
        T.apply(T.apply(st, T.CardSeen("4"))[0], T.Discard(redraw=True))
    st, _ = T.apply(st, T.SetPosition(json.dumps(_pos([["K"] * 5] * 3 + [None]).to_json())))  # all in the kennel
    left = st.deck_left
    st, _ = T.apply(st, T.CardSeen("4"))
    st, _ = T.apply(st, T.Discard(redraw=True))
    assert st.turn == 0 and st.hand_size(0) == 6 and st.played[0] == 1 and st.drawn[0] == 1
    assert st.seen == ("4",) and st.deck_left == left - 1  # the card drawn came from the deck
    st, _ = T.apply(st, T.CardSeen("4"))
    st, _ = T.apply(st, T.Discard())
    assert st.turn == 1 and st.hand_size(0) == 5 and st.seen == ("4", "4") and st.deck_left == left - 1


def test_the_table_counts_the_cards_laid_down_until_the_deck_runs_out_and_is_shuffled() -> None:
    st = _start()
    assert st.deck_left == 110 - 4 * 6  # the first deal
    st, _ = T.apply(st, T.CardSeen("1/11"))
    st, _ = T.apply(st, _board(st.plays[0].result))
    assert st.verdict.legal and st.seen == ("1/11",)
    dealt = [st.deck_left]
    while st.round_no < 6:
        if st.phase == "exchange":
            st, _ = T.apply(st, T.ExchangeDone())
        st, _ = T.apply(st, T.SitOut(st.turn))  # a laid-down hand the table does not see
        if st.phase == "exchange":
            dealt.append(st.deck_left)
            assert st.seen == (() if st.round_no == 6 else ("1/11",))
    # 6-5-4-3-2 cards each, then 6 again; round 7 needs 20 cards of the 6 left: the pile is
    # shuffled into a new deck of every card not in a hand, and nothing of it is seen
    assert dealt == [86, 66, 50, 38, 30, 6, 110 - 20]
    undone, _ = T.apply(st, T.Undo())
    assert undone.seen == ("1/11",) and undone.deck_left == 6


def test_the_hint_knows_what_was_laid_down_and_how_many_cards_the_others_still_hold() -> None:
    pos = _pos([["T12", "K", "K", "K"], ["K"] * 4, ["T54", "K", "K", "K"], ["T3", "K", "K", "K"]])
    st = T.apply(_start(mode="training"), T.SetPosition(json.dumps(pos.to_json())))[0]
    # early in the round with every start card still unseen: step back rather than stop on
    # Blue's start field while Blue has pieces in the kennel
    early, _ = T.apply(st, T.CardSeen("4"))
    assert early.hint.play == "4: T12-T8 back" and "Blue's start field" in early.hint.why["en"]
    aces = ("1/11",) * 8  # the deck's every 1/11 laid down since the shuffle
    counted, _ = T.apply(dataclasses.replace(st, seen=aces), T.CardSeen("4"))
    assert counted.hint.play == "4: T12-T16"
    late, _ = T.apply(dataclasses.replace(st, played=(3, 3, 3, 3)), T.CardSeen("4"))  # Blue holds 3 cards, not 6
    assert late.hint.play == "4: T12-T16"
    view = T.seat_view(counted, 0)
    assert view.hand == ("4",) and view.seen == aces and dict(view.hand_sizes) == {0: 6, 1: 6, 2: 6, 3: 6}


def test_undo_takes_back_the_last_play_and_the_board_must_follow() -> None:
    st = _start()
    start = st.position
    st, _ = T.apply(st, T.CardSeen("13"))
    after = st.plays[0].result
    st, _ = T.apply(st, _board(after))
    assert st.turn == 1
    st, _ = T.apply(st, T.Undo())
    assert st.position == start and st.turn == 0 and st.played[0] == 0
    assert st.log[-1].kind == "undo" and "Red brings a piece from the kennel onto the start field" in st.log[-1].text["en"]
    st, _ = T.apply(st, _board(after))  # the piece is still out there: the referee notices
    assert st.flag is not None
    st, _ = T.apply(st, _board(start))
    assert st.flag is None
    st, _ = T.apply(st, T.Undo())  # the exchange, done at the table, is the action before the play
    assert st.log[-1].text["en"] == "undone: cards exchanged: Red starts" and st.phase == "exchange"
    st, _ = T.apply(st, T.Undo())  # the starting position is the game's first fact
    assert st.log[-1].text["en"] == "there is nothing to undo"


def test_partner_play_and_winner() -> None:
    pos = _pos([["H0", "H1", "H2", "H3"], ["K"] * 4, ["H1", "H2", "H3", "T30"], ["K"] * 4])
    st = T.apply(_start(), T.SetPosition(json.dumps(pos.to_json())))[0]
    js = T.state_to_json(st)
    assert js["seats"][0]["plays_for"] == 2
    st, _ = T.apply(st, T.CardSeen("3"))
    assert st.plays and all(p.result.pieces[2] != pos.pieces[2] for p in st.plays)
    win = [p for p in st.plays if p.result.winner()][0]
    st, eff = T.apply(st, _board(win.result))
    assert st.phase == "over" and st.winner == (0, 2)
    assert st.log[-1].text["en"] == "Red and Green won the game!"
    assert st.log[-1].text["de"] == "Rot und Grün haben das Spiel gewonnen!"
    with pytest.raises(T.TableError):
        T.apply(st, T.CardSeen("5"))


def test_impossible_readings_are_flagged_not_crashed() -> None:
    st = _start()
    st, _ = T.apply(st, T.CardSeen("1/11"))
    five = {f"T{i}": "s0" for i in range(5)}
    st2, _ = T.apply(st, T.BoardSettled.of(five))
    assert st2.flag is not None and "5 pieces" in st2.flag.reason["en"]
    st3, _ = T.apply(st, T.BoardSettled.of({"T9": "s4"}))
    assert st3.flag is not None and "T9" in st3.flag.reason["en"]


def test_bad_events_raise_table_error() -> None:
    st = _start()
    for ev in (T.CardSeen("banana"), T.CardSeen("7", seat=9), T.SetMode("loud"), T.SetPosition("{"),
               T.DiscTurned(1), T.ExchangeDone(), T.Discard()):
        with pytest.raises(T.TableError):
            T.apply(st, ev)


def test_events_round_trip_through_json() -> None:
    events = [T.CardSeen("7", 2, "rfid"), T.BoardSettled.of({"T1": "s0", "S0H0": "s0"}), T.DiscTurned(-1),
              T.ExchangeDone(), T.SitOut(1), T.Discard(True), T.Undo(), T.SetPosition("{}"), T.SetTurn(3),
              T.SetMode("training")]
    for ev in events:
        assert T.event_from_json(json.loads(json.dumps(T.event_to_json(ev)))) == ev
    with pytest.raises(T.TableError):
        T.event_from_json({"kind": "dance"})


def test_replay_gives_the_same_state() -> None:
    steps = list(scripted_game("classic", 4, seed=5, illegal_rate=0.2, undo_rate=0.05))
    final = steps[-1][1]
    again = T.replay(T.Setup("classic", 4, "highlight"), [s.event for s, _ in steps])
    assert T.state_to_json(again, 10_000) == T.state_to_json(final, 10_000)
