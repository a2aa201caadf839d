"""One game at several tables: the host knows every card, a joined table only its own seats'.

Whole seeded games with bots on the host's state; every event goes, as each joined table may
see it (`event_for`), into that table's state through the same `apply`. After every event the
joined tables agree with the host in everything anyone may see, and in their own seats' cards
once the host showed them the hands that gained cards they could not see (`needs_hand_shown`).
"""
from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from companion import record
from companion import table as T
from companion.journal import Journal
from companion.simulated.players import Bots, deal
from companion.texts import LANGS

U = T.UNKNOWN


@dataclass
class Joined:
    """A joined table: the seats it holds, its state, and the events as it journaled them."""

    seats: frozenset[int]
    state: T.TableState
    events: list[T.Event] = field(default_factory=list)


class Linked:
    """The host's state and the joined tables', every event applied everywhere and checked."""

    def __init__(self, setup: T.Setup, joined: list[frozenset[int]]) -> None:
        self.setup = setup
        self.host = T.new_state(setup)
        self.events: list[T.Event] = []
        self.tables = [Joined(s, T.new_state(setup)) for s in joined]
        self.why_shown: Counter[str] = Counter()  # what made the host show a hand: the action's kind

    def send(self, ev: T.Event) -> str | None:
        """Apply `ev` at the host (its refusal, or None), then at every joined table, then the
        hands those tables must be shown; check that every table agrees with the host."""
        before = self.host
        try:
            self._everywhere(ev)
        except T.TableError as exc:
            assert self.host is before
            return str(exc)
        for t in self.tables:
            shown = T.needs_hand_shown(before, self.host, t.seats)
            assert len({h.seat for h in shown}) == len(shown)
            # exactly the hands that now hold a card this table could not know
            unknown = {s for s in t.seats if t.state.hands is not None and U in t.state.hands[s]}
            assert {h.seat for h in shown} == unknown, (ev, t.seats, shown, unknown)
            for h in shown:
                assert h.cards == self.host.hands[h.seat] and U not in h.cards
                self.why_shown[self.host.history[-1].kind] += 1
                host_before = self.host
                self._everywhere(h)
                # the host knew the hand: a hand shown changes nothing there but the number
                assert replace(self.host, seq=host_before.seq) == host_before
        for t in self.tables:
            agree(self.host, t)
        return None

    def _everywhere(self, ev: T.Event) -> None:
        self.host, _ = T.apply(self.host, ev)
        self.events.append(ev)
        for t in self.tables:
            seen = T.event_for(ev, t.seats)
            assert T.public_event_json(seen) == T.public_event_json(ev)
            t.state, _ = T.apply(t.state, seen)  # what the host applied, the joined table applies
            t.events.append(seen)


# The log only grows at its end (an undo adds a line, it takes none back) and the tables are
# compared after every event, which adds a few lines at most: its newest lines are what is new.
LOG_TAIL = 12


def _public_log(st: T.TableState, viewer: int | None) -> list[tuple]:
    return [(e.seq, e.kind, e.seat, e.text, e.notation) for e in st.log[-LOG_TAIL:] if T.for_viewer(e.to, viewer)]


def agree(host: T.TableState, t: Joined) -> None:
    """The joined table's state is the host's in everything public and in its own seats' cards."""
    js = t.state
    # the pages: compared while no card is in play (a card's plays in words are the costly part
    # of a page, and the plays themselves are compared below at every step)
    pages = not host.plays
    if pages:
        assert T.state_to_json(js, LOG_TAIL) == T.state_to_json(host, LOG_TAIL)
    assert (js.seq, js.position, js.turn, js.phase, js.round_no, js.dealer) == \
        (host.seq, host.position, host.turn, host.phase, host.round_no, host.dealer)
    assert (js.played, js.drawn, js.out, js.card, js.card_seat, js.plays) == \
        (host.played, host.drawn, host.out, host.card, host.card_seat, host.plays)
    assert (len(js.stock), js.deck_left, js.disc_delta, js.flag, js.reading) == \
        (len(host.stock), host.deck_left, host.disc_delta, host.flag, host.reading)
    assert (js.verdict is None) == (host.verdict is None)
    if host.verdict is not None and host.verdict.to is None:
        assert js.verdict == host.verdict
    assert _public_log(js, None) == _public_log(host, None)
    assert [(a.seq, a.kind, a.seat, a.round_no, a.text, a.notation) for a in js.history] == \
        [(a.seq, a.kind, a.seat, a.round_no, a.text, a.notation) for a in host.history]
    assert [s for s, _ in js.gifts] == [s for s, _ in host.gifts]
    assert [s for s, _ in js.given] == [s for s, _ in host.given]
    assert [js.hand_size(s) for s in js.seats] == [host.hand_size(s) for s in host.seats]
    assert (js.hands is None) == (host.hands is None)
    for s in js.seats:
        assert T.own_undo_refusal(js, s) == T.own_undo_refusal(host, s)
        if js.hands is None:
            continue
        assert len(js.hands[s]) == len(host.hands[s])
        if s in t.seats:
            assert js.hands[s] == host.hands[s]
        else:
            assert Counter(c for c in js.hands[s] if c != U) <= Counter(host.hands[s])
        assert U not in T.seat_view(js, s).hand
        if js.phase == "play" and s == js.turn and js.card is None:  # what a lay-down refusal would name
            card = T.movable_card(js, s)
            assert card != U
            if s in t.seats:
                assert card == T.movable_card(host, s)
    for s in t.seats if pages else ():  # what this table's pages show its own seats
        page, hosts = T.state_to_json(js, LOG_TAIL, viewer=s), T.state_to_json(host, LOG_TAIL, viewer=s)
        if T.seat_view(js, s) != T.seat_view(host, s):
            # the host saw more cards laid down (a hand of another table's seat, laid down when
            # it could not move): a hint weighs what its table saw, so it may differ there
            assert T.seat_view(js, s) == replace(T.seat_view(host, s), seen=T.seat_view(js, s).seen)
            assert Counter(T.seat_view(js, s).seen) <= Counter(T.seat_view(host, s).seen)
            assert page["hint"] is None or page["hint"]["play"] in page["plays"]
            for k in ("hint", "leds"):
                page.pop(k), hosts.pop(k)
        assert page == hosts
        assert _public_log(js, s) == _public_log(host, s)


def _cardless(text: str) -> bool:
    return f" {U} " not in f" {text} " and f"{U}," not in text


def play_game(linked: Linked, seed: int, *, undo_rate: float = 0.12, max_events: int = 4000,
              bot_checks: int = 30) -> Counter[str]:
    """A whole seeded game driven by the host's bots, with undos (the host's and a seat's own):
    how many times each kind of step was applied."""
    rng = random.Random(seed)
    host = linked.host
    bots = Bots(host.seats, ("random",) * len(host.seats), seed)
    applied: Counter[str] = Counter()

    def send(kind: str, ev: T.Event) -> str | None:
        refused = linked.send(ev)
        if refused is None:
            applied[kind] += 1
        return refused

    assert send("start", T.BoardSettled.of(T.occupancy(host.position), "test")) is None
    while linked.host.phase != "over" and len(linked.events) < max_events:
        st = linked.host
        if st.hands is None and st.phase in ("exchange", "play") and not st.gifts:
            assert send("deal", deal(st, seed)) is None
            continue
        if rng.random() < undo_rate:
            if rng.random() < 0.5:
                send("undo_host", T.Undo("test"))
            else:
                last = st.card_seat if st.card is not None else (st.history[-1].seat if st.history else None)
                send("undo_own", T.Undo("test", seat=last if last is not None else rng.choice(st.seats)))
            continue
        if st.phase == "exchange":
            seat = rng.choice(st.still_to_give())
            assert send("give", T.CardGiven(seat, bots.gift(st, seat), "test")) is None
            continue
        if st.card is not None:  # a card an undo left in play: set out one of its plays, or take it back
            if st.plays:
                _settle(send, rng.choice(st.plays))
            else:
                assert send("undo_own", T.Undo("test", seat=st.card_seat)) is None
            continue
        mv = bots.move(st)
        if bot_checks and st.turn in {s for t in linked.tables for s in t.seats}:
            bot_checks -= 1  # a bot at a joined table deciding for its own seat decides as the host's
            t = next(t for t in linked.tables if st.turn in t.seats)
            assert bots.move(t.state) == mv
        if mv.action == "sitout":
            assert send("sitout", T.SitOut(st.turn, "test")) is None
            continue
        assert send("card", T.CardSeen(mv.card or "", st.turn, "test")) is None
        if rng.random() < 0.05:  # the hint button: advice from the hand as each table knows it
            assert send("hint", T.AskHint("test")) is None
        if mv.action == "play" and mv.play is not None:
            _settle(send, mv.play)
        else:
            assert send(mv.action, T.Discard(mv.action == "discard_redraw", "test")) is None
    for t in linked.tables:  # no word any table wrote names a card it did not know
        assert all(_cardless(e.text[lang]) for e in t.state.log for lang in LANGS)
    return applied


def _settle(send, play) -> None:
    if play.disc_turn:
        send("settle", T.BoardSettled.of(T.occupancy(T.unturned(play)), "test"))
        for _ in range(abs(play.disc_turn)):
            send("settle", T.DiscTurned(1 if play.disc_turn > 0 else -1, "test"))
    send("settle", T.BoardSettled.of(T.occupancy(play.result), "test"))


# Whole games for classic (team and solo); the other editions for several rounds (random bots
# take thousands of events to finish a Black DOG game), Black DOG and Brändi in training mode
# (a hint at every card, weighed with the hand as each table knows it).
@pytest.mark.parametrize("variant,players,seed,joined,mode,max_events", [
    ("classic", 4, 21, [frozenset({1, 3}), frozenset({0})], "highlight", 900),  # rounds with every kind of event; whole games: the classic 3 case and tests/remote
    ("classic", 3, 22, [frozenset({1}), frozenset({0, 2})], "highlight", 4000),  # solo: redraws
    ("black", 4, 23, [frozenset({1, 3}), frozenset({2})], "training", 600),
    ("brandi", 4, 24, [frozenset({1, 3}), frozenset({3})], "training", 600),  # discards one card per turn
    ("royal", 4, 25, [frozenset({1, 3}), frozenset({2})], "highlight", 600),  # special fields draw a card
])
def test_joined_tables_follow_a_game_knowing_only_their_own_cards(
        variant: str, players: int, seed: int, joined: list[frozenset[int]], mode: str, max_events: int) -> None:
    linked = Linked(T.Setup(variant, players, mode), joined)
    applied = play_game(linked, seed, max_events=max_events)
    assert linked.host.phase == "over" or len(linked.events) >= max_events, applied
    if max_events > 1000:
        assert linked.host.phase == "over", applied
    # the game went through what the test is about
    for kind in ("give", "undo_host", "undo_own", "settle"):
        assert applied[kind], (kind, applied)
    assert linked.why_shown["give"], linked.why_shown  # a card from another table's seat
    if players == 3:
        assert applied["discard_redraw"] and linked.why_shown["discard"], (applied, linked.why_shown)
    if variant == "royal":
        assert linked.why_shown["play"], linked.why_shown  # a card drawn from the stock after a play
    if variant == "brandi":
        assert applied["discard"], applied
    if variant != "brandi" and players == 4:
        assert applied["sitout"], applied
    for t in linked.tables:
        assert any(st == U for ev in t.events if isinstance(ev, T.Deal) for h in ev.hands for st in h)
        assert any(isinstance(ev, T.CardGiven) and ev.card is None for ev in t.events)
        # the journal each table keeps: the same events by number, as anyone may see them
        assert len(t.events) == len(linked.events)
        assert [T.public_event_json(e) for e in t.events] == [T.public_event_json(e) for e in linked.events]
        # and it replays to the state the table held
        assert T.replay(linked.setup, t.events) == t.state


def _solo_after_gifts() -> tuple[Linked, list[T.CardGiven]]:
    """A 3-player game (host: seats 0 and 2, joined: seat 1) dealt, with all but the last gift."""
    linked = Linked(T.Setup("classic", 3), [frozenset({1})])
    assert linked.send(T.BoardSettled.of(T.occupancy(linked.host.position))) is None
    assert linked.send(deal(linked.host, 5)) is None
    gifts = [T.CardGiven(s, linked.host.hands[s][0]) for s in linked.host.seats]
    for g in gifts[:-1]:
        assert linked.send(g) is None
    return linked, gifts


def test_a_host_undo_after_a_hand_shown_restores_the_hand_the_joined_table_knew() -> None:
    linked, gifts = _solo_after_gifts()
    joined = linked.tables[0]
    giver = next(s for s in linked.host.seats if linked.host.receiver(s) == 1)
    assert giver not in joined.seats
    held = joined.state.hands[1]
    assert linked.send(gifts[-1]) is None  # the exchange is done: seat 1 got a card it could not see
    assert isinstance(linked.events[-1], T.HandShown) and linked.events[-1].seat == 1
    assert U not in joined.state.hands[1] and joined.state.hands[1] == linked.host.hands[1]
    assert linked.send(T.Undo()) is None  # the last gift back: the hand as before the exchange ended
    assert joined.state.phase == "exchange" and joined.state.hands[1] == held
    assert linked.send(gifts[-1]) is None  # given again: shown again
    assert isinstance(linked.events[-1], T.HandShown)
    # a play after the hand was shown, and its undo: the shown cards stay known
    st = linked.host
    card = T.movable_card(st, st.turn)
    assert card is not None
    assert linked.send(T.CardSeen(card, st.turn)) is None
    play = linked.host.plays[0]
    assert linked.send(T.BoardSettled.of(T.occupancy(play.result))) is None
    assert linked.send(T.Undo()) is None
    assert joined.state.hands[1] == linked.host.hands[1] and U not in joined.state.hands[1]


def test_a_joined_seats_own_gift_and_undo_need_no_hand_shown() -> None:
    linked = Linked(T.Setup("classic", 4), [frozenset({1, 3})])
    assert linked.send(T.BoardSettled.of(T.occupancy(linked.host.position))) is None
    assert linked.send(deal(linked.host, 9)) is None
    for s in linked.host.seats:
        assert linked.send(T.CardGiven(s, linked.host.hands[s][-1])) is None
    # partners at the same table gave each other their cards: nothing to show
    assert not any(isinstance(e, T.HandShown) for e in linked.events)
    assert linked.send(T.Undo(seat=linked.host.history[-1].seat)) is None
    assert linked.tables[0].state.phase == "exchange"


def test_event_for_hides_other_seats_cards_and_nothing_else() -> None:
    d = T.Deal(2, (("7", "4"), ("13", "5"), ("joker", "2"), ()), ("9", "10", "12"))
    seen = T.event_for(d, frozenset({1}))
    assert seen == T.Deal(2, ((U, U), ("13", "5"), (U, U), ()), (U, U, U))
    assert T.public_event_json(seen) == T.public_event_json(d)
    assert T.event_for(T.CardGiven(0, "7"), frozenset({1})) == T.CardGiven(0, None)
    assert T.event_for(T.CardGiven(1, "7"), frozenset({1})) == T.CardGiven(1, "7")
    assert T.event_for(T.HandShown(0, ("7", "4")), frozenset({1})) == T.HandShown(0, (U, U))
    assert T.event_for(T.HandShown(1, ("7", "4")), frozenset({1})) == T.HandShown(1, ("7", "4"))
    for ev in (T.CardSeen("7", 0), T.Discard(True), T.SitOut(2), T.Undo(seat=0), T.AskHint()):
        assert T.event_for(ev, frozenset({1})) is ev
    # a hand shown is private: anyone else sees its size, as with a deal's hands
    assert T.public_event_json(T.HandShown(1, ("7", "4"))) == {"kind": "hand", "seat": 1, "cards": 2,
                                                                 "source": "remote"}


def _joined_in_play() -> tuple[Linked, Joined]:
    linked = Linked(T.Setup("classic", 4), [frozenset({1, 3})])
    assert linked.send(T.BoardSettled.of(T.occupancy(linked.host.position))) is None
    assert linked.send(deal(linked.host, 3)) is None
    for s in linked.host.seats:
        assert linked.send(T.CardGiven(s, linked.host.hands[s][0])) is None
    return linked, linked.tables[0]


def test_hand_shown_is_checked_against_what_the_table_knows() -> None:
    linked, joined = _joined_in_play()
    st = joined.state
    mine = st.hands[1]
    assert T.apply(st, T.HandShown(1, mine))[0] == replace(st, seq=st.seq + 1)  # known: a check, no change
    with pytest.raises(T.TableError, match="disagree"):  # another card than the table knows
        other = next(c for c, _ in st.variant.deck if c not in mine)
        T.apply(st, T.HandShown(1, (other,) + mine[1:]))
    with pytest.raises(T.TableError, match="disagree"):  # another size
        T.apply(st, T.HandShown(1, mine[:-1]))
    with pytest.raises(T.TableError, match="not a card"):  # "?" shows no card: all of them, or none
        T.apply(st, T.HandShown(0, linked.host.hands[0][:-1] + (U,)))
    assert T.apply(st, T.HandShown(0, (U,) * len(st.hands[0])))[0].hands == st.hands  # nothing shown
    shown = linked.host.hands[0]
    after, effects = T.apply(st, T.HandShown(0, shown))  # a hand of "?" takes the cards shown
    assert after.hands[0] == shown and effects == () and after.log == st.log and after.history == st.history
    with pytest.raises(T.TableError, match="not known"):  # a real table knows no hand
        T.apply(replace(st, hands=None), T.HandShown(1, mine))


def test_a_joined_table_takes_a_hidden_card_for_a_card_it_did_not_know() -> None:
    linked, joined = _joined_in_play()
    st = joined.state
    seat = st.turn
    assert seat not in joined.seats and set(st.hands[seat]) == {U}
    # any card of the deck may be in a hand of "?": the host checked it; one "?" leaves the hand
    card = T.movable_card(linked.host, seat)
    assert card is not None
    after, _ = T.apply(st, T.CardSeen(card, seat))
    play = after.plays[0]
    after, _ = T.apply(after, T.BoardSettled.of(T.occupancy(play.result)))
    assert after.hands[seat] == (U,) * (len(st.hands[seat]) - 1)
    assert after.seen[-1] == card
    # a hand of "?" can be laid down: the host decided it could not move
    own = replace(after, turn=seat)
    out, _ = T.apply(own, T.SitOut(seat))
    assert out.hands[seat] == () and U not in out.seen
    # no hint, choice or bot view offers a "?"
    assert T.movable_card(own, seat) is None and T.seat_view(own, seat).hand == ()
    # "?" is never a card: it cannot be played anywhere
    with pytest.raises(T.TableError):
        T.apply(own, T.CardSeen(U, seat))


def test_a_stock_of_hidden_cards_gives_a_hidden_card_on_a_redraw() -> None:
    linked, gifts = _solo_after_gifts()
    assert linked.send(gifts[-1]) is None
    st = linked.tables[0].state
    assert set(st.stock) == {U} and len(st.stock) == len(linked.host.stock)
    seat = st.turn
    card = st.hands[seat][0] if seat == 1 else "7"
    shown, _ = T.apply(st, T.CardSeen(card, seat))
    redraw, _ = T.apply(replace(shown, plays=()), T.Discard(True))  # as if stuck: discard and draw one
    assert redraw.hands[seat][-1] == U and len(redraw.stock) == len(st.stock) - 1
    assert len(redraw.hands[seat]) == len(st.hands[seat])


def test_a_gift_of_an_unknown_card_goes_as_an_unknown_card() -> None:
    linked, joined = _joined_in_play()
    # the first round's exchange done: seat 0's gift (to seat 2) is None at the joined table
    assert dict(joined.state.given)[0] is None and dict(joined.state.given)[1] is not None
    st = T.new_state(T.Setup("classic", 3))
    st, _ = T.apply(st, T.BoardSettled.of(T.occupancy(st.position)))
    hands = ((U,) * 6, ("7", "4", "13", "2", "3", "5"), (U,) * 6, ())  # seat index 3 does not play
    st, _ = T.apply(st, T.Deal(0, hands, (U,) * 10))
    with pytest.raises(T.TableError, match="tap the card") as refused:  # a hand known here gives a card of it
        T.apply(st, T.CardGiven(1, None))
    assert U not in str(refused.value)
    st, _ = T.apply(st, T.CardGiven(0, None))
    assert st.gifts == ((0, None),) and st.hands[0] == (U,) * 5 and st.history[-1].card is None
    st, _ = T.apply(st, T.CardGiven(1, "7"))
    st, _ = T.apply(st, T.CardGiven(2, U))  # "?" is the same as None: a card this table did not see
    assert st.phase == "play" and st.gifts == () and st.given == ((0, None), (1, "7"), (2, None))
    assert [st.receiver(s) for s in st.seats] == [1, 2, 0]  # solo: to the left neighbour
    assert st.hands[1] == ("4", "13", "2", "3", "5", U)  # seat 0's gift: a card this table did not see
    assert st.hands[2] == (U,) * 5 + ("7",) and st.hands[0] == (U,) * 6


def test_hand_shown_and_a_hidden_deal_round_trip_through_the_journal(tmp_path: Path) -> None:
    events = [T.HandShown(1, ("7", "joker", "1/11")), T.Deal(0, ((U, U), ("7", "4"), (U, U), ()), (U,) * 3),
              T.CardGiven(0, None)]
    for ev in events:
        assert T.event_from_json(json.loads(json.dumps(T.event_to_json(ev)))) == ev
    assert T.event_to_json(events[0]) == {"kind": "hand", "seat": 1, "cards": ["7", "joker", "1/11"],
                                         "source": "remote"}
    assert T.EVENT_TYPES["hand"] is T.HandShown
    with pytest.raises(T.TableError):
        T.event_from_json({"kind": "hand", "seat": 1, "cards": "7"})
    j = Journal(tmp_path / "j.sqlite")
    gid = j.new_game(T.Setup("classic", 4))
    for seq, ev in enumerate(events):
        j.append(gid, seq, ev)
    j.close()
    assert Journal(tmp_path / "j.sqlite").events(gid) == events


def test_a_joined_tables_record_re_plays() -> None:
    linked = Linked(T.Setup("classic", 3), [frozenset({1})])
    play_game(linked, 31, undo_rate=0.05, max_events=300, bot_checks=0)
    t = linked.tables[0]
    rec = record.game_record(linked.setup, [(i, 0.0, ev) for i, ev in enumerate(t.events)])
    host = record.game_record(linked.setup, [(i, 0.0, ev) for i, ev in enumerate(linked.events)])
    assert rec["plays"] == host["plays"]
    _, pos = record.replay_record(rec)
    assert T.board_key(pos) == T.board_key(linked.host.position)
    text = record.to_text(rec, "en")
    assert U not in text.split()
    _, pos = record.replay_record(record.from_text(text, "joined.txt"))
    assert T.board_key(pos) == T.board_key(linked.host.position)
