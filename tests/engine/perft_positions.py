"""Fixed positions for the perft table (tests/engine/test_perft.py): (name, position JSON, seat).

Run `python tests/engine/perft_positions.py` to print the count table from the naive
enumerator (tests/engine/naive.py); paste it into test_perft.py when positions change.
"""
from __future__ import annotations

K4 = ["K"] * 4


def p(*seats, variant="classic", board=None):
    return {"variant": variant, "board": board or len(seats), "pieces": [None if s is None else list(s) for s in seats]}


POSITIONS = [
    # classic, 4 players (teams 0+2, 1+3)
    ("c4-opening", p(K4, K4, K4, K4), 0),
    ("c4-first-pieces", p(["T0", "K", "K", "K"], ["T16", "K", "K", "K"], ["T35", "K", "K", "K"], ["T50", "K", "K", "K"]), 2),
    ("c4-rulebook-green", p(["T27", "K", "K", "K"], ["T21", "K", "K", "K"], ["T32", "K", "K", "K"], ["H1", "H3", "T20", "T25"]), 2),
    ("c4-rulebook-yellow", p(["T27", "K", "K", "K"], ["T21", "K", "K", "K"], ["T28", "K", "K", "K"], ["H1", "H3", "T20", "T25"]), 3),
    ("c4-near-home", p(["T60", "T62", "H1", "K"], ["T12", "T14", "K", "K"], ["T30", "H0", "K", "K"], ["T44", "T47", "T49", "K"]), 0),
    ("c4-blocked-start", p(["T14", "T9", "K", "K"], ["T16", "T12", "H0", "K"], ["T18", "K", "K", "K"], ["T20", "K", "K", "K"]), 0),
    ("c4-own-start-blocks-home", p(["T0", "T62", "T60", "H3"], ["T5", "T30", "K", "K"], ["T33", "K", "K", "K"], ["T1", "K", "K", "K"]), 0),
    ("c4-foreign-on-start", p(["T16", "T48", "T10", "K"], ["T14", "T0", "K", "K"], ["T30", "T31", "K", "K"], ["T45", "K", "K", "K"]), 1),
    ("c4-home-gaps", p(["H0", "H2", "T61", "T58"], ["T2", "K", "K", "K"], ["T63", "K", "K", "K"], ["T59", "K", "K", "K"]), 0),
    ("c4-partner-play", p(["H0", "H1", "H2", "H3"], ["T20", "T40", "K", "K"], ["T30", "T28", "T45", "K"], ["T50", "T49", "K", "K"]), 0),
    ("c4-partner-7-continue", p(["H1", "H2", "H3", "T62"], ["T3", "K", "K", "K"], ["T40", "T44", "H0", "K"], ["T6", "K", "K", "K"]), 0),
    ("c4-crowded-7", p(["T10", "T12", "T15", "T17"], ["T11", "T13", "T16", "T19"], ["T14", "T18", "T20", "T21"], ["T22", "T9", "T8", "K"]), 0),
    ("c4-crowded-7-home", p(["T59", "T61", "T63", "H2"], ["T60", "T62", "T1", "T3"], ["T2", "T4", "T58", "K"], ["T57", "T5", "K", "K"]), 0),
    ("c4-swap-rich", p(["T5", "T25", "T45", "K"], ["T6", "T26", "T46", "T16"], ["T7", "T27", "T47", "K"], ["T8", "T28", "T48", "H0"]), 3),
    # classic, 6 players (teams 0+3, 1+4, 2+5)
    ("c6-opening", p(K4, K4, K4, K4, K4, K4), 4),
    ("c6-mid", p(["T3", "T90", "K", "K"], ["T20", "T17", "K", "K"], ["T32", "T40", "K", "K"], ["T50", "T60", "H1", "K"],
                 ["T64", "T70", "K", "K"], ["T95", "T78", "K", "K"]), 5),
    ("c6-partner-play", p(["T10", "K", "K", "K"], ["H0", "H1", "H2", "H3"], ["T30", "K", "K", "K"], ["T50", "K", "K", "K"],
                          ["T60", "T62", "T63", "K"], ["T81", "K", "K", "K"]), 1),
    ("c6-crowded-7", p(["T92", "T94", "T1", "H0"], ["T93", "T95", "T2", "K"], ["T90", "T91", "K", "K"], ["T3", "T4", "K", "K"],
                       ["T5", "T6", "K", "K"], ["T79", "T80", "K", "K"]), 0),
    # classic solo games, 5 pieces
    ("c2-solo-opening", p(["T0", "K", "K", "K", "K"], ["T16", "K", "K", "K", "K"], None, None), 1),
    ("c3-solo-mid", p(["T0", "T10", "T60", "H1", "K"], ["T16", "T20", "T14", "K", "K"], ["T33", "T31", "H0", "H3", "K"], None), 0),
    ("c3-solo-7-five-pieces", p(["T1", "T5", "T9", "T13", "T60"], ["T16", "T3", "K", "K", "K"], ["T32", "T7", "K", "K", "K"], None), 0),
    ("c5-solo-6board", p(["T0", "K", "K", "K", "K"], ["T16", "T95", "K", "K", "K"], ["T40", "T30", "K", "K", "K"],
                        ["T48", "T45", "K", "K", "K"], ["T64", "T60", "H0", "K", "K"], None, board=6), 4),
    ("c2-solo-last-piece", p(["H1", "H2", "H3", "T62", "K"], ["T1", "T3", "K", "K", "K"], None, None), 0),
    # compact: 3 pieces, 3 home slots
    ("k4-opening", p(["K"] * 3, ["K"] * 3, ["K"] * 3, ["K"] * 3, variant="compact"), 0),
    ("k4-rulebook-yellow", p(["T27", "K", "K"], ["T21", "K", "K"], ["T28", "K", "K"], ["H1", "T20", "T25"], variant="compact"), 3),
    ("k4-near-home", p(["T60", "T61", "H2"], ["T10", "T14", "K"], ["H0", "T20", "K"], ["T47", "T44", "K"], variant="compact"), 0),
    ("k4-partner-play", p(["H0", "H1", "H2"], ["T20", "K", "K"], ["T28", "T31", "K"], ["T40", "K", "K"], variant="compact"), 0),
    ("k2-solo", p(["T0", "T12", "K"], None, ["T32", "T30", "K"], None, variant="compact"), 2),
    ("k3-solo-crowded", p(["T10", "T11", "T13"], ["T12", "T14", "T16"], ["T15", "T9", "K"], None, variant="compact"), 0),
    ("k4-crowded-7", p(["T62", "T63", "H2"], ["T0", "T1", "T2"], ["T3", "T4", "K"], ["T61", "T60", "K"], variant="compact"), 0),
]


def table() -> dict:
    import naive

    out = {}
    for name, obj, seat in POSITIONS:
        out[name] = [len(naive.plays(obj, card, seat)) for card in naive.DECK]
    return out


if __name__ == "__main__":
    import os
    import sys

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import naive

    print("# card order:", ", ".join(naive.DECK))
    for name, counts in table().items():
        print(f"    {name!r}: {counts},")
