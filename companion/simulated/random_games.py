"""Random whole games through the table session, with hands known, undos and illegal attempts.

What a table of careless people does: random bots play (through the same events a phone or
the simulated table sends), and between their actions someone takes something back (their
own latest action, or the host one step), shows a card that is not in the hand, plays out of
turn, or tries to lay the hand down while a card could move. Pure `companion.table.apply`:
no service, no threads, so a seed gives the same game. The property tests and
scripts/table_property.py check every step against the journal's replay and the record.
"""
from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

import engine
from companion import record
from companion import table as T
from companion.simulated.players import Bots, deal


@dataclass(frozen=True)
class Step:
    """One thing someone tried: what, the event, the table's refusal (None: applied), the state after."""

    kind: str  # start | deal | give | card | settle | sitout | discard | undo_own | undo_host | wrong_card
    #            | out_of_turn | early_lay_down
    event: T.Event
    refused: str | None
    state: T.TableState
    before: T.TableState


MISTAKES = ("wrong_card", "out_of_turn", "early_lay_down")


def random_game(variant: str, players: int, seed: int, *, undo_rate: float = 0.1, mistake_rate: float = 0.1,
                max_events: int = 3000, direction: str | None = None) -> Iterator[Step]:
    """The steps of one random game, until it is won or `max_events` events were applied."""
    rng = random.Random(seed)
    st = T.new_state(T.Setup(variant, players, "highlight", direction=direction))
    bots = Bots(st.seats, ("random",) * len(st.seats), seed)
    applied = 0

    def send(kind: str, ev: T.Event) -> Step:
        nonlocal st, applied
        before = st
        try:
            st, _ = T.apply(st, ev)
        except T.TableError as exc:
            return Step(kind, ev, str(exc), st, before)
        applied += 1
        return Step(kind, ev, None, st, before)

    yield send("start", T.BoardSettled.of(T.occupancy(st.position), "test"))
    while st.phase != "over" and applied < max_events:
        if st.hands is None and st.phase in ("exchange", "play") and not st.gifts:
            yield send("deal", deal(st, seed))
            continue
        r = rng.random()
        if r < undo_rate:
            if rng.random() < 0.5:
                yield send("undo_host", T.Undo("test"))
            else:  # mostly the one who just acted (noticing their mistake), else anyone
                last = st.card_seat if st.card is not None else (st.history[-1].seat if st.history else None)
                seat = last if last is not None and rng.random() < 0.7 else rng.choice(st.seats)
                yield send("undo_own", T.Undo("test", seat=seat))
            continue
        if r < undo_rate + mistake_rate and st.phase == "play" and st.card is None:
            mistake = _mistake(st, rng)
            if mistake is not None:
                yield send(*mistake)
                continue
        if st.phase == "exchange":
            seat = rng.choice(st.still_to_give())
            yield send("give", T.CardGiven(seat, bots.gift(st, seat), "test"))
        elif st.card is not None:
            yield from _finish_card(st, rng, send)
        else:
            yield from _turn(st, bots, send)


def _mistake(st: T.TableState, rng: random.Random) -> tuple[str, T.Event] | None:
    assert st.hands is not None
    kind = rng.choice(MISTAKES)
    turn = st.turn
    if kind == "wrong_card":
        missing = [c for c, _ in st.variant.deck if c not in st.hands[turn]]
        return (kind, T.CardSeen(rng.choice(missing), turn, "test")) if missing else None
    if kind == "out_of_turn":
        others = [s for s in st.seats if s != turn and st.hands[s]]
        if not others:
            return None
        seat = rng.choice(others)
        return kind, T.CardSeen(rng.choice(st.hands[seat]), seat, "test")
    if T.movable_card(st, turn) is not None:  # a piece could move: the hand may not be laid down
        return kind, T.SitOut(turn, "test")
    return None


def _turn(st: T.TableState, bots: Bots, send) -> Iterator[Step]:
    """The seat whose turn it is shows a card (its bot's choice) or lays down / discards."""
    mv = bots.move(st)
    if mv.action == "sitout":
        yield send("sitout", T.SitOut(st.turn, "test"))
        return
    step = send("card", T.CardSeen(mv.card or "", st.turn, "test"))
    yield step
    if step.refused is not None:
        return
    if mv.action == "play" and mv.play is not None:
        yield from _settle(step.state, mv.play, send)
    else:
        yield send("discard", T.Discard(mv.action == "discard_redraw", "test"))


def _finish_card(st: T.TableState, rng: random.Random, send) -> Iterator[Step]:
    """A card is in play (a turn an undo broke into): set out one of its plays, or take it back."""
    if st.plays:
        yield from _settle(st, rng.choice(st.plays), send)
    else:
        yield send("undo_own", T.Undo("test", seat=st.card_seat))


def _settle(st: T.TableState, play: engine.Play, send) -> Iterator[Step]:
    """The play set out on the board, the disc turned last as a person does it."""
    if play.disc_turn:
        yield send("settle", T.BoardSettled.of(T.occupancy(T.unturned(play)), "test"))
        for _ in range(abs(play.disc_turn)):
            yield send("settle", T.DiscTurned(1 if play.disc_turn > 0 else -1, "test"))
    yield send("settle", T.BoardSettled.of(T.occupancy(play.result), "test"))


def check(setup: T.Setup, events: list[T.Event], state: T.TableState) -> str | None:
    """What is wrong between the live state and the journal (None: nothing).

    The journal's events replay to the same state, and the game record made from them
    re-plays (rules engine only) to the same board.
    """
    again = T.replay(setup, events)
    if again != state:
        return f"the journal replays to another state (seq {again.seq} vs {state.seq})"
    rec = record.game_record(setup, [(i, 0.0, ev) for i, ev in enumerate(events)])
    try:
        _, pos = record.replay_record(rec)
    except record.RecordError as exc:
        return f"the record does not re-play: {exc}"
    if T.board_key(pos) != T.board_key(state.position):
        return "the record re-plays to another board"
    return None
