"""A mutable working copy of a position, and how pieces move on it.

Move generation applies every candidate play to this copy, reads the result, and undoes
it: far cheaper than building an intermediate Position per step, which matters for the
7 and the partner card. Pieces are numbered p = seat * n + i; `occ[f]` is the piece on
track field f (or -1); the black dog is piece DOG in undo records.

The table numbers the track in the direction of play: its field w is the position's track
field w clockwise, and field (-w) mod L counter-clockwise (`EditionFacts.to_field`). So every
walk below goes forward by adding one, whichever way the table plays: the direction is read
once, where the pieces come in and where results go out, and the move generator is the same
for both. Field names (`names`) are the physical ones, so notations need no translating.
Editions with the black dog and the disc are played clockwise only (engine.rulesdata), so the
dog's field, the paws and the disc are never translated.
"""
from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import NamedTuple

from engine.position import HOME, KENNEL, Position, after_play
from engine.rulesdata import Board, Variant

DOG = -1  # undo-record id of the black dog
DISC = -2  # undo-record id of the disc orientation
GUARD = -3  # undo-record id of a start field's protection (Brändi: lost when a piece moves onto it)
NO_PIECE = -2  # loc of a piece slot of an empty seat

# Royal ranks: the index inside a royal seat's list is [king, knight, citizen, fool].
KING, KNIGHT, CITIZEN, FOOL = 3, 2, 1, 0
_RANK_OF_INDEX = (KING, KNIGHT, CITIZEN, FOOL)

UndoLog = list[tuple[int, int]]  # what `Table.undo` needs to take changes back: (piece or DOG/DISC, where it stood)


@functools.cache
def _start_owner(board: Board) -> list[int]:
    """Track field -> seat whose start field it is, or -1 (shared, never mutated)."""
    so = [-1] * board.track_length
    for seat, f in enumerate(board.start_fields):
        so[f] = seat
    return so


class EditionFacts(NamedTuple):
    """What a table needs that depends on the edition, the board and the pieces per seat only:
    worked out once, so that reading a position is reading its pieces and nothing else."""

    L: int  # track length
    slots: int  # home slots per seat
    start: tuple[int, ...]  # seat -> its start field
    start_owner: list[int]  # track field -> the seat whose start field it is, or -1
    sorts: bool  # a seat's pieces are kept sorted (see `canonical`: royal keeps its rank order)
    ranked: bool  # royal ranks
    special: frozenset[int]  # royal: fields that draw a card when landed on
    paws: frozenset[int]  # Black DOG: fields that turn the disc when landed on
    marked: frozenset[int]  # both: where landing does more than move a piece
    names: tuple[str, ...]  # "T0", "T1", ...: formatting an int costs more than looking its name up
    ring: tuple[int, ...]  # the track fields twice over: the fields ahead of any field are one slice
    dog_ring: tuple[int, ...]  # the same without the start fields, which the black dog skips
    dog_at: list[int]  # track field -> where the dog's run from it starts in dog_ring, less one
    owner: list[int]  # piece -> seat
    rank: list[int]  # piece -> royal rank (empty outside royal: read only when ranked)
    no_pieces: tuple[int, ...]  # the locations of an empty seat's piece slots
    need: int  # the fewest pieces home with which a seat may have won (see `_game_over`)
    # the position's track field of each table field, and back; None clockwise (the same numbers)
    to_field: tuple[int, ...] | None
    fresh_rule: bool  # only a freshly started piece blocks its start field (Brändi Dog)


@functools.cache
def _edition_facts(variant: Variant, board: Board, n: int, step: int = 1) -> EditionFacts:
    """The edition's facts for a board with n pieces per seat, played in the direction `step`
    (+1 clockwise, -1 counter-clockwise; shared, never mutated)."""
    rules = variant.rules
    L = board.track_length
    # counter-clockwise the table's field w is the track field (-w) mod L: its own inverse
    to_field = None if step > 0 else tuple((-w) % L for w in range(L))

    def walk(f: int) -> int:
        return f if to_field is None else to_field[f]

    special = frozenset(map(walk, board.special_fields)) if "special_draw" in rules else frozenset()
    paws = board.paw_fields if "black_dog" in rules else frozenset()
    seats = board.segments
    ranked = "ranks" in rules
    so = _start_owner(board) if to_field is None else [_start_owner(board)[f] for f in to_field]
    dog_ring = tuple(f for f in range(L) if so[f] < 0) * 2
    return EditionFacts(
        L=L,
        slots=variant.home_slots,
        start=tuple(walk(f) for f in board.start_fields),
        start_owner=so,
        sorts=variant.name != "royal",
        ranked=ranked,
        special=special,
        paws=paws,
        marked=special | paws,
        names=tuple(f"T{walk(f)}" for f in range(L)),
        ring=tuple(range(L)) * 2,
        dog_ring=dog_ring,
        dog_at=[sum(1 for g in range(f + 1) if so[g] < 0) - 1 for f in range(L)],
        owner=[s for s in range(seats) for _ in range(n)],
        rank=[_RANK_OF_INDEX[p % n] for p in range(seats * n)] if ranked else [],
        no_pieces=(NO_PIECE,) * n,
        need=min(n, variant.solo_win_pieces),
        to_field=to_field,
        fresh_rule="fresh_start_blocks" in rules,
    )


@functools.cache
def disc_maps(board: Board) -> tuple[dict[int, int], dict[int, int]]:
    """Where each disc field goes on a quarter turn: (clockwise, counter-clockwise)."""
    shift = board.disc_shift
    L = board.track_length
    cw = {f: (f + shift) % L for f in board.disc_fields}
    ccw = {f: (f - shift) % L for f in board.disc_fields}
    return cw, ccw


def _game_over(pos: Position, n: int, home: list[int]) -> bool:
    """Some team (or solo seat) has all the pieces it needs in the home."""
    seating = pos.seating
    if seating.team_game:  # often a seat is home and plays for its partner: look team by team
        for team in seating.teams:
            for s in team:
                if home[s].bit_count() != n:
                    break
            else:
                return True
        return False
    need = pos.variant.solo_win_pieces
    for s in seating.seats:
        if home[s].bit_count() >= need:
            return True
    return False


def position_table(pos: Position) -> Table:
    """The position's own table, built on the first call and kept in the position: READ ONLY.

    A bot asks about one position card after card, and for a one-piece card reading the pieces
    into a table costs about as much as finding its plays. Those cards only read the table;
    whatever moves pieces on it works on `working_copy()`, so the kept one never changes.
    """
    found = pos._derived.get("table")
    if found is None:
        found = pos._derived["table"] = Table(pos)
    return found


class Table:
    __slots__ = (
        "pos", "L", "n", "slots", "loc", "owner", "occ", "start", "start_owner", "home",
        "sorts", "ranked", "rank", "partner", "dog", "disc", "special", "paws", "marked", "names", "ring", "dog_ring",
        "dog_at", "over", "to_field", "guard", "guard_rule",
    )

    def __init__(self, pos: Position, like: Table | None = None) -> None:
        """The position as a table; `like`, a table of the same position standing as the position,
        is copied instead of reading the pieces anew."""
        self.pos = pos
        seating = pos.seating
        self.partner: tuple[int | None, ...] = seating.partner  # seat -> partner seat or None (Position.partner)
        pieces = pos.pieces
        n = len(pieces[seating.seats[0]] or ())  # seats[0] plays: never None
        self.n = n
        facts = _edition_facts(pos.variant, pos.board, n, pos.step)
        to_field = self.to_field = facts.to_field
        self.L = facts.L
        self.slots = facts.slots
        self.start = facts.start
        self.start_owner = facts.start_owner
        self.sorts = facts.sorts
        self.ranked = facts.ranked
        self.special = facts.special
        self.paws = facts.paws
        self.marked = facts.marked
        self.names = facts.names
        self.ring = facts.ring
        self.dog_ring = facts.dog_ring
        self.dog_at = facts.dog_at
        self.owner = facts.owner
        self.rank = facts.rank
        # track field -> the seat whose piece standing there is protected (its own start field), or
        # -1. Brändi Dog: a start field whose piece moved onto it (not started) protects nothing.
        self.guard: list[int] = facts.start_owner
        self.guard_rule = facts.fresh_rule
        if pos.moved_onto_start and facts.fresh_rule:
            guard = self.guard = facts.start_owner[:]
            for f in pos.moved_onto_start:
                guard[f if to_field is None else to_field[f]] = -1
        dog = pos.black_dog
        self.dog = dog if dog is not None else -1
        self.disc = pos.disc
        if like is not None:
            self.over: bool = like.over
            # own copies of what moves change
            self.loc: list[int] = like.loc[:]
            self.occ: list[int] = like.occ[:]
            self.home: list[int] = like.home[:]
            return
        # One pass over the pieces, the engine's largest fixed cost: where each piece stands
        # (`loc`), the piece on each track field (`occ`), and per seat the home slots taken,
        # one bit per slot (cheaper to build and test than lists).
        occ = [-1] * self.L
        home: list[int] = []
        loc: list[int] = []
        p = 0
        for locs in pieces:
            taken = 0
            if locs is None:
                loc += facts.no_pieces
                p += n
            else:
                if to_field is not None:  # the table's numbers for the track fields
                    locs = tuple(to_field[x] if x < HOME else x for x in locs)
                loc += locs
                for x in locs:
                    if x < HOME:
                        occ[x] = p
                    elif x < KENNEL:
                        taken |= 1 << (x - HOME)
                    p += 1
            home.append(taken)
        self.loc = loc
        self.occ = occ
        self.home = home
        # the game was over before any move: there are no plays. Only when some seat has `need`
        # slots taken (the smallest such mask is `need` ones): most positions stop at the first test.
        self.over = max(home) >= (1 << facts.need) - 1 and _game_over(pos, n, home)

    def working_copy(self) -> Table:
        """A table of the same position to move pieces on (this one may be the position's own)."""
        return Table(self.pos, self)

    # -- queries -----------------------------------------------------------------------
    def protected(self, f: int) -> bool:
        """A piece on its own start field: cannot be passed, landed on, swapped or captured."""
        s = self.guard[f]
        if s < 0:
            return False
        p = self.occ[f]
        return p >= 0 and self.owner[p] == s

    def pieces_of(self, seat: int) -> range:
        return range(seat * self.n, seat * self.n + self.n)

    def all_home(self, seat: int) -> bool:
        return self.home[seat].bit_count() == self.n

    def forward_plain_values(self, loc: int, seat: int, values: tuple[int, ...]) -> list[tuple[int, int]]:
        """A track piece's moves by each k of `values` (ascending) without royal ranks: [(k, dest)].

        Without ranks only protected start fields block, so one look at the few start fields
        replaces the field-by-field walk of `reach` (several times cheaper; every card's move
        goes through here). Tests check the two agree.
        """
        L = self.L
        occ = self.occ
        owner = self.owner
        guard = self.guard
        top = values[-1]
        blocked = top + 1  # distance of the first protected piece ahead (passing or landing)
        for s, f in enumerate(self.start):
            q = occ[f]
            if q >= 0 and owner[q] == s and guard[f] == s:
                d = (f - loc) % L
                if 0 < d < blocked:
                    blocked = d
        out = []
        ds = (self.start[seat] - loc) % L
        # a piece on its own start field that does not block it (Brändi: it moved there) has
        # come round: its next step forward may go into the home
        passed = 0 < ds or guard[loc] < 0 <= self.start_owner[loc] == seat
        for k in values:
            if passed and ds < k and ds < blocked:  # home is entered before any blocker ahead
                slot = k - ds - 1
                if slot < self.slots and not self.home[seat] & ((2 << slot) - 1):  # slots 0..slot free
                    out.append((k, HOME + slot))
            if k < blocked:
                out.append((k, (loc + k) % L))
        return out

    def clear(self, loc: int, k: int) -> bool:
        """No piece on the k track fields after loc (k < 0: the -k fields before it). One slice of
        the table instead of a walk: when it holds, every field there is free."""
        occ = self.occ
        if k < 0:
            a = loc + k
            return max(occ[a:loc] if a >= 0 else occ[a:] + occ[:loc]) < 0
        end = loc + 1 + k
        return max(occ[loc + 1:end] if end <= self.L else occ[loc + 1:] + occ[:end - self.L]) < 0

    def reach(self, p: int, max_k: int, green: bool = False, only: int = 0) -> list[tuple[int, int, int]]:
        """Where piece p can go moving exactly k forward, for every k from 1 to max_k, in one
        walk: [(k, dest, n_passed)], smaller k first for any two values a card may take.

        `green`: the card ignores royal ranks when passing (the 4 and the 10). The 7 and the
        partner card try every k for every piece; one walk instead of one per k makes that
        linear. The fields passed are the n_passed track fields right after the piece's
        field, so no list of them is built per step. `only`: a bit mask (bit k) of the values
        to report, when a card takes just a few of them (1/11, a single value).
        """
        want = only or (2 << max_k) - 2
        loc = self.loc[p]
        seat = self.owner[p]
        out: list[tuple[int, int, int]] = []
        if loc >= HOME:
            if loc >= KENNEL:
                return out
            taken = self.home[seat]
            j = loc - HOME
            for t in range(j + 1, min(self.slots, j + max_k + 1)):
                if taken >> t & 1:
                    break
                if want >> (t - j) & 1:
                    out.append((t - j, HOME + t, 0))
            return out
        start = self.start[seat]
        occ = self.occ
        so = self.guard  # protection: a piece of the seat whose (blocking) start field it is
        owner = self.owner
        ranked = self.ranked
        rank = self.rank
        my_rank = rank[p] if ranked else 0
        knight = ranked and my_rank == KNIGHT
        rank_matters = ranked and not green
        if loc == start and so[loc] < 0:  # Brändi: on its start field, moved there: the home lies ahead
            taken = self.home[seat]
            for k in range(1, max_k + 1):
                if want >> k & 1 and k - 1 < self.slots and not taken & ((2 << (k - 1)) - 1):
                    out.append((k, HOME + k - 1, 0))
        for step, f in enumerate(self.ring[loc + 1:loc + 1 + max_k], 1):
            q = occ[f]
            if q < 0:
                if want >> step & 1:
                    out.append((step, f, step - 1))
            else:
                s = so[f]
                if s >= 0 and owner[q] == s:  # a protected piece: never landed on; only a knight passes
                    if not knight or (rank_matters and rank[q] > my_rank):
                        break
                else:
                    # royal: a king is captured only by a king, or on the capturer's own start field
                    if want >> step & 1 and (not ranked or rank[q] != KING or my_rank == KING or s == seat):
                        out.append((step, f, step - 1))
                    if rank_matters and rank[q] > my_rank:
                        break  # may land (and capture) here, but not pass
            if f == start and step < max_k:  # on its own start field: the home lies ahead
                taken = self.home[seat]
                forfeit = (0, 1, 2) if ranked and my_rank == FOOL else (0,)
                for k in range(step + 1, max_k + 1):
                    if want >> k & 1:
                        for lost in forfeit:
                            slot = k - step - 1 - lost
                            if 0 <= slot < self.slots and not taken & ((2 << slot) - 1):
                                out.append((k, HOME + slot, step))
        return out

    def _may_land(self, p: int, f: int) -> bool:
        """Royal: a king is captured only by a king, or on the start field of the capturer's seat."""
        q = self.occ[f]
        if q < 0 or not self.ranked or q == p:
            return True
        return self.rank[q] != KING or self.rank[p] == KING or self.start_owner[f] == self.owner[p]

    def backward(self, p: int, k: int) -> int | None:
        """Destination of piece p moving k backward on the track (never into home), or None.

        The 4 is a green card: royal ranks do not matter when passing.
        """
        loc = self.loc[p]
        if loc >= HOME:
            return None
        occ = self.occ
        so = self.guard
        owner = self.owner
        knight = self.ranked and self.rank[p] == KNIGHT
        behind = self.ring[loc + self.L - k:loc + self.L]  # the k fields behind, the destination first
        dest = behind[0]
        for f in behind:
            q = occ[f]
            if q >= 0 and so[f] >= 0 and owner[q] == so[f] and (f == dest or not knight):
                return None  # a piece protected on its start field
        return dest if occ[dest] < 0 or self._may_land(p, dest) else None

    def magnet_target(self, p: int) -> int | None:
        """The field directly behind the next piece (or the black dog) ahead of p on the track."""
        loc = self.loc[p]
        if loc >= HOME:
            return None
        L = self.L
        occ = self.occ
        dog = self.dog
        for d in range(1, L):
            f = (loc + d) % L
            if occ[f] >= 0 or f == dog:
                return None if d == 1 else (f - 1) % L
        return None  # alone on the track: nothing to be drawn to

    def citizen_jump(self, f: int, mover: int = -1) -> int | None:
        """Royal citizen: the next free special field clockwise after f. The field of `mover`,
        the citizen that landed on f, is free: it has left it."""
        special = self.special
        if not special:
            return None
        L = self.L
        occ = self.occ
        for d in range(1, L):
            g = (f + d) % L
            if g in special:
                q = occ[g]
                if q < 0 or q == mover:
                    return g
        return None

    # -- changes (each returns what undo needs) -----------------------------------------
    def move(self, p: int, dest: int, burn: Sequence[int] = ()) -> UndoLog:
        """Move p to dest; pieces on `burn` fields and on dest (track) go to their kennels.

        A piece that ends on the black dog's field is captured itself.
        """
        undo = [(p, self.loc[p])]
        for f in burn:
            q = self.occ[f]
            if q >= 0:
                undo.append((q, f))
                self._set(q, KENNEL)
        if dest < HOME:
            if dest == self.dog:
                self._set(p, KENNEL)
                return undo
            if self.guard_rule and self.guard[dest] == self.owner[p] and self.loc[p] != KENNEL:
                # Brändi: a piece moving onto its own start field (part of a 7) does not block it,
                # for the rest of the 7 either; the table's guard is its own from here on
                if self.guard is self.start_owner:
                    self.guard = self.guard[:]
                self.guard[dest] = -1
                undo.insert(0, (GUARD, dest))
            q = self.occ[dest]
            if q >= 0 and q != p:
                undo.append((q, dest))
                self._set(q, KENNEL)
        self._set(p, dest)
        return undo

    def move_burning(self, p: int, dest: int, n_passed: int) -> UndoLog:
        """The 7: move p to dest, burning every piece on the n_passed fields after its field."""
        occ = self.occ
        L = self.L
        f = self.loc[p]
        burned = []  # only the occupied fields, in the order passed: most of the 7's steps pass none
        for _ in range(n_passed):
            f = f + 1 if f + 1 < L else 0
            if occ[f] >= 0:
                burned.append(f)
        return self.move(p, dest, burned)

    def dog_run(self, k: int) -> tuple[int, ...]:
        """The fields the black dog passes and lands on running k fields from where it stands, in
        order: start fields are skipped and not counted."""
        first = self.dog_at[self.dog] + 1
        return self.dog_ring[first:first + k]

    def dog_run_to(self, end: int) -> tuple[int, ...]:
        """`dog_run(k)` for the k that ends the run on track field `end` (not a start field)."""
        dog_at = self.dog_at
        return self.dog_run((dog_at[end] - dog_at[self.dog]) % (len(self.dog_ring) // 2))

    def move_dog(self, k: int) -> tuple[UndoLog, int, int]:
        """The black dog runs k fields (see `dog_run`), capturing all it passes or lands on."""
        start = self.dog
        undo = [(DOG, start)]
        path = self.dog_run(k)
        for f in path:
            q = self.occ[f]
            if q >= 0:
                undo.append((q, f))
                self._set(q, KENNEL)
        self.dog = path[-1]
        return undo, start, self.dog

    def turn_disc(self, direction: int) -> UndoLog:
        """Quarter turn (+1 clockwise, -1 counter-clockwise): everything on the disc turns with it."""
        cw, ccw = disc_maps(self.pos.board)
        mapping = cw if direction > 0 else ccw
        undo = [(DISC, self.disc)]
        riders = [(p, self.loc[p]) for p in range(len(self.loc)) if self.loc[p] in mapping]
        for p, f in riders:
            undo.append((p, f))
            self._set(p, KENNEL)
        for p, f in riders:
            self._set(p, mapping[f])
        if self.dog in mapping:
            undo.append((DOG, self.dog))
            self.dog = mapping[self.dog]
        self.disc = (self.disc + direction) % 4
        return undo

    def undo(self, undo: UndoLog) -> None:
        for q, loc in reversed(undo):
            if q == DOG:
                self.dog = loc
            elif q == DISC:
                self.disc = loc
            elif q == GUARD:
                self.guard[loc] = self.start_owner[loc]
            else:
                self._set(q, loc)

    def _set(self, p: int, new: int) -> None:
        old = self.loc[p]
        if old < HOME:
            if self.occ[old] == p:
                self.occ[old] = -1
        elif old < KENNEL:
            self.home[self.owner[p]] &= ~(1 << (old - HOME))
        self.loc[p] = new
        if new < HOME:
            self.occ[new] = p
        elif new < KENNEL:
            self.home[self.owner[p]] |= 1 << (new - HOME)

    # -- reading results ---------------------------------------------------------------
    # Results come as the `pieces` tuple of a Position (see `Position.pieces`): move generation
    # keys its plays by it and builds the Position itself only when a play's result is read.
    def pieces_now(self) -> tuple[tuple[int, ...] | None, ...]:
        """The pieces as the table stands (every seat rebuilt: cheaper than tracking which moved)."""
        n = self.n
        loc = self.loc
        to_field = self.to_field
        out: list[tuple[int, ...] | None] = []
        for s, locs in enumerate(self.pos.pieces):
            if locs is None:
                out.append(None)
            else:
                mine = loc[s * n:s * n + n]
                if to_field is not None:
                    mine = [to_field[x] if x < HOME else x for x in mine]
                out.append(tuple(sorted(mine)) if self.sorts else tuple(mine))
        return tuple(out)

    def result(self, last_card: str | None) -> Position:
        pos = self.pos
        dog = self.dog if self.dog >= 0 else None
        return after_play(pos, self.pieces_now(), last_card, dog, self.disc)

    # Single-piece cards and the swap make one change to the position as given; building the
    # result straight from it skips moving, reading and undoing the table (most of a call's
    # cost). Only valid while the table stands as the position (nothing moved, or all undone).
    def pieces_moved(self, p: int, dest: int) -> tuple[tuple[int, ...] | None, ...]:
        """The pieces after p moves to dest: a piece on dest is captured, one landing on the dog too."""
        n = self.n
        seat = p // n
        pieces = list(self.pos.pieces)  # as the table stands: the seats' tuples as they are
        mine = list(pieces[seat] or ())  # a seat that moves plays: never None
        if dest < HOME:
            if dest == self.dog:
                dest = KENNEL
            else:
                q = self.occ[dest]
                if q >= 0:
                    victim = q // n
                    if victim == seat:
                        mine[q - seat * n] = KENNEL
                    else:
                        theirs = list(pieces[victim] or ())
                        theirs[q - victim * n] = KENNEL
                        if self.sorts:
                            theirs.sort()
                        pieces[victim] = tuple(theirs)
        mine[p - seat * n] = dest if dest >= HOME or self.to_field is None else self.to_field[dest]
        if self.sorts:
            mine.sort()
        pieces[seat] = tuple(mine)
        return tuple(pieces)

    def pieces_moved_dog_run(self, p: int, dest: int, path: Sequence[int]) -> tuple[tuple[int, ...] | None, ...]:
        """`pieces_moved(p, dest)`, then the black dog runs over `path` (see `dog_run`) and sends
        every piece on it to its kennel, p too if it stands there now."""
        pieces = self.pieces_moved(p, dest)
        occ = self.occ
        frm = self.loc[p]
        caught = []
        for f in path:
            q = p if f == dest else occ[f]  # the piece on dest, if any, was captured by p
            if q >= 0 and f != frm:  # p has left its field
                caught.append((q // self.n, f))
        if not caught:
            return pieces
        for s, f in caught:  # seats hold each track field once: find the piece by its field
            pieces = self.pieces_moved_on(pieces, s, f, KENNEL)
        return pieces

    def pieces_disc_turned(self, pieces: tuple[tuple[int, ...] | None, ...], dog: int,
                           direction: int) -> tuple[tuple[tuple[int, ...] | None, ...], int, int]:
        """`pieces` and the black dog's field `dog` after a quarter turn of the disc (see
        `turn_disc`), and the disc's new orientation: what turning the table would give."""
        cw, ccw = disc_maps(self.pos.board)
        mapping = cw if direction > 0 else ccw
        out: list[tuple[int, ...] | None] = []
        for locs in pieces:
            if locs is None or mapping.keys().isdisjoint(locs):
                out.append(locs)  # nothing of this seat rides the disc
            else:
                turned = [mapping.get(f, f) for f in locs]
                if self.sorts:
                    turned.sort()
                out.append(tuple(turned))
        return tuple(out), mapping.get(dog, dog), (self.disc + direction) % 4

    def pieces_moved_on(self, pieces: tuple[tuple[int, ...] | None, ...], seat: int, frm: int,
                        dest: int) -> tuple[tuple[int, ...] | None, ...]:
        """`pieces` (a result of this table's position) with the seat's piece on track field frm
        moved on to dest: the royal citizen's jump after landing, a piece the black dog catches."""
        to_field = self.to_field
        if to_field is not None:  # `pieces` are the position's: its field numbers
            frm = to_field[frm]
            dest = dest if dest >= HOME else to_field[dest]
        out = list(pieces)
        mine = list(out[seat] or ())
        mine[mine.index(frm)] = dest
        if self.sorts:
            mine.sort()
        out[seat] = tuple(mine)
        return tuple(out)

    def pieces_swapped(self, p: int, q: int) -> tuple[tuple[int, ...] | None, ...]:
        """The pieces after pieces p and q (of different seats) change places."""
        n = self.n
        loc = self.loc
        sp, sq = p // n, q // n
        pieces = list(self.pos.pieces)
        mine = loc[sp * n:sp * n + n]
        theirs = loc[sq * n:sq * n + n]
        mine[p - sp * n], theirs[q - sq * n] = loc[q], loc[p]
        to_field = self.to_field
        if to_field is not None:
            mine = [to_field[x] if x < HOME else x for x in mine]
            theirs = [to_field[x] if x < HOME else x for x in theirs]
        if self.sorts:
            mine.sort()
            theirs.sort()
        pieces[sp] = tuple(mine)
        pieces[sq] = tuple(theirs)
        return tuple(pieces)
