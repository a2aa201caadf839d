#!/usr/bin/env python3
"""Bridge figures over a real pseudo-terminal with the simulated MCU, and what the wire
allows at 921600 baud.

    .venv/bin/python scripts/bench_bridge.py [--seconds 3] [--pings 2000]

Prints: LED updates per second (acknowledged one by one, and streamed latest-wins),
round-trip latency of PING and of an LED command to its acknowledgement (median, p99),
the theoretical frame rates for the frame sizes the protocol uses, and the CRC's cost on
the host (binascii.crc_hqx) against the table the MCU runs.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import timeit
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
        (f"LED_SET, {P.LED_MAX_ENTRIES} fields (largest frame)",
         wire_size(1 + P.LED_MAX_ENTRIES * P.LED_ENTRY_SIZE)),
        ("ENCODER", len(P.encode_frame(P.MSG_ENCODER, 0, 0, P.pack_encoder(0, 0)))),
    ]
    for name, size in rows:
        print(f"  {name:36s} {size:4d} bytes  {bytes_per_s / size:8.0f} frames/s")
    full = -(-args.fields // 16)
    full_bytes = full * wire_size(1 + 16 * P.LED_ENTRY_SIZE)
    print(f"  full refresh of {args.fields} fields: {full} frames, {full_bytes} bytes, "
          f"{bytes_per_s / full_bytes:.0f} refreshes/s")
    crc_speed()
    return 0


def crc_speed() -> None:
    """The CRC of a frame on the host, C (binascii.crc_hqx) against the Python table."""
    rng = random.Random(1)
    print("\nCRC-16 of one frame's encoded bytes on the host (best of 5):")
    for size in (16, 90, 250):
        data = bytes(rng.randrange(1, 256) for _ in range(size))
        assert P.crc16(data) == P.crc16_table(data)
        runs = 2000
        fast = min(timeit.repeat(lambda: P.crc16(data), number=runs, repeat=5)) / runs
        table = min(timeit.repeat(lambda: P.crc16_table(data), number=runs, repeat=5)) / runs
        print(f"  {size:3d} bytes: crc_hqx {fast * 1e6:6.2f} us, table {table * 1e6:6.2f} us "
              f"({table / fast:.0f}x)")


if __name__ == "__main__":
    sys.exit(main())
