"""The referee: is BEFORE -> AFTER a legal play of this card, and if not, why (in plain words)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from engine.describe import describe_play
from engine.errors import PositionError
from engine.messages import LANGS, piece, place, player, say
from engine.moves import (BLACK_CARDS, CARD_STEPS, GREEN_CARDS, START_CARDS, Play, acting_seat, legal_moves,
                          partner_card_seats)
from engine.table import Table
from engine.position import HOME, KENNEL, Position, check_card


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
    check_card(before.variant, card, lang)  # a card the deck has not: said in the referee's language
    plays = legal_moves(before, card, seat)
    match = tuple(p.notation for p in plays if p.result.same_board(after))
    if match:
        return Verdict(True, match, say(lang, "legal", play=match[0]))
    return Verdict(False, (), _explain(before, after, card, seat, plays, lang))


def _explain(before: Position, after: Position, card: str, seat: int, plays: list[Play], lang: str) -> str:
    colours = before.board.colours
    who = player(colours[seat], lang)
    changes = diff(before, after)
    as_partner = card == "partner" or (card == "copy" and before.last_card == "partner")
    if before.black_dog != after.black_dog and before.disc == after.disc and card not in BLACK_CARDS:
        if card == "swap":
            return say(lang, "dog_swap", field=f"T{before.black_dog}")
        if as_partner:
            return say(lang, "partner_dog", field=f"T{before.black_dog}")
        if card != "copy" or before.last_card not in BLACK_CARDS:
            return say(lang, "dog_still", field=f"T{before.black_dog}")
    if as_partner:
        allowed = partner_card_seats(before, seat)
        strangers = [c for c in changes if c.seat not in allowed and c.to != KENNEL]
        if strangers:
            c = strangers[0]
            return say(lang, "partner_opponents", piece=piece(colours[c.seat], c.frm, lang), player=who)
        if any(c.frm == KENNEL and c.to != KENNEL for c in changes):  # its points never start a piece
            return say(lang, "start_card_plain")
    if not plays:
        why = say(lang, "copy_first") if card == "copy" and before.last_card is None else say(lang, "no_play_why")
        own = [c for c in changes if c.seat == acting_seat(before, seat) and c.to != KENNEL]
        if len(own) == 1 and card not in ("7", "joker", "partner"):
            why = _explain_move(before, own[0], card, lang) or why
        return say(lang, "no_play", player=who, card=card, why=why)
    fifth = _fifth_piece_problem(before, after, plays, lang)
    if fifth:
        return fifth
    if not changes and before.black_dog == after.black_dog and before.disc == after.disc:
        return say(lang, "nothing_changed", card=card, example=describe_play(before, plays[0], seat, lang))
    if "black_dog" in before.variant.rules:
        problem = _disc_problem(before, after, plays, lang)
        if problem:
            return problem
    mover = acting_seat(before, seat)
    team = {mover}
    if card == "swap" or card == "joker":
        team = set(range(len(before.pieces)))
    if card == "partner":
        team = set(range(len(before.pieces)))
    strangers = [c for c in changes if c.seat not in team and c.to != KENNEL]
    if strangers and card not in ("swap", "joker", "partner"):
        c = strangers[0]
        whose = say(lang, "own") if mover == seat else say(lang, "partners")
        return say(lang, "not_own", piece=piece(colours[c.seat], c.frm, lang), player=who, whose=whose)
    moves = [c for c in changes if c.seat == mover and c.to != KENNEL]
    if card not in ("7", "joker", "partner") and len(moves) == 1:
        reason = _explain_move(before, moves[0], card, lang)
        if reason:
            return reason
    if card == "7" and moves and all(c.frm != KENNEL for c in moves):
        total = sum(_forward_distance(before, c) or 0 for c in moves)
        if total != 7 and all(_forward_distance(before, c) is not None for c in moves):
            return _way_round(before, say(lang, "seven_total", n=say(lang, "fields", n=total)), lang)
    if card not in ("7", "swap", "joker", "partner") and len(moves) > 1:
        listed = ", ".join(say(lang, "moved", piece=piece(colours[c.seat], c.frm, lang), to=place(c.to, lang))
                           for c in moves)
        return say(lang, "one_piece", card=card, n=len(moves), changes=listed)
    return _nearest(before, after, plays, seat, lang)


def _fifth_piece_problem(before: Position, after: Position, plays: list[Play], lang: str) -> str | None:
    """2-3 players: a seat whose pieces the play captures all puts its 5th piece beside the kennel,
    not onto its start field (Black DOG rulebook, 2-3 players): AFTER is a legal result but
    for that one piece on the start field."""
    for play in plays:
        res = play.result
        if res.black_dog != after.black_dog or res.disc != after.disc:
            continue
        for s, locs in enumerate(res.pieces):
            if not locs or len(locs) <= before.variant.pieces or any(loc != KENNEL for loc in locs):
                continue
            if (before.pieces[s] or ()) == locs:
                continue  # already all in the kennel before the play: nothing was captured
            start = before.board.start_field(s)
            seen = after.pieces[s] or ()
            if start not in seen or seen.count(KENNEL) != len(seen) - 1:
                continue
            if all(a == b for t, (a, b) in enumerate(zip(res.pieces, after.pieces)) if t != s):
                return say(lang, "fifth_piece", player=player(before.board.colours[s], lang), field=f"T{start}")
    return None


def _forward_distance(pos: Position, c: Change) -> int | None:
    """Fields a piece covered moving forward from c.frm to c.to (through its start into home)."""
    start = pos.board.start_field(c.seat)
    if c.frm >= HOME and c.frm < KENNEL and HOME <= c.to < KENNEL:
        return c.to - c.frm if c.to > c.frm else None
    if c.frm >= HOME:
        return None
    if c.to < HOME:
        return pos.ahead(c.frm, c.to)
    if c.to < KENNEL:
        if c.frm == start and pos.start_blocks(start):
            return None
        return pos.ahead(c.frm, start) + 1 + (c.to - HOME)
    return None


def _way_round(pos: Position, reason: str, lang: str) -> str:
    """A reason that counts fields forward or back, with the way the game goes when it goes
    counter-clockwise: the field numbers then fall as the pieces go forward."""
    if pos.step > 0:
        return reason
    return say(lang, "ccw_reason", reason=reason)


def _values(card: str, lang: str) -> str:
    steps = CARD_STEPS.get(card) or BLACK_CARDS.get(card, ())
    if len(steps) > 2:
        return say(lang, "fields", n=f"{steps[0]}-{steps[-1]}")
    return say(lang, "or").join(say(lang, "fields", n=k) for k in steps)


def _card_values(pos: Position, card: str) -> tuple[int, ...] | None:
    """Forward values a single-piece card allows (copy: the copied card's), None if not such a card."""
    if card == "copy":
        card = pos.last_card or ""
    return CARD_STEPS.get(card) or BLACK_CARDS.get(card)


def _explain_move(pos: Position, c: Change, card: str, lang: str) -> str | None:
    """Why one piece's move from c.frm to c.to is not a legal play of the card (None: unknown)."""
    board = pos.board
    colours = board.colours
    me = piece(colours[c.seat], c.frm, lang)
    start = board.start_field(c.seat)
    occ = pos.occupant()
    as_card = pos.last_card if card == "copy" else card
    if card == "copy" and pos.last_card is None:
        return say(lang, "copy_first")
    if c.frm == KENNEL:
        if as_card not in START_CARDS:  # royal and black decks have no joker to name
            return say(lang, "start_card" if "joker" in pos.variant.cards else "start_card_plain")
        if c.to != start:
            return say(lang, "start_field", field=f"T{start}", to=place(c.to, lang))
        if pos.start_blocks(start) and occ[start][0] == c.seat:
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
    if c.frm < HOME and HOME <= c.to < KENNEL:
        if c.frm == start and pos.start_blocks(start):
            return say(lang, "home_from_start", piece=me)
        if as_card == "magnet":
            return say(lang, "magnet_home")
    ranked = "ranks" in pos.variant.rules
    index = _index_of(pos, c)
    dist = _forward_distance(pos, c)
    L = board.track_length
    backwards = "four_backward" in pos.variant.rules
    if c.frm < HOME and c.to < HOME and dist is not None and dist > 0:
        back = L - dist
        if (as_card != "4" or not backwards) and back <= 13 and dist > 13:
            return _way_round(pos, say(lang, "backward", piece=me, n=back, to=place(c.to, lang)), lang)
        if as_card == "4" and backwards and back == 4:
            return _path_problem(pos, c, -1, 4, True, lang)
    if as_card == "magnet" and c.frm < HOME and c.to < HOME:
        ahead = pos.forward(c.to, 1)
        if ahead not in occ and ahead != pos.black_dog:
            return say(lang, "magnet_behind", piece=me)
        return None
    steps = _card_values(pos, card)
    if steps is None or dist is None:
        return None
    if dist not in steps:
        fool_home = ranked and index == 3 and HOME <= c.to < KENNEL
        if fool_home and any(0 < k - dist <= 2 for k in steps):
            return None  # a fool entering home may forfeit up to 2 points
        return _way_round(pos, say(lang, "distance", card=as_card, values=_values(as_card, lang), piece=me,
                                   n=say(lang, "fields", n=dist), to=place(c.to, lang)), lang)
    if ranked and index == 0 and dist > 7:
        return say(lang, "king_value", piece=me)
    if c.frm < HOME:
        track_steps = dist if c.to < HOME else pos.ahead(c.frm, start)
        problem = _path_problem(pos, c, +1, track_steps, as_card in GREEN_CARDS, lang)
        if problem:
            return problem
        if HOME <= c.to < KENNEL:
            for j in range(HOME, c.to + 1):
                if j in (pos.pieces[c.seat] or ()):
                    return say(lang, "home_jump", blocker=piece(colours[c.seat], j, lang))
    return None


def _index_of(pos: Position, c: Change) -> int:
    """Royal: which piece of its seat moved (0 king, 1 knight, 2 citizen, 3 fool)."""
    locs = pos.pieces[c.seat] or ()
    return locs.index(c.frm) if c.frm in locs else -1


def _path_problem(pos: Position, c: Change, direction: int, steps: int, green: bool, lang: str) -> str | None:
    """The first thing that forbids walking `steps` fields from c.frm: protection, rank, a king."""
    board = pos.board
    colours = board.colours
    occ = pos.occupant()
    ranked = "ranks" in pos.variant.rules
    my_index = _index_of(pos, c)
    my_rank = 3 - my_index if ranked else 0  # king 3 .. fool 0
    knight = ranked and my_index == 1
    f = c.frm
    for step in range(1, steps + 1):
        f = pos.forward(f, direction)
        if f not in occ:
            continue
        seat, index = occ[f]
        other = piece(colours[seat], f, lang)
        last = step == steps
        protected = board.start_owner.get(f) == seat and pos.start_blocks(f)
        if protected and (last or not knight):
            return say(lang, "protected_land" if last else "protected_pass", blocker=other)
        if ranked and not last and not green and 3 - index > my_rank:
            return say(lang, "rank_pass", piece=piece(colours[c.seat], c.frm, lang), blocker=other)
        if ranked and last and index == 0 and my_index != 0 and board.start_owner.get(f) != c.seat:
            return say(lang, "king_capture", blocker=other)
    return None


def _disc_problem(before: Position, after: Position, plays: list[Play], lang: str) -> str | None:
    """Black DOG: the pieces moved right, but the disc was (not) turned as it must be."""
    for play in plays:
        table = Table(play.result)
        candidates = []
        if play.disc_turn:
            undo = table.turn_disc(-play.disc_turn)
            candidates.append(("disc_missing", table.result(play.result.last_card)))
            table.undo(undo)
        else:
            for d in (1, -1):
                undo = table.turn_disc(d)
                candidates.append(("disc_not_allowed", table.result(play.result.last_card)))
                table.undo(undo)
        for key, pos in candidates:
            if pos.same_board(after):
                return say(lang, key)
    return None


def _nearest(before: Position, after: Position, plays: list[Play], seat: int, lang: str) -> str:
    """Describe the difference to the legal play that comes closest to what was seen."""
    colours = before.board.colours

    def distance(play: Play) -> int:
        return len(diff(play.result, after)) + (play.result.black_dog != after.black_dog) + (play.result.disc != after.disc)

    best = min(plays, key=distance)
    gaps = diff(best.result, after)
    if (not gaps and best.result.black_dog == after.black_dog) or len(gaps) > 2:
        seen = ", ".join(
            say(lang, "moved", piece=piece(colours[c.seat], c.frm, lang), to=place(c.to, lang))
            for c in diff(before, after)
        )
        return (say(lang, "not_this_card", card=best.card, player=player(colours[seat], lang))
                + "; " + say(lang, "changes_seen", changes=seen))
    parts = []
    if best.result.black_dog != after.black_dog and best.result.black_dog is not None:
        parts.append(say(lang, "dog_should_be", want=f"T{best.result.black_dog}"))
    for c in gaps:
        if c.frm == KENNEL:  # the legal play has it in the kennel: it should have been taken
            key = "burn_missing" if best.as_card == "7" else "capture_missing"
            parts.append(say(lang, key, piece=piece(colours[c.seat], c.to, lang)))
        else:
            parts.append(say(lang, "should_be", piece=piece(colours[c.seat], c.to, lang), want=place(c.frm, lang)))
    # in words, as a family reads it; the verdict's list of plays keeps the exact notation
    return say(lang, "almost", play=describe_play(before, best, seat, lang), diff="; ".join(parts))

