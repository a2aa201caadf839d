"""Carrying out a play made at another table: what the board here must become, and whether it has.

When a linked table plays, its play arrives here as events and this table's game moves on,
but the pieces on this table's board stand where they stood: a person here must move them.
`CarryOut.of(before, after, seat)` is that job: the board the camera must see when it is done
(`expected`, as `companion.table.occupancy` gives it), the pieces that move (`steps`), the disc's
quarter turn (Black DOG), and the whole of it in words in every language ("Blue: put the red
piece just past Blue's start back into its kennel, move the blue piece 6 fields before Blue's
start to just past Blue's start"). Fields are said by the board's landmarks (engine.describe):
the field numbers of the notation are printed on no board; the LEDs show the exact fields.

`check(carry, reading)` compares a settled reading of this board with the job and names what
is wrong (`Mismatch`: "the blue piece went to T14, not T12", in landmarks), or what is still to
do once something was done; `carried_out` says whether the board is done; `carry_leds` gives
the LED roles. A reading here is what vision reads: field id -> 's<seat>', 'dog', 'empty' or
'unknown' (occupied fields only will do): a field the camera could not tell is never called
wrong, and a board with such a field is never called done: the next reading decides.

The camera cannot tell pieces of one colour apart (nor the ranks of DOG Royal), so what a
person must still do is worked out afresh from each reading: the pieces out of place paired
with the places to fill, by the least travel, whatever the person did so far.

Pure, like companion.table: no clock, no I/O.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import permutations

import engine
from engine.describe import home_slot, landmark
from engine.messages import colour_name
from engine.messages import say as engine_say
from engine.position import HOME, KENNEL, ROYAL_RANKS, Position
from companion.table import occupancy, rotate_disc
from companion.texts import LANGS, say

DOG = "dog"  # the black dog, as a reading names it
EMPTY = "empty"
# Pieces of one colour out of place are paired with the places to fill by trying every pairing
# up to this many (6! = 720 sums); a board more disturbed than that is paired greedily, nearest
# first: the words then still put every piece somewhere it belongs.
PAIR_EXACT = 6
WRONG = frozenset({"went", "back", "extra", "missing"})  # kinds of Step that name a mistake
SEEN_WRONG = frozenset({"went", "back", "extra"})  # mistakes a piece seen where it must not stand shows


@dataclass(frozen=True)
class Step:
    """One piece to move (or, in a Mismatch, to put right): from field `frm` to field `to`.

    Fields are field ids (engine.geometry): `T<i>`, `S<s>H<j>`, and a kennel spot `S<s>K<j>`
    for a piece coming out of or going back into the kennel (any spot of that kennel will do).
    `kind`: move, out (of the kennel), kennel (back into it), swap (two pieces change places:
    the jack), and in a Mismatch also went (put on a wrong field), back (moved though it should
    have stayed), extra (on the board though it should not be), missing (a piece that belongs
    there is gone). `who` is 's<seat>' or 'dog'; `rank` the DOG Royal piece (king, ...) or None.
    """

    kind: str
    frm: str
    to: str
    who: str
    colour: str | None  # the piece's colour; None for the black dog
    rank: str | None = None

    @property
    def seat(self) -> int | None:
        return None if self.who == DOG else int(self.who[1:])

    @property
    def wrong(self) -> bool:
        return self.kind in WRONG


@dataclass(frozen=True)
class CarryOut:
    """What this table's board must become after a play `seat` made at another table."""

    seat: int
    colour: str  # the remote player's colour: the LEDs show the job in it
    before: Position
    after: Position
    expected: dict[str, str]  # occupancy(after): track and home fields -> 's<seat>' / 'dog'
    steps: tuple[Step, ...]
    disc_turn: int  # quarter turns to give the disc after the pieces moved (+1 clockwise)
    words: dict[str, str]  # lang -> the whole job in one sentence

    @classmethod
    def of(cls, before: Position, after: Position, seat: int) -> CarryOut:
        """The job for the play that took `before` to `after` (played by `seat`)."""
        if after.variant is not before.variant or after.board is not before.board:
            raise ValueError(f"{before.variant.name} on {before.board.segments} segments cannot become "
                             f"{after.variant.name} on {after.board.segments}: not one game")
        turn = _quarters(after.disc - before.disc)
        stage = rotate_disc(after, -turn) if turn else after  # the pieces moved, the disc not yet turned
        if before.variant.name == "royal":  # the pieces have ranks: the result says which went where
            raw = _royal_moves(before, stage)
        else:
            raw = _moves(before, occupancy(before), occupancy(stage))
        steps = _steps(before, occupancy(before), raw, before.team(seat))
        colour = before.board.colours[seat]
        words = {lang: _plan_words(before, seat, steps, turn, lang) for lang in LANGS}
        return cls(seat, colour, before, after, occupancy(after), steps, turn, words)

    @property
    def sources(self) -> tuple[str, ...]:
        return _unique(s.frm for s in self.steps)

    @property
    def targets(self) -> tuple[str, ...]:
        return _unique(s.to for s in self.steps)


@dataclass(frozen=True)
class Mismatch:
    """What a settled reading shows wrong, or still undone, in a carry-out.

    `steps` are what puts the board right (wrong ones first, then the job's own still to do);
    `errors` the fields to light as errors (a piece where it must not be, a place left empty
    that must not be), `sources` and `targets` the fields still to light as the carry-out:
    pieces still to pick up and where they go. `disc_turn`: the disc's quarter turns still
    to give once the pieces stand right (+ clockwise).
    """

    steps: tuple[Step, ...]
    errors: tuple[str, ...]
    sources: tuple[str, ...]
    targets: tuple[str, ...]
    disc_turn: int
    words: dict[str, str]

    @property
    def wrong(self) -> bool:
        """Something was done wrong (not just left undone)."""
        return bool(self.errors)


# --- comparing a reading with the job ----------------------------------------------------------
def check(carry: CarryOut, reading: Mapping[str, str], disc: int | None = None) -> Mismatch | None:
    """What is wrong with this reading of the board (`disc`: the disc as the encoder reads it).

    None when nothing is to be said: the board is done, or untouched (the job's LEDs and words
    stand), or what differs lies on fields the camera could not tell (wait for the next reading).
    """
    before = carry.before
    known, unknown = _read(reading, before)
    disc = disc if before.board.disc_fields else None  # only Black DOG has a disc to read
    if (disc is None or disc % 4 == before.disc) and _agrees(known, occupancy(before), unknown):
        return None
    had, want, left = _stage(carry, known, unknown, disc)
    raw = _moves(before, known, want, unknown)
    steps = _steps(before, known, raw, before.team(carry.seat), had)
    if unknown:
        # a place still to fill, or a piece seemingly gone, may be a field the camera could not
        # tell: only a piece seen where it must not stand is said (and the disc, if read)
        steps = tuple(s for s in steps if s.kind in SEEN_WRONG)
        left = left if disc is not None else 0
    if not steps and not left:
        return None
    errors = _unique([s.to if s.kind == "missing" else s.frm for s in steps if s.wrong])
    sources = _unique(s.frm for s in steps if not s.wrong)
    targets = _unique(s.to for s in steps if s.kind != "missing")
    words = {lang: _mismatch_words(before, steps, left, lang) for lang in LANGS}
    return Mismatch(steps, errors, tuple(f for f in sources if f not in errors),
                    tuple(f for f in targets if f not in errors), left, words)


def carried_out(carry: CarryOut, reading: Mapping[str, str], disc: int | None = None) -> bool:
    """The board reads exactly as it must, every field told (and the disc stands right, if read)."""
    known, unknown = _read(reading, carry.before)
    if unknown or (disc is not None and carry.before.board.disc_fields and disc % 4 != carry.after.disc):
        return False
    return known == carry.expected


def apply(carry: CarryOut, reading: Mapping[str, str]) -> dict[str, str]:
    """The reading after a person did the job on the board `reading` shows: every piece that
    moves lifted, all set down where the steps say, then the disc turned."""
    known, _ = _read(reading, carry.before)
    for step in carry.steps:
        if _on_board(step.frm) and known.get(step.frm) == step.who:
            del known[step.frm]
    for step in carry.steps:
        if _on_board(step.to):
            known[step.to] = step.who
    return turn_reading(carry.before.board, known, carry.disc_turn)


def turn_reading(board: engine.Board, reading: Mapping[str, str], quarters: int) -> dict[str, str]:
    """A reading after the disc turned `quarters` (+ clockwise): what stands on it turns with it."""
    if not quarters or not board.disc_fields:
        return dict(reading)
    L = board.track_length
    moved = {f"T{f}": f"T{(f + board.disc_shift * quarters) % L}" for f in board.disc_fields}
    return {moved.get(f, f): who for f, who in reading.items()}


# --- the LEDs ---------------------------------------------------------------------------------
def carry_leds(carry: CarryOut, mismatch: Mismatch | None, *, coloured: bool = False) -> dict[str, str]:
    """Field id -> LED role for the carry-out: the pieces to pick up, where they go, mistakes.

    Roles are those of companion.table.leds (movable, target, error), or with `coloured` the
    job in the remote player's colour: "remote_from-blue" where a blue piece is picked up,
    "remote_to-blue" where it goes (hardware.leds.role_light draws them; the camera reads those
    fields with the LEDs blanked, since a red ring makes a dark piece look red).
    """
    frm, to = ((f"remote_from-{carry.colour}", f"remote_to-{carry.colour}") if coloured
               else ("movable", "target"))
    out: dict[str, str] = {}
    if mismatch is None:
        sources, targets, errors = carry.sources, carry.targets, ()
    else:
        sources, targets, errors = mismatch.sources, mismatch.targets, mismatch.errors
    for f in errors:
        out[f] = "error"
    for f in sources:
        out.setdefault(f, frm)  # a field a piece leaves and another reaches: pick up first
    for f in targets:
        out.setdefault(f, to)
    return out


# --- reading and pairing ----------------------------------------------------------------------
def _read(reading: Mapping[str, str], pos: Position) -> tuple[dict[str, str], frozenset[str]]:
    """(track and home fields with a piece, fields the camera could not tell); kennels ignored.

    A field read as a piece of nobody who plays here is a field the camera could not tell.
    """
    players = {f"s{s}" for s in pos.seats} | ({DOG} if pos.variant.name == "black" else set())
    known: dict[str, str] = {}
    unknown = set()
    for fid, who in reading.items():
        if not _on_board(fid) or not who or who == EMPTY:
            continue
        if who in players:
            known[fid] = who
        else:
            unknown.add(fid)
    return known, frozenset(unknown)


def _on_board(fid: str) -> bool:
    """A track or home field (a kennel spot is not told apart from the others)."""
    try:
        kind, _, _ = engine.parse_field_id(fid)
    except engine.EngineError:
        return False
    return kind != "K"


def _agrees(known: Mapping[str, str], want: Mapping[str, str], unknown: frozenset[str]) -> bool:
    return all(known.get(f) == want.get(f) for f in (set(known) | set(want)) - unknown)


def _quarters(q: int) -> int:
    """Quarter turns as the shortest turn: -1, 0, +1, or 2 (half a turn either way)."""
    return ((q + 1) % 4) - 1


def _stage(carry: CarryOut, known: dict[str, str], unknown: frozenset[str], disc: int | None
           ) -> tuple[dict[str, str], dict[str, str], int]:
    """(the board before, the board wanted, the disc's turn still to give) for the disc as it stands.

    With the disc not yet turned the pieces must stand as before the turn; turned the wrong
    way, as the result turned back by as much. Unread, the disc stands as the reading fits best.
    """
    before, after = carry.before, carry.after
    options = [disc % 4] if disc is not None else list(dict.fromkeys((after.disc, before.disc)))
    best = None
    for d in options:
        want = occupancy(rotate_disc(after, _quarters(d - after.disc)))
        had = occupancy(rotate_disc(before, _quarters(d - before.disc)))
        off = sum(1 for f in (set(known) | set(want)) - unknown if known.get(f) != want.get(f))
        if best is None or off < best[0]:
            best = (off, had, want, _quarters(after.disc - d))
    assert best is not None
    return best[1], best[2], best[3]


Raw = tuple[str, str | None, str | None, str | None]  # (who, from field or None: kennel, to, rank)


def _moves(pos: Position, have: Mapping[str, str], want: Mapping[str, str],
           unknown: frozenset[str] = frozenset()) -> list[Raw]:
    """What turns board `have` into board `want`: per colour, the pieces out of place paired with
    the places to fill by the least travel; a piece left over goes to its kennel, a place left
    over gets a piece from the kennel. Fields in `unknown` are left as they are."""
    out: list[Raw] = []
    for who in sorted(set(have.values()) | set(want.values())):
        h = {f for f, w in have.items() if w == who}
        e = {f for f, w in want.items() if w == who}
        leaving = sorted(h - e - unknown, key=_field_order)
        arriving = sorted(e - h - unknown, key=_field_order)
        out += [(who, frm, to, None) for frm, to in _pair(pos, who, leaving, arriving)]
    return out


def _royal_moves(before: Position, after: Position) -> list[Raw]:
    """DOG Royal: each piece keeps its rank, so the result says which piece went where."""
    out: list[Raw] = []
    for s in before.seats:
        for i, (x, y) in enumerate(zip(before.pieces[s] or (), after.pieces[s] or ())):
            if x != y:
                out.append((f"s{s}", _field(s, x), _field(s, y), ROYAL_RANKS[i]))
    return out


def _field(seat: int, loc: int) -> str | None:
    if loc == KENNEL:
        return None
    return f"S{seat}H{loc - HOME}" if loc >= HOME else f"T{loc}"


def _field_order(fid: str) -> tuple[str, int, int]:
    kind, seat, idx = engine.parse_field_id(fid)
    return kind, seat, idx


def _pair(pos: Position, who: str, leaving: list[str], arriving: list[str]) -> list[tuple[str | None, str | None]]:
    """(from, to) pairs; None stands for the kennel."""
    flip = len(leaving) > len(arriving)
    small, large = (arriving, leaving) if flip else (leaving, arriving)

    def cost(a: str, b: str) -> int:
        return _travel(pos, who, a, b)

    if len(large) <= PAIR_EXACT:
        chosen = list(min(permutations(large, len(small)), key=lambda p: sum(map(cost, small, p))))
    else:
        chosen, free = [], list(large)
        for a in small:
            b = min(free, key=lambda f: cost(a, f))
            free.remove(b)
            chosen.append(b)
    rest = [f for f in large if f not in chosen]
    if flip:
        return [(b, a) for a, b in zip(small, chosen)] + [(f, None) for f in rest]
    return list(zip(small, chosen)) + [(None, f) for f in rest]


def _travel(pos: Position, who: str, a: str, b: str) -> int:
    """How far a piece of `who` travels between two fields, either way (pairing only)."""
    ka, _, ia = engine.parse_field_id(a)
    kb, _, ib = engine.parse_field_id(b)
    if ka == kb == "T":
        return min(pos.ahead(ia, ib), pos.ahead(ib, ia))
    if ka == kb == "H":
        return abs(ia - ib)
    track, slot = (ia, ib) if ka == "T" else (ib, ia)
    start = track if who == DOG else pos.board.start_field(int(who[1:]))
    return pos.ahead(track, start) + 1 + slot  # a home is entered from its own start field


# --- steps ------------------------------------------------------------------------------------
def _steps(pos: Position, board: Mapping[str, str], raw: list[Raw], team: tuple[int, ...],
           had: Mapping[str, str] | None = None) -> tuple[Step, ...]:
    """Raw moves as Steps, kennel spots named, swaps found, in the order a person does them.

    Without `had` the moves are the job itself; with it they put a reading right, and `had`
    (the board before the job, the disc turned as it stands now) tells a mistake from a step
    still to do.
    """
    in_kennel = {s: len(pos.pieces[s] or ()) - sum(1 for w in board.values() if w == f"s{s}") for s in pos.seats}
    outs: dict[int, int] = {}
    backs: dict[int, int] = {}
    steps = []
    for who, frm, to, rank in raw:
        seat = None if who == DOG else int(who[1:])
        colour = None if seat is None else pos.board.colours[seat]
        if frm is None:
            assert seat is not None  # the black dog never leaves the board
            outs[seat] = outs.get(seat, 0) + 1
            frm_id, kind = f"S{seat}K{max(0, in_kennel[seat] - outs[seat])}", "out"
            to_id = to or frm_id
            if had is not None and had.get(to_id) == who:
                kind = "missing"
        elif to is None:
            assert seat is not None
            # a reading with more pieces of a colour than it has still names a kennel spot
            to_id = f"S{seat}K{max(0, in_kennel[seat] - outs.get(seat, 0) + backs.get(seat, 0))}"
            backs[seat] = backs.get(seat, 0) + 1
            frm_id, kind = frm, "kennel"
            if had is not None and had.get(frm) != who:
                kind = "extra"
        else:
            frm_id, to_id, kind = frm, to, "move"
            if had is not None and had.get(frm) != who:
                kind = "back" if had.get(to) == who else "went"
        steps.append(Step(kind, frm_id, to_id, who, colour, rank))
    steps = _swaps(steps)
    return tuple(sorted(steps, key=lambda s: _step_order(s, team)))


def _swaps(steps: list[Step]) -> list[Step]:
    """Two pieces of different colours each going where the other stood: a swap."""
    out = list(steps)
    for i, a in enumerate(out):
        for j, b in enumerate(out):
            if (i < j and a.kind == b.kind == "move" and a.who != b.who and a.frm == b.to and a.to == b.frm
                    and DOG not in (a.who, b.who)):
                out[i] = Step("swap", a.frm, a.to, a.who, a.colour, a.rank)
                out[j] = Step("swap", b.frm, b.to, b.who, b.colour, b.rank)
    return out


def _step_order(step: Step, team: tuple[int, ...]) -> tuple[int, tuple]:
    """Mistakes first; then pieces leaving for the kennel (their field is free for the one that
    lands there), the player's own pieces, the other pieces, the black dog (it runs after the
    pieces: RULES.md §6)."""
    if step.wrong:
        group = 0
    elif step.kind == "kennel":
        group = 1
    elif step.who == DOG:
        group = 4
    elif step.seat in team:
        group = 2
    else:
        group = 3
    where = step.to if step.kind in ("out", "missing") else step.frm
    return group, _field_order(where)


def _unique(fields: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(fields))


# --- words ------------------------------------------------------------------------------------
def _plan_words(pos: Position, seat: int, steps: tuple[Step, ...], turn: int, lang: str) -> str:
    parts = []
    for step, other in _grouped(steps):
        if step.kind == "swap" and other is not None:
            parts.append(say(lang, "carry_swap", a=_the(pos, step, lang), b=_the(pos, other, lang)))
        elif step.kind == "out":
            parts.append(say(lang, "carry_out", piece=_a(step, lang), to=_to(pos, step.to, lang)))
        elif step.kind == "kennel":
            parts.append(say(lang, "carry_kennel", piece=_the(pos, step, lang)))
        else:
            parts.append(say(lang, "carry_move", piece=_the(pos, step, lang), to=_to(pos, step.to, lang)))
    if turn:
        parts.append(_disc_words(turn, lang, "carry_disc"))
    player = colour_name(pos.board.colours[seat], lang).capitalize()
    if not parts:
        return say(lang, "carry_nothing", player=player)
    return say(lang, "carry_head", player=player, steps=", ".join(parts))


def _mismatch_words(pos: Position, steps: tuple[Step, ...], turn: int, lang: str) -> str:
    parts = []
    for step, other in _grouped(steps):
        if step.kind == "went":
            parts.append(say(lang, "carry_went", piece=_the(pos, step, lang, where=False, subject=True),
                             to=_to(pos, step.frm, lang), want=_to(pos, step.to, lang)))
        elif step.kind == "back":
            parts.append(say(lang, "carry_back", piece=_the(pos, step, lang, subject=True), to=_to(pos, step.to, lang)))
        elif step.kind == "extra":
            parts.append(say(lang, "carry_extra", piece=_a(step, lang, subject=True), at=_at(pos, step.frm, lang)))
        elif step.kind == "missing":
            parts.append(say(lang, "carry_missing", piece=_a(step, lang, subject=True), at=_at(pos, step.to, lang)))
        elif step.kind == "swap" and other is not None:
            parts.append(say(lang, "carry_should_swap", a=_the(pos, step, lang, subject=True),
                             b=_the(pos, other, lang, subject=True)))
        elif step.kind == "out":
            parts.append(say(lang, "carry_should_out", piece=_a(step, lang, subject=True), to=_to(pos, step.to, lang)))
        elif step.kind == "kennel":
            parts.append(say(lang, "carry_should_kennel", piece=_the(pos, step, lang, subject=True)))
        else:
            parts.append(say(lang, "carry_should_move", piece=_the(pos, step, lang, subject=True),
                             to=_to(pos, step.to, lang)))
    if turn:
        parts.append(_disc_words(turn, lang, "carry_disc_still"))
    key = "carry_wrong" if any(s.wrong for s in steps) else "carry_still"
    return say(lang, key, what="; ".join(parts))


def _grouped(steps: tuple[Step, ...]) -> list[tuple[Step, Step | None]]:
    """Each step with the other half of its swap (None if it has none); a swap's second half is left out."""
    out: list[tuple[Step, Step | None]] = []
    done: set[int] = set()
    for i, step in enumerate(steps):
        if i in done:
            continue
        other = None
        if step.kind == "swap":
            for j in range(i + 1, len(steps)):
                if j not in done and steps[j].kind == "swap" and steps[j].frm == step.to and steps[j].to == step.frm:
                    other = steps[j]
                    done.add(j)
                    break
        out.append((step, other))
    return out


def _disc_words(turn: int, lang: str, key: str) -> str:
    if abs(turn) == 2:
        return say(lang, key + "_half")
    return say(lang, key, direction=engine_say(lang, "d_cw" if turn > 0 else "d_ccw"))


def _name(step: Step, lang: str, key: str, subject: bool) -> str:
    """'the blue piece', 'a blue piece (king)', 'the black dog' (German tells subject from object)."""
    if step.who == DOG:
        return say(lang, "carry_dog_subject" if subject else "carry_dog")
    text = say(lang, key, colour=colour_name(step.colour or "", lang))
    if step.rank is not None:
        text = say(lang, "carry_ranked", piece=text, rank=say(lang, f"carry_rank_{step.rank}"))
    return text


def _the(pos: Position, step: Step, lang: str, where: bool = True, subject: bool = False) -> str:
    """The piece by where it stands now: 'the blue piece 6 fields before Blue's start'."""
    name = _name(step, lang, "carry_piece", subject)
    return f"{name} {_at(pos, step.frm, lang)}" if where else name


def _a(step: Step, lang: str, subject: bool = False) -> str:
    return _name(step, lang, "carry_a_piece", subject)


def _at(pos: Position, fid: str, lang: str) -> str:
    """Where a piece stands: "6 fields before Blue's start", "in the home (first field)"."""
    kind, _, idx = engine.parse_field_id(fid)
    if kind == "H":
        return say(lang, "carry_home_at", slot=home_slot(idx, lang))
    return landmark(pos, idx, lang, "at")


def _to(pos: Position, fid: str, lang: str) -> str:
    """Where a piece goes: "to 6 fields before Blue's start", "into the home (first field)"."""
    kind, _, idx = engine.parse_field_id(fid)
    if kind == "H":
        return say(lang, "carry_home_to", slot=home_slot(idx, lang))
    return landmark(pos, idx, lang, "to")
