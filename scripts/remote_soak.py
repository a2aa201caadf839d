#!/usr/bin/env python3
"""Many linked tables on one broker for a while: no event lost, every journal its host's, the club screen current.

Starts a local Mosquitto (TLS, passwords, the shipped access list) and GAMES games, each
hosted by one simulated table and joined by another, bots at every seat, in one process; a
club screen (`companion.remote.club.ClubView`, logged in as the read-only club user) watches
them all. A finished game is followed by a new one. After MINUTES, every joined table's
journal is compared with its host's, event by event (the public form, and the joined seats'
own cards), and the club screen's delay (from a host publishing its state to the screen
holding it) is reported.

    python scripts/remote_soak.py --games 10 --minutes 10
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion import table as T  # noqa: E402
from companion.remote.club import Broker, ClubView  # noqa: E402
from tests.remote.linked_rig import (club_broker, host_table, joined_table, journal_view,  # noqa: E402
                                     quick_settings, wait_for)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--bot-delay", type=float, default=0.3, help="seconds a bot waits before each step")
    args = ap.parse_args()
    hosts = [f"host{i}" for i in range(args.games)]
    guests = [f"guest{i}" for i in range(args.games)]
    base = quick_settings()
    settings = replace(base, service=replace(base.service, bot_delay_s=args.bot_delay))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        broker = club_broker(folder / "broker", names=(*hosts, *guests, "club"))
        pairs = []
        lags: list[float] = []
        lock = threading.Lock()
        creds = broker.credentials("club")
        view = ClubView(Broker(broker.host, broker.port, True, creds.username, creds.password, str(creds.ca)))

        def seen() -> None:
            now = time.time()
            with lock:
                for g in view.snapshot().games.values():
                    key = (g.game, g.epoch, g.seq)
                    if key not in noted:
                        noted.add(key)
                        lags.append(now - g.sent)

        noted: set = set()
        view.listen(seen)
        view.start()
        try:
            for i, (h, g) in enumerate(zip(hosts, guests)):
                a = host_table(broker, folder, h, T.Setup("classic", 4, "highlight"), bots=(0, 2), keep=(0, 2),
                               seed=100 + i, settings=settings)
                b = joined_table(broker, folder, g, a.link.code, (1, 3), bots=(1, 3), seed=200 + i, settings=settings)
                pairs.append((a, b))
            for a, b in pairs:
                a.table.start_bots()
                b.table.start_bots()
            print(f"{2 * len(pairs)} tables, {len(pairs)} games on {broker.url}; playing {args.minutes} min", flush=True)
            end = time.monotonic() + args.minutes * 60
            games = 0
            while time.monotonic() < end:
                for a, _ in pairs:
                    if a.service.state.phase == "over":
                        games += 1
                        a.table.new_game("classic", 4)
                time.sleep(1.0)
            for a, b in pairs:  # stop the bots, let the last events arrive
                a.table.stopping.set()
                b.table.stopping.set()
            failures = []
            events = 0
            for a, b in pairs:
                try:
                    wait_for(lambda: b.service.state.seq == a.service.state.seq, 120, f"{b.name} to catch up")
                except AssertionError as exc:
                    failures.append(str(exc))
                    continue
                host_pub, guest_pub = journal_view(a.service), journal_view(b.service)
                own = journal_view(a.service, frozenset({1, 3}))
                guest_raw = [T.event_to_json(e) for e in b.service.journal.events(b.service.game_id)]
                events += len(host_pub)
                if host_pub != guest_pub or own != guest_raw:
                    failures.append(f"{b.name}'s journal differs from {a.name}'s")
            with lock:
                ordered = sorted(lags)
            p95 = ordered[int(0.95 * (len(ordered) - 1))] if ordered else float("nan")
            print(f"games finished: {games}; events in the open games: {events}; journals differing: "
                  f"{len(failures)}")
            print(f"club screen: {len(ordered)} states seen, delay median {1000 * ordered[len(ordered) // 2]:.0f} ms, "
                  f"p95 {1000 * p95:.0f} ms, max {1000 * ordered[-1]:.0f} ms" if ordered else "club screen saw nothing")
            for f in failures[:10]:
                print("  " + f)
            return 0 if not failures and ordered and ordered[-1] <= 1.0 else 1
        finally:
            view.stop()
            for a, b in pairs:
                b.stop()
                a.stop()
            broker.stop()


if __name__ == "__main__":
    sys.exit(main())
