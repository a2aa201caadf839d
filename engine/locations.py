"""Where a piece can stand, as the engine codes it: track field f is f, home slot i is HOME + i,
the kennel is KENNEL. Every module that reads a location needs these, the position and the
referee's words alike, so they live here, below both."""
from __future__ import annotations

from typing import Final

HOME: Final = 200  # above every track field of the largest board (96 fields)
KENNEL: Final = 999  # above every home slot


def loc_name(loc: int) -> str:
    if loc == KENNEL:
        return "K"
    if loc >= HOME:
        return f"H{loc - HOME}"
    return f"T{loc}"


def is_track(loc: int) -> bool:
    return loc < HOME


def is_home(loc: int) -> bool:
    return HOME <= loc < KENNEL
