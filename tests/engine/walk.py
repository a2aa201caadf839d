"""Seeded random play and random positions for the engine tests (no engine game module).

`random_walk` starts from a game's opening position and plays random cards of the deck
with random legal plays, seat after seat; `random_position` scatters pieces directly.
Both return position JSON dicts and depend only on the seed.
"""
from __future__ import annotations

import random

import engine

DECKS = {
    "classic": [("1/11", 8), ("2", 8), ("3", 8), ("4", 8), ("5", 8), ("6", 8), ("7", 8), ("8", 8),
                ("9", 8), ("10", 8), ("12", 8), ("13", 8), ("swap", 8), ("joker", 6)],
    "compact": [("1/11", 5), ("2", 5), ("3", 5), ("4", 5), ("5", 5), ("6", 5), ("7", 5), ("8", 5),
                ("9", 5), ("10", 5), ("12", 5), ("13", 5), ("swap", 5), ("joker", 3)],
}
HOME = {"classic": 4, "compact": 3}

# (variant, board segments, occupied seats): the tables the tests play on.
SETUPS = [
    ("classic", 4, (0, 1, 2, 3)),   # two teams
    ("classic", 6, (0, 1, 2, 3, 4, 5)),  # three teams
    ("classic", 4, (0, 1)),         # solo, 5 pieces
    ("classic", 4, (0, 1, 2)),      # solo, 5 pieces
    ("classic", 6, (0, 1, 2, 3, 4)),  # solo on the 6-board, 5 pieces
    ("compact", 4, (0, 1, 2, 3)),
    ("compact", 4, (0, 2)),         # compact solo, 3 pieces
]


def opening(variant: str, board: int, seats: tuple[int, ...]) -> dict:
    team = len(seats) == board
    n = 4 if variant == "classic" else 3
    if variant == "classic" and not team:
        n = 5
    pieces = []
    for s in range(board):
        if s not in seats:
            pieces.append(None)
        elif team:
            pieces.append(["K"] * n)
        else:  # solo games: one piece starts on the start field
            pieces.append([f"T{16 * s}"] + ["K"] * (n - 1))
    return {"variant": variant, "board": board, "pieces": pieces}


def draw(rng: random.Random, variant: str) -> str:
    cards, weights = zip(*DECKS[variant])
    return rng.choices(cards, weights)[0]


def random_walk(seed: int, setup: int, plies: int, tries: int = 4) -> list[dict]:
    """Positions (JSON) seen along one seeded random game of up to `plies` turns."""
    rng = random.Random(seed)
    variant, board, seats = SETUPS[setup % len(SETUPS)]
    pos = engine.parse_position(opening(variant, board, seats))
    seen = [pos.to_json()]
    turn = rng.randrange(len(seats))
    for _ in range(plies):
        seat = seats[turn % len(seats)]
        turn += 1
        for _ in range(tries):
            card = draw(rng, variant)
            plays = engine.legal_moves(pos, card, seat=seat)
            if plays:
                pos = rng.choice(plays).result
                seen.append(pos.to_json())
                break
        if pos.winner() is not None:
            break
    return seen


def random_position(seed: int, setup: int) -> dict:
    """A position with pieces scattered at random (crowded track, partly filled homes)."""
    rng = random.Random(seed)
    variant, board, seats = SETUPS[setup % len(SETUPS)]
    n = len(opening(variant, board, seats)["pieces"][seats[0]])
    fields = list(range(16 * board))
    hot = [f for f in fields if f % 16 in (0, 1, 2, 3, 12, 13, 14, 15)]
    taken: set[int] = set()
    pieces: list = [None] * board
    for s in seats:
        locs = []
        slots = list(range(HOME[variant]))
        rng.shuffle(slots)
        for _ in range(n):
            r = rng.random()
            if r < 0.2:
                locs.append("K")
            elif r < 0.4 and slots:
                locs.append(f"H{slots.pop()}")
            else:
                pool = hot if rng.random() < 0.6 else fields
                f = rng.choice(pool)
                while f in taken:
                    f = rng.choice(fields)
                taken.add(f)
                locs.append(f"T{f}")
        pieces[s] = locs
    return {"variant": variant, "board": board, "pieces": pieces}
