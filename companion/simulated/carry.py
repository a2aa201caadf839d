"""A person at the simulated table who carries out a play made at another table.

The linked table's play moved this table's game on; the simulated board (`SimulatedTable.board`,
the world the camera watches) still stands as before. The person reads the job
(companion.remote.carry_out.CarryOut), lifts every piece that moves, sets each down where the
job says and turns the disc, as one does it by hand. With a seeded chance one piece is set down
a field or two off its target; told what is wrong (a `Mismatch`), the person puts it right
by doing what the mismatch says. The disc is turned on the board only: the linked table's
play already brought its disc turn as an event, so no encoder event is sent for it.
"""
from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import replace

import engine
from engine.position import HOME, KENNEL, ROYAL_RANKS, Position, canonical
from companion import table as T
from companion.remote.carry_out import DOG, CarryOut, Mismatch, Step
from companion.simulated.table import SimulatedTable

MISTAKE_REACH = 2  # a piece set down wrongly lands at most this many fields off its target


class Carrier:
    """The person who carries out remote plays. Seeded: the same seed makes the same mistakes."""

    def __init__(self, seed: int = 0, mistake_rate: float = 0.0) -> None:
        self.rng = random.Random(seed)
        self.mistake_rate = mistake_rate
        self.mistakes = 0  # pieces set down on a wrong field so far

    def carry(self, board: Position, carry: CarryOut) -> Position:
        """The board after this person did the job (perhaps with one piece on a wrong field)."""
        steps = list(carry.steps)
        if self.mistake_rate > 0 and self.rng.random() < self.mistake_rate:
            steps = self._misplace(board, carry, steps)
        return T.rotate_disc(lift_and_place(board, steps), carry.disc_turn)

    def put_right(self, board: Position, mismatch: Mismatch) -> Position:
        """The board after doing what the mismatch says: every piece where it belongs, then the disc."""
        return T.rotate_disc(lift_and_place(board, mismatch.steps), mismatch.disc_turn)

    def at_table(self, table: SimulatedTable, carry: CarryOut) -> dict[str, str]:
        """Carry the job out on the simulated table's board; the camera reads it (a settled board)."""
        with table.lock:
            table.board = self.carry(_board(table), carry)
            table.settle()
            return table.read()

    def put_right_at(self, table: SimulatedTable, mismatch: Mismatch) -> dict[str, str]:
        with table.lock:
            table.board = self.put_right(_board(table), mismatch)
            table.settle()
            return table.read()

    def _misplace(self, board: Position, carry: CarryOut, steps: list[Step]) -> list[Step]:
        """One piece of the job set down a field or two off its target, on a free track field."""
        done = lift_and_place(board, steps)
        taken = {f for f in T.occupancy(done)} | set(carry.sources) | set(carry.targets)
        choices = []
        for i, step in enumerate(steps):
            kind, _, target = engine.parse_field_id(step.to)
            if step.who == DOG or step.kind not in ("move", "out") or kind != "T":
                continue
            for k in range(-MISTAKE_REACH, MISTAKE_REACH + 1):
                wrong = f"T{done.forward(target, k)}"
                if k and wrong not in taken:
                    choices.append((i, wrong))
        if not choices:
            return steps
        i, wrong = self.rng.choice(choices)
        self.mistakes += 1
        return [replace(s, to=wrong) if j == i else s for j, s in enumerate(steps)]


def lift_and_place(board: Position, steps: Iterable[Step]) -> Position:
    """Every piece a step moves lifted at once, then each set down on its step's field.

    Lifting all first is what a person does with a swap or with a 7 whose pieces land where
    others leave. A piece out of the kennel is any of that kennel's (in DOG Royal the step's rank).
    """
    pieces = [None if p is None else list(p) for p in board.pieces]
    dog = board.black_dog
    lifted: list[tuple[int | None, int, str]] = []
    for step in steps:
        if step.who == DOG:
            if dog is None or f"T{dog}" != step.frm:
                raise T.TableError(f"the black dog is not on {step.frm}")
            lifted.append((None, 0, step.to))
            continue
        seat = step.seat
        assert seat is not None
        locs = pieces[seat] or []
        loc = _loc(step.frm)
        free = [i for i, x in enumerate(locs) if x == loc and (seat, i) not in {(s, j) for s, j, _ in lifted}]
        if step.rank is not None and ROYAL_RANKS.index(step.rank) in free:
            free = [ROYAL_RANKS.index(step.rank)]
        if not free:
            raise T.TableError(f"there is no {step.colour} piece on {step.frm}")
        lifted.append((seat, free[0], step.to))
    for seat, i, to in lifted:
        if seat is None:
            dog = int(to[1:])
        else:
            pieces[seat][i] = _loc(to)  # type: ignore[index]
    after = Position(board.variant, board.board,
                     tuple(None if p is None else canonical(board.variant, p) for p in pieces),
                     board.last_card, dog, board.disc, board.direction, board.moved_onto_start)
    track = [loc for p in after.pieces for loc in p or () if loc < HOME] + ([dog] if dog is not None else [])
    if len(track) != len(set(track)):
        raise T.TableError("two pieces would stand on one field")
    return after


def _loc(fid: str) -> int:
    kind, _, idx = engine.parse_field_id(fid)
    return idx if kind == "T" else HOME + idx if kind == "H" else KENNEL


def _board(table: SimulatedTable) -> Position:
    if table.board is None:
        raise T.TableError("the simulated table has no game yet")
    return table.board
