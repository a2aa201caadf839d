"""Engine benchmark: µs per `legal_moves` call per card, and self-play games per second.

Positions come from seeded self-play (random bots), so the figures describe the positions
a real game meets. Beside every measured call the script times a fixed pure-Python
reference loop (`reference_loop`) the same way, and prints each figure also as a multiple
of it ("× ref"): a busy or slower machine slows both alike, so the ratio can be compared
across machines and runs where the µs cannot. A play builds its resulting Position only when
`.result` is first read, so each card is timed twice: the `legal_moves` call alone (the figure
the engine's speed target is set on), and the call with every play's result read afterwards ("+ results"), what
a bot that weighs every play pays. A position keeps what it worked out for the first card
asked about it (where the pieces stand), so the best of 3 calls is a call on a position asked
about before, as a bot asks card after card; the "first" column times calls on fresh copies of
each position instead, what the first card asked about a position pays. Run on an otherwise
idle machine:

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
import engine.moves  # noqa: E402
import engine.position  # noqa: E402
import engine.table  # noqa: E402
from engine.bots import RandomBot  # noqa: E402
from engine.game import Game, play_game  # noqa: E402
from engine.moves import acting_seat  # noqa: E402
from engine.position import HOME, after_play  # noqa: E402


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


_REF_FIELDS = tuple(range(64))


def reference_loop() -> int:
    """The yardstick: a fixed pure-Python workload of the kind move generation does (indexing,
    small tuples, a set, arithmetic, a call per step), a few µs long. Never change it: the
    "× ref" ratios of different runs are comparable only while it stays the same."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for i in range(64):
        f = _REF_FIELDS[(i * 7) % 64]
        key = (f, i % 5)
        if key not in seen:
            seen.add(key)
            total += abs(f - 32)
    return total


def best_of(repeat: int, fn, *args) -> float:
    """µs of the fastest of `repeat` calls: the slower ones were interrupted by other work."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t)
    return best * 1e6


def time_call(pos: engine.Position, card: str, seat: int, repeat: int, refs: list[float]) -> float:
    """µs of one `legal_moves` call; the reference loop is timed right before it into `refs`."""
    refs.append(best_of(repeat, reference_loop))
    return best_of(repeat, engine.legal_moves, pos, card, seat)


def first_call(pos: engine.Position, card: str, seat: int, repeat: int) -> float:
    """µs of the fastest of `repeat` calls, each on a fresh copy of the position as a play leaves
    it: knowing its seating (see `after_play`), nothing else worked out yet."""
    best = float("inf")
    for _ in range(repeat):
        fresh = after_play(pos, pos.pieces, pos.last_card, pos.black_dog, pos.disc)
        t = time.perf_counter()
        engine.legal_moves(fresh, card, seat)
        best = min(best, time.perf_counter() - t)
    return best * 1e6


def plays_and_results(pos: engine.Position, card: str, seat: int) -> None:
    """`legal_moves`, then every play's resulting position (built when first read)."""
    for play in engine.legal_moves(pos, card, seat):
        play.result


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
    print(f"{'card':>10} {'median µs':>10} {'× ref':>7} {'p99 µs':>10} {'max µs':>10}   "
          f"{'+ results µs':>12} {'× ref':>7}   {'first µs':>8} {'× ref':>7}   {'ref µs':>7}")
    refs: list[float] = []  # every reference timing of this edition, for the ratio of the 7 below
    for card, _ in v.deck:
        card_refs: list[float] = []
        times = [time_call(pos, card, seat, 3, card_refs) for pos, seat in sample]
        with_results = [best_of(3, plays_and_results, pos, card, seat) for pos, seat in sample]
        first = statistics.median(first_call(pos, card, seat, 3) for pos, seat in sample)
        refs += card_refs
        ref = statistics.median(card_refs)
        med = statistics.median(times)
        full = statistics.median(with_results)
        print(f"{card:>10} {med:>10.1f} {med / ref:>7.2f} {pct(times, 0.99):>10.1f} {max(times):>10.1f}   "
              f"{full:>12.1f} {full / ref:>7.2f}   {first:>8.1f} {first / ref:>7.2f}   {ref:>7.2f}")
    if "7" in v.cards:
        by_out: dict[str, list[float]] = {"<=4 own out": [], "any": []}
        seven_refs: list[float] = []
        for pos, seat in sample:
            t = time_call(pos, "7", seat, 3, seven_refs)
            by_out["any"].append(t)
            if own_out(pos, seat) <= 4:
                by_out["<=4 own out"].append(t)
        ref = statistics.median(seven_refs)
        for label, times in by_out.items():
            med = statistics.median(times)
            print(f"{'7 ' + label:>16}: median {med:.1f} µs = {med / ref:.2f} × ref, p99 {pct(times, 0.99):.1f} µs, "
                  f"worst {max(times) / 1000:.2f} ms")
    print(f"reference loop: median {statistics.median(refs):.2f} µs over this edition's {len(refs)} timings")
    started = time.perf_counter()
    plies = 0
    for g in range(games):
        game = Game.new(variant, players, seed=10_000 + g)
        rng = random.Random(g)
        play_game(game, {s: RandomBot(rng) for s in game.seats})
        plies += game.plies
    elapsed = time.perf_counter() - started
    print(f"self-play: {games} random games, {plies / games:.0f} plies/game, {games / elapsed:.2f} games/s")


def engine_build() -> str:
    """Whether the hot modules run as built by scripts/build_accelerator.py or as plain Python."""
    hot = ("engine.table", "engine.moves", "engine.position", "engine.locations", "engine.notation")
    compiled = [name for name in hot if name in sys.modules and not sys.modules[name].__file__.endswith(".py")]
    return f"compiled ({', '.join(compiled)})" if compiled else "pure Python"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", action="append", help="edition(s) to measure (default: all)")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    known = engine.load_variants()
    variants = args.variant or list(known)
    for name in variants:
        if name not in known:  # a word, not a traceback, before minutes of measuring
            ap.error(f"unknown edition '{name}' (choose from: {', '.join(known)}; repeat --variant for several)")
    print(f"python {sys.version.split()[0]}, one process, best of 3 calls per position, "
          f"engine {engine_build()}")
    for name in variants:
        bench_variant(name, args.players, args.positions, args.games, args.seed)


if __name__ == "__main__":
    main()
