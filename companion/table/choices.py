"""What the rules let a player do now, as far as the table knows, and who saw which card.

A player who can move must move (RULES.md §3.9): the plays a card offers, whether any card of
a known hand can move, what a stuck player does in this edition (lay the hand down, or
discard one card), and whose eyes words about a card are for (`LogEntry.to`): where hands
are known (phones, the simulated table) a card that cannot move was seen by its holder alone.
"""
from __future__ import annotations

import engine
from engine.position import Position
from companion.table.hidden import known
from companion.table.reading import board_key
from companion.table.state import TableState


def holder_only(state: TableState, seat: int) -> int | None:
    """Who may read words about a card in `seat`'s hand: that seat where hands are known (the
    others never saw the card); at a real table everybody saw the card it was shown."""
    return seat if state.hands is not None else None


def card_audience(state: TableState) -> int | None:
    """Who saw the card in play. A card that cannot move, where hands are known, was shown only
    on its holder's phone: it never reached the table (it goes back to the hand or to the pile)."""
    if state.card is None or state.card_seat is None or state.plays:
        return None
    return holder_only(state, state.card_seat)


def offered_plays(pos: Position, plays: tuple[engine.Play, ...] | list[engine.Play]) -> tuple[engine.Play, ...]:
    """The plays a card offers: a play that changes nothing (a swap with no swap possible) only
    when the card has no real play, since a player who can move must move (RULES.md §3.9)."""
    real = tuple(p for p in plays if board_key(p.result) != board_key(pos))
    return real or tuple(plays)


def stuck_rule(variant: engine.Variant) -> str:
    """What a player who cannot move does in this edition: "lay_down" (the whole hand, RULES.md
    §3.9; solo games discard one card instead) or "discard" (one card per turn, Brändi Dog)."""
    return getattr(variant, "stuck", "lay_down")


def movable_card(state: TableState, seat: int) -> str | None:
    """A card of `seat`'s hand that can move a piece (hands known), else None.

    Only the cards this table knows count: a "?" (a card of another table's seat) is the
    host's to check, which knows it, so a joined table never refuses what the host allowed.

    A swap with no swap possible moves nothing: it may be laid down without effect, but it
    does not oblige a player who cannot move any piece to keep the hand (the classic rulebook:
    who cannot move any piece passes for the round).
    """
    assert state.hands is not None
    key = board_key(state.position)
    return next((c for c in dict.fromkeys(known(state.hands[seat]))
                 if any(board_key(p.result) != key for p in engine.legal_moves(state.position, c, seat))), None)


def stuck_key(state: TableState, seat: int, card: str) -> str:
    """What a player whose card cannot move must do: another card, lay the hand down, or discard.

    Only the simulated table knows the other cards; at a real table the words cover both cases.
    """
    if state.hands is None:
        return "no_play_card"
    hand = state.hands[seat]
    if any(engine.legal_moves(state.position, c, seat) for c in set(known(hand)) - {card}):
        return "no_play_other"
    if len(known(hand)) < len(hand):  # cards this table does not know: the words cover both cases
        return "no_play_card"
    if stuck_rule(state.variant) == "discard":
        return "no_play_discard_one"
    return "no_play_hand" if state.position.is_team_game else "no_play_discard"


def stuck(state: TableState) -> str | None:
    """For the page: why the card in play cannot move and what to do (None: it can move)."""
    if state.card is None or state.card_seat is None or state.plays:
        return None
    return stuck_key(state, state.card_seat, state.card)
