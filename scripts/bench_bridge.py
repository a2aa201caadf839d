#!/usr/bin/env python3
"""Bridge figures over a real pseudo-terminal with the simulated MCU, and what the wire
allows at 921600 baud.

    .venv/bin/python scripts/bench_bridge.py [--seconds 3] [--pings 2000]

Prints: LED updates per second (acknowledged one by one, and streamed latest-wins),
round-trip latency of PING and of an LED command to its acknowledgement (median, p99),
and the theoretical frame rates for the frame sizes the protocol uses.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from firmware_bridge import BridgeClient, FieldLight  # noqa: E402
from firmware_bridge import protocol as P  # noqa: E402
from firmware_bridge.simulator import SimulatedMCU  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def wire_size(payload_len: int) -> int:
    return len(P.encode_frame(P.MSG_LED_SET, 0, 0, bytes([1]) * payload_len))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="length of each throughput run")
    parser.add_argument("--pings", type=int, default=2000, help="round trips to time")
    parser.add_argument("--fields", type=int, default=150, help="LED map size of the simulated MCU")
    parser.add_argument("--baud", type=int, default=921600)
    args = parser.parse_args()

    with SimulatedMCU(fields=args.fields) as sim, BridgeClient(sim.port) as client:
        client.connect(timeout=5)
        client.wait_idle(2)
        print(f"simulated MCU on a pty, {args.fields} fields, Python {sys.version.split()[0]}")

        # Round trips: PING -> PONG, and one LED change -> its acknowledgement.
        pings = [client.ping(timeout=1.0) for _ in range(args.pings)]
        pings = [p for p in pings if p is not None]
        acks = []
        for i in range(args.pings):
            start = time.perf_counter()
            client.set_leds({i % args.fields: FieldLight((i & 0xFF, 0, 0))})
            client.wait_idle(1.0)
            acks.append((time.perf_counter() - start) * 1000)
        print(f"round trip PING->PONG    median {statistics.median(pings):.3f} ms, "
              f"p99 {percentile(pings, 0.99):.3f} ms  ({len(pings)} pings)")
        print(f"round trip LED->ack      median {statistics.median(acks):.3f} ms, "
              f"p99 {percentile(acks, 0.99):.3f} ms  (set_leds until acknowledged)")

        # One update at a time, each acknowledged before the next.
        n = 0
        end = time.perf_counter() + args.seconds
        while time.perf_counter() < end:
            client.set_leds({n % args.fields: FieldLight((n & 0xFF, 1, 1))})
            client.wait_idle(1.0)
            n += 1
        print(f"LED updates/s, acked     {n / args.seconds:8.0f}  (one field changed, wait for each ack)")

        # Streaming: the caller sets states as fast as it can; latest-wins collapses what
        # the link cannot carry, the MCU shows as many as arrive.
        for changed in (1, 16):
            before = len(sim.stats.commits)
            n = 0
            end = time.perf_counter() + args.seconds
            while time.perf_counter() < end:
                client.set_leds({(n + k) % args.fields: FieldLight((n & 0xFF, k, 2)) for k in range(changed)})
                n += 1
                time.sleep(0)  # let the link's threads run: the GIL is shared
            client.wait_idle(2.0)
            shown = len(sim.stats.commits) - before
            print(f"LED updates/s, streamed  {shown / args.seconds:8.0f} shown on the MCU "
                  f"({n / args.seconds:.0f}/s requested, {changed} field(s) per update)")
        c = client.counters
        print(f"counters: sent {c.sent}, retried {c.retried}, dropped {c.dropped}, "
              f"corrupted {c.corrupted}, superseded {c.superseded}")

    bytes_per_s = args.baud / 10  # 8N1: start + 8 data + stop bits
    print(f"\nwire at {args.baud} baud (8N1): {bytes_per_s:.0f} bytes/s each way")
    rows = [
        ("ACK", len(P.encode_frame(P.MSG_ACK, 0, 0))),
        ("LED_SET, 1 field", wire_size(1 + 1 * P.LED_ENTRY_SIZE)),
        ("LED_SET, 16 fields (host default)", wire_size(1 + 16 * P.LED_ENTRY_SIZE)),
        ("LED_SET, 49 fields (largest frame)", wire_size(1 + P.LED_MAX_ENTRIES * P.LED_ENTRY_SIZE)),
        ("ENCODER", len(P.encode_frame(P.MSG_ENCODER, 0, 0, P.pack_encoder(0, 0)))),
    ]
    for name, size in rows:
        print(f"  {name:36s} {size:4d} bytes  {bytes_per_s / size:8.0f} frames/s")
    full = -(-args.fields // 16)
    full_bytes = full * wire_size(1 + 16 * P.LED_ENTRY_SIZE)
    print(f"  full refresh of {args.fields} fields: {full} frames, {full_bytes} bytes, "
          f"{bytes_per_s / full_bytes:.0f} refreshes/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
