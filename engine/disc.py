"""Turning the Black DOG disc by hand: what a player does after a play that lands on a paw."""
from __future__ import annotations

from engine.position import Position
from engine.table import Table


def turn_disc(pos: Position, quarters: int) -> Position:
    """The position after turning the disc `quarters` quarter turns (+ clockwise, - counter).

    Pieces and the black dog on disc fields turn with it; the rest of the board stays.
    """
    if not pos.board.disc_fields or quarters % 4 == 0:
        return pos
    table = Table(pos)
    step = 1 if quarters > 0 else -1
    for _ in range(abs(quarters) % 4):
        table.turn_disc(step)
    return table.result(pos.last_card)
