"""The game at the simulated table: hands belong to seats, the exchange, resume, undo, verdicts."""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

import engine
from companion import table as T
from companion.journal import Journal
from companion.service import Service
from companion.simulated.table import SimulatedTable
from simulated_rig import close
from companion.settings import ServiceSettings, Settings, WebSettings

SETTINGS = Settings(replace(ServiceSettings(), bot_delay_s=0.0, accept_flash_s=0.0), WebSettings(pin="1"))


def _table(tmp_path: Path, variant: str = "classic", players: int = 4, seed: int = 5,
           name: str = "j.sqlite") -> SimulatedTable:
    svc = Service(SETTINGS, Journal(tmp_path / name))
    t = SimulatedTable(svc, seed=seed)
    t.open(T.Setup(variant, players, "highlight"))
    return t


def _through_exchange(t: SimulatedTable) -> None:
    t.set_bots(list(t.service.state.seats))
    while t.service.state.phase == "exchange":
        assert t.bot_step()
    t.set_bots([])


@pytest.mark.parametrize("variant,players", [("classic", 4), ("classic", 3), ("royal", 4), ("black", 4),
                                             ("compact", 2)])
def test_bots_play_a_whole_game_only_from_their_hands(tmp_path: Path, variant: str, players: int) -> None:
    t = _table(tmp_path, variant, players)
    svc = t.service
    t.set_bots(list(svc.state.seats))
    played_from_hand = 0
    for _ in range(3000):
        before = svc.state
        if before.phase == "over":
            break
        assert t.bot_step(), (before.phase, before.turn, before.flag)
        st = svc.state
        given = {s for s, _ in st.gifts}
        for s in st.seats:  # the hand shown is always the round table's count
            assert len(st.hands[s]) == st.hand_size(s) - (s in given), (s, st.hands[s], st.hand_size(s))
        if st.verdict is not before.verdict and st.verdict is not None and st.verdict.play:
            seat = st.verdict.seat
            assert st.verdict.card in before.hands[seat]
            played_from_hand += 1
    assert svc.state.phase == "over" and played_from_hand > 20
    close(t)


def test_a_viewer_sees_its_own_hand_and_never_another_seats(tmp_path: Path) -> None:
    t = _table(tmp_path)
    svc = t.service
    st = svc.state
    mine = svc.snapshot(viewer=0)
    assert mine["hand"] == list(st.hands[0]) and mine["viewer"] == 0
    assert [s["cards"] for s in mine["seats"]] == [6, 6, 6, 6]
    # the snapshot for seat 0 (and a spectator's) must not change when another seat's hand does
    other = tuple(("joker",) * 6 if s == 1 else h for s, h in enumerate(st.hands))
    for viewer in (0, None):
        svc.state = st
        a = json.dumps(svc.snapshot(viewer))
        svc.state = replace(st, hands=other)
        b = json.dumps(svc.snapshot(viewer))
        assert a == b
    # nor does the game record while the game goes on: the deal shows how many cards, not which
    events = svc.export()["events"]
    deal = next(e for e in events if e["kind"] == "deal")
    assert deal["hands"] == [6, 6, 6, 6] and not any(c in json.dumps(events) for c in ("joker", "1/11", "swap"))
    svc.state = st
    spectator = svc.snapshot(None)
    assert spectator["hand"] is None and spectator["hands_known"] is True
    assert '"hands":' not in json.dumps(spectator)
    close(t)


def test_a_card_the_seat_does_not_hold_is_refused_and_a_play_leaves_the_hand(tmp_path: Path) -> None:
    t = _table(tmp_path)
    svc = t.service
    _through_exchange(t)
    st = svc.state
    seat = st.turn
    missing = next(c for c, _ in st.variant.deck if c not in st.hands[seat])
    with pytest.raises(T.TableError, match="does not hold"):
        t.submit(T.CardSeen(missing, seat))
    assert svc.state.card is None and svc.state.hands == st.hands
    card = next(c for c in st.hands[seat] if engine.legal_moves(st.position, c, seat))
    t.submit(T.CardSeen(card, seat))
    t.stage_play(0)
    after = svc.state
    assert after.verdict.legal and after.turn != seat
    assert len(after.hands[seat]) == after.hand_size(seat) == len(st.hands[seat]) - 1
    assert sorted(after.hands[seat] + (card,)) == sorted(st.hands[seat])
    assert svc.snapshot(seat)["hand"] == list(after.hands[seat])
    close(t)


@pytest.mark.parametrize("players,team", [(4, True), (3, False)])
def test_the_exchange_passes_one_card_face_down_to_partner_or_left_neighbour(
        tmp_path: Path, players: int, team: bool) -> None:
    t = _table(tmp_path, "classic", players)
    svc = t.service
    st = svc.state
    assert st.phase == "exchange" and st.still_to_give() == st.seats
    receiver = 2 if team else 1  # partner opposite; solo: the left neighbour (next seat in play order)
    assert st.receiver(0) == receiver
    with pytest.raises(T.TableError, match="first the exchange"):
        t.submit(T.CardSeen(st.hands[0][0], 0))
    with pytest.raises(T.TableError, match="every player gives"):
        t.submit(T.ExchangeDone("web"))
    card = st.hands[0][0]
    t.submit(T.CardGiven(0, card, "web"))
    mid = svc.state
    assert mid.phase == "exchange" and 0 not in mid.still_to_give()
    assert len(mid.hands[0]) == len(st.hands[0]) - 1 and mid.hands[receiver] == st.hands[receiver]  # face down
    assert svc.snapshot(receiver)["given"] is None and svc.snapshot(0)["given"] == card
    said = svc.snapshot(None)["log"][-1]["text"]
    assert said["en"] == f"Red gives a card face down to {'Green' if team else 'Blue'}" and card not in said["de"]
    with pytest.raises(T.TableError, match="already given"):
        t.submit(T.CardGiven(0, mid.hands[0][0], "web"))
    t.set_bots([s for s in st.seats if s != 0])
    while svc.state.phase == "exchange":
        assert t.bot_step()
    done = svc.state
    assert done.phase == "play" and done.turn == st.turn
    gifts = {e.seat: e.card for e in svc.journal.events(svc.game_id) if isinstance(e, T.CardGiven)}
    assert gifts[0] == card and set(gifts) == set(st.seats)
    for s in st.seats:  # each seat lost the card it gave and holds the one given to it
        giver = next(g for g in st.seats if st.receiver(g) == s)
        assert Counter(done.hands[s]) == Counter(st.hands[s]) - Counter([gifts[s]]) + Counter([gifts[giver]])
    for s in st.seats:
        assert len(done.hands[s]) == done.hand_size(s) == st.cards_this_round()
    close(t)


def test_a_resumed_game_holds_the_cards_it_held(tmp_path: Path) -> None:
    t = _table(tmp_path, seed=11)
    svc = t.service
    t.set_bots(list(svc.state.seats))
    for _ in range(9):  # the exchange and a few plays into round 1
        assert t.bot_step()
    st = svc.state
    assert st.phase == "play" and st.round_no == 0 and sum(st.played) >= 3
    hands = st.hands
    close(t)
    again_t = SimulatedTable(Service(SETTINGS, Journal(tmp_path / "j.sqlite")), seed=11)
    again = again_t.service
    assert again_t.open(T.Setup("classic", 4, "highlight")) is True
    assert again.state.hands == hands and again.state.seq == st.seq  # no second deal
    again_t.set_bots(list(again.state.seats))
    for _ in range(20):
        before = again.state
        assert again_t.bot_step()
        v = again.state.verdict
        if v is not before.verdict and v is not None and v.play:
            assert v.card in before.hands[v.seat]
    close(again_t)


def test_undo_takes_back_the_card_in_play_and_the_board_put_back_clears_not_allowed(tmp_path: Path) -> None:
    t = _table(tmp_path)
    svc = t.service
    _through_exchange(t)
    st = svc.state
    seat = st.turn
    card = st.hands[seat][0]
    t.submit(T.CardSeen(card, seat))
    assert svc.snapshot()["can_undo"]
    t.submit(T.Undo("web"))
    assert svc.state.card is None and svc.state.hands == st.hands and "takes the" in svc.state.log[-1].text["en"]
    # a wrong board: Not allowed; put back: the verdict is a note, no longer "not allowed"
    t.submit(T.CardSeen(card, seat))
    assert not T.occupancy(svc.state.position)  # every piece still in its kennel
    t.move(f"S{seat}K0", "T5")
    t.settle()
    assert svc.state.flag is not None and not svc.state.verdict.legal
    t.board = svc.state.position
    t.settle()
    snap = svc.snapshot()
    assert snap["flag"] is None and snap["verdict"]["legal"] and "back" in snap["verdict"]["reason"]["en"]
    close(t)


def test_a_card_that_cannot_move_says_what_to_do_instead(tmp_path: Path) -> None:
    t = _table(tmp_path, seed=3)
    svc = t.service  # Red: swap joker 7 8 5 13, all pieces in the kennel
    _through_exchange(t)
    hand = svc.state.hands[0]
    assert "7" in hand and {"joker", "13"} & set(hand)
    t.submit(T.CardSeen("7", 0))
    snap = svc.snapshot(0)
    assert snap["stuck"] == "no_play_other" and snap["plays_total"] == 0
    assert svc.state.log[-1].text["en"] == "Red cannot move with the 7: play another card"
    # without a start card, nothing in the hand can move: lay the hand down (a team game)
    st = svc.state
    svc.state = replace(st, hands=(("7", "8", "5", "2", "3", "9"),) + st.hands[1:])
    assert svc.snapshot(0)["stuck"] == "no_play_hand"
    close(t)


def test_a_real_table_knows_no_hands_and_follows_the_cards_it_sees(tmp_path: Path) -> None:
    svc = Service(SETTINGS, Journal(tmp_path / "real.sqlite"))
    svc.open(T.Setup("classic", 4, "highlight"))
    svc.submit(T.BoardSettled.of(T.occupancy(svc.state.position), "camera"))
    snap = svc.snapshot(0)
    assert snap["phase"] == "exchange" and snap["hands_known"] is False and snap["hand"] is None
    svc.submit(T.CardGiven(0, None, "button"))  # who gave is counted, no card is known
    assert svc.state.still_to_give() == (1, 2, 3)
    svc.submit(T.ExchangeDone("button"))  # or the button: everyone has exchanged
    svc.submit(T.CardSeen("joker", 0, "camera"))  # any card of the deck: nobody told the service the hands
    assert svc.state.card == "joker" and svc.state.plays
    svc.journal.close()
