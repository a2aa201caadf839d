"""Scripted games for tests and benchmarks: seeded bots at a table, with illegal plays mixed in.

`scripted_game` plays a whole game through `companion.table` the way a real table
would feed it (card seen, board settled, corrections), and records each event with what
the referee must say about it. Tests check the expectations; the crash test replays the
same event list into a service that is killed at random points.
"""
from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

import engine
from engine.bots import GreedyBot
from engine.position import HOME, KENNEL, Position, canonical
from companion import table as T


@dataclass(frozen=True)
class Step:
    event: T.Event
    expect: str  # "legal" | "illegal" | "back" | "any"


def deal(state: T.TableState, seed: int) -> dict[int, list[str]]:
    rng = random.Random(seed * 7919 + state.round_no)
    deck = [c for c, n in state.variant.deck for _ in range(n)]
    rng.shuffle(deck)
    n = state.cards_this_round()
    return {s: [deck.pop() for _ in range(n)] for s in state.seats}


def illegal_board(before: Position, legal_keys: set, rng: random.Random) -> Position | None:
    """A board a careless player might leave: one piece moved to a wrong field, or the wrong piece."""
    board = before.board
    L = board.track_length
    for _ in range(30):
        seat = rng.choice(before.seats)
        locs = list(before.pieces[seat] or ())
        i = rng.randrange(len(locs))
        loc = locs[i]
        occupied = {x for p in before.pieces if p for x in p if x < HOME}
        if loc == KENNEL:
            dest = board.start_field(seat) + rng.choice((1, 2, 5))
        elif loc >= HOME:
            continue
        else:
            dest = (loc + rng.choice((1, 2, 3, 4, 5, 6, 8, 9, 10, 12, 13, 14, -2, -1))) % L
        dest %= L
        if dest in occupied or dest == before.black_dog:
            continue
        locs[i] = dest
        pieces = tuple(canonical(before.variant, locs) if s == seat else p for s, p in enumerate(before.pieces))
        cand = Position(before.variant, board, pieces, before.last_card, before.black_dog, before.disc,
                        before.direction, before.moved_onto_start)
        if T.board_key(cand) not in legal_keys:
            return cand
    return None


def play_events(before: Position, play: engine.Play, only_void: bool = False) -> list[tuple[T.Event, str]]:
    """The board settling after a play; a paw landing settles once before the disc is turned."""
    out: list[tuple[T.Event, str]] = []
    if T.board_key(play.result) == T.board_key(before) and not only_void:
        return [(T.Discard(), "legal")]  # the card could move, so laying it down is said, not seen
    if play.disc_turn:
        out += [(T.BoardSettled.of(T.occupancy(T.rotate_disc(play.result, -play.disc_turn))), "any"),
                (T.DiscTurned(play.disc_turn), "any")]
    return out + [(T.BoardSettled.of(T.occupancy(play.result)), "legal")]


def scripted_game(variant: str, players: int, seed: int, illegal_rate: float = 0.15, undo_rate: float = 0.03,
                  max_events: int = 4000) -> Iterator[tuple[Step, T.TableState]]:
    """Yield (step, state after it) for one whole game; the state is the table's, not a copy."""
    rng = random.Random(seed)
    state = T.new_state(T.Setup(variant, players, "highlight"))
    hands: dict[int, list[str]] = {}
    dealt = -1

    def feed(event: T.Event, expect: str) -> T.TableState:
        nonlocal state
        state, _ = T.apply(state, event)
        return state

    yield Step(T.BoardSettled.of(T.occupancy(state.position)), "any"), feed(
        T.BoardSettled.of(T.occupancy(state.position)), "any")
    bot = GreedyBot(random.Random(seed + 1))
    events = 1
    while state.phase != "over" and events < max_events:
        if state.round_no != dealt:
            hands, dealt = deal(state, seed), state.round_no
        if state.phase == "exchange":
            ev = T.ExchangeDone()
            events += 1
            yield Step(ev, "any"), feed(ev, "any")
            continue
        seat = state.turn
        hand = hands.get(seat) or []
        options = [(c, p) for c in dict.fromkeys(hand) for p in engine.legal_moves(state.position, c, seat)]
        if not options:
            if not hand or state.position.is_team_game:
                ev = T.SitOut(seat)
                events += 1
                yield Step(ev, "any"), feed(ev, "any")
                hands[seat] = []
                continue
            card = rng.choice(hand)
            hand.remove(card)
            for ev in (T.CardSeen(card), T.Discard(redraw=False)):
                events += 1
                yield Step(ev, "any"), feed(ev, "any")
            continue
        card, play = bot.choose(None, seat, options)  # type: ignore[arg-type]
        before = state.position
        ev = T.CardSeen(card)
        events += 1
        yield Step(ev, "any"), feed(ev, "any")
        legal_keys = {T.board_key(p.result) for p in state.plays}
        only_void = legal_keys == {T.board_key(before)}
        # a board half-way through a paw landing (disc not turned yet) is not wrong either
        legal_keys |= {T.board_key(T.rotate_disc(p.result, -p.disc_turn)) for p in state.plays if p.disc_turn}
        if rng.random() < illegal_rate:
            bad = illegal_board(before, legal_keys, rng)
            if bad is not None:
                ev = T.BoardSettled.of(T.occupancy(bad))
                events += 2
                yield Step(ev, "illegal"), feed(ev, "illegal")
                ev = T.BoardSettled.of(T.occupancy(before))
                yield Step(ev, "back"), feed(ev, "back")
        for ev, expect in play_events(before, play, only_void):
            events += 1
            yield Step(ev, expect), feed(ev, expect)
        hand.remove(card)
        if state.phase != "over" and rng.random() < undo_rate:
            # take it back, put the board back, play it again: the table must end where it was
            back = [(T.DiscTurned(-play.disc_turn), "any")] if play.disc_turn else []
            for ev, expect in ((T.Undo(), "any"), *back, (T.BoardSettled.of(T.occupancy(before)), "any"),
                               (T.CardSeen(card, seat), "any"), *play_events(before, play, only_void)):
                events += 1
                yield Step(ev, expect), feed(ev, expect)
