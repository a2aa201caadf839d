"""Speed of the simulated-table renderer: milliseconds per frame for a few scenes.

Run: .venv/bin/python scripts/bench_render.py [--frames 200] [--resolution 1280x720]
"""
from __future__ import annotations

import argparse
import statistics
import time

import cv2

import engine
from hardware.simtable import CameraPose, Hand, SceneEffects, SimTable


def _position() -> engine.Position:
    return engine.parse_position({
        "variant": "classic",
        "pieces": [["T0", "T5", "H1", "K"], ["T16", "T30", "K", "K"], ["T40", "T45", "K", "K"], ["T60", "T50", "H0", "H3"]],
    })


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument("--resolution", default="1280x720")
    ap.add_argument("--threads", type=int, default=0, help="OpenCV threads (0: OpenCV's default)")
    args = ap.parse_args()
    if args.threads:
        cv2.setNumThreads(args.threads)
    w, h = (int(v) for v in args.resolution.lower().split("x"))
    pos = _position()
    lit = {f"T{i}": (0, 255, 0) for i in range(0, 12)}
    scenes = {
        "clean": (SceneEffects.clean(), {}),
        "default": (SceneEffects(), {}),
        "default+card+leds": (SceneEffects(), {"card": "7", "lit": lit}),
        "harsh+card+leds+hand": (SceneEffects.harsh(), {"card": "swap", "lit": lit, "hand": Hand(edge="right", target="T40")}),
    }
    print(f"{args.frames} frames per scene at {w}x{h}")
    for name, (fx, kw) in scenes.items():
        table = SimTable(segments=4, seed=1, resolution=(w, h), pose=CameraPose(), effects=fx)
        table.render(pos, frame_index=10**6, **kw)  # warm the caches (board, sprites, noise)
        times = []
        cpu0 = time.process_time()
        for i in range(args.frames):
            t0 = time.perf_counter()
            table.render(pos, frame_index=i, **kw)
            times.append((time.perf_counter() - t0) * 1000)
        cpu = (time.process_time() - cpu0) * 1000 / args.frames
        times.sort()
        # CPU time per frame is the steadier figure on a shared machine (it sums OpenCV's threads).
        print(f"{name:>24}: wall mean {statistics.fmean(times):6.2f} ms  median {times[len(times) // 2]:6.2f} ms  "
              f"p95 {times[int(len(times) * 0.95)]:6.2f} ms  cpu {cpu:6.2f} ms")


if __name__ == "__main__":
    main()
