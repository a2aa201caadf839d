"""The actions that stand in a game (`TableState.history`): pushed as they happen, popped by undo.

An undo restores the whole state before the action, so what the history says stands is
what the record of the game lists, and a player's own undo can be checked against it: it
takes back their latest action only while that is the table's latest.
"""
from __future__ import annotations

from dataclasses import replace

from engine.position import Position
from companion.table.state import Action, TableState
from companion.texts import player_name, say


def acted(before: TableState, after: TableState, kind: str, seat: int | None, text: dict[str, str],
          card: str | None = None, notation: str | None = None, position: Position | None = None) -> TableState:
    """`after` with the action that led to it on top of the history (undo restores `before`)."""
    action = Action(before.seq, kind, seat, before.round_no, text, card, notation, position, before)
    return replace(after, history=before.history + (action,))


def own_undo_refusal(state: TableState, seat: int) -> str | None:
    """Why `seat`'s own undo would be refused now (None: it would take back its latest action).

    Its latest action must be the table's latest: the card it just showed, or the top of the
    history. The words name who acted since and how, never a card.
    """
    if state.card is not None and state.card_seat is not None:
        if seat == state.card_seat:
            return None
        return say("en", "since_card", player=_name(state, state.card_seat))
    last = state.history[-1] if state.history else None
    if last is None or last.before is None:
        return say("en", "nothing_yours")
    return None if last.seat == seat else _since(state, last)


_SINCE = {"play": "since_play", "out": "since_out", "discard": "since_discard", "give": "since_give"}


def _since(state: TableState, last: Action) -> str:
    """Why a player may not take back their own action: what came after it, naming no card."""
    if last.seat is None or last.kind not in _SINCE:
        return say("en", "since_fix")
    return say("en", _SINCE[last.kind], player=_name(state, last.seat))


def _name(state: TableState, seat: int) -> str:
    return player_name(state.position.board.colours[seat])("en")
