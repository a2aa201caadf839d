"""Legal plays of a card (RULES.md §3–§4): one Play per distinct resulting position.

The generator works on a flat, mutable copy of the position (`_Table`): pieces are
numbered p = seat * n + i, `occ[f]` is the piece on track field f (or -1). Every play is
applied to that copy, the result is read off, and the move undone: far cheaper than
building intermediate Position objects, which matters for the 7.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from engine.errors import CardError
from engine.position import HOME, KENNEL, Position, canonical, check_card
from engine.rulesdata import Board

START_CARDS = frozenset({"1/11", "13"})
CARD_STEPS: dict[str, tuple[int, ...]] = {
    "1/11": (1, 11), "2": (2,), "3": (3,), "4": (4,), "5": (5,), "6": (6,), "8": (8,),
    "9": (9,), "10": (10,), "12": (12,), "13": (13,),
}


@dataclass(frozen=True, slots=True)
class Play:
    """One legal play: how it reads, and the position it leaves."""

    notation: str
    result: Position
    card: str  # the card laid down ("joker")
    as_card: str  # what it counted as ("7")
    draws: int = 0  # extra cards drawn (royal special fields)
    disc_turn: int = 0  # +1 clockwise, -1 counter-clockwise, 0 none (black)


class _Table:
    """Mutable working copy of a position for one seat's move generation."""

    __slots__ = (
        "pos", "board", "L", "n", "slots", "loc", "owner", "occ", "start", "start_owner", "home_free", "orig",
        "touched", "home_count",
    )

    def __init__(self, pos: Position) -> None:
        self.pos = pos
        board = pos.board
        self.board = board
        self.L = L = board.track_length
        self.slots = slots = pos.variant.home_slots
        pieces = pos.pieces
        n = len(pieces[pos.seats[0]])
        self.n = n
        empty = (-2,) * n  # -2: no piece (empty seat)
        self.loc = loc = [x for locs in pieces for x in (empty if locs is None else locs)]
        self.owner = _owners(len(pieces), n)
        self.occ = occ = [-1] * L
        self.home_free = home_free = [[True] * slots for _ in pieces]
        self.home_count = home_count = [0] * len(pieces)
        for p, x in enumerate(loc):
            if 0 <= x < HOME:
                occ[x] = p
            elif HOME <= x < KENNEL:
                home_free[p // n][x - HOME] = False
                home_count[p // n] += 1
        self.touched: set[int] = set()  # seats whose pieces moved at some point
        self.orig = [None if locs is None else list(locs) for locs in pieces]
        self.start = board.start_fields
        self.start_owner = _start_owner(board)

    # -- queries -----------------------------------------------------------------------
    def protected(self, f: int) -> bool:
        """A piece on its own start field: cannot be passed, landed on, swapped or captured."""
        s = self.start_owner[f]
        if s < 0:
            return False
        p = self.occ[f]
        return p >= 0 and self.owner[p] == s

    def pieces_of(self, seat: int) -> range:
        return range(seat * self.n, seat * self.n + self.n)

    def game_over(self) -> bool:
        """Some team (or solo seat) has all the pieces it needs in the home."""
        seating = self.pos.seating
        counts = self.home_count
        if seating.team_game:
            return any(all(counts[s] == self.n for s in team) for team in seating.teams)
        need = self.pos.variant.solo_win_pieces
        return any(counts[s] >= need for s in seating.seats)

    def all_home(self, seat: int) -> bool:
        return all(HOME <= self.loc[p] < KENNEL for p in self.pieces_of(seat))

    def forward(self, p: int, k: int) -> list[tuple[int, tuple[int, ...]]]:
        """Destinations of piece p moving exactly k forward: [(dest, track fields passed)]."""
        loc = self.loc[p]
        seat = self.owner[p]
        if loc >= HOME:
            if loc >= KENNEL:
                return []
            j = loc - HOME
            t = j + k
            free = self.home_free[seat]
            if t < self.slots and all(free[x] for x in range(j + 1, t + 1)):
                return [(HOME + t, ())]
            return []
        out = []
        L = self.L
        start = self.start[seat]
        occ = self.occ
        so = self.start_owner
        owner = self.owner
        cur = loc
        passed: list[int] = []
        for step in range(1, k + 1):
            if cur == start and step > 1:
                r = k - step  # home steps still to go after H0
                if r < self.slots:
                    free = self.home_free[seat]
                    if all(free[x] for x in range(r + 1)):
                        out.append((HOME + r, tuple(passed)))
            nxt = cur + 1
            if nxt == L:
                nxt = 0
            s = so[nxt]
            if s >= 0:
                q = occ[nxt]
                if q >= 0 and owner[q] == s:
                    return out  # a protected piece blocks the way
            if step < k:
                passed.append(nxt)
            cur = nxt
        out.append((cur, tuple(passed)))
        return out

    def backward(self, p: int, k: int) -> int | None:
        """Destination of piece p moving k backward on the track (never into home), or None."""
        loc = self.loc[p]
        if loc >= HOME:
            return None
        L = self.L
        cur = loc
        for _ in range(k):
            cur = cur - 1 if cur else L - 1
            if self.protected(cur):
                return None
        return cur

    # -- changes (each returns what undo needs) -----------------------------------------
    def move(self, p: int, dest: int, burn: tuple[int, ...] = ()) -> list[tuple[int, int]]:
        """Move p to dest; pieces on `burn` fields and on dest (track) go to their kennels."""
        undo = [(p, self.loc[p])]
        for f in burn:
            q = self.occ[f]
            if q >= 0:
                undo.append((q, f))
                self._set(q, KENNEL)
        if dest < HOME:
            q = self.occ[dest]
            if q >= 0 and q != p:
                undo.append((q, dest))
                self._set(q, KENNEL)
        self._set(p, dest)
        return undo

    def undo(self, undo: list[tuple[int, int]]) -> None:
        for q, loc in reversed(undo):
            self._set(q, loc)

    def _set(self, p: int, new: int) -> None:
        old = self.loc[p]
        seat = self.owner[p]
        self.touched.add(seat)
        if old < HOME:
            if self.occ[old] == p:
                self.occ[old] = -1
        elif old < KENNEL:
            self.home_free[seat][old - HOME] = True
        self.loc[p] = new
        if new < HOME:
            self.occ[new] = p
        elif new < KENNEL:
            self.home_free[seat][new - HOME] = False

    # -- reading results ---------------------------------------------------------------
    def key(self) -> tuple[int, ...]:
        return tuple(self.loc)

    def result(self, card: str) -> Position:
        pos = self.pos
        n = self.n
        variant = pos.variant
        loc = self.loc
        pieces = list(pos.pieces)
        for s in self.touched:
            now = loc[s * n:(s + 1) * n]
            # unchanged seats keep their (already canonical) tuple: most plays touch one seat
            if now != self.orig[s]:
                pieces[s] = canonical(variant, now)
        return Position(variant, pos.board, tuple(pieces), card, pos.black_dog, pos.disc, pos.seating)

    def name(self, p: int, loc: int, seat: int) -> str:
        """How a location reads in a notation: home slots of another seat carry the seat."""
        if loc == KENNEL:
            return "K"
        if loc >= HOME:
            owner = self.owner[p]
            return f"H{loc - HOME}" if owner == seat else f"S{owner}H{loc - HOME}"
        return f"T{loc}"


@functools.cache
def _owners(seats: int, n: int) -> list[int]:
    return [s for s in range(seats) for _ in range(n)]


@functools.cache
def _start_owner(board: Board) -> list[int]:
    """Track field -> seat whose start field it is, or -1 (shared, never mutated)."""
    so = [-1] * board.track_length
    for seat, f in enumerate(board.start_fields):
        so[f] = seat
    return so


def acting_seat(pos: Position, seat: int) -> int:
    """Whose pieces the seat moves: its own, or its partner's once all its own are home."""
    partner = pos.partner(seat)
    if partner is not None and pos.pieces_home(seat) == len(pos.pieces[seat] or ()):
        return partner
    return seat


class _Collector:
    """Gathers plays, keeping the first notation for each distinct resulting position."""

    __slots__ = ("seen", "plays", "card", "as_card", "label")

    def __init__(self, card: str, as_card: str) -> None:
        self.seen: set[tuple[int, ...]] = set()
        self.plays: list[Play] = []
        self.card = card
        self.as_card = as_card
        self.label = card if card == as_card else f"{card} as {as_card}"

    def add(self, table: _Table, parts: str) -> None:
        key = table.key()
        if key in self.seen:
            return
        self.seen.add(key)
        self.plays.append(Play(f"{self.label}: {parts}", table.result(self.card), self.card, self.as_card))


def _start(table: _Table, mover: int, col: _Collector) -> None:
    start = table.start[mover]
    if table.protected(start):
        return  # own piece already on the start field
    for p in table.pieces_of(mover):
        if table.loc[p] == KENNEL:
            undo = table.move(p, start)
            col.add(table, f"K-T{start}")
            table.undo(undo)
            return  # every kennel piece is the same piece


def _steps(table: _Table, mover: int, seat: int, k: int, col: _Collector) -> None:
    for p in table.pieces_of(mover):
        loc = table.loc[p]
        for dest, _passed in table.forward(p, k):
            undo = table.move(p, dest)
            col.add(table, f"{table.name(p, loc, seat)}-{table.name(p, dest, seat)}")
            table.undo(undo)


def _back(table: _Table, mover: int, seat: int, k: int, col: _Collector) -> None:
    for p in table.pieces_of(mover):
        loc = table.loc[p]
        dest = table.backward(p, k)
        if dest is not None:
            undo = table.move(p, dest)
            col.add(table, f"{table.name(p, loc, seat)}-{table.name(p, dest, seat)} back")
            table.undo(undo)


def _swap(table: _Table, mover: int, pos: Position, col: _Collector, void_allowed: bool) -> None:
    own = [p for p in table.pieces_of(mover) if table.loc[p] < HOME and not table.protected(table.loc[p])]
    others = [
        q for q in range(len(table.loc))
        if table.owner[q] != mover and 0 <= table.loc[q] < HOME and not table.protected(table.loc[q])
    ]
    for p in own:
        a = table.loc[p]
        for q in others:
            b = table.loc[q]
            table._set(p, KENNEL)
            table._set(q, a)
            table._set(p, b)
            col.add(table, f"T{a}<>T{b}")
            table._set(p, KENNEL)
            table._set(q, b)
            table._set(p, a)
    if not col.plays and void_allowed:
        col.add(table, "no swap possible, laid down without effect")


def _seven(table: _Table, mover: int, seat: int, pos: Position, col: _Collector) -> None:
    """Split 7 forward steps over own pieces (then the partner's), burning every piece passed.

    Each piece moves in one contiguous part; the order of the parts is searched, because
    it decides who is burned. (A piece moving twice adds no result: its two parts can be
    joined without changing who is passed; tests check this against a naive search.)
    """
    partner = pos.partner(mover)
    seen_states: set[tuple] = set()
    parts: list[str] = []

    def movers() -> list[int]:
        if partner is not None and table.all_home(mover):
            return list(table.pieces_of(partner))
        return list(table.pieces_of(mover))

    def search(remaining: int, moved: int) -> None:
        state = (table.key(), remaining, moved)
        if state in seen_states:
            return
        seen_states.add(state)
        if remaining == 0:
            col.add(table, ", ".join(parts))
            return
        for p in movers():
            bit = 1 << p
            if moved & bit:
                continue
            loc = table.loc[p]
            if loc == KENNEL:
                continue
            for k in range(1, remaining + 1):
                for dest, passed in table.forward(p, k):
                    undo = table.move(p, dest, passed)
                    parts.append(f"{table.name(p, loc, seat)}-{table.name(p, dest, seat)}")
                    search(remaining - k, moved | bit)
                    parts.pop()
                    table.undo(undo)

    search(7, 0)


def _plays_as(pos: Position, table: _Table, card: str, as_card: str, seat: int, col: _Collector) -> None:
    mover = acting_seat(pos, seat)
    if as_card in START_CARDS:
        _start(table, mover, col)
    if as_card == "7":
        _seven(table, mover, seat, pos, col)
    elif as_card == "swap":
        _swap(table, mover, pos, col, void_allowed=pos.variant.name in ("classic", "compact"))
    else:
        for k in CARD_STEPS[as_card]:
            _steps(table, mover, seat, k, col)
        if as_card == "4":
            _back(table, mover, seat, 4, col)


def _check_seat(pos: Position, seat: int) -> None:
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(pos.pieces) or pos.pieces[seat] is None:
        raise CardError(f"seat {seat!r} does not play in this position (seats: {list(pos.seats)})")


def _card_plays(pos: Position, table: _Table, card: str, seat: int) -> list[Play]:
    if card == "joker":
        col = _Collector("joker", "joker")
        for as_card in (c for c, _ in pos.variant.deck if c != "joker"):
            col.as_card = as_card
            col.label = f"joker as {as_card}"
            _plays_as(pos, table, "joker", as_card, seat, col)
        return col.plays
    col = _Collector(card, card)
    _plays_as(pos, table, card, card, seat, col)
    return col.plays


def legal_moves(pos: Position, card: str, seat: int) -> list[Play]:
    """Every legal play of `card` by `seat`, one per distinct resulting position."""
    check_card(pos.variant, card)
    _check_seat(pos, seat)
    table = _Table(pos)
    if table.game_over():
        return []
    return _card_plays(pos, table, card, seat)


def legal_moves_for_hand(pos: Position, cards: list[str], seat: int) -> dict[str, list[Play]]:
    """`legal_moves` for each distinct card of a hand, sharing the work that does not depend on the card."""
    for card in cards:
        check_card(pos.variant, card)
    _check_seat(pos, seat)
    table = _Table(pos)
    if table.game_over():
        return {card: [] for card in cards}
    return {card: _card_plays(pos, table, card, seat) for card in dict.fromkeys(cards)}
