#!/usr/bin/env python3
"""Frame fuzz: damage millions of valid bridge frames and count the damaged ones accepted.

    nice -n 10 .venv/bin/python scripts/fuzz_frames.py                # 10^6 flips, 10^6 bursts, ...
    nice -n 10 .venv/bin/python scripts/fuzz_frames.py --scale 0.01   # a quick look
    nice -n 10 .venv/bin/python scripts/fuzz_frames.py --format v1    # the old format, for comparison

Every trial sends three valid frames of random types as one stream, damages the middle
one (see firmware_bridge/fuzz.py for the kinds of damage) and decodes the stream; a frame
that comes out and was not sent, or comes out twice or out of order, is *accepted
corrupt*. Prints the counts per kind of damage and exits 1 if any was accepted.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from firmware_bridge import fuzz  # noqa: E402

FULL = {"flip": 1_000_000, "burst": 1_000_000, "insert": 200_000, "delete": 200_000,
        "truncate": 200_000, "trailing_zeros": 200_000, "concatenate": 200_000}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the full counts to run")
    parser.add_argument("--format", choices=("v2", "v1"), default="v2",
                        help="frame format: v2 (current) or v1 (the old format, without the length byte)")
    parser.add_argument("--show", type=int, default=3, help="accepted frames to print in full")
    args = parser.parse_args()
    if not 0 < args.scale <= 100:
        parser.error("--scale must be a number above 0 and at most 100")

    counts = {kind: max(1, round(n * args.scale)) for kind, n in FULL.items()}
    total = sum(counts.values())
    print(f"frame fuzz, format {args.format}, seed {args.seed}: {total:,} damaged frames", flush=True)
    tried = dict.fromkeys(counts, 0)
    accepted = dict.fromkeys(counts, 0)
    shown = 0
    start = time.perf_counter()
    step = max(1, total // 20)
    for n, (kind, bad, details) in enumerate(fuzz.trials(args.seed, counts, args.format), start=1):
        tried[kind] += 1
        if bad:
            accepted[kind] += 1
            if shown < args.show:
                shown += 1
                sent, damaged, got = details
                print(f"  accepted after {kind}: sent {sent[1]!r}\n    got {got!r}\n    wire {damaged.hex(' ')}")
        if n % step == 0:
            print(f"  {n:>9,} / {total:,}  {time.perf_counter() - start:6.1f} s  accepted so far "
                  f"{sum(accepted.values())}", flush=True)
    seconds = time.perf_counter() - start
    print(f"\n{'damage':16s} {'frames':>10s} {'accepted':>9s}")
    for kind in fuzz.KINDS:
        print(f"{kind:16s} {tried[kind]:10,d} {accepted[kind]:9,d}")
    print(f"{'all':16s} {sum(tried.values()):10,d} {sum(accepted.values()):9,d}   "
          f"in {seconds:.1f} s ({sum(tried.values()) / seconds:,.0f} frames/s)")
    return 1 if any(accepted.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
