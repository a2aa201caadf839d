"""Engine benchmark: µs per `legal_moves` call per card, and self-play games per second.

Positions come from seeded self-play (random bots), so the figures describe the positions
a real game meets. Beside every call a fixed pure-Python reference loop is timed the same
way, and each card's median is also given as a ratio to the loop's median: the machine's
speed (and a busy neighbour) cancels out of the ratio. Run on an otherwise idle machine:

    python scripts/bench_engine.py                 # all editions, default sizes
    python scripts/bench_engine.py --variant classic --positions 2000 --games 20
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from engine.bots import RandomBot  # noqa: E402
from engine.game import Game, play_game  # noqa: E402
from engine.moves import acting_seat  # noqa: E402
from engine.position import HOME  # noqa: E402


def sample_positions(variant: str, players: int, count: int, seed: int) -> list[tuple[engine.Position, int]]:
    """(position, seat to move) pairs, taken every few plies from seeded random games."""
    out: list[tuple[engine.Position, int]] = []
    g = 0
    while len(out) < count:
        game = Game.new(variant, players, seed=seed + g)
        rng = random.Random(seed + g)
        bots = {s: RandomBot(rng) for s in game.seats}
        seen: list[tuple[engine.Position, int]] = []

        class Recorder(RandomBot):
            def choose_turn(self, game_, seat):
                seen.append((game_.position, seat))
                return super().choose_turn(game_, seat)

        play_game(game, {s: Recorder(rng) for s in bots})
        out.extend(seen[::3])
        g += 1
        if g > 10_000:
            raise RuntimeError("self-play produced no positions to measure")
    return out[:count]


def time_call(pos: engine.Position, card: str, seat: int, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        engine.legal_moves(pos, card, seat)
        best = min(best, time.perf_counter() - t)
    return best * 1e6


def reference_loop() -> tuple:
    """Fixed work of the move generator's kind (lists, a board scan, a sort), no engine code."""
    occ = [-1] * 64
    for i in range(16):
        occ[(i * 7) % 64] = i
    found = []
    for f in range(64):
        if occ[f] >= 0:
            found.append((occ[f], f))
    return tuple(sorted(found))


def time_reference(repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        reference_loop()
        best = min(best, time.perf_counter() - t)
    return best * 1e6


def time_beside(pos: engine.Position, card: str, seat: int, repeat: int, ref: list[float]) -> float:
    """A call's time, with the reference loop timed right after it (appended to `ref`)."""
    t = time_call(pos, card, seat, repeat)
    ref.append(time_reference(repeat))
    return t


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def own_out(pos: engine.Position, seat: int) -> int:
    mover = acting_seat(pos, seat)
    return sum(1 for loc in pos.pieces[mover] if loc < HOME)


def bench_variant(variant: str, players: int, positions: int, games: int, seed: int) -> None:
    v = engine.get_variant(variant)
    sample = sample_positions(variant, players, positions, seed)
    print(f"\n== {variant}, {players} players: {len(sample)} positions from seeded self-play")
    print(f"{'card':>10} {'median µs':>10} {'p99 µs':>10} {'max µs':>10} {'ref µs':>8} {'ratio':>7}")
    for card, _ in v.deck:
        ref: list[float] = []
        times = [time_beside(pos, card, seat, 3, ref) for pos, seat in sample]
        med, rmed = statistics.median(times), statistics.median(ref)
        print(f"{card:>10} {med:>10.1f} {pct(times, 0.99):>10.1f} {max(times):>10.1f} {rmed:>8.2f} {med / rmed:>7.2f}")
    if "7" in v.cards:
        by_out: dict[str, list[float]] = {"<=4 own out": [], "any": []}
        ref7: list[float] = []
        for pos, seat in sample:
            t = time_beside(pos, "7", seat, 3, ref7)
            by_out["any"].append(t)
            if own_out(pos, seat) <= 4:
                by_out["<=4 own out"].append(t)
        rmed = statistics.median(ref7)
        for label, times in by_out.items():
            print(f"{'7 ' + label:>16}: median {statistics.median(times):.1f} µs (ratio {statistics.median(times) / rmed:.2f}), "
                  f"p99 {pct(times, 0.99):.1f} µs, worst {max(times) / 1000:.2f} ms")
    started = time.perf_counter()
    plies = 0
    for g in range(games):
        game = Game.new(variant, players, seed=10_000 + g)
        rng = random.Random(g)
        play_game(game, {s: RandomBot(rng) for s in game.seats})
        plies += game.plies
    elapsed = time.perf_counter() - started
    print(f"self-play: {games} random games, {plies / games:.0f} plies/game, {games / elapsed:.2f} games/s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", action="append", help="edition(s) to measure (default: all)")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    variants = args.variant or list(engine.load_variants())
    print(f"python {sys.version.split()[0]}, one process, best of 3 calls per position")
    for name in variants:
        bench_variant(name, args.players, args.positions, args.games, args.seed)


if __name__ == "__main__":
    main()
