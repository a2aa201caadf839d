"""Two simulated tables play one game through a real Mosquitto: seats on both, the journals agree."""
from __future__ import annotations

import json
import threading
import time

import pytest

from companion import table as T
from companion.remote import protocol as P
from tests.remote.linked_rig import host_table, joined_table, journal_view, wait_for


SHORT = {"variant": "classic", "board": 4, "last_card": None,
         "pieces": [["H2", "H3", "T10", "T40"], ["H2", "H3", "T30", "K"], ["H2", "H3", "T50", "T20"],
                    ["K", "K", "T5", "T60"]]}


def test_a_whole_game_over_two_tables(broker, tmp_path):
    setup = T.Setup("classic", 4, "highlight")
    alice = host_table(broker, tmp_path, "alice", setup, bots=(0, 2), keep=(0, 2), seed=5)
    bob = None
    try:
        code = alice.link.code
        assert P.code_game(code) == "alice"
        bob = joined_table(broker, tmp_path, "bob", code, (1, 3), bots=(1, 3), seed=6)
        # a short game the host sets as a correction, to its end (the long run: scripts/remote_soak.py)
        alice.table.submit(T.SetPosition(json.dumps(SHORT), "web"))
        alice.table.start_bots()
        bob.table.start_bots()
        wait_for(lambda: alice.service.state.phase == "over", timeout=240, what="the game to end")
        wait_for(lambda: bob.service.state.seq == alice.service.state.seq, what="bob to catch up")
        assert bob.service.state.winner == alice.service.state.winner is not None
        host_events = alice.service.journal.events(alice.service.game_id)
        assert len(host_events) > 40
        # the same events in the same order; bob's journal holds only the cards bob may know
        assert journal_view(bob.service) == journal_view(alice.service)
        bob_raw = [T.event_to_json(e) for e in bob.service.journal.events(bob.service.game_id)]
        assert bob_raw == journal_view(alice.service, frozenset({1, 3}))
        deals = [e for e in bob.service.journal.events(bob.service.game_id) if isinstance(e, T.Deal)]
        assert deals and all(set(d.hands[0]) == {T.UNKNOWN} and set(d.hands[1]) != {T.UNKNOWN} for d in deals)
        assert T.board_key(bob.service.state.position) == T.board_key(alice.service.state.position)
    finally:
        if bob is not None:
            bob.stop()
        alice.stop()


def test_a_table_acts_for_its_own_seats_only(broker, tmp_path):
    setup = T.Setup("classic", 4, "highlight")
    alice = host_table(broker, tmp_path, "alice", setup, bots=(), keep=(0, 2), seed=5)
    bob = None
    try:
        bob = joined_table(broker, tmp_path, "bob", alice.link.code, (1, 3))
        wait_for(lambda: bob.service.state.seq == alice.service.state.seq and bob.service.state.hands is not None,
                 what="the deal to reach bob")
        st = bob.service.state
        before = alice.service.state.seq
        gift = st.hands[1][0]
        for event in (T.CardGiven(0, None), T.Undo("web"), T.SetMode("training"), T.SetTurn(1)):
            with pytest.raises(T.TableError):
                bob.service.submit(event)
        assert alice.service.state.seq == before
        bob.service.submit(T.CardGiven(1, gift, "web"))
        assert alice.service.state.gifts and alice.service.state.gifts[0] == (1, gift)
        wait_for(lambda: bob.service.state.seq == alice.service.state.seq, what="bob to see its gift")
        with pytest.raises(T.TableError, match="starts new games"):
            bob.service.new_game("classic", 4)
    finally:
        if bob is not None:
            bob.stop()
        alice.stop()


def test_a_wrong_code_or_a_taken_seat_is_refused(broker, tmp_path):
    from companion.remote.link import LinkError

    alice = host_table(broker, tmp_path, "alice", T.Setup("classic", 4, "highlight"), bots=(), keep=(0,))
    try:
        with pytest.raises(LinkError, match="not the invitation code"):
            joined_table(broker, tmp_path, "bob", "alice-AAAAAAAA", (1,))
        with pytest.raises(LinkError, match="is played at table alice"):
            joined_table(broker, tmp_path, "bob", alice.link.code, (0,))
    finally:
        alice.stop()


def _hidden_cards(obj, path=()) -> list[str]:
    """Every place in a message that names a card of a hand: a dealt hand, a hand shown, a gift."""
    found = []
    if isinstance(obj, dict):
        kind = obj.get("kind")
        for key, value in obj.items():
            if kind == "deal" and key in ("hands", "stock") and value not in ([], None):
                cards = [c for h in value for c in (h if isinstance(h, list) else [h])] if key == "hands" else value
                found += [f"{'/'.join(path)}:{key}" for c in (cards if isinstance(cards, list) else [])
                          if isinstance(c, str) and c != T.UNKNOWN]
            elif kind == "hand" and key == "cards":
                found += [f"{'/'.join(path)}:cards" for c in value if c != T.UNKNOWN]
            elif kind == "give" and key == "card" and value not in (None, T.UNKNOWN):
                found.append(f"{'/'.join(path)}:gift")
            elif key in ("hand", "given") and value:
                found.append(f"{'/'.join(path)}:{key}")
            else:
                found += _hidden_cards(value, path + (key,))
    elif isinstance(obj, list):
        for v in obj:
            found += _hidden_cards(v, path)
    return found


def test_another_table_and_an_anonymous_client_never_see_a_hand(open_broker, tmp_path):
    """carol (a table not in the game) and an anonymous client subscribe to everything while
    alice and bob deal, exchange and play: they see the public game and never a card of a hand."""
    import json
    import threading

    from companion.remote.link import Endpoint, Link

    seen: dict[str, list[tuple[str, bytes]]] = {"carol": [], "anonymous": [], "bob": []}
    lock = threading.Lock()

    def spy(name):
        def on(topic, payload):
            with lock:
                seen[name].append((topic, payload))
        return on

    creds = open_broker.credentials("carol")
    spies = [Link(Endpoint(open_broker.host, open_broker.port, True, creds.username, creds.password, str(creds.ca)),
                  "carol", ("#",), spy("carol")),
             Link(Endpoint(open_broker.host, open_broker.port, True, ca=str(creds.ca)), "spy-anonymous", ("#",),
                  spy("anonymous"))]
    for s in spies:
        s.start()
    alice = host_table(open_broker, tmp_path, "alice", T.Setup("classic", 4, "highlight"), bots=(0, 2), keep=(0, 2),
                       seed=9)
    bob = None
    try:
        bob = joined_table(open_broker, tmp_path, "bob", alice.link.code, (1, 3), bots=(1, 3), seed=10)
        bob.link.link.observers.append(spy("bob"))
        alice.table.start_bots()
        bob.table.start_bots()
        wait_for(lambda: alice.service.state.round_no >= 1 and alice.service.state.seq > 60, 120,
                 what="two deals, an exchange and plays")
    finally:
        if bob is not None:
            bob.stop()
        alice.stop()
        for s in spies:
            s.stop()
    with lock:
        got = {k: list(v) for k, v in seen.items()}
    # bob's own link did see its hands (the check can find them), the spies saw the game but no hand
    bob_cards = [h for _, p in got["bob"] for h in _hidden_cards(json.loads(p)) if p[:1] == b"{"]
    assert bob_cards, "the check finds no hand even where one is sent"
    for name in ("carol", "anonymous"):
        topics = {t for t, _ in got[name]}
        assert any(t.endswith("/public/events") for t in topics), f"{name} saw no public event"
        assert not any("/games/alice/tables/" in t for t in topics), (name, topics)  # no table's own topic
        leaks = [h for _, p in got[name] if p[:1] == b"{" for h in _hidden_cards(json.loads(p))]
        assert leaks == [], (name, leaks[:5])


def test_the_host_takes_back_a_lost_tables_seats(broker, tmp_path):
    alice = host_table(broker, tmp_path, "alice", T.Setup("classic", 4, "highlight"), bots=(), keep=(0, 2))
    bob = None
    try:
        bob = joined_table(broker, tmp_path, "bob", alice.link.code, (1, 3))
        assert alice.link.seats_of("bob") == (1, 3)
        alice.link.hand_over("bob")  # the host's page: "Play table bob's seats here"
        assert alice.link.seats_of("bob") == ()
        wait_for(lambda: bob.link.problem is not None and "handed your seats" in bob.link.problem,
                 what="bob to hear its seats were handed over")
        remote = alice.service.devices_status["remote"]
        assert {remote["seats"][str(s)] for s in (1, 3)} == {"alice"}
        with pytest.raises(T.TableError):
            bob.service.submit(T.CardGiven(1, "A", "web"))  # no seat of bob's any more
    finally:
        if bob is not None:
            bob.stop()
        alice.stop()


def test_a_catch_up_read_before_a_new_game_goes_out_under_its_own_game(broker, tmp_path):
    """The host reads a catch-up (`since`) from its journal; a new game opens before it is sent:
    the events still carry the old game's number, so the joined table, already following the
    new game, never takes them for the new game's."""
    alice = host_table(broker, tmp_path, "alice", T.Setup("classic", 4, "highlight"), bots=(), keep=(0, 2), seed=3)
    bob = None
    got: list[dict] = []
    try:
        bob = joined_table(broker, tmp_path, "bob", alice.link.code, (1, 3))
        wait_for(lambda: bob.service.state.seq == alice.service.state.seq and bob.service.state.hands is not None,
                 what="the deal to reach bob")
        old = alice.service.game_id
        bob.link.link.observers.append(
            lambda topic, payload: got.append(json.loads(payload)) if topic.endswith("/tables/bob/events") else None)
        relay = alice.link
        publish = relay._publish_event

        caller = threading.current_thread()

        def late(*args, **kw):  # between the read and the sending, the host starts a new game
            if relay.__dict__.get("_publish_event") is late and threading.current_thread() is caller:
                del relay._publish_event
                alice.table.new_game("classic", 4)
                wait_for(lambda: bob.link.epoch == alice.service.game_id, what="bob to follow the new game")
            publish(*args, **kw)

        relay._publish_event = late
        relay._since({"table": "bob", "epoch": old, "seq": 0})
        new = alice.service.game_id
        assert new != old
        wait_for(lambda: bob.service.state.seq == alice.service.state.seq and bob.link.epoch == new,
                 what="bob to catch up with the new game")
        # the catch-up went out, as the old game's
        wait_for(lambda: len([m for m in got if m["epoch"] == old]) == len(alice.service.journal.events(old)), 20,
                 what="the catch-up under the old game's number")
        with alice.service.lock:
            host_new = [T.event_to_json(T.event_for(e, frozenset({1, 3}))) for e in alice.service.journal.events(new)]
        assert all(m["event"] == host_new[m["seq"]] for m in got if m["epoch"] == new)
        assert journal_view(bob.service) == journal_view(alice.service)
    finally:
        if bob is not None:
            bob.stop()
        alice.stop()


def test_a_table_joining_while_the_host_is_paused_says_so_and_logs_no_failure(broker, tmp_path, caplog):
    """The host's retained presence reaches a joining table before its game is open there."""
    alice = host_table(broker, tmp_path, "alice", T.Setup("classic", 4, "highlight"), bots=(), keep=(0, 2))
    bob = None
    try:
        alice.link.link.publish(P.presence_topic("alice"), alice.link._presence("paused"), retain=True)
        assert alice.link.link.flush(10)
        with caplog.at_level("ERROR", logger="companion.remote"):
            bob = joined_table(broker, tmp_path, "bob", alice.link.code, (1, 3))
            wait_for(lambda: bob.service.devices_status["remote"]["tables"]["alice"] == "paused",
                     what="bob to say the host is paused")
        assert [r.getMessage() for r in caplog.records if r.levelname == "ERROR"] == []
    finally:
        if bob is not None:
            bob.stop()
        alice.stop()


def test_events_out_of_order_and_twice_and_a_request_twice_act_once(broker, tmp_path):
    """The broker may deliver a message twice and, across a reconnect, later ones first: a joined
    table commits each event once and in the host's order, and the host acts on a request once."""
    alice = host_table(broker, tmp_path, "alice", T.Setup("classic", 4, "highlight"), bots=(), keep=(0, 2), seed=4)
    bob = None
    held: list[tuple[str, bytes]] = []
    try:
        bob = joined_table(broker, tmp_path, "bob", alice.link.code, (1, 3))
        wait_for(lambda: bob.service.state.seq == alice.service.state.seq and bob.service.state.hands is not None,
                 what="the deal to reach bob")
        link, handle = bob.link.link, bob.link.handle
        link.on_message = lambda topic, payload: (held.append((topic, payload)) if topic.endswith("/tables/bob/events")
                                                  else handle(topic, payload))
        have = bob.service.state.seq
        for seat in (0, 2):  # two events at the host: its own seats' gifts
            alice.table.give(seat, None)
        wait_for(lambda: {json.loads(p)["seq"] for _, p in held} >= {have, have + 1}, what="the two events to be sent")
        first = next((t, p) for t, p in held if json.loads(p)["seq"] == have)
        second = next((t, p) for t, p in held if json.loads(p)["seq"] == have + 1)
        handle(*second)  # early: it waits for the one before it
        time.sleep(0.3)
        assert bob.service.state.seq == have
        for message in (first, first, second):  # then the missing one, and both again
            handle(*message)
        wait_for(lambda: bob.service.state.seq == have + 2, what="bob to commit both")
        time.sleep(0.3)
        assert bob.service.state.seq == alice.service.state.seq == have + 2
        assert journal_view(bob.service) == journal_view(alice.service)

        # a request delivered twice: answered twice, done once
        link.on_message = handle
        card = bob.service.state.hands[1][0]
        request = dict(id="twice", epoch=bob.link.epoch, at=bob.service.state.seq,
                       event=T.event_to_json(T.CardGiven(1, card, "web")))
        bob.link._send("request", **request)
        bob.link._send("request", **request)
        wait_for(lambda: bob.service.state.seq == have + 3, what="the gift to come back to bob")
        assert alice.link.wait_idle(10) and alice.link.link.flush(10)
        time.sleep(0.3)
        gifts = [e for e in alice.service.journal.events(alice.service.game_id) if isinstance(e, T.CardGiven)]
        assert [g.seat for g in gifts] == [0, 2, 1]
        assert bob.service.state.seq == alice.service.state.seq == have + 3
    finally:
        if bob is not None:
            bob.stop()
        alice.stop()


def test_the_host_hands_a_lost_tables_seats_to_another_table(broker, tmp_path):
    alice = host_table(broker, tmp_path, "alice", T.Setup("classic", 4, "highlight"), bots=(), keep=(0, 2))
    bob = carol = None
    try:
        bob = joined_table(broker, tmp_path, "bob", alice.link.code, (1,))
        carol = joined_table(broker, tmp_path, "carol", alice.link.code, (3,))
        wait_for(lambda: carol.service.state.seq == alice.service.state.seq and carol.service.state.hands is not None,
                 what="the deal to reach carol")
        alice.link.hand_over("bob", to="carol")  # the host's page: "Give table bob's seats to carol"
        assert alice.link.seats_of("carol") == (1, 3) and alice.link.seats_of("bob") == ()
        wait_for(lambda: carol.link.seat_tables.get(1) == "carol", what="carol to hear it holds seat 1")
        wait_for(lambda: bob.link.problem is not None and "handed your seats to carol" in bob.link.problem,
                 what="bob to hear where its seats went")
        wait_for(lambda: carol.service.state.hands is not None and carol.service.state.hands[1][0] != T.UNKNOWN,
                 what="seat 1's cards at carol")
        card = carol.service.state.hands[1][0]
        carol.service.submit(T.CardGiven(1, card, "web"))  # carol plays seat 1 now
        assert [e.seat for e in alice.service.journal.events(alice.service.game_id) if isinstance(e, T.CardGiven)] == [1]
        with pytest.raises(T.TableError):
            bob.service.submit(T.CardGiven(1, None, "web"))
    finally:
        for t in (carol, bob):
            if t is not None:
                t.stop()
        alice.stop()
