"""A play in words: "Red brings a piece from the kennel onto the start field",
"Blue: 7 split — 5 into the home, first field, 2, to 3 fields before Green's start, burns Green ...".

Pure: works out from the position before and the play's result which pieces moved where,
how far, and who was captured or burned, and words it with engine.messages, so the referee,
the hints, the log and the spoken words all say a play the same way. The notation
(Play.notation) stays the exact record; these are the words a family reads.

A track field is named by the nearest start field, the one landmark every board has and
every player can see ("3 fields before Blue's start", "just past Red's start"): the field
numbers of the notation are printed on no board. Distances are counted in the direction
of play (Position.ahead), so the words hold on a board played counter-clockwise too.
"""
from __future__ import annotations

from collections import Counter
from itertools import permutations

from engine import notation
from engine.disc import turn_disc
from engine.messages import card_name, colour_name, say
from engine.moves import Play
from engine.position import HOME, KENNEL, ROYAL_RANKS, Position

HOME_SLOT_WORDS = 4  # d_slot_0 .. d_slot_3: every edition's home has at most 4 fields


def describe_play(before: Position, play: Play, seat: int, lang: str = "en") -> str:
    """The play in one sentence, for the seat that played it."""
    # a paw landing turns the disc: the pieces moved where they landed, then the disc turned them
    after = turn_disc(play.result, -play.disc_turn) if play.disc_turn else play.result
    player = _player(before, seat, lang)
    head = _head(play, lang)
    moves = _piece_moves(before, after, seat, play, lang)
    parts = [text for _, text, _ in moves] + _losses(before, after, seat, play, lang, [path for *_, path in moves])
    if before.black_dog is not None and play.result.black_dog is not None and before.black_dog != play.result.black_dog:
        parts.append(say(lang, "d_dog", to=landmark(before, after.black_dog, lang, "to")))
    if play.disc_turn:
        parts.append(say(lang, "d_disc", direction=say(lang, "d_cw" if play.disc_turn > 0 else "d_ccw")))
    if not parts:
        return say(lang, "d_void", player=player, card=head or play.card)  # "the joker as swap"
    if head:
        return say(lang, "d_with_card", player=player, card=head, what=", ".join(parts))
    if moves and moves[0][0] == "move":  # "Red moves 5 to T23", but "Red brings a piece out"
        parts[0] = say(lang, "d_moves", what=parts[0])
    return say(lang, "d_plain", player=player, what=", ".join(parts))


def landmark(pos: Position, field: int, lang: str, case: str = "at") -> str:
    """A track field by the nearest start field: "Blue's start field", "3 fields before Blue's start".

    `case` "to" is the destination form ("onto Blue's start field", German "auf das ..."), "at"
    the place form ("on Blue's start field", "auf dem ..."). A tie (a field halfway between
    two starts) is said as before the one it goes towards: that is where the piece is heading.
    """
    board = pos.board
    owner = board.start_owner.get(field)
    seats = pos.seats
    if owner is not None and owner in seats:
        return say(lang, f"d_lm_start_{case}", player=_player(pos, owner, lang))
    starts = [(board.start_field(s), s) for s in seats]  # the starts of empty seats have no label on the page
    before = min((pos.ahead(field, f), s) for f, s in starts)
    after = min((pos.ahead(f, field), s) for f, s in starts)
    n, seat, kind = (*before, "before") if before[0] <= after[0] else (*after, "after")
    if n == 1:
        return say(lang, f"d_lm_just_{kind}_{case}", player=_player(pos, seat, lang))
    return say(lang, f"d_lm_{kind}_{case}", n=n, player=_player(pos, seat, lang))


def home_slot(slot: int, lang: str) -> str:
    """The home field a piece reaches, counted from the home's entrance: "first field"."""
    return say(lang, f"d_slot_{slot}") if 0 <= slot < HOME_SLOT_WORDS else f"H{slot}"


def _player(pos: Position, seat: int, lang: str) -> str:
    return colour_name(pos.board.colours[seat], lang).capitalize()


def _head(play: Play, lang: str) -> str:
    """The card named before the dash when it says more than the moves: a split 7, a joker, a copy."""
    if play.as_card in ("7", "1-7", "black-1-7") and play.notation.count(",") >= 1:
        return say(lang, "d_split", card=play.as_card)
    if play.card != play.as_card:
        return say(lang, "d_as", card=play.card, as_card=card_name(play.as_card, lang))
    return ""


def _loc(token: str) -> int:
    if token == "K":
        return KENNEL
    if "H" in token:
        return HOME + int(token.split("H")[1])
    return int(token[1:])


def _said_steps(play: Play) -> set[tuple[int, int]]:
    """The (from, to) steps the notation names, so a 7 that passes an own piece pairs them right."""
    return set(_said_order(play))


def _moves_of(before: Position, after: Position, s: int, said: frozenset = frozenset()
              ) -> list[tuple[int, int, int | None]]:
    """(from, to, rank index or None) for each of seat s's pieces that changed place."""
    a, b = before.pieces[s] or (), after.pieces[s] or ()
    if before.variant.name == "royal":  # pieces keep their identity: king, knight, citizen, fool
        return [(x, y, i) for i, (x, y) in enumerate(zip(a, b)) if x != y]
    gone = list((Counter(a) - Counter(b)).elements())
    came = list((Counter(b) - Counter(a)).elements())
    if not gone or len(gone) != len(came):
        return []
    # pair them so the pieces travelled the least in all (pieces are alike, only places count)
    best = min(permutations(came), key=lambda p: sum(
        0 if (x, y) in said else 1000 + _steps(before, s, x, y) for x, y in zip(gone, p)))
    return [(x, y, None) for x, y in zip(gone, best)]


def _steps(pos: Position, s: int, frm: int, to: int) -> int:
    L = pos.board.track_length
    start = pos.board.start_field(s)
    if frm == KENNEL or to == KENNEL:
        return 0 if frm == KENNEL and to == start else 10 * L
    if frm < HOME and to < HOME:
        return pos.ahead(frm, to)
    if frm < HOME:
        return pos.ahead(frm, start) + 1 + (to - HOME)
    return to - frm if to >= frm else 10 * L


def _piece_moves(before: Position, after: Position, seat: int, play: Play, lang: str
                 ) -> list[tuple[str, str, tuple[int, int]]]:
    """(kind, words, (from, to)) per moved piece of the player's team, in the notation's order.

    Kind "move" needs a verb when said alone ("moves 5 to T23"); "act" has its own.
    """
    out: list[tuple[str, str, tuple[int, int]]] = []
    team = before.team(seat)
    if play.as_card == "swap":
        for a, b in notation.SWAP_FORM.findall(play.notation):
            other = before.occupant().get(int(b))
            if other is not None:
                out.append(("act", say(lang, "d_swap", a=landmark(before, int(a), lang, "at"),
                                             b=landmark(before, int(b), lang, "at"),
                                             player=_player(before, other[0], lang)),
                            (int(a), int(b))))
        return out
    said = frozenset(_said_steps(play))
    for s in before.seats:
        for frm, to, rank in _moves_of(before, after, s, said):
            if to == KENNEL:
                continue  # captured or burned: said by _losses
            if s not in team:
                continue
            who = _piece_name(before, seat, s, rank, lang)
            if frm == KENNEL:
                out.append(("act", say(lang, "d_out", piece=who or say(lang, "d_a_piece")),
                            (frm, before.board.start_field(s))))
                continue
            if to >= HOME:
                n = _steps(before, s, frm, to)
                what = say(lang, "d_home", n=n, slot=home_slot(to - HOME, lang))
            elif play.as_card == "4" and before.ahead(to, frm) == 4:
                what = say(lang, "d_back", n=4, to=landmark(before, to, lang, "to"))
            else:
                what = say(lang, "d_to", n=before.ahead(frm, to), to=landmark(before, to, lang, "to"))
            out.append(("move", say(lang, "d_piece_does", piece=who, what=what) if who else what, (frm, to)))
    order = {step: i for i, step in enumerate(_said_order(play))}
    return sorted(out, key=lambda m: order.get(m[2], len(order)))


def _said_order(play: Play) -> list[tuple[int, int]]:
    body = play.notation.split(": ", 1)[-1]
    return [(_loc(a), _loc(b)) for part in body.split(notation.PART_SEP) if not part.startswith("dog")
            for a, b in notation.STEP_FORM.findall(part)]


def _piece_name(pos: Position, seat: int, s: int, rank: int | None, lang: str) -> str:
    """'' for an own plain piece; 'the king'; "Blue's piece" when a finished player moves the partner's."""
    name = say(lang, "rank_" + ROYAL_RANKS[rank]) if rank is not None else say(lang, "d_piece")
    if s != seat:
        return say(lang, "d_whose", player=_player(pos, s, lang), piece=name)
    return say(lang, "d_the", piece=name) if rank is not None else ""


def _losses(before: Position, after: Position, seat: int, play: Play, lang: str,
            paths: list[tuple[int, int]]) -> list[str]:
    """Pieces sent to the kennel: captured where a piece landed; passed by a 7: burned.

    Said in the order the moving pieces met them.
    """
    def met(field: int) -> tuple[int, int]:
        for i, (frm, to) in enumerate(paths):
            if frm < HOME and to < HOME and 0 < before.ahead(frm, field) <= before.ahead(frm, to):
                return i, before.ahead(frm, field)
        return len(paths), field

    out = []
    said = frozenset(_said_steps(play))
    landed = {to for s in before.seats for _, to, _ in _moves_of(before, after, s, said) if to < HOME}
    seven = play.as_card in ("7", "1-7", "black-1-7")
    for s in before.seats:
        for frm, to, _ in _moves_of(before, after, s, said):
            if to == KENNEL and frm < HOME:
                key = "d_capture" if frm in landed or not seven else "d_burn"
                out.append((met(frm), say(lang, key, player=_player(before, s, lang),
                                          field=landmark(before, frm, lang, "at"))))
    return [text for _, text in sorted(out)]
