"""The referee: is BEFORE -> AFTER a legal play of this card, and if not, why (in plain words)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from engine.errors import PositionError
from engine.messages import LANGS, piece, place, player, say
from engine.moves import CARD_STEPS, START_CARDS, Play, acting_seat, legal_moves
from engine.position import HOME, KENNEL, Position


@dataclass(frozen=True)
class Verdict:
    legal: bool
    plays: tuple[str, ...]  # notations of the legal plays that give AFTER
    reason: str

    def to_json(self) -> dict:
        return {"legal": self.legal, "plays": list(self.plays), "reason": self.reason}


@dataclass(frozen=True)
class Change:
    seat: int
    frm: int
    to: int


def diff(before: Position, after: Position) -> list[Change]:
    """Which pieces went where, seat by seat (kennel arrivals paired with track departures)."""
    out = []
    for seat, (a, b) in enumerate(zip(before.pieces, after.pieces)):
        if a is None or b is None:
            continue
        if before.variant.name == "royal":
            out += [Change(seat, x, y) for x, y in zip(a, b) if x != y]
            continue
        ca, cb = Counter(a), Counter(b)
        rem = sorted((ca - cb).elements())
        add = sorted((cb - ca).elements())
        starts = [x for x in add if x != KENNEL] if KENNEL in rem else []
        while KENNEL in rem and starts:
            rem.remove(KENNEL)
            to = starts.pop(0)
            add.remove(to)
            out.append(Change(seat, KENNEL, to))
        while KENNEL in add and rem:
            add.remove(KENNEL)
            # the piece that went back is, by elimination, one not accounted as moving
            frm = rem.pop(0) if len(rem) > len(add) else rem.pop()
            out.append(Change(seat, frm, KENNEL))
        out += [Change(seat, x, y) for x, y in zip(rem, add)]
    return out


def check(before: Position, after: Position, card: str, seat: int, lang: str = "en") -> Verdict:
    """Whether some legal play of `card` by `seat` turns `before` into `after`, and why not."""
    if lang not in LANGS:
        raise PositionError(f"language '{lang}' is not available (choose {' or '.join(LANGS)})")
    if before.variant is not after.variant or before.board is not after.board:
        raise PositionError("BEFORE and AFTER are not the same game: variant and board must match")
    if [p is None for p in before.pieces] != [p is None for p in after.pieces]:
        raise PositionError("BEFORE and AFTER must have the same seats in play")
    if [len(p) for p in before.pieces if p] != [len(p) for p in after.pieces if p]:
        raise PositionError("BEFORE and AFTER must have the same number of pieces per seat")
    plays = legal_moves(before, card, seat)
    match = tuple(p.notation for p in plays if p.result.same_board(after))
    if match:
        return Verdict(True, match, say(lang, "legal", play=match[0]))
    return Verdict(False, (), _explain(before, after, card, seat, plays, lang))


def _explain(before: Position, after: Position, card: str, seat: int, plays: list[Play], lang: str) -> str:
    colours = before.board.colours
    who = player(colours[seat], lang)
    changes = diff(before, after)
    if not plays:
        why = say(lang, "no_play_why")
        own = [c for c in changes if c.seat == acting_seat(before, seat) and c.to != KENNEL]
        if len(own) == 1 and card not in ("7", "joker"):
            why = _explain_move(before, own[0], card, lang) or why
        return say(lang, "no_play", player=who, card=card, why=why)
    if not changes and before.black_dog == after.black_dog and before.disc == after.disc:
        return say(lang, "nothing_changed", card=card, example=plays[0].notation)
    mover = acting_seat(before, seat)
    team = {mover}
    if card == "swap" or card == "joker":
        team = set(range(len(before.pieces)))
    strangers = [c for c in changes if c.seat not in team and c.to != KENNEL]
    if strangers and card not in ("swap", "joker"):
        c = strangers[0]
        whose = say(lang, "own") if mover == seat else say(lang, "partners")
        return say(lang, "not_own", piece=piece(colours[c.seat], c.frm, lang), player=who, whose=whose)
    moves = [c for c in changes if c.seat == mover and c.to != KENNEL]
    if card != "7" and card != "joker" and len(moves) == 1:
        reason = _explain_move(before, moves[0], card, lang)
        if reason:
            return reason
    if card == "7" and moves and all(c.frm != KENNEL for c in moves):
        total = sum(_forward_distance(before, c) or 0 for c in moves)
        if total != 7 and all(_forward_distance(before, c) is not None for c in moves):
            return say(lang, "seven_total", n=say(lang, "fields", n=total))
    if card not in ("7", "swap", "joker") and len(moves) > 1:
        listed = ", ".join(say(lang, "moved", piece=piece(colours[c.seat], c.frm, lang), to=place(c.to, lang))
                           for c in moves)
        return say(lang, "one_piece", card=card, n=len(moves), changes=listed)
    return _nearest(before, after, plays, seat, lang)


def _forward_distance(pos: Position, c: Change) -> int | None:
    """Fields a piece covered moving forward from c.frm to c.to (through its start into home)."""
    board = pos.board
    L = board.track_length
    start = board.start_field(c.seat)
    if c.frm >= HOME and c.frm < KENNEL and HOME <= c.to < KENNEL:
        return c.to - c.frm if c.to > c.frm else None
    if c.frm >= HOME:
        return None
    if c.to < HOME:
        return (c.to - c.frm) % L
    if c.to < KENNEL:
        if c.frm == start:
            return None
        return (start - c.frm) % L + 1 + (c.to - HOME)
    return None


def _values(card: str, lang: str) -> str:
    steps = CARD_STEPS.get(card, ())
    return say(lang, "or").join(say(lang, "fields", n=k) for k in steps)


def _explain_move(pos: Position, c: Change, card: str, lang: str) -> str | None:
    """Why one piece's move from c.frm to c.to is not a legal play of the card (None: unknown)."""
    board = pos.board
    colours = board.colours
    me = piece(colours[c.seat], c.frm, lang)
    start = board.start_field(c.seat)
    occ = pos.occupant()
    if c.frm == KENNEL:
        if card not in START_CARDS:
            return say(lang, "start_card")
        if c.to != start:
            return say(lang, "start_field", field=f"T{start}", to=place(c.to, lang))
        if start in occ and occ[start][0] == c.seat:
            return say(lang, "start_blocked", piece=piece(colours[c.seat], start, lang))
        return None
    if HOME <= c.frm < KENNEL:
        if c.to < HOME:
            return say(lang, "home_leave", piece=me)
        if c.to < c.frm:
            return say(lang, "home_back")
        for j in range(c.frm + 1, c.to + 1):
            if j in (pos.pieces[c.seat] or ()):
                return say(lang, "home_jump", blocker=piece(colours[c.seat], j, lang))
    if c.frm < HOME and HOME <= c.to < KENNEL and c.frm == start:
        return say(lang, "home_from_start", piece=me)
    dist = _forward_distance(pos, c)
    L = board.track_length
    if c.frm < HOME and c.to < HOME and dist is not None and dist > 0:
        back = L - dist
        if card != "4" and back <= 13 and dist > 13:
            return say(lang, "backward", piece=me, n=back, to=place(c.to, lang))
        if card == "4" and back == 4:
            blocker = _blocker(pos, c.frm, -1, 4)
            if blocker is not None:
                key = "protected_land" if blocker == c.to else "protected_pass"
                return say(lang, key, blocker=piece(colours[occ[blocker][0]], blocker, lang))
            return None
    steps = CARD_STEPS.get(card)
    if steps is None or dist is None:
        return None
    if dist not in steps:
        return say(lang, "distance", card=card, values=_values(card, lang), piece=me,
                   n=say(lang, "fields", n=dist), to=place(c.to, lang))
    if c.frm < HOME:
        track_steps = dist if c.to < HOME else (start - c.frm) % L
        blocker = _blocker(pos, c.frm, +1, track_steps)
        if blocker is not None:
            key = "protected_land" if blocker == c.to else "protected_pass"
            return say(lang, key, blocker=piece(colours[occ[blocker][0]], blocker, lang))
        if HOME <= c.to < KENNEL:
            for j in range(HOME, c.to + 1):
                if j in (pos.pieces[c.seat] or ()):
                    return say(lang, "home_jump", blocker=piece(colours[c.seat], j, lang))
    return None


def _blocker(pos: Position, frm: int, direction: int, steps: int) -> int | None:
    """The first protected field a piece would pass or land on, walking `steps` fields."""
    board = pos.board
    L = board.track_length
    occ = pos.occupant()
    f = frm
    for _ in range(steps):
        f = (f + direction) % L
        owner = board.start_owner.get(f)
        if owner is not None and f in occ and occ[f][0] == owner:
            return f
    return None


def _nearest(before: Position, after: Position, plays: list[Play], seat: int, lang: str) -> str:
    """Describe the difference to the legal play that comes closest to what was seen."""
    colours = before.board.colours

    def distance(play: Play) -> int:
        return len(diff(play.result, after)) + (play.result.black_dog != after.black_dog) + (play.result.disc != after.disc)

    best = min(plays, key=distance)
    gaps = diff(best.result, after)
    if not gaps or len(gaps) > 2:
        seen = ", ".join(
            say(lang, "moved", piece=piece(colours[c.seat], c.frm, lang), to=place(c.to, lang))
            for c in diff(before, after)
        )
        return (say(lang, "not_this_card", card=best.card, player=player(colours[seat], lang))
                + "; " + say(lang, "changes_seen", changes=seen))
    parts = []
    for c in gaps:
        if c.frm == KENNEL:  # the legal play has it in the kennel: it should have been taken
            key = "burn_missing" if best.as_card == "7" else "capture_missing"
            parts.append(say(lang, key, piece=piece(colours[c.seat], c.to, lang)))
        else:
            parts.append(say(lang, "should_be", piece=piece(colours[c.seat], c.to, lang), want=place(c.frm, lang)))
    return say(lang, "almost", play=best.notation, diff="; ".join(parts))

