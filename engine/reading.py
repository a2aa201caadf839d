"""A play's notation read back: `parse_play(position, text)` is the legal Play the text names.

The model is python-chess's `Move.from_uci` / `uci()`: `parse_play(pos, play.notation, seat)`
gives `play` back for every play `legal_moves` lists. The text is matched against the legal
plays of its card, so whatever reads it reads exactly what the engine would have listed;
whitespace may differ ("7: T3-T5,T20-H1" reads as "7: T3-T5, T20-H1").
"""
from __future__ import annotations

from engine import notation
from engine.errors import NotationError
from engine.moves import Play, legal_moves
from engine.position import Position
from engine.rulesdata import ALL_CARDS


def _card_of(pos: Position, text: str) -> tuple[str, str]:
    """(the card laid down, what it counts as) from the text before the ':'."""
    words = text.split()
    if len(words) == 3 and words[1] == "as":
        card, as_card = words[0], words[2]
    elif len(words) == 1:
        card = as_card = words[0]
    else:
        raise NotationError(f"{text.strip()!r} is not a card (e.g. '7' or 'joker as 7')")
    for c in (card, as_card):
        if c not in ALL_CARDS:
            raise NotationError(f"{c!r} is not a card id (card ids: {', '.join(ALL_CARDS)})")
        if c not in pos.variant.cards:
            raise NotationError(f"{c!r} is not in the {pos.variant.name} deck")
    return card, as_card


def parse_play(pos: Position, text: object, seat: int | None = None) -> Play:
    """The legal play `text` names, as `Play.notation` writes it.

    `seat`: who lays the card down; None tries every seat of the position, and the text must
    name a legal play of exactly one of them (else pass `seat`). Raises NotationError, one line
    naming the problem, for a text that is not a play's notation or names no legal play; an
    unknown seat raises CardError, as for `legal_moves`.
    """
    if not isinstance(text, str):
        raise NotationError(f"a play's notation is text, not {type(text).__name__}")
    head, colon, body = text.partition(":")
    if not colon:
        raise NotationError(f"{text!r}: no ':' after the card (e.g. '5: T60-H0')")
    card, _ = _card_of(pos, head)
    bad = notation.malformed_part(body)
    if bad is not None:
        raise NotationError(f"{text!r}: {bad!r} is not a part of a play (e.g. 'T3-T5', 'T3<>T40', 'dog T14-T19')")
    wanted = notation.compact(text)
    found: dict[int, Play] = {}
    for s in pos.seats if seat is None else (seat,):
        for play in legal_moves(pos, card, s):
            if notation.compact(play.notation) == wanted:
                found[s] = play
                break
    who = "any seat" if seat is None else f"seat {seat}"
    if not found:
        raise NotationError(f"{text!r} is not a legal play for {who} in this position")
    plays = list(found.values())
    if any(p.result != plays[0].result for p in plays[1:]):
        raise NotationError(f"{text!r} is a play of seats {', '.join(map(str, found))}: say which (seat=)")
    return plays[0]
