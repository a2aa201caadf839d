"""Shared helpers for the royal / black engine tests (test_royal_*.py, test_black_*.py).

Import from a test file with:

    sys.path.insert(0, str(Path(__file__).parent))
    import rb_helpers as h

Everything works on position JSON dicts (NOTATION.md) and compares positions by what a
camera sees (pieces, black dog, disc), never by notation strings or last_card. Fields
that depend on editable board assumptions (royal special fields, black disc and paws) are
computed from `engine.load_board`, never hard-coded.
"""
from __future__ import annotations

import copy
from typing import Iterable

import engine

KING, KNIGHT, CITIZEN, FOOL = range(4)
SEATS4 = (0, 1, 2, 3)


# --- boards ---------------------------------------------------------------------------
def royal_board():
    return engine.load_board("royal", 4)


def black_board():
    return engine.load_board("black", 4)


def start(seat: int, board=None) -> int:
    board = board or royal_board()
    return board.start_field(seat)


def T(i: int, board=None) -> str:
    """Field id of track index i (taken modulo the track length)."""
    board = board or royal_board()
    return f"T{i % board.track_length}"


def idx(field: str) -> int:
    assert field.startswith("T"), field
    return int(field[1:])


def specials() -> list[int]:
    """Royal special fields in clockwise order from T0."""
    return sorted(royal_board().special_fields)


def paws() -> list[int]:
    return sorted(black_board().paw_fields)


def disc_fields() -> list[int]:
    return sorted(black_board().disc_fields)


def first_paw(segment: int) -> int:
    b = black_board()
    lo, hi = segment * b.segment_length, (segment + 1) * b.segment_length
    found = [p for p in paws() if lo <= p < hi]
    assert found, f"no paw field in segment {segment}: the board data changed, adapt the test"
    return found[0]


def disc_non_paw(segment: int) -> int:
    b = black_board()
    lo, hi = segment * b.segment_length, (segment + 1) * b.segment_length
    found = [d for d in disc_fields() if lo <= d < hi and d not in b.paw_fields]
    assert found, f"no non-paw disc field in segment {segment}: adapt the test"
    return found[0]


def assert_plain_royal(*fields: int) -> None:
    """Precondition: these fields are ordinary (no start field, no special field)."""
    b = royal_board()
    for f in fields:
        f %= b.track_length
        assert f not in b.special_fields and f not in b.start_fields, (
            f"T{f} is a special/start field under the current board data; the test layout needs adapting"
        )


def assert_plain_black(*fields: int) -> None:
    """Precondition: these fields are ordinary (no start field, not on the disc)."""
    b = black_board()
    for f in fields:
        f %= b.track_length
        assert f not in b.disc_fields and f not in b.start_fields, (
            f"T{f} is a disc/start field under the current board data; the test layout needs adapting"
        )


# --- positions ------------------------------------------------------------------------
def royal_pos(seats: dict[int, list[str]], variant: str = "royal", last_card: str | None = None,
              present: Iterable[int] = SEATS4, board: int = 4) -> dict:
    """A royal / royal-basic position; seats not given hold 4 kennel pieces (None if absent).

    royal lists are [king, knight, citizen, fool].
    """
    present = set(present)
    pieces = []
    for s in range(board):
        if s not in present:
            pieces.append(None)
        else:
            pieces.append(list(seats.get(s, ["K"] * 4)))
    out = {"variant": variant, "board": board, "pieces": pieces}
    if last_card is not None:
        out["last_card"] = last_card
    return out


def black_pos(seats: dict[int, list[str]], dog: str | None, disc: int = 0, last_card: str | None = None,
              present: Iterable[int] = SEATS4, n: int = 4) -> dict:
    present = set(present)
    pieces = []
    for s in range(4):
        if s not in present:
            pieces.append(None)
        else:
            pieces.append(list(seats.get(s, ["K"] * n)))
    out = {"variant": "black", "board": 4, "pieces": pieces, "black_dog": dog, "disc": disc}
    if last_card is not None:
        out["last_card"] = last_card
    return out


def parse(js: dict):
    return engine.parse_position(js)


def moves(js: dict, card: str, seat: int):
    return engine.legal_moves(engine.parse_position(js), card, seat)


def put(js: dict, seat: int, i: int, loc: str) -> dict:
    """Copy of js with piece number i of seat at loc (royal: i is the rank index)."""
    out = copy.deepcopy(js)
    out["pieces"][seat][i] = loc
    return out


def move(js: dict, seat: int, frm: str, to: str) -> dict:
    """Copy of js with one piece of seat moved from frm to to (first match)."""
    out = copy.deepcopy(js)
    locs = out["pieces"][seat]
    assert frm in locs, f"seat {seat} has no piece on {frm}: {locs}"
    locs[locs.index(frm)] = to
    return out


def with_dog(js: dict, dog: str | None) -> dict:
    out = copy.deepcopy(js)
    out["black_dog"] = dog
    return out


def key(js: dict) -> tuple:
    """What a camera sees: pieces (ordered only in royal), black dog, disc."""
    royal = js["variant"] == "royal"
    pieces = tuple(
        None if p is None else (tuple(p) if royal else tuple(sorted(p))) for p in js["pieces"]
    )
    return (js["variant"], pieces, js.get("black_dog"), js.get("disc", 0) or 0)


def rkey(play) -> tuple:
    return key(play.result.to_json())


def result_keys(plays) -> set:
    return {rkey(p) for p in plays}


def plays_to(plays, js: dict) -> list:
    k = key(js)
    return [p for p in plays if rkey(p) == k]


def has(plays, js: dict) -> bool:
    return bool(plays_to(plays, js))


def seat_locs(play, seat: int) -> list[str]:
    return play.result.to_json()["pieces"][seat]


# --- black dog and disc -----------------------------------------------------------------
def dog_walk(frm: int, k: int) -> tuple[int, list[int]]:
    """The black dog's destination and the fields it passes, moving k fields and skipping
    start fields (RULES.md §6)."""
    b = black_board()
    cur = frm
    passed: list[int] = []
    done = 0
    while done < k:
        cur = (cur + 1) % b.track_length
        if cur in b.start_fields:
            continue
        done += 1
        if done < k:
            passed.append(cur)
    return cur, passed


def rotate_field(f: int, direction: int) -> int:
    """Where a quarter turn (+1 clockwise, -1 counter-clockwise) carries disc field f."""
    b = black_board()
    if f not in b.disc_fields:
        return f
    return (f + direction * b.segment_length) % b.track_length


def turn(js: dict, direction: int) -> dict:
    """Copy of a black position after a quarter turn of the disc; pieces and the dog on the
    disc turn with it."""
    out = copy.deepcopy(js)
    for locs in out["pieces"]:
        if locs is None:
            continue
        for i, loc in enumerate(locs):
            if loc.startswith("T"):
                locs[i] = f"T{rotate_field(idx(loc), direction)}"
    if out.get("black_dog"):
        out["black_dog"] = f"T{rotate_field(idx(out['black_dog']), direction)}"
    out["disc"] = (out.get("disc", 0) + direction) % 4
    return out


def blue(at_least: int = 1) -> tuple[str, int]:
    """A blue number card of the black deck worth at least `at_least` (RULES.md §6: which
    ones is deck data; the black deck has no plain 4, 5, 6 or 7)."""
    cards = engine.get_variant("black").cards
    for k in (5, 3, 2, 6, 8, 9, 10, 12):
        if k >= at_least and str(k) in cards:
            return str(k), k
    raise AssertionError(f"the black deck has no blue number of at least {at_least}")
