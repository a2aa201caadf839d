"""The full checked self-play run: 200 seeded games per edition and player count, every play checked.

tests/engine/test_selfplay_games.py plays the first seeds of each combination in the suite; this
plays the whole run with the same checks (its `play_checked`: pieces conserved, no field holding
two pieces, results parsing back from their own JSON, the winner the position says) and prints,
per combination, games, plies per game, the slowest game and seconds. A game that fails is named
by its seed with what failed, and the run goes on; the exit code is then 1.

    .venv/bin/python scripts/selfplay_checked.py                        # 200 games x 20 combinations
    .venv/bin/python scripts/selfplay_checked.py --games 50 --only royal
    .venv/bin/python scripts/selfplay_checked.py --first 200 --games 100   # seeds 200-299
    .venv/bin/python scripts/selfplay_checked.py --directions      # also each direction combination
    .venv/bin/python scripts/selfplay_checked.py --directions --only brandi
    .venv/bin/python scripts/selfplay_checked.py --only-directions --games 50   # just those

The same games without the checks, with a win summary: `dogtable selfplay --variant V --players N
--games 200 --seed 0 --bot greedy` (game seed g, bots' generator seeded with g, as here).
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
import time
import traceback
from pathlib import Path

import engine

ROOT = Path(__file__).resolve().parent.parent
TEST = ROOT / "tests" / "engine" / "test_selfplay_games.py"


def load_test_module():
    """The test module, for its combinations and its checked game (it needs pytest installed: `.[dev]`)."""
    sys.path.insert(0, str(ROOT))
    spec = importlib.util.spec_from_file_location("test_selfplay_games", TEST)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200, help="games per combination (default 200)")
    ap.add_argument("--first", type=int, default=0, help="seed of the first game (default 0, as the suite)")
    ap.add_argument("--only", default=None, help="only combinations whose edition contains this text")
    ap.add_argument("--directions", action="store_true",
                    help="also the suite's direction combinations (counter-clockwise classic and compact, "
                         "Brändi Dog both ways)")
    ap.add_argument("--only-directions", action="store_true", help="only the direction combinations")
    args = ap.parse_args()
    if args.games < 1:
        ap.error("--games must be at least 1")
    t = load_test_module()
    every = ([] if args.only_directions else [(v, n, None) for v, n in t.COMBOS]) + \
        (list(t.DIRECTION_COMBOS) if args.directions or args.only_directions else [])
    combos = [(v, n, d) for v, n, d in every if args.only is None or args.only in v]
    if not combos:
        ap.error(f"no edition matches --only {args.only!r}")
    print(f"# Checked self-play: seeds {args.first}-{args.first + args.games - 1} of each combination "
          f"(the suite plays seeds 0-{t.GAMES - 1}, of a direction combination 0-{t.DIRECTION_GAMES - 1})")
    print(f"{'edition':<14}{'direction':<19}{'players':>8}{'games':>7}{'failed':>8}{'plies/game':>12}"
          f"{'slowest s':>11}{'seconds':>9}")
    failed_all = games_all = 0
    started = time.perf_counter()
    for variant, players, direction in combos:
        way = direction or engine.get_variant(variant).default_direction
        plies = failed = 0
        slowest = 0.0
        t0 = time.perf_counter()
        for k, seed in enumerate(range(args.first, args.first + args.games)):
            g0 = time.perf_counter()
            try:
                plies += t.play_checked(variant, players, seed, direction).plies
            except Exception:  # an assertion or an engine error: name the game, go on
                failed += 1
                print(f"  FAILED {variant} {way} {players} players, seed {seed}:\n"
                      + "".join("    " + line for line in traceback.format_exc().splitlines(keepends=True)[-6:]))
            slowest = max(slowest, time.perf_counter() - g0)
            print(f"\r  {variant} {players}: {k + 1}/{args.games}", end="", file=sys.stderr, flush=True)
        print("\r" + " " * 40 + "\r", end="", file=sys.stderr)
        played = args.games - failed
        print(f"{variant:<14}{way:<19}{players:>8}{args.games:>7}{failed:>8}{plies / max(played, 1):>12.1f}"
              f"{slowest:>11.2f}{time.perf_counter() - t0:>9.1f}", flush=True)
        failed_all += failed
        games_all += args.games
    print(f"\nALL: {games_all} games, {failed_all} failed, {time.perf_counter() - started:.0f} s")
    return 1 if failed_all else 0


if __name__ == "__main__":
    sys.exit(main())
