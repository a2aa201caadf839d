#!/usr/bin/env python3
"""Many random games through the table session, with undos and mistakes, checked at every step.

    .venv/bin/python scripts/table_property.py --games 20 --variants classic:4,classic:6,classic:3,black:4,royal:4

After every applied event the journal's events replay (companion.table.replay) to the live
state, and the game record made from them re-plays (rules engine only) to the same board
(companion.simulated.random_games.check). Every mistake (a card not in the hand, a card out
of turn, a lay-down while a card could move) must be refused, every own undo must take back
that seat's latest action only. Prints the figures and exits 1 on the first disagreement.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter

from companion import table as T
from companion.simulated.random_games import MISTAKES, check, random_game

LEGIT = ("start", "deal", "give", "card", "settle", "sitout", "discard")


def one_game(variant: str, players: int, seed: int, every: int, max_events: int, counts: Counter) -> str | None:
    setup = T.Setup(variant, players, "highlight")
    events: list[T.Event] = []
    step = None
    for step in random_game(variant, players, seed, undo_rate=0.15, mistake_rate=0.15, max_events=max_events):
        counts[f"{step.kind} {'applied' if step.refused is None else 'refused'}"] += 1
        if step.refused is not None:
            if step.kind in LEGIT:
                return f"a legal {step.kind} was refused: {step.event} ({step.refused})"
            continue
        if step.kind in MISTAKES:
            return f"a mistake was accepted: {step.kind} {step.event}"
        if step.kind == "undo_own" and step.before.card is None and step.before.history[-1].seat != step.event.seat:
            return f"an own undo took back another seat's action: {step.event}"
        events.append(step.event)
        if len(events) % every == 0:
            counts["checks"] += 1
            bad = check(setup, events, step.state)
            if bad:
                return f"after event {len(events)} ({step.kind}): {bad}"
    assert step is not None
    counts["checks"] += 1
    counts["events"] += len(events)
    counts["won" if step.state.phase == "over" else "unfinished"] += 1
    return check(setup, events, step.state)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10, help="games per edition and player count")
    ap.add_argument("--variants", default="classic:4,classic:6,classic:3,black:4")
    ap.add_argument("--every", type=int, default=1, help="check the journal and record every N events")
    ap.add_argument("--max-events", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    started = time.monotonic()
    failures = 0
    for spec in args.variants.split(","):
        variant, players = spec.split(":")
        counts: Counter = Counter()
        t0 = time.monotonic()
        for g in range(args.games):
            seed = args.seed + g
            bad = one_game(variant, int(players), seed, args.every, args.max_events, counts)
            if bad:
                failures += 1
                print(f"FAIL {variant} {players} players, seed {seed}: {bad}")
        figures = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
        print(f"{variant} {players} players: {args.games} games in {time.monotonic() - t0:.0f} s; {figures}")
    print(f"{failures} failures; {time.monotonic() - started:.0f} s in all")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
