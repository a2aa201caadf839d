"""Legal plays of a card (RULES.md §3–§6): one Play per distinct resulting position.

Each card's play is applied to a mutable `Table`, the result read off and the move undone.
Rules that only some editions have are switched on by the edition's `rules` (variants.toml).

One module for every card, over 600 lines on purpose: the cards share one collector and the
same few walks of the track, and splitting them would put the hot loops behind module
lookups that the engine's speed figures (docs/figures.md) show.
"""
from __future__ import annotations

from collections.abc import Sequence

from engine import notation
from engine.errors import CardError
from engine.position import HOME, KENNEL, ROYAL_RANKS, Position, after_play, check_card
from engine.startfield import moved_onto_start_after
from engine.table import CITIZEN, FOOL, KING, Table, position_table

START_CARDS = frozenset({"1/11", "13"})
CARD_STEPS: dict[str, tuple[int, ...]] = {
    "1/11": (1, 11), "2": (2,), "3": (3,), "4": (4,), "5": (5,), "6": (6,), "8": (8,),
    "9": (9,), "10": (10,), "12": (12,), "13": (13,), "1-7": (1, 2, 3, 4, 5, 6, 7),
}
BLACK_CARDS: dict[str, tuple[int, ...]] = {"black-1-7": (1, 2, 3, 4, 5, 6, 7), "black-5": (5,), "black-6": (6,)}
# bit k set for each value k of a card: what `Table.reach` is asked for
VALUE_MASKS: dict[tuple[int, ...], int] = {
    values: sum(1 << k for k in values) for values in (*CARD_STEPS.values(), *BLACK_CARDS.values())
}
GREEN_CARDS = frozenset({"4", "10"})  # royal: these ignore ranks when passing
KING_MAX = 7  # royal: the king moves only with values 1 to 7
KING_VALUES = (2 << KING_MAX) - 2  # the same as a mask for `Table.reach`
SPLIT_POINTS = {"7": 7, "partner": 4}


Pieces = tuple[tuple[int, ...] | None, ...]  # `Position.pieces`
After = tuple[Pieces, int | None, int]  # what a play leaves: (pieces, black dog, disc)
Reached = list[tuple[int, int]] | list[tuple[int, int, int]]  # a piece's moves: (k, dest) or (k, dest, n_passed)


class Asked:
    """What every play of one `legal_moves` answer shares: the position asked about, its own
    table, the card laid down and what it counts as. A play keeps a reference to it instead of a
    copy of each, so that listing a play stays cheap (a 1-7 lists ten)."""

    __slots__ = ("before", "table", "card", "as_card")

    def __init__(self, before: Position, table: Table, card: str, as_card: str) -> None:
        self.before = before
        self.table = table  # the position's own: read only (see engine.table.position_table)
        self.card = card
        self.as_card = as_card


class Play:
    """One legal play: how it reads (`notation`), the card and what it counted as, the extra
    cards it draws (`draws`, royal's special fields), the disc's quarter turn after it
    (`disc_turn`: +1 clockwise, -1 counter-clockwise, 0 none; black) and the position it leaves.

    `result` is built when first read: a bot reads few of the results it is offered, and
    building a Position costs as much as finding a plain move. Read or not, it is the same
    value; plays compare by notation, result, card, as_card, draws and disc_turn. Each kind of
    play below keeps only what it needs to build its result (`_left`): a move or a swap keeps
    which pieces went where, read off the position's own table (pieces numbered as in
    engine.table: p = seat * n + i); any other play keeps the pieces, dog and disc it left.
    """

    __slots__ = ("notation", "_asked", "draws", "disc_turn", "_result")

    def __init__(self, notation: str, asked: Asked, draws: int, disc_turn: int) -> None:
        self.notation = notation
        self._asked = asked
        self.draws = draws
        self.disc_turn = disc_turn
        self._result: Position | None = None  # built when first read

    @property
    def card(self) -> str:
        """The card laid down ("joker", "copy")."""
        return self._asked.card

    @property
    def as_card(self) -> str:
        """What the card counted as ("7")."""
        return self._asked.as_card

    def _left(self) -> After:
        """The pieces, black dog and disc the play leaves."""
        raise NotImplementedError

    def _turned(self, pieces: Pieces, dog: int) -> After:
        """`pieces` with the black dog on `dog` (-1: none), the disc turned by `disc_turn`."""
        asked = self._asked
        disc = asked.before.disc
        if self.disc_turn:  # a black card's piece still on the paw it landed on: the disc turns after
            pieces, dog, disc = asked.table.pieces_disc_turned(pieces, dog, self.disc_turn)
        return pieces, dog if dog >= 0 else None, disc

    @property
    def result(self) -> Position:
        result = self._result
        if result is None:
            asked = self._asked
            pieces, dog, disc = self._left()
            # copy leaves the copied card as the last one played (see _Collector.set_card)
            last_card = asked.as_card if asked.card == "copy" else asked.card
            before = asked.before
            moved = moved_onto_start_after(before, pieces, self.notation) if asked.table.guard_rule else frozenset()
            result = self._result = after_play(before, pieces, last_card, dog, disc, moved)
        return result

    def _fields(self) -> tuple:
        return (self.notation, self.result, self.card, self.as_card, self.draws, self.disc_turn)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Play):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (f"Play(notation={self.notation!r}, result={self.result!r}, card={self.card!r}, "
                f"as_card={self.as_card!r}, draws={self.draws!r}, disc_turn={self.disc_turn!r})")


class MovedPiece(Play):
    """A move of one piece: `piece` went to `to` (a track field or HOME + slot), capturing what
    stood there; the black dog, if any, then ran to `dog` (-1: no dog) catching nothing."""

    __slots__ = ("piece", "to", "dog")

    def __init__(self, notation: str, asked: Asked, piece: int, to: int, dog: int, draws: int,
                 disc_turn: int) -> None:
        # the kinds set Play's fields themselves: super().__init__ would be a call more per listed play
        self.notation = notation
        self._asked = asked
        self.piece = piece
        self.to = to
        self.dog = dog
        self.draws = draws
        self.disc_turn = disc_turn
        self._result = None

    def _left(self) -> After:
        return self._turned(self._asked.table.pieces_moved(self.piece, self.to), self.dog)


class DogRun(MovedPiece):
    """A black card's move of one piece after which the dog, running to `dog`, catches every
    piece on its way (`piece` too if it stands there)."""

    __slots__ = ()

    def _left(self) -> After:
        table = self._asked.table
        return self._turned(table.pieces_moved_dog_run(self.piece, self.to, table.dog_run_to(self.dog)), self.dog)


class SwappedPieces(Play):
    """The mover's `piece` and another seat's `other` changed places (neither is captured)."""

    __slots__ = ("piece", "other")

    def __init__(self, notation: str, asked: Asked, piece: int, other: int) -> None:
        self.notation = notation
        self._asked = asked
        self.piece = piece
        self.other = other
        self.draws = 0
        self.disc_turn = 0
        self._result = None

    def _left(self) -> After:
        table = self._asked.table
        return self._turned(table.pieces_swapped(self.piece, self.other), table.dog)


class LeftPieces(Play):
    """Any other play, kept as the pieces, black dog and disc it leaves."""

    __slots__ = ("left",)

    def __init__(self, notation: str, asked: Asked, left: After, draws: int, disc_turn: int) -> None:
        self.notation = notation
        self._asked = asked
        self.left = left
        self.draws = draws
        self.disc_turn = disc_turn
        self._result = None

    def _left(self) -> After:
        return self.left


def acting_seat(pos: Position, seat: int) -> int:
    """Whose pieces the seat moves: its own, or its partner's once all its own are home."""
    partner = pos.partner(seat)
    if partner is not None and pos.pieces_home(seat) == len(pos.pieces[seat] or ()):
        return partner
    return seat


class _Collector:
    """Gathers plays, keeping the first notation for each distinct resulting position.

    The invariant: two plays of one answer leave the same position only if `add_pieces` sees
    both. Most plays are told apart without building their position: of a card played as
    itself, a move of one piece onto a free field, onto another seat's piece or (royal) onto
    any piece, and a swap, each listed once (`add_move`, `add_swap`, `add_moves`), leave
    positions no other play of the card leaves. A joker plays as every card, where a plain move
    and a 7 may leave the same position: there every play is told apart by its position. Tests
    hold the argument and check it against telling every play apart by its position
    (tests/engine/test_speed_paths.py).
    """

    __slots__ = ("table", "seen", "plays", "asked", "prefix", "by_move")

    def __init__(self, pos: Position, table: Table, card: str) -> None:
        self.table = table  # the position's own
        self.seen: set[After] | None = None  # the positions left so far, when some play needs them
        self.plays: list[Play] = []
        self.asked = Asked(pos, table, card, card)  # counted as itself, until `set_card` says otherwise
        self.prefix = notation.card_prefix(card, card)  # every notation starts so
        self.by_move = card != "joker"

    def set_card(self, card: str, as_card: str) -> None:
        self.asked = Asked(self.asked.before, self.table, card, as_card)
        self.prefix = notation.card_prefix(card, as_card)

    def add(self, table: Table, parts: str, draws: int = 0, movers: tuple[int, ...] = ()) -> None:
        """Record `table` (a working copy) as it stands; in Black DOG a piece moved onto a paw
        turns the disc."""
        if table.paws and any(table.loc[p] in table.paws for p in movers):
            for direction, word in notation.DISC_WORDS:
                undo = table.turn_disc(direction)
                self._add(table, notation.disc_turned(parts, word), draws, direction)
                table.undo(undo)
            return
        self._add(table, parts, draws, 0)

    def _add(self, table: Table, parts: str, draws: int, turn: int) -> None:
        self.add_pieces(table.pieces_now(), table.dog if table.dog >= 0 else None, table.disc, self.prefix + parts,
                        draws, turn)

    # add_pieces, add_move and add_swap take the whole notation, the card's `prefix` included:
    # their callers name many plays of one piece and join the prefix to the piece's part once.
    def add_pieces(self, pieces: Pieces, dog: int | None, disc: int, text: str, draws: int = 0,
                   turn: int = 0) -> None:
        # pieces of one seat are alike (outside royal): the canonical pieces are the key
        after = (pieces, dog, disc)
        seen = self.seen
        if seen is None:
            seen = self.seen = set()
        known = len(seen)
        seen.add(after)  # one hash of the nested tuple instead of two (`in`, then `add`)
        if len(seen) == known:
            return  # the same position as an earlier play
        self.plays.append(LeftPieces(text, self.asked, after, draws, turn))

    def add_move(self, p: int, dest: int, dog: int, text: str, draws: int = 0, turn: int = 0) -> None:
        """Piece p's move to dest (royal: it may draw a card), the black dog then on `dog` having
        caught nothing; `turn`: the disc's quarter turn after it (+1 clockwise, -1
        counter-clockwise), when the piece ends on a paw. Made on the position's own table
        (see engine.table.position_table), which never changes.

        Each move comes here once, so none is looked up: a card moves each piece to each field
        by one value at most (the 4's back and forward moves end on different fields; a start
        card brings out a kennel piece, its steps move the others), except royal's fool, which
        _steps asks for the first way to each field."""
        table = self.table
        if dest < HOME:
            q = table.occ[dest]
            # onto the black dog, or (outside royal) a capture of its own seat: as a position
            by_position = not self.by_move or dest == table.dog or (
                q >= 0 and table.sorts and table.owner[q] == table.owner[p])
        else:
            by_position = not self.by_move
        if by_position:
            disc = table.disc
            pieces = table.pieces_moved(p, dest)
            if turn:
                pieces, dog, disc = table.pieces_disc_turned(pieces, dog, turn)
            self.add_pieces(pieces, dog if dog >= 0 else None, disc, text, draws, turn)
            return
        self.plays.append(MovedPiece(text, self.asked, p, dest, dog, draws, turn))

    def add_swap(self, p: int, q: int, text: str) -> None:
        """Pieces p and q (of different seats) change places; a swap never turns the disc nor
        draws a card."""
        table = self.table
        if not self.by_move:
            self.add_pieces(table.pieces_swapped(p, q), table.dog if table.dog >= 0 else None, table.disc, text)
            return
        self.plays.append(SwappedPieces(text, self.asked, p, q))

    def add_moves(self, p: int, reached: Reached, frm: str, seat: int) -> None:
        """Piece p's moves to the fields `reached` lists ((k, dest, ...) each), made on the
        position's own table; `frm` names p's field. What `add_move` does for one move, for all
        of a piece's moves at once: a card of several values (the 1-7) lists up to 7 per piece,
        and most of them land on a free field, whose play is made here without a call per move."""
        table = self.table
        # locals instead of attribute reads in the loop: it runs once per listed play
        names = table.names
        marked = table.marked  # landing there draws a card or turns the disc: more than a move
        occ = table.occ
        dog = table.dog
        head = self.prefix + notation.step_from(frm)
        asked = self.asked
        plays = self.plays
        plain = self.by_move
        sorts = table.sorts
        owner = table.owner
        mine = owner[p]
        citizen = table.ranked and table.rank[p] == CITIZEN
        for item in reached:
            dest = item[1]
            to = names[dest] if dest < HOME else notation.place(dest, mine, seat)
            if dest in marked:
                if citizen or dest in table.paws:  # a citizen's jump after drawing, a paw's disc turn
                    _single(table, self, p, dest, notation.step(frm, to))
                else:  # royal: landing on a special field draws a card
                    self.add_move(p, dest, dog, head + to, 1)
            elif plain and (dest >= HOME or (dest != dog and (occ[dest] < 0 or not sorts
                                                          or owner[occ[dest]] != mine))):
                # as add_move: no piece there, or one whose capture the move tells (royal's, another seat's)
                plays.append(MovedPiece(head + to, asked, p, dest, dog, 0, 0))
            else:
                self.add_move(p, dest, dog, head + to)


def _single(table: Table, col: _Collector, p: int, dest: int, parts: str) -> None:
    """Record piece p's move to dest, a special field or a paw (the table untouched): the royal
    special-field draw and citizen jump, and in Black DOG the disc turn when it lands on a paw.
    These results are told apart by their position: a citizen may reach the same field by a
    jump or straight."""
    draws = 1 if dest in table.special else 0
    text = col.prefix + parts
    if dest in table.paws:
        pieces = table.pieces_moved(p, dest)
        if dest == table.dog:  # the piece lands on the black dog and is caught: it turns nothing
            col.add_pieces(pieces, dest, table.disc, text, draws)
            return
        for direction, word in notation.DISC_WORDS:
            turned, dog, disc = table.pieces_disc_turned(pieces, table.dog, direction)
            col.add_pieces(turned, dog if dog >= 0 else None, disc, notation.disc_turned(text, word), draws,
                           direction)
        return
    if draws and table.ranked and table.rank[p] == CITIZEN:
        landed = table.pieces_moved(p, dest)
        col.add_pieces(landed, None, table.disc, text, draws)
        jump = table.citizen_jump(dest, p)
        if jump is not None:
            col.add_pieces(table.pieces_moved_on(landed, p // table.n, dest, jump), None, table.disc,
                           notation.jumped(text, table.names[jump]), draws)
        return
    col.add_move(p, dest, table.dog, text, draws)


def _start(table: Table, mover: int, col: _Collector) -> None:
    start = table.start[mover]
    if table.protected(start):
        return  # own piece already on the start field
    first = mover * table.n
    mine = table.loc[first:first + table.n]
    if KENNEL not in mine:
        return  # no piece to bring out
    field = table.names[start]
    if not table.ranked:  # every kennel piece is the same piece: the first one comes out
        col.add_move(first + mine.index(KENNEL), start, table.dog, col.prefix + notation.step("K", field))
        return
    for i, loc in enumerate(mine):
        if loc == KENNEL:
            col.add_move(first + i, start, table.dog, col.prefix + notation.royal_start(field, ROYAL_RANKS[i]))




def _steps(table: Table, mover: int, seat: int, values: tuple[int, ...], as_card: str, col: _Collector) -> None:
    """The moves of a card that moves one piece forward by one of its `values` (ascending)."""
    top = values[-1]
    every = len(values) == top  # the card has every value from 1 up (the 1-7): each field ahead is one
    ranked = table.ranked
    # One look at the fields ahead instead of a walk: for the 1-7, and in royal (where passing a
    # piece depends on its rank, so that only a walk tells) for a single value up to 7. Farther,
    # the fields ahead are rarely all free, and a look that fails costs more than the walk it spares.
    look = every or (ranked and top <= KING_MAX and len(values) == 1)
    # locals instead of attribute reads: the loop below runs once per piece, its inner one per play
    rank = table.rank
    locs = table.loc
    names = table.names
    ring = table.ring
    L = table.L
    dog = table.dog
    marked = table.marked  # royal special fields and Black DOG's paws: landing there does more
    paws = table.paws
    start = table.start[mover]
    # Brändi: the mover's start field when a piece moved onto it stands there (not blocking):
    # that piece's next step may go into the home, so the quick look below does not serve it
    open_start = start if table.guard[start] < 0 else -1
    taken = table.home[mover]
    last = table.slots - 1
    prefix = col.prefix
    asked = col.asked
    plays = col.plays
    reached: Reached
    n = table.n
    for p in range(mover * n, mover * n + n):
        loc = locs[p]
        if loc >= HOME:  # in the home, it moves on only if the slot right ahead is free
            if loc < KENNEL and loc - HOME < last and not taken >> (loc - HOME + 1) & 1:
                reached = table.reach(p, top, as_card in GREEN_CARDS, VALUE_MASKS[values])
                if reached:
                    col.add_moves(p, reached, notation.place(loc, mover, seat), seat)
            continue
        king = ranked and rank[p] == KING  # royal: the king moves by 1 to 7 only
        far = KING_MAX if king and top > KING_MAX else top
        end = loc + 1 + far
        if look and table.clear(loc, far) and not 0 < (start - loc) % L < far and loc != open_start and \
                (dog < 0 or not 0 < (dog - loc) % L <= far):
            # The usual case: no piece nor the black dog on the fields ahead, and the piece does not
            # pass its own start field. Each value lands on the free field that far ahead, as the
            # walk would find, and captures nothing.
            frm = names[loc]
            head = prefix + notation.step_from(frm)
            citizen = ranked and rank[p] == CITIZEN
            for dest in ring[loc + 1:end] if every else (ring[end - 1],):  # a single value: its field
                if dest not in marked:
                    plays.append(MovedPiece(head + names[dest], asked, p, dest, dog, 0, 0))
                elif citizen or dest in paws:  # a citizen's jump after drawing, a paw's disc turn
                    _single(table, col, p, dest, notation.step(frm, names[dest]))
                else:  # royal: landing on a special field draws a card
                    plays.append(MovedPiece(head + names[dest], asked, p, dest, dog, 1, 0))
            continue
        want = VALUE_MASKS[values]
        if not ranked:  # one look at the start fields serves every value
            reached = table.forward_plain_values(loc, mover, values)
        elif king:
            if not want & KING_VALUES:
                continue
            reached = table.reach(p, far, as_card in GREEN_CARDS, want & KING_VALUES)
        else:  # one walk reports every value asked for, the smaller first
            reached = table.reach(p, top, as_card in GREEN_CARDS, want)
            if rank[p] == FOOL and len(reached) > 1:
                reached = _first_to_each_field(reached)  # see add_move
        if reached:
            col.add_moves(p, reached, names[loc], seat)


def _first_to_each_field(reached: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """The first way to each destination: royal's fool, forfeiting up to two steps on the way
    home, may reach one home slot with two values, which is one play."""
    fields: set[int] = set()
    out = []
    for item in reached:
        if item[1] not in fields:
            fields.add(item[1])
            out.append(item)
    return out


def _back(table: Table, mover: int, seat: int, k: int, col: _Collector) -> None:
    marked = table.marked  # as in _steps: elsewhere a move is one plain result
    locs = table.loc
    occ = table.occ
    names = table.names
    dog = table.dog
    plain = col.by_move
    n = table.n
    for p in range(mover * n, mover * n + n):
        loc = locs[p]
        if loc >= HOME:  # home and kennel pieces never move backwards
            continue
        back = (loc - k) % table.L if table.clear(loc, -k) else table.backward(p, k)  # usually nothing behind
        if back is None:
            continue
        dest = back
        parts = notation.back(names[loc], names[dest])  # both on the track
        if dest in marked:
            _single(table, col, p, dest, parts)
        elif plain and occ[dest] < 0 and dest != dog:  # captures nothing
            col.plays.append(MovedPiece(col.prefix + parts, col.asked, p, dest, dog, 0, 0))
        else:
            col.add_move(p, dest, dog, col.prefix + parts)


def _magnet(table: Table, mover: int, seat: int, col: _Collector) -> None:
    for p in table.pieces_of(mover):
        loc = table.loc[p]
        dest = table.magnet_target(p)
        if dest is not None:
            _single(table, col, p, dest, notation.step(table.names[loc], table.names[dest]))


def _black(table: Table, mover: int, seat: int, values: tuple[int, ...], col: _Collector) -> None:
    """Own piece first, then the black dog by the same value; no own move, no play.

    Nothing is moved. The dog's run is worked out once, for the card's largest value: value k
    runs its first k fields, so where the run first meets a piece tells, for every value at
    once, whether the dog catches anything. A play on which the dog catches nothing is kept as
    a move (see _Collector); one on which it does, as a `DogRun` while no moving piece stands
    on the dog's run, else by the pieces it leaves; a piece that ends on a paw turns the disc,
    worked out from those pieces too (`Table.pieces_disc_turned`)."""
    top = values[-1]
    n = table.n
    taken = table.home[mover]
    last = table.slots - 1
    locs = table.loc
    occ = table.occ
    L = table.L
    start = table.start[mover]
    reached: Reached | enumerate[int]
    moving: list[tuple[int, int, Reached | enumerate[int]]] = []  # (p, loc, its moves: (k, dest) each)
    for p in range(mover * n, mover * n + n):
        loc = locs[p]
        if loc >= HOME:
            if loc >= KENNEL or loc - HOME == last or taken >> (loc - HOME + 1) & 1:
                continue  # a black card never brings a piece out; in the home, no free slot right ahead
            reached = table.reach(p, top, False, VALUE_MASKS[values])
        elif len(values) == 1:  # no ranks in Black DOG: one look at the start fields (black-5, black-6)
            reached = table.forward_plain_values(loc, mover, values)
        elif 0 < (start - loc) % L < top:  # black-1-7 passing its own start field: in the order of the walk
            reached = table.reach(p, top, False, VALUE_MASKS[values])
        else:  # black-1-7 elsewhere: the walk's order is the values' order
            if table.clear(loc, top):  # no piece in the way: every field ahead
                reached = enumerate(table.ring[loc + 1:loc + 1 + top], 1)
            else:  # only a piece on its own start field blocks: one look at the start fields
                reached = table.forward_plain_values(loc, mover, values)
        if reached:
            moving.append((p, loc, reached))
    if not moving:
        return  # the usual case early in a game: then the dog's run is not worked out at all
    names = table.names
    paws = table.paws
    dog = table.dog
    # The two smallest values whose run ends on a piece (past the card's: none). The piece on
    # the first may be p itself, which has left its field by then: then the second tells.
    first = second = top + 1
    run: Sequence[int] = ()
    if dog >= 0:
        run = table.dog_run(top)
        for j, f in enumerate(run, 1):
            if occ[f] >= 0:
                if first > top:
                    first = j
                else:
                    second = j
                    break
    dog_from = notation.dog_from(names[dog]) if run else ""
    stops = paws.union(run, (dog,))  # a piece landing there makes more than a plain move
    plays = col.plays
    by_move = col.by_move
    asked = col.asked
    # Plays on which the dog catches something are told apart by their move (a DogRun) unless
    # two moving pieces could leave the same position, which needs one of them on the dog's run
    # (the argument: test_two_pieces_on_the_dogs_run_that_leave_the_same_position_are_one_play).
    by_run = by_move and (len(moving) == 1 or all(loc not in run for _, loc, _ in moving))
    for p, loc, reached in moving:
        bites = second if first <= top and run[first - 1] == loc else first  # the smallest value that catches
        head = col.prefix + notation.step_from(names[loc] if loc < HOME else notation.place(loc, mover, seat))
        for item in reached:
            k = item[0]
            dest = item[1]
            to = names[dest] if dest < HOME else notation.place(dest, mover, seat)
            if run:
                end = run[k - 1]  # where the dog ends
                parts = f"{head}{to}{dog_from}{names[end]}"
            else:
                end = -1  # no dog on the board
                parts = head + to
            if k < bites and dest not in stops:
                # the usual case: the dog catches nothing, the disc does not turn
                if by_move and (dest >= HOME or occ[dest] < 0):  # nor does p where it lands
                    plays.append(MovedPiece(parts, asked, p, dest, end, 0, 0))
                else:
                    col.add_move(p, dest, end, parts)
                continue
            bitten = dest in run and run.index(dest) < k  # the dog runs over p where it landed
            turns = dest in paws and dest != dog and not bitten  # still on the paw it landed on: the disc turns
            if bitten or k >= bites:  # the dog catches something
                if by_run:  # kept as a run (see `by_run` above): its pieces are worked out when read
                    if turns:
                        for direction, word in notation.DISC_WORDS:
                            plays.append(DogRun(notation.disc_turned(parts, word), asked, p, dest, end, 0, direction))
                    else:
                        plays.append(DogRun(parts, asked, p, dest, end, 0, 0))
                    continue
                pieces = table.pieces_moved_dog_run(p, dest, run[:k])
                if turns:
                    for direction, word in notation.DISC_WORDS:
                        turned, dog_after, disc = table.pieces_disc_turned(pieces, end, direction)
                        col.add_pieces(turned, dog_after if dog_after >= 0 else None, disc,
                                       notation.disc_turned(parts, word), 0, direction)
                else:
                    col.add_pieces(pieces, end if end >= 0 else None, table.disc, parts)
            elif turns:  # the dog catches nothing: what p captures where it lands, add_move sees
                for direction, word in notation.DISC_WORDS:
                    if by_move and occ[dest] < 0:  # as add_moves: no capture (a paw is a track field)
                        plays.append(MovedPiece(notation.disc_turned(parts, word), asked, p, dest, end, 0, direction))
                    else:
                        col.add_move(p, dest, end, notation.disc_turned(parts, word), 0, direction)
            elif by_move and (dest >= HOME or (occ[dest] < 0 and dest != dog)):  # as add_moves: no capture
                plays.append(MovedPiece(parts, asked, p, dest, end, 0, 0))
            else:
                col.add_move(p, dest, end, parts)


def _swap(table: Table, mover: int, col: _Collector, void_allowed: bool) -> None:
    loc = table.loc
    owner = table.owner
    so = table.guard
    # on the track and not protected (a piece on its own start field)
    free = [p for p, f in enumerate(loc) if 0 <= f < HOME and so[f] != owner[p]]
    own = [p for p in free if owner[p] == mover]
    others = [q for q in free if owner[q] != mover]
    names = table.names
    for p in own:
        a = loc[p]
        for q in others:
            col.add_swap(p, q, col.prefix + notation.swap(names[a], names[loc[q]]))
    if not (own and others) and void_allowed:
        col.add(table, notation.NO_SWAP)


def _split_pieces(pos: Position, table: Table, mover: int, seat: int, card: str) -> tuple[list[int], list[int]]:
    """Pieces a split card may move first, and the ones it continues with once those are all home."""
    partner = pos.partner(mover)
    own = list(table.pieces_of(mover))
    if card == "7":
        later = list(table.pieces_of(partner)) if partner is not None else []
        return own, later
    # partner card (Black DOG): never the black dog, which is no seat's piece
    return [p for s in partner_card_seats(pos, seat) for p in table.pieces_of(s)], []


def partner_card_seats(pos: Position, seat: int) -> tuple[int, ...]:
    """Whose pieces a partner card played by `seat` may move (RULES.md §6), the seat's own first.

    Own and partner's pieces; once EITHER player of the team has all pieces home, both players
    of that team may also move every other player's pieces (rulebook: "dürfen die Spieler
    dieses Teams ..."); in solo games always any seat's pieces.
    """
    partner = pos.partner(seat)
    if partner is None or pos.is_finished(seat) or pos.is_finished(partner):
        return (seat, *(s for s in pos.seats if s != seat))
    return (seat, partner)


def _split(pos: Position, table: Table, mover: int, seat: int, card: str, col: _Collector) -> None:
    """Spend a 7 (burning what it passes) or a partner card's 4 points over several pieces.

    Each piece moves in one part; the order of the parts is searched, since it decides who
    is burned (7) or captured. For the 7 this loses nothing: tests check it against a naive
    search that splits freely. [decision] The partner card divides its points among pieces
    the same way: one piece does not stop half-way to capture twice (RULES.md §6 is silent).
    """
    table = table.working_copy()  # pieces move on it (the given one may be the position's own)
    points = SPLIT_POINTS[card]
    burn = card == "7"
    first, later = _split_pieces(pos, table, mover, seat, card)
    first_owners = {table.owner[p] for p in first}
    seen_states: set = set()
    parts: list[tuple[int, int, int]] = []
    loc = table.loc
    # a split never brings a piece out of its kennel: those are never movers
    first = [p for p in first if 0 <= loc[p] < KENNEL]
    later = [p for p in later if 0 <= loc[p] < KENNEL]

    reach = table.reach
    undo_move = table.undo
    names = table.names
    home = table.home
    owner = table.owner
    slots = table.slots

    def unlocks_later(p: int) -> bool:
        """Whether p going home would bring every first piece home, so that `later` may move on."""
        if not later or loc[p] >= HOME:
            return False
        missing = sum(table.n - home[s].bit_count() for s in first_owners)
        return missing == 1

    def record() -> None:
        # track fields by the table's names: the position's field numbers, whichever the direction
        named = notation.joined([notation.step(names[a] if a < HOME else notation.place(a, owner[p], seat),
                                               names[b] if b < HOME else notation.place(b, owner[p], seat))
                                 for p, a, b in parts])
        col.add(table, named, 0, tuple(p for p, _, _ in parts))

    def search(remaining: int, done: int) -> None:
        # the pieces that may take this part: the first ones, or `later` once those are all home
        group = later if later and all(table.all_home(s) for s in first_owners) else first
        # The pieces that may still move, and the most points each could take: a track piece
        # all that is left; a piece in the home the slots in front of it, less one for each
        # piece home ahead of it (those never leave). A part must leave no more than the others
        # can take, so most parts need not be tried (typically: one piece out, the rest home).
        free: list[int] = []
        room: list[int] = []
        for p in group:
            f = loc[p]
            if done >> p & 1 or f >= KENNEL:  # moved already, or burned by an earlier part
                continue
            if f < HOME:
                free.append(p)
                room.append(remaining)
            else:
                j = f - HOME
                most = slots - 1 - j - (home[owner[p]] >> (j + 1)).bit_count()
                if most > 0:
                    free.append(p)
                    room.append(most)
        total = sum(room)
        for i, p in enumerate(free):
            bit = 1 << p
            frm = loc[p]
            least = remaining - (total - room[i])  # the fewest points this part may take
            # ... unless it brings the last first piece home: then `later` pieces take the rest
            if least <= 1 or (group is first and unlocks_later(p)):
                steps = reach(p, remaining)
            else:
                steps = reach(p, remaining, False, ((2 << remaining) - 1) ^ ((1 << least) - 1))
            # whole moves first: they read best when one position has several ways (for equal
            # values home comes first, as in the walk's own order)
            for k, dest, n_passed in sorted(steps, reverse=True):
                if k < least and dest < HOME:
                    continue  # leaves more than anyone can take (only when `later` could help)
                undo = table.move_burning(p, dest, n_passed) if burn else table.move(p, dest)
                # the dog and the disc stand still while the parts are searched: the pieces decide
                state = (tuple(loc), remaining - k, done | bit)
                if state not in seen_states:
                    seen_states.add(state)
                    parts.append((p, frm, dest))  # named only at the end: most paths are dropped
                    if k == remaining:
                        record()
                    else:
                        search(remaining - k, done | bit)
                    parts.pop()
                undo_move(undo)

    search(points, 0)


def _plays_as(pos: Position, table: Table, as_card: str, seat: int, col: _Collector) -> None:
    partner = table.partner[seat]
    # acting_seat(), read off the table's home counts (asked once per card)
    mover = partner if partner is not None and table.home[seat].bit_count() == table.n else seat
    if as_card in START_CARDS:
        _start(table, mover, col)
    steps = CARD_STEPS.get(as_card)
    if steps is not None:  # the most common cards first (no card is of two kinds)
        _steps(table, mover, seat, steps, as_card, col)
        if as_card == "4" and "four_backward" in pos.variant.rules:
            _back(table, mover, seat, 4, col)
    elif as_card in SPLIT_POINTS and (as_card != "7" or "seven_split" in pos.variant.rules):
        _split(pos, table, mover, seat, as_card, col)
    elif as_card == "swap":
        _swap(table, mover, col, void_allowed="swap_void" in pos.variant.rules)
    elif as_card == "magnet":
        _magnet(table, mover, seat, col)
    elif as_card in BLACK_CARDS:
        _black(table, mover, seat, BLACK_CARDS[as_card], col)


def _check_seat(pos: Position, seat: object) -> int:
    if type(seat) is int and 0 <= seat < len(pos.pieces) and pos.pieces[seat] is not None:
        return seat  # the usual case, checked first: a plain int (never a bool) of a seat that plays
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(pos.pieces) or pos.pieces[seat] is None:
        raise CardError(f"seat {seat!r} does not play in this position (seats: {list(pos.seats)})")
    return seat


def _card_plays(pos: Position, table: Table, card: str, seat: int) -> list[Play]:
    col = _Collector(pos, table, card)
    if card == "joker":
        for as_card in (c for c, _ in pos.variant.deck if c != "joker"):
            col.set_card("joker", as_card)
            _plays_as(pos, table, as_card, seat, col)
    elif card == "copy":
        # copy plays as the last card played this round; with none (first card), not at all
        target = pos.last_card
        if target is not None and target != "copy":
            col.set_card("copy", target)
            _plays_as(pos, table, target, seat, col)
    else:
        _plays_as(pos, table, card, seat, col)
    return col.plays


# The entry points take `object` for what they check: compiled by mypyc, a narrower type would
# refuse a wrong one with a bare TypeError before the check could name the problem.
def legal_moves(pos: Position, card: object, seat: object) -> list[Play]:
    """Every legal play of `card` by `seat`, one per distinct resulting position."""
    # the usual question, checked here: a card of the edition's deck, a seat that plays
    variant = pos.variant
    checked_card = card if isinstance(card, str) and card in variant.cards else check_card(variant, card)
    pieces = pos.pieces
    checked_seat = seat if type(seat) is int and 0 <= seat < len(pieces) and pieces[seat] is not None else \
        _check_seat(pos, seat)
    table = position_table(pos)
    if table.over:
        return []
    return _card_plays(pos, table, checked_card, checked_seat)


class HandMoves:
    """`legal_moves` card by card for one position and seat, sharing the per-position work.

    For bots that look at one card after another and stop at the first that plays.
    """

    def __init__(self, pos: Position, seat: object) -> None:
        self.pos = pos
        self.seat = _check_seat(pos, seat)
        self.table = position_table(pos)
        self.over = self.table.over

    def __call__(self, card: object) -> list[Play]:
        checked_card = check_card(self.pos.variant, card)
        if self.over:
            return []
        return _card_plays(self.pos, self.table, checked_card, self.seat)


def legal_moves_for_hand(pos: Position, cards: Sequence[object], seat: object) -> dict[str, list[Play]]:
    """`legal_moves` for each distinct card of a hand, sharing the work that does not depend on the card."""
    hand = [check_card(pos.variant, card) for card in cards]
    checked_seat = _check_seat(pos, seat)
    table = position_table(pos)
    if table.over:
        return {card: [] for card in hand}
    return {card: _card_plays(pos, table, card, checked_seat) for card in dict.fromkeys(hand)}
