"""The simulated table's board as a person changes it: a piece picked up and set down.

This is the world the table service watches, not the service's belief about it: a click
moves a piece here, and only a settled board reading tells the table (companion.table)
what happened, exactly as a camera would.
"""
from __future__ import annotations

import engine
from engine.position import HOME, KENNEL, Position, canonical
from companion.table import TableError


def move_piece(pos: Position, frm: str, to: str) -> Position:
    """A person moves what stands on `frm` to `to`; a piece standing there goes to its kennel."""
    board = pos.board
    try:
        fk, fs, fi = engine.parse_field_id(frm)
        tk, ts, ti = engine.parse_field_id(to)
    except engine.EngineError as exc:
        raise TableError(str(exc)) from None
    pieces = [None if p is None else list(p) for p in pos.pieces]
    dog = pos.black_dog
    if fk == "T" and dog == fi:
        if tk != "T" or tk == "T" and ti in board.start_owner:
            raise TableError("the black dog only stands on track fields that are not start fields")
        victim = _at(pieces, ti)
        if victim:
            pieces[victim[0]][victim[1]] = KENNEL
        return _build(pos, pieces, ti)
    who = _find(pieces, fk, fs, fi)
    if who is None:
        raise TableError(f"there is no piece on {frm}")
    seat, idx = who
    if tk == "T":
        if ti >= board.track_length:
            raise TableError(f"field {to} does not exist")
        if dog == ti:
            raise TableError("the black dog stands there")
        victim = _at(pieces, ti)
        if victim and victim != who:
            pieces[victim[0]][victim[1]] = KENNEL
        pieces[seat][idx] = ti
    elif tk == "H":
        if ts != seat or ti >= pos.variant.home_slots:
            raise TableError(f"{to} is not a home field of this piece")
        if HOME + ti in pieces[seat]:
            raise TableError(f"{to} is taken")
        pieces[seat][idx] = HOME + ti
    else:
        if ts != seat:
            raise TableError(f"{to} is another player's kennel")
        pieces[seat][idx] = KENNEL
    return _build(pos, pieces, dog)


def _find(pieces: list, kind: str, seat: int, idx: int) -> tuple[int, int] | None:
    if kind == "T":
        return _at(pieces, idx)
    if not 0 <= seat < len(pieces) or pieces[seat] is None:
        return None
    want = HOME + idx if kind == "H" else KENNEL
    for i, loc in enumerate(pieces[seat]):
        if loc == want:
            return seat, i
    return None


def _at(pieces: list, field: int) -> tuple[int, int] | None:
    for s, locs in enumerate(pieces):
        for i, loc in enumerate(locs or ()):
            if loc == field:
                return s, i
    return None


def _build(pos: Position, pieces: list, dog: int | None) -> Position:
    return Position(pos.variant, pos.board,
                    tuple(None if p is None else canonical(pos.variant, p) for p in pieces),
                    pos.last_card, dog, pos.disc, pos.direction, pos.moved_onto_start)
