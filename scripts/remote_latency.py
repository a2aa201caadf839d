#!/usr/bin/env python3
"""From a play accepted at one table to the LEDs lit at the other, through a real Mosquitto.

Two simulated tables in one process (so both read the same clock), linked through a broker
this script starts (TLS and ACLs when `companion.remote.broker` can make them, else plain):
the host's bots play seats 0 and 2, the joined table's bots 1 and 3. For every board the
host accepted from its own bots, the time from the host taking the event in to the joined
table's LED rings being written for it. Prints the median, p95 and max.

    python scripts/remote_latency.py --plays 300
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion import table as T  # noqa: E402
from companion.lights import Lights  # noqa: E402
from companion.stream import Update  # noqa: E402


class TimedLights(Lights):
    """The joined table's rings, noting when each event's LEDs were written."""

    def __init__(self, service, epoch) -> None:
        self.lit: dict[tuple[int, int], float] = {}
        self.epoch = epoch  # the host's game number the joined table follows now
        super().__init__(service, writer=lambda roles: None)

    def on_update(self, update: Update) -> None:
        super().on_update(update)
        if update.event is not None:
            self.lit[(self.epoch(), update.seq)] = time.perf_counter()


def measure(broker, folder: Path, plays: int) -> list[float]:
    from tests.remote.linked_rig import host_table, joined_table, wait_for

    alice = host_table(broker, folder, "alice", T.Setup("classic", 4, "highlight"), bots=(0, 2), keep=(0, 2), seed=3)
    accepted: dict[int, float] = {}
    lock = threading.Lock()

    def note(update: Update) -> None:
        st = update.state
        if isinstance(update.event, T.BoardSettled) and st.verdict is not None and st.verdict.legal \
                and st.verdict.seat in (0, 2) and update.submitted:
            with lock:
                accepted[(update.game_id, update.seq)] = update.submitted

    sub = alice.service.subscribe("latency", note)
    bob = joined_table(broker, folder, "bob", alice.link.code, (1, 3), bots=(1, 3), seed=4)
    lights = TimedLights(bob.service, lambda: bob.link.epoch)
    try:
        alice.table.start_bots()
        bob.table.start_bots()
        while True:
            with lock:
                n = len(accepted)
            if n >= plays:
                break
            if alice.service.state.phase == "over":
                alice.table.new_game("classic", 4)
            time.sleep(0.2)
        wait_for(lambda: bob.service.state.seq >= alice.service.state.seq - 2, 60, "bob to catch up")
        with lock:
            pairs = [(seq, t0) for seq, t0 in accepted.items()]
        return [lights.lit[seq] - t0 for seq, t0 in pairs if seq in lights.lit]
    finally:
        sub.close()
        lights.stop()
        bob.stop()
        alice.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--plays", type=int, default=300)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    from tests.remote.linked_rig import club_broker

    with tempfile.TemporaryDirectory() as tmp:
        broker = club_broker(Path(tmp) / "broker")
        try:
            times = sorted(measure(broker, Path(tmp), args.plays))
        finally:
            broker.stop()
    ms = [t * 1000 for t in times]
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    out = {"plays": len(ms), "median_ms": round(statistics.median(ms), 1), "p95_ms": round(p95, 1),
           "max_ms": round(ms[-1], 1)}
    print(json.dumps(out) if args.json else
          f"{out['plays']} plays accepted at the host, LEDs lit at the joined table: median {out['median_ms']} ms, "
          f"p95 {out['p95_ms']} ms, max {out['max_ms']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
