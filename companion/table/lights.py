"""The LED rings: which role (movable, target, hint, error) each field's ring shows now.

Roles only; how a role looks (colour, blinking) is the hardware's business (hardware.leds).
"""
from __future__ import annotations

import engine
from engine.position import KENNEL, Position
from companion.table.reading import occupancy
from companion.table.state import TableState


def play_fields(before: Position, play: engine.Play, seat: int) -> tuple[set[str], set[str]]:
    """(fields of pieces that move, fields they reach) for one play."""
    ob, oa = occupancy(before), occupancy(play.result)
    team = {f"s{s}" for s in before.team(seat)}
    movers = {f for f, who in ob.items() if oa.get(f) != who and (who in team or play.as_card == "swap")}
    targets = {f for f, who in oa.items() if ob.get(f) != who}
    if len(oa) > len(ob) or any(KENNEL in (p or ()) for p in before.pieces):
        # a piece came out of the kennel: light the seat's kennel so the player sees which
        for s in before.team(seat):
            kb = sum(1 for x in before.pieces[s] or () if x == KENNEL)
            ka = sum(1 for x in play.result.pieces[s] or () if x == KENNEL)
            if ka < kb:
                movers.add(f"S{s}K{kb - 1}")
    return movers, targets


def leds(state: TableState) -> dict[str, str]:
    """Field id -> role (movable, target, hint, error) the LED rings should show now."""
    if state.flag is not None:
        return {f: "error" for f in state.flag.fields}
    out: dict[str, str] = {}
    if state.card is None or state.card_seat is None:
        return out
    if state.mode != "referee":
        for play in state.plays:
            movers, targets = play_fields(state.position, play, state.card_seat)
            for f in movers:
                out[f] = "movable"
            for f in targets:
                out.setdefault(f, "target")
    # A hint exists only in training or when asked for (the hint button), so it shows in any mode.
    if state.hint is not None:
        for f in state.hint.fields:
            out[f] = "hint"
    return out
