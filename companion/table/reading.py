"""Reading the board: what a settled board (field id -> 's<seat>' or 'dog') says about the position.

A camera and the disc encoder tell apart which fields are taken by whom and how the disc
stands, nothing more: no piece identities, no kennel spots. `board_key` is exactly that much
of a position, so a reading and a play's result compare by it; `reading_to_position` turns a
reading back into a position, or into the reason (in every language) it cannot be one.
"""
from __future__ import annotations

from collections.abc import Mapping

import engine
from engine.position import HOME, KENNEL, Position
from companion.texts import both, player_name


def occupancy(pos: Position) -> dict[str, str]:
    """Track and home fields only: kennel spots are not told apart (any kennel spot will do)."""
    return {f: who for f, who in pos.field_occupancy().items() if "K" not in f}


def reading_to_position(before: Position, reading: Mapping[str, str], disc: int) -> Position | dict[str, str]:
    """The position a settled board shows, or the reason (both languages) it cannot be one.

    Pieces that stay keep their identity (royal ranks); pieces that moved take the free
    identities in order; pieces not seen on track or home are in the kennel.
    """
    colours = before.board.colours
    seen: dict[int, list[int]] = {s: [] for s in before.seats}
    dog = None
    for fid, who in reading.items():
        try:
            kind, fseat, idx = engine.parse_field_id(fid)
        except engine.EngineError:
            continue
        if kind == "K":
            continue
        if who == "dog":
            if kind == "T":
                dog = idx
            continue
        seat = int(who[1:]) if who.startswith("s") and who[1:].isdigit() else -1
        if seat not in seen:
            return both("unknown_piece", field=fid)
        if kind == "T":
            seen[seat].append(idx)
        elif kind == "H" and fseat == seat:
            seen[seat].append(HOME + idx)
        else:
            return both("unknown_piece", field=fid)
    pieces: list[tuple[int, ...] | None] = []
    for seat, locs in enumerate(before.pieces):
        if locs is None:
            pieces.append(None)
            continue
        now = seen[seat]
        if len(now) > len(locs):
            return both("too_many", player=player_name(colours[seat]), n=len(now), have=len(locs))
        stay = set(now) & set(locs)
        new = [x for x in now if x not in stay]
        out = []
        for loc in locs:
            if loc in stay and loc != KENNEL:
                out.append(loc)
                stay.discard(loc)
            else:
                out.append(new.pop(0) if new else KENNEL)
        pieces.append(tuple(out) if before.variant.name == "royal" else tuple(sorted(out)))
    return Position(before.variant, before.board, tuple(pieces), before.last_card,
                    dog if before.variant.name == "black" else None, disc)


def changed_fields(a: Position, b: Position) -> tuple[str, ...]:
    """The track and home fields whose occupant differs between `a` and `b`."""
    oa, ob = occupancy(a), occupancy(b)
    return tuple(sorted(f for f in set(oa) | set(ob) if oa.get(f) != ob.get(f)))


def board_key(pos: Position) -> tuple:
    """What a camera and the disc encoder can tell apart (no piece identities, no kennel spots)."""
    return (tuple(sorted(occupancy(pos).items())), pos.disc)


def unturned(play: engine.Play) -> Position:
    """The play's result before its disc turn: what the board shows until the disc moves."""
    return rotate_disc(play.result, -play.disc_turn)


def rotate_disc(pos: Position, quarters: int) -> Position:
    """Turn the Black DOG disc: pieces and the dog on disc fields move a segment per quarter."""
    return engine.turn_disc(pos, quarters)

