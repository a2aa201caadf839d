"""Our side of the comparison with libdog (scripts/compare_libdog.sh): positions and outcome sets.

libdog (a C++ library, GPL-3.0) implements Swiss Brändi Dog for 4 players. It numbers the
path in its direction of movement, 0 at player 0's start, 16 per player; our Brändi Dog plays
counter-clockwise on physical field numbers. So libdog's path field i is our T((-i) mod 64)
and its player j our seat (-j) mod 4 (its player 1 plays after player 0, as our seat 3 does
after seat 0); finish slot i is our home slot H i. Both sides write an outcome as each libdog
player's pieces sorted ("K", "P<i>", "F<i>"; a piece on its own start field that does not
block it carries a "'"), players joined by "|".

    compare_libdog.py emit QUERIES OURS [--positions N] [--seed S]   # positions from self-play
    compare_libdog.py compare QUERIES OURS THEIRS                      # counts and disagreements
    compare_libdog.py record QUERIES OURS THEIRS OUT [--count N]       # a sample for the suite
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

import engine
from engine.bots import RandomBot
from engine.game import Game, play_game
from engine.locations import HOME, KENNEL

CARDS = {"1/11": "A", "2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "7", "8": "8", "9": "9",
         "10": "T", "swap": "J", "12": "Q", "13": "K", "joker": "X"}
LETTER = {v: k for k, v in CARDS.items()}
L = 64
SEATS = 4


def their_player(seat: int) -> int:
    return (-seat) % SEATS


def their_tokens(pos: engine.Position, seat: int, board_form: bool) -> list[str]:
    """Seat's pieces in libdog's terms: for its board notation (kennel left out, "*" on a
    blocking piece) or for an outcome (kennel "K", "'" on a start piece that does not block)."""
    start = pos.board.start_field(seat)
    out = []
    for loc in pos.pieces[seat] or ():
        if loc >= KENNEL:
            if not board_form:
                out.append("K")
        elif loc >= HOME:
            out.append(f"F{loc - HOME}")
        else:
            t = f"P{(-loc) % L}"
            if loc == start:
                blocks = loc not in pos.moved_onto_start
                if board_form and blocks:
                    t += "*"
                elif not board_form and not blocks:
                    t += "'"
            out.append(t)
    return out


def board_notation(pos: engine.Position) -> str:
    seats = [their_player(j) for j in range(SEATS)]  # libdog player j is our seat (-j) mod 4
    return "|".join("".join(their_tokens(pos, s, True)) for s in seats)


def outcome(pos: engine.Position) -> str:
    return "|".join(",".join(sorted(their_tokens(pos, their_player(j), False))) for j in range(SEATS))


def our_outcomes(pos: engine.Position, card: str, seat: int) -> list[str]:
    return sorted({outcome(p.result) for p in engine.legal_moves(pos, card, seat)})


def sample(n: int, seed: int):
    """n (position, seat to play) pairs from seeded 4-player Brändi Dog games of random bots,
    every third turn (random play reaches more kinds of positions than good play)."""
    found: list[tuple[engine.Position, int]] = []
    g = 0
    while len(found) < n:
        game = Game.new("brandi", 4, seed=seed + g)
        rng = random.Random(seed + g)

        class Sampler(RandomBot):
            def choose_turn(self, game, seat):
                if game.plies % 3 == 0 and len(found) < n and game.winner is None:
                    found.append((game.position, seat))
                return RandomBot.choose_turn(self, game, seat)

        play_game(game, {s: Sampler(rng) for s in game.seats})
        g += 1
    return found


def emit(args: argparse.Namespace) -> int:
    with open(args.queries, "w") as q, open(args.ours, "w") as o:
        for i, (pos, seat) in enumerate(sample(args.positions, args.seed)):
            q.write(f"{i}\t{board_notation(pos)}\t{their_player(seat)}\t{''.join(CARDS.values())}\n")
            o.write(json.dumps({"id": i, "seat": seat, "position": pos.to_json(),
                                "outcomes": {CARDS[c]: our_outcomes(pos, c, seat) for c in CARDS}}) + "\n")
    return 0


def _load(args: argparse.Namespace):
    ours = {}
    for line in open(args.ours):
        rec = json.loads(line)
        ours[rec["id"]] = rec
    theirs: dict[tuple[int, str], list[str]] = {}
    for line in open(args.theirs):
        pid, letter, rest = line.rstrip("\n").split("\t")
        theirs[(int(pid), letter)] = [] if rest == "-" else rest.split(" ")
    return ours, theirs


def compare(args: argparse.Namespace) -> int:
    ours, theirs = _load(args)
    agree = disagree = 0
    by_card: Counter[str] = Counter()
    lines = []
    for pid, rec in sorted(ours.items()):
        for letter, mine in rec["outcomes"].items():
            other = theirs.get((pid, letter))
            if other is None:
                print(f"libdog gave no answer for position {pid}, card {LETTER[letter]}")
                disagree += 1
                continue
            if set(mine) == set(other):
                agree += 1
                continue
            disagree += 1
            by_card[LETTER[letter]] += 1
            lines.append(f"position {pid} seat {rec['seat']} card {LETTER[letter]}: {json.dumps(rec['position'])}\n"
                         f"  only ours:   {sorted(set(mine) - set(other))}\n"
                         f"  only libdog: {sorted(set(other) - set(mine))}")
    total = agree + disagree
    print(f"positions: {len(ours)}  card queries: {total}  agree: {agree}  disagree: {disagree}")
    print("disagreements by card: " + (", ".join(f"{c} {n}" for c, n in sorted(by_card.items())) or "none"))
    for text in lines:
        print(text)
    return 0


def record(args: argparse.Namespace) -> int:
    """A small seeded sample for tests/engine/test_brandi.py: queries both engines answer alike
    (every card equally often, half of them on positions where a piece stands on its start field
    after moving), and a few where they differ, each with the rule that decides it. The position
    and the outcome set are in our notation (pieces per seat, and `moved_onto_start`)."""
    ours, theirs = _load(args)
    keys = [(pid, letter) for pid, rec in sorted(ours.items()) for letter in rec["outcomes"]]
    agreed = [k for k in keys if set(ours[k[0]]["outcomes"][k[1]]) == set(theirs.get(k, ["?"]))]
    same = set(agreed)
    differ = [k for k in keys if k not in same]
    rng = random.Random(args.count)
    per_card = max(2, args.count // len(CARDS))
    picked: list[tuple[tuple[int, str], str | None]] = []
    for letter in CARDS.values():
        pool = [k for k in agreed if k[1] == letter]
        rng.shuffle(pool)
        marked = [k for k in pool if ours[k[0]]["position"].get("moved_onto_start")]
        plain = [k for k in pool if not ours[k[0]]["position"].get("moved_onto_start")]
        picked += [(k, None) for k in marked[:per_card // 2] + plain[:per_card - min(len(marked), per_card // 2)]]
    rng.shuffle(differ)
    picked += [(k, FINISH_ON_PARTNER) for k in differ[:4]]
    cases = []
    for (pid, letter), decided in picked:
        rec = ours[pid]
        pos = engine.parse_position(rec["position"])
        results = sorted({json.dumps([p.result.to_json()["pieces"], p.result.to_json().get("moved_onto_start", [])])
                          for p in engine.legal_moves(pos, LETTER[letter], rec["seat"])})
        case = {"position": rec["position"], "seat": rec["seat"], "card": LETTER[letter],
                "outcomes": [json.loads(r) for r in results]}
        if decided:
            case["libdog_differs"] = decided
        cases.append(case)
    body = ",\n".join(json.dumps(c, separators=(",", ":")) for c in cases)
    Path(args.out).write_text(
        '{"source": "seeded Brandi Dog self-play positions (scripts/compare_libdog.sh); outcomes as our engine '
        'gives them: libdog gave the same set except where a case says libdog_differs",\n'
        f'"cases": [\n{body}\n]}}\n')
    print(f"recorded {len(cases)} cases in {args.out}")
    return 0


# the one kind of disagreement the comparison found, and the rule that decides it
FINISH_ON_PARTNER = ("libdog (without its optional Canadian rule) lists none of the 7's plays that bring the "
                     "seat's last piece home and spend the rest on the partner's pieces; RULES.md 4: 'If the "
                     "player's last piece reaches home part-way, the rest must be played on the partner's "
                     "pieces (team games)'")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("emit")
    p.add_argument("queries")
    p.add_argument("ours")
    p.add_argument("--positions", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=emit)
    for name, func in (("compare", compare), ("record", record)):
        p = sub.add_parser(name)
        p.add_argument("queries")
        p.add_argument("ours")
        p.add_argument("theirs")
        if name == "record":
            p.add_argument("out")
            p.add_argument("--count", type=int, default=140)
        p.set_defaults(func=func)
    args = ap.parse_args()
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
