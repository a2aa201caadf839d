"""Two simulated tables play one game through a real Mosquitto: seats on both, the journals agree."""
from __future__ import annotations

import pytest

from companion import table as T
from companion.remote import protocol as P
from tests.remote.linked_rig import host_table, joined_table, journal_view, wait_for


def test_a_whole_game_over_two_tables(broker, tmp_path):
    setup = T.Setup("classic", 4, "highlight")
    alice = host_table(broker, tmp_path, "alice", setup, bots=(0, 2), keep=(0, 2), seed=5)
    bob = None
    try:
        code = alice.link.code
        assert P.code_game(code) == "alice"
        bob = joined_table(broker, tmp_path, "bob", code, (1, 3), bots=(1, 3), seed=6)
        alice.table.start_bots()
        bob.table.start_bots()
        wait_for(lambda: alice.service.state.phase == "over", timeout=240, what="the game to end")
        wait_for(lambda: bob.service.state.seq == alice.service.state.seq, what="bob to catch up")
        assert bob.service.state.winner == alice.service.state.winner is not None
        host_events = alice.service.journal.events(alice.service.game_id)
        assert len(host_events) > 100
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
