"""How a play is written (docs/notation.md, "How a play reads"): the one place its forms are.

`<card>: <part>, <part>, …`, each part one of:

    T3-T5           a piece's move (K: the kennel, H1: a home slot, S2H1: seat 2's home slot)
    T3-T63 back     the 4 backwards
    K-T0 (knight)   royal: which piece comes out
    T3<>T40         a swap
    dog T14-T19     Black DOG: the dog's run after a black card's move
    disc clockwise  Black DOG: the disc's quarter turn (or counter-clockwise)
    jumps to T24    royal: a citizen's jump after landing on a special field
    no swap possible, laid down without effect

The move generator writes a piece's move as `step_from(a) + b`, joining the first half once
per piece: its loops list up to seven moves of each piece. engine.reading reads a play back
against these forms; engine.describe finds the moves and swaps in them to word a play.
"""
from __future__ import annotations

import re

from engine.locations import HOME, KENNEL
from engine.position import ROYAL_RANKS

PART_SEP = ", "
NO_SWAP = "no swap possible, laid down without effect"
DISC_WORDS = ((1, "clockwise"), (-1, "counter-clockwise"))  # (quarter turn, its word)


def card_prefix(card: str, as_card: str) -> str:
    """What every play of the card starts with: "4: ", "joker as 4: "."""
    return f"{card}: " if card == as_card else f"{card} as {as_card}: "


def place(loc: int, owner: int, seat: int) -> str:
    """A location in a play by `seat`: a home slot of another seat's piece carries that seat."""
    if loc == KENNEL:
        return "K"
    if loc >= HOME:
        return f"H{loc - HOME}" if owner == seat else f"S{owner}H{loc - HOME}"
    return f"T{loc}"


def step_from(frm: str) -> str:
    """The first half of a move from `frm`: the destination's name follows."""
    return frm + "-"


def step(frm: str, to: str) -> str:
    return f"{frm}-{to}"


def back(frm: str, to: str) -> str:
    return f"{frm}-{to} back"


def royal_start(field: str, rank: str) -> str:
    return f"K-{field} ({rank})"


def swap(a: str, b: str) -> str:
    return f"{a}<>{b}"


def dog_from(field: str) -> str:
    """The dog's run from `field`, as the next part: its end's name follows."""
    return f"{PART_SEP}dog {field}-"


def disc_turned(parts: str, word: str) -> str:
    return f"{parts}{PART_SEP}disc {word}"


def jumped(parts: str, to: str) -> str:
    return f"{parts}{PART_SEP}jumps to {to}"


def joined(parts: list[str]) -> str:
    return PART_SEP.join(parts)


# Reading: each part's form with the spaces left out, as engine.reading compares texts
# (whitespace never tells two plays apart).
_LOC = r"(?:K|T\d+|H\d+|S\d+H\d+)"
PART_FORMS = re.compile("|".join((
    rf"{_LOC}-{_LOC}(?:back)?",  # a move, the 4 backwards
    rf"K-T\d+\((?:{'|'.join(ROYAL_RANKS)})\)",  # royal: which piece comes out
    rf"{_LOC}<>{_LOC}",  # a swap
    r"dogT\d+-T\d+",
    r"disc(?:clockwise|counter-clockwise)",
    r"jumpstoT\d+",
)))


# the moves and swaps in a notation, as engine.describe finds them to word a play
STEP_FORM = re.compile(r"(K|T\d+|(?:S\d+)?H\d+)-(T\d+|(?:S\d+)?H\d+)")  # (from, to)
SWAP_FORM = re.compile(r"T(\d+)<>T(\d+)")  # the two fields' numbers


def compact(text: str) -> str:
    """`text` without its whitespace."""
    return "".join(text.split())


def malformed_part(body: str) -> str | None:
    """The first part of a play's body (after "<card>: ") that has none of the forms, or None."""
    if compact(body) == compact(NO_SWAP):
        return None
    for part in body.split(","):
        if not PART_FORMS.fullmatch(compact(part)):
            return part.strip()
    return None
