"""Cards a table may not know: one game held at several tables, each knowing its own seats' cards.

A table joined to another table's game gets the host's events as it may see them
(`event_for`): every card of a hand it does not hold, and of the stock, is `UNKNOWN` ("?"),
and a card another table's seat gives face down is None. The same `apply` holds such a game:
a "?" stands for whatever card the host checked, so a card laid down, given or drawn takes
one "?" out of (or into) the hand when the table does not know it. Whenever a hand of this
table's seats gains a card it could not see (the exchange, a draw from the stock), the host
tells it the hand (`HandShown`, which `needs_hand_shown` finds and `show_hand` applies).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import replace

from companion.table.events import UNKNOWN, CardGiven, Deal, Event, HandShown, TableError
from companion.table.state import Effect, TableState


def known(cards: Iterable[str]) -> tuple[str, ...]:
    """The cards of a hand (or any cards) this table knows: the "?" left out."""
    return tuple(c for c in cards if c != UNKNOWN)


def holds(hand: tuple[str, ...], card: str) -> bool:
    """Whether `hand` may hold `card`: it does, or it holds a card this table does not know
    (the host, which knows that card, already checked it)."""
    return card in hand or UNKNOWN in hand


def without(hand: tuple[str, ...], card: str | None) -> tuple[str, ...]:
    """`hand` after `card` left it: that card, else one "?" (the card was one the table did not
    know); unchanged when it holds neither (a card it was never dealt leaves nothing)."""
    out = list(hand)
    if card is not None and card in out:
        out.remove(card)
    elif UNKNOWN in out:
        out.remove(UNKNOWN)
    return tuple(out)


def event_for(event: Event, seats: Collection[int]) -> Event:
    """`event` as a table holding `seats` may see it: the cards of every other seat hidden.

    A deal keeps the hands of `seats` and shows every other hand and the stock as "?" of the
    same length (everybody sees how many cards a hand has); a card given face down by another
    seat becomes None; a hand shown for another seat becomes "?" cards. Every other event is
    what the whole table saw, unchanged.
    """
    if isinstance(event, Deal):
        hands = tuple(h if i in seats else (UNKNOWN,) * len(h) for i, h in enumerate(event.hands))
        return replace(event, hands=hands, stock=(UNKNOWN,) * len(event.stock))
    if isinstance(event, CardGiven) and event.seat not in seats and event.card is not None:
        return replace(event, card=None)
    if isinstance(event, HandShown) and event.seat not in seats:
        return replace(event, cards=(UNKNOWN,) * len(event.cards))
    return event


def needs_hand_shown(before: TableState, after: TableState, seats: Collection[int]) -> list[HandShown]:
    """The hands a table holding `seats` must be shown after the event that led from `before`
    to `after` (both the host's, which knows every card), seat by seat.

    A hand of `seats` gains a card that table could not see only through an action the event
    just took: the exchange completing (a card from a seat of another table), or a draw from
    the stock (a solo redraw, a royal special field), which that table holds as "?". A deal
    shows it its own seats' hands, and an undo restores a state it held itself, whose hands
    it knew (a hand shown stays in every later state an undo may go back to).
    """
    if before.hands is None or after.hands is None or not after.history:
        return []
    action = after.history[-1]
    if action.seq != before.seq:  # no action taken now (an undo, a correction of the turn...)
        return []
    unseen: set[int] = set()
    if action.kind == "give" and after.phase != "exchange":  # everybody gave: each picked a card up
        unseen |= {after.receiver(g) for g, _ in after.given if g not in seats}
    if action.seat is not None and len(after.stock) < len(before.stock):  # the seat drew from the stock
        unseen.add(action.seat)
    return [HandShown(s, after.hands[s], "remote") for s in sorted(unseen) if s in seats and s in after.seats]


def show_hand(state: TableState, ev: HandShown) -> tuple[TableState, tuple[Effect, ...]]:
    """A hand as the host knows it: the "?" of this table's state filled in, nothing else changed.

    The host (which knows the hand) checks that it agrees. No log entry (the cards are the
    seat's alone) and no action in the history: an undo never takes a hand shown back by
    itself. What an undo restores is the state before the latest action; if that action came
    after the hand was shown, its state already holds the shown cards, which stay true; if it
    is the action that brought the unseen cards (the exchange's last gift, the redraw), the
    state before it held the seat's hand whole, as the table knew it before those cards came.
    Either way the restored state needs no hand shown, and host and joined table agree.
    """
    if state.hands is None:
        raise TableError("hands are not known at this table: there is no hand to show")
    if ev.seat not in state.seats:
        raise TableError(f"seat {ev.seat} does not play in this game (seats: {list(state.seats)})")
    hand = state.hands[ev.seat]
    if len(ev.cards) != len(hand):
        raise TableError(f"seat {ev.seat} holds {len(hand)} cards here, but the hand shown has {len(ev.cards)}: "
                         "the host and this table disagree")
    if all(c == UNKNOWN for c in ev.cards):
        return state, ()  # the hand as a table that does not hold the seat sees it: nothing shown
    deck = {c for c, _ in state.variant.deck}
    bad = [c for c in ev.cards if c not in deck]
    if bad:
        raise TableError(f"{bad[0]!r} is not a card of {state.variant.name}")
    missing = Counter(known(hand)) - Counter(ev.cards)
    if missing:
        raise TableError(f"seat {ev.seat} holds {', '.join(sorted(missing.elements()))} here, which the hand shown "
                         "does not: the host and this table disagree")
    if UNKNOWN not in hand:
        return state, ()  # the host's own check: it knew the hand already
    hands = tuple(tuple(ev.cards) if i == ev.seat else h for i, h in enumerate(state.hands))
    return replace(state, hands=hands), ()
