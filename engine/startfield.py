"""Brändi Dog's start fields: which own pieces on their start field block it after a play.

In Brändi Dog only a piece freshly started (standing on its start field since it came out of
the kennel) blocks the field; a piece that got there by moving (round the track, 4 back, a
swap, part of a 7) blocks nothing (docs/rules-brandi.md). A position keeps the fields of the
second kind (`Position.moved_onto_start`); this module works out that set after a play from
the play's own parts, in their order: which piece left which field and where it went.

The parts are read from the play's notation (engine.notation), whose forms say exactly that;
the move generator keeps no other record of a 7's parts once it has the resulting pieces.
The move generator tells plays apart by the pieces they leave; two plays that leave the same
pieces but a different set would be listed once (a 7 whose first part takes the fresh piece off
its start field and whose later part lands another own piece there leaves pieces that no play
keeping the fresh piece can leave, since that piece blocks the way).
"""
from __future__ import annotations

import re

from engine.position import Position

Pieces = tuple[tuple[int, ...] | None, ...]

# one move ("K-T16", "T3-T63 back", "T60-H0", "T5-S2H1") or one swap ("T3<>T40"), in order
_PART = re.compile(r"(K|T\d+|(?:S\d+)?H\d+)-(T\d+|(?:S\d+)?H\d+)|T(\d+)<>T(\d+)")


def _track(name: str) -> int:
    """The track field a location names, or -1 (kennel, home)."""
    return int(name[1:]) if name.startswith("T") else -1


def moved_onto_start_after(before: Position, pieces: Pieces, notation: str) -> frozenset[int]:
    """The start fields whose own piece, after the play `notation` that turned `before` into
    `pieces`, got there by moving rather than by starting."""
    board = before.board
    owner_of_start = board.start_owner
    body = notation.split(": ", 1)[-1]
    occupant = {f: s for f, (s, _) in before.occupant().items()}  # track field -> seat, as parts go
    marked = set(before.moved_onto_start)
    for m in _PART.finditer(body):
        if m.group(3) is not None:  # a swap: both pieces moved
            a, b = int(m.group(3)), int(m.group(4))
            sa, sb = occupant.get(a), occupant.get(b)
            marked -= {a, b}
            for f, s in ((b, sa), (a, sb)):
                occupant[f] = s
                if owner_of_start.get(f) == s:
                    marked.add(f)
            continue
        frm, to = _track(m.group(1)), _track(m.group(2))
        if m.group(1) == "K":  # a start: the piece stands fresh on its own start field
            seat = owner_of_start.get(to)
            marked.discard(to)  # whatever stood there went back to its kennel
            occupant[to] = seat
            continue
        seat = occupant.pop(frm, None) if frm >= 0 else None
        marked.discard(frm)
        if to >= 0:
            marked.discard(to)  # a piece captured there leaves its mark with it
            occupant[to] = seat
            if seat is not None and owner_of_start.get(to) == seat:
                marked.add(to)
    # a piece burned or captured on the way (the 7) takes its field's mark with it
    return frozenset(f for f in marked if pieces[owner_of_start[f]] is not None
                     and f in (pieces[owner_of_start[f]] or ()))

