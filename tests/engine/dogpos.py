"""Small helpers to write engine tests as positions and expected results."""
from __future__ import annotations

import engine

COLOURS4 = ("red", "blue", "green", "yellow")


def position(*seats, variant: str = "classic", board: int | None = None, n: int | None = None) -> dict:
    """Position JSON from one list per seat (None for an empty seat); short lists fill up with K.

    Pieces per seat: compact 3; classic 4 in team games (4 of 4 or 6 of 6 seats), else 5.
    """
    if board is None:
        board = len(seats)
    if n is None:
        players = sum(1 for s in seats if s is not None)
        n = 3 if variant == "compact" else (4 if players == board and players in (4, 6) else 5)
    pieces = [None if s is None else list(s) + ["K"] * (n - len(s)) for s in seats]
    return {"variant": variant, "board": board, "pieces": pieces}


def key(pieces) -> tuple:
    """Canonical form of a pieces list: a sorted tuple per seat (None for empty seats)."""
    return tuple(None if p is None else tuple(sorted(p)) for p in pieces)


def plays(obj: dict, card: str, seat: int) -> list:
    return engine.legal_moves(engine.parse_position(obj), card, seat=seat)


def results(obj: dict, card: str, seat: int) -> set:
    """Canonical result keys of every legal play (duplicates collapse: see no_duplicates)."""
    return {key(p.result.to_json()["pieces"]) for p in plays(obj, card, seat)}


def result_list(obj: dict, card: str, seat: int) -> list:
    return [key(p.result.to_json()["pieces"]) for p in plays(obj, card, seat)]


def after(obj: dict, *changes: tuple[int, int, str]) -> tuple:
    """The key of obj with given changes: (seat, index in the seat's list, new location)."""
    pieces = [None if p is None else list(p) for p in obj["pieces"]]
    for seat, i, loc in changes:
        pieces[seat][i] = loc
    return key(pieces)


def moved(obj: dict, seat: int, src: str, dst: str, *captured: tuple[int, str]) -> tuple:
    """Key of obj after seat's piece on src goes to dst; captured = (seat, loc) sent to K."""
    pieces = [None if p is None else list(p) for p in obj["pieces"]]
    for s, loc in captured:
        pieces[s][pieces[s].index(loc)] = "K"
    pieces[seat][pieces[seat].index(src)] = dst
    return key(pieces)


def unchanged(obj: dict) -> tuple:
    return key(obj["pieces"])
