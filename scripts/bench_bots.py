"""Bot benchmark: how often one bot level beats another, with a 95% confidence interval.

Every game is seeded by its number, so a run is repeatable and both seatings of a pairing
play the same deals: in team games the first bot plays one team, then the other (seats
swapped); in solo games it takes each seat in turn, the other seats play the second bot.
Prints the win rate of the first bot (Wilson 95% interval), games per second and the
milliseconds per decision of each bot.

    python scripts/bench_bots.py                                   # strong vs greedy, every setting
    python scripts/bench_bots.py --pair greedy:random --games 200   # sanity check: ~100%
    python scripts/bench_bots.py --pair greedy:greedy --games 200   # sanity check: ~50%
    python scripts/bench_bots.py --setting classic4 --games 200 --jobs 2

Settings: classic4 (teams of 2), royal4, black4, classic6 (teams of 3), solo2 and solo3
(classic, each for themselves). `--jobs N` plays games in N processes; every game carries
its own seeds, so the figures (apart from the timings) do not depend on N.
"""
from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.bots import BOTS  # noqa: E402
from engine.game import Game, play_game  # noqa: E402

SETTINGS = {  # name: (edition, players)
    "classic4": ("classic", 4),
    "royal4": ("royal", 4),
    "black4": ("black", 4),
    "classic6": ("classic", 6),
    "solo2": ("classic", 2),
    "solo3": ("classic", 3),
}


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


class Timed:
    """Wraps a bot and records the seconds each decision (turn, exchange, discard) takes."""

    def __init__(self, bot, times: list[float]) -> None:
        self.bot = bot
        self.times = times
        if hasattr(bot, "choose_turn"):
            self.choose_turn = self._choose_turn

    def _timed(self, method, *args):
        t = time.perf_counter()
        out = method(*args)
        self.times.append(time.perf_counter() - t)
        return out

    def _choose_turn(self, game, seat):
        return self._timed(self.bot.choose_turn, game, seat)

    def choose(self, game, seat, options):
        return self._timed(self.bot.choose, game, seat, options)

    def give(self, game, seat):
        return self._timed(self.bot.give, game, seat)

    def discard(self, game, seat):
        return self._timed(self.bot.discard, game, seat)


def seatings(players: int, seats: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The seat sets the first bot plays, one per seating of a pairing."""
    if players in (4, 6):  # teams: seat 0's team, then the other team(s) in turn
        size = len(seats)
        return [tuple(s for s in seats if s % (size // 2) == k) for k in range(size // 2)]
    return [(s,) for s in seats]


def play_one(task: tuple) -> tuple[bool, int, int, list[float], list[float], float]:
    """One seeded game: (first bot won, seating, plies, first's decision times, second's, seconds)."""
    variant, players, first, second, seed, k = task
    game = Game.new(variant, players, seed=seed)
    mine = seatings(players, game.seats)[k]
    times_a: list[float] = []
    times_b: list[float] = []
    bots = {}
    for s in game.seats:
        rng = random.Random(seed * 1009 + s)  # the same per-seat seed in every seating
        name, times = (first, times_a) if s in mine else (second, times_b)
        bots[s] = Timed(BOTS[name](rng), times)
    t = time.perf_counter()
    play_game(game, bots)
    return bool(set(game.winner) & set(mine)), k, game.plies, times_a, times_b, time.perf_counter() - t


def ms_summary(times: list[float]) -> str:
    if not times:
        return "no decisions"
    ms = sorted(t * 1000 for t in times)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    return f"mean {statistics.fmean(ms):.2f} ms, p95 {p95:.2f} ms, max {ms[-1]:.1f} ms per decision"


def run(setting: str, first: str, second: str, games: int, seed: int, jobs: int) -> dict:
    variant, players = SETTINGS[setting]
    n_seatings = len(seatings(players, Game.new(variant, players, seed=0).seats))
    tasks = [(variant, players, first, second, seed + g, k) for g in range(games) for k in range(n_seatings)]
    started = time.perf_counter()
    wins = plies = 0
    times_a: list[float] = []
    times_b: list[float] = []
    done = 0
    if jobs > 1:
        pool = multiprocessing.Pool(jobs)
        results = pool.imap(play_one, tasks, chunksize=4)
    else:
        pool = None
        results = map(play_one, tasks)
    for won, _k, n, ta, tb, _secs in results:
        wins += won
        plies += n
        times_a += ta
        times_b += tb
        done += 1
        if done % 50 == 0:
            sys.stderr.write(f"\r  {setting} {first}:{second} {done}/{len(tasks)} games")
            sys.stderr.flush()
    if pool is not None:
        pool.close()
        pool.join()
    sys.stderr.write("\r" + " " * 60 + "\r")
    elapsed = time.perf_counter() - started
    n = len(tasks)
    lo, hi = wilson(wins, n)
    baseline = 1 / len(seatings(players, Game.new(variant, players, seed=0).seats))
    print(f"{setting:>9} {first} vs {second}: {games} deals x {n_seatings} seatings = {n} games, "
          f"{first} wins {wins / n:.1%} (95% CI {lo:.1%}-{hi:.1%}; even = {baseline:.0%}), "
          f"{n / elapsed:.1f} games/s ({jobs} process{'es' if jobs > 1 else ''}), {plies / n:.0f} plies/game")
    print(f"{'':>9} {first}: {ms_summary(times_a)}")
    print(f"{'':>9} {second}: {ms_summary(times_b)}")
    sys.stdout.flush()
    return {"wins": wins, "games": n, "low": lo, "high": hi}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pair", action="append", help="first:second bot (default strong:greedy); repeatable")
    ap.add_argument("--setting", action="append", choices=list(SETTINGS), help="default: all settings")
    ap.add_argument("--games", type=int, default=2000, help="deals per pairing (each played in every seating)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1, help="processes (results do not depend on it)")
    args = ap.parse_args()
    pairs = [p.split(":") for p in (args.pair or ["strong:greedy"])]
    for pair in pairs:
        if len(pair) != 2 or any(name not in BOTS for name in pair):
            ap.error(f"--pair takes two bot names joined by ':', from {', '.join(BOTS)}")
    if args.games < 1 or args.jobs < 1:
        ap.error("--games and --jobs must be at least 1")
    print(f"python {sys.version.split()[0]}, seeds {args.seed}..{args.seed + args.games - 1}")
    for first, second in pairs:
        for setting in args.setting or list(SETTINGS):
            run(setting, first, second, args.games, args.seed, args.jobs)


if __name__ == "__main__":
    main()
