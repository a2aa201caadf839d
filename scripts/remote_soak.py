#!/usr/bin/env python3
"""Many linked tables on one broker for a while: no event lost, every journal its host's, the club screen current.

Starts a local Mosquitto (TLS, passwords, the shipped access list), a club screen
(`companion.remote.club.ClubView`, logged in as the read-only club user) in a process of its
own, and GAMES games, each hosted by one simulated table and joined by another, bots at every
seat, spread over PROCESSES processes (a game's two tables share one). A club's tables are
separate machines: twenty services and their bots in one Python process would share one
interpreter lock, which no table does. A finished game is followed by a new one.

After MINUTES every joined table's journal is compared with its host's, event by event (the
public form, and the joined seats' own cards). Every process stamps times with the same clock
(`time.time()`, one machine): the hosts note each state they publish (its `sent`, the moment
the host hands it to its link), the club screen the moment it holds each state. Reported:

- per state: from the host publishing it to the screen holding it or a newer one;
- at any moment (every 50 ms, for each game): how far the screen is behind the host's newest
  published state: 0 when it holds it, else the age of the oldest published state it does
  not hold yet.

    python scripts/remote_soak.py --games 10 --minutes 10
"""
from __future__ import annotations

import argparse
import bisect
import json
import multiprocessing
import os
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.remote.credentials import Credentials  # noqa: E402

SAMPLE_S = 0.05  # how often "at any moment" is looked at, for each game
BAR_S = 1.0  # the screen is current: never more than this behind the host


@dataclass(frozen=True)
class BrokerDoor:
    """What a process needs of the parent's broker: its address and the logins (picklable)."""

    host: str
    port: int
    tls: bool
    logins: dict[str, Credentials]

    def credentials(self, name: str) -> Credentials:
        return self.logins[name]


def _note(path: Path, obj: object) -> None:
    tmp = path.with_name(path.name + ".new")
    tmp.write_text(json.dumps(obj))
    os.replace(tmp, path)


def watch(door: BrokerDoor, folder: Path) -> None:
    """The club screen's process: every state it comes to hold, and when, until told to stop."""
    import threading

    from companion.remote.club import Broker, ClubView

    creds = door.credentials("club")
    view = ClubView(Broker(door.host, door.port, door.tls, creds.username, creds.password, str(creds.ca)))
    held: list[tuple[str, int, int, float, float]] = []  # game, epoch, seq, sent, when the screen held it
    known: dict[str, tuple[int, int, float]] = {}
    lock = threading.Lock()

    def changed() -> None:  # on the view's thread, once per change
        now = time.time()
        with lock:
            for g in view.snapshot().games.values():
                key = (g.epoch, g.seq, g.sent)
                if known.get(g.game) != key:
                    known[g.game] = key
                    held.append((g.game, g.epoch, g.seq, g.sent, now))

    view.listen(changed)
    view.start()
    if not view.wait_connected(30):
        raise SystemExit("the club screen could not reach the broker")
    _note(folder / "club-ready.json", True)
    while not (folder / "club-stop").exists():
        time.sleep(0.2)
    view.stop()
    with lock:
        _note(folder / "club.json", {"held": held, "ignored": view.ignored})


def play(door: BrokerDoor, folder: Path, games: list[int], minutes: float, bot_delay: float) -> None:
    """One process's tables: a host and a joined table per game, bots at every seat."""
    from companion import table as T
    from tests.remote.linked_rig import host_table, joined_table, journal_view, quick_settings, wait_for

    base = quick_settings()
    settings = replace(base, service=replace(base.service, bot_delay_s=bot_delay))
    published: list[tuple[str, int, int, float]] = []
    pairs = []

    def noting(link, publish):
        def wrapped(topic: str, payload: bytes, **kw) -> None:
            if topic.endswith("/public/state"):
                m = json.loads(payload)
                published.append((m["game"], m["epoch"], m["seq"], m["sent"]))
            publish(topic, payload, **kw)
        return wrapped

    result: dict = {"games": 0, "events": 0, "failures": []}
    try:
        for i in games:
            a = host_table(door, folder, f"host{i}", T.Setup("classic", 4, "highlight"), bots=(0, 2), keep=(0, 2),
                           seed=100 + i, settings=settings)
            a.link.link.publish = noting(a.link.link, a.link.link.publish)
            b = joined_table(door, folder, f"guest{i}", a.link.code, (1, 3), bots=(1, 3), seed=200 + i,
                             settings=settings)
            pairs.append((a, b))
        for a, b in pairs:
            a.table.start_bots()
            b.table.start_bots()
        end = time.monotonic() + minutes * 60
        while time.monotonic() < end:
            for a, _ in pairs:
                if a.service.state.phase == "over":
                    result["games"] += 1
                    a.table.new_game("classic", 4)
            time.sleep(1.0)
        for a, b in pairs:  # stop the bots, let the last events arrive
            a.table.stopping.set()
            b.table.stopping.set()
        for a, b in pairs:
            try:
                wait_for(lambda: b.service.state.seq == a.service.state.seq, 120, f"{b.name} to catch up")
            except AssertionError as exc:
                result["failures"].append(str(exc))
                continue
            host_pub, guest_pub = journal_view(a.service), journal_view(b.service)
            own = journal_view(a.service, frozenset({1, 3}))
            guest_raw = [T.event_to_json(e) for e in b.service.journal.events(b.service.game_id)]
            result["events"] += len(host_pub)
            for what, mine, theirs in (("public", host_pub, guest_pub), ("own cards", own, guest_raw)):
                if mine != theirs:
                    at = next((k for k, (x, y) in enumerate(zip(mine, theirs)) if x != y), min(len(mine), len(theirs)))
                    result["failures"].append(
                        f"{b.name}'s journal differs from {a.name}'s ({what}, {len(theirs)} events, the host's "
                        f"{len(mine)}) at event {at}: host {json.dumps(mine[at:at + 1])[:300]}, "
                        f"joined {json.dumps(theirs[at:at + 1])[:300]}")
                    break
        time.sleep(2.0)  # the last states reach the screen before its process is told to stop
    finally:
        for a, b in pairs:
            b.stop()
            a.stop()
        result["published"] = list(published)
        _note(folder / f"tables-{games[0]}.json", result)


def lags(published: list, held: list) -> tuple[list[float], list[float], int]:
    """(per published state: seconds until the screen held it or a newer one; the screen's lag
    sampled every SAMPLE_S for each game; how many states it never held)."""
    per_state: list[float] = []
    sampled: list[float] = []
    never = 0
    for game in sorted({p[0] for p in published}):
        pubs = sorted((e, s, sent) for g, e, s, sent in published if g == game)
        got = [(when, (e, s, sent)) for g, e, s, sent, when in held if g == game]
        got.sort()
        got_keys = [k for _, k in got]
        got_times = [t for t, _ in got]
        for key in pubs:
            i = bisect.bisect_left(got_keys, key)  # the screen holds states newer and newer: keys rise
            if i == len(got_keys):
                never += 1
            else:
                per_state.append(max(0.0, got_times[i] - key[2]))
        if not pubs:
            continue
        t, end = pubs[0][2], max(pubs[-1][2], got_times[-1] if got_times else 0.0)
        while t <= end:
            h = bisect.bisect_right(got_times, t) - 1  # what the screen holds at t
            held_key = got_keys[h] if h >= 0 else (-1, -1, -1.0)
            first = bisect.bisect_right(pubs, held_key)  # the oldest published state it does not hold
            sampled.append(t - pubs[first][2] if first < len(pubs) and pubs[first][2] <= t else 0.0)
            t += SAMPLE_S
    return per_state, sampled, never


def _figures(values: list[float]) -> str:
    v = sorted(values)
    if not v:
        return "none"
    return (f"median {1000 * v[len(v) // 2]:.0f} ms, p95 {1000 * v[int(0.95 * (len(v) - 1))]:.0f} ms, "
            f"max {1000 * v[-1]:.0f} ms")


def main() -> int:
    from tests.remote.linked_rig import club_broker

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--processes", type=int, default=5, help="processes the tables are spread over (a game's two "
                                                             "tables in one); the club screen has one more")
    ap.add_argument("--bot-delay", type=float, default=0.3, help="seconds a bot waits before each step")
    args = ap.parse_args()
    n = max(1, min(args.processes, args.games))
    names = [f"{k}{i}" for i in range(args.games) for k in ("host", "guest")]
    spawn = multiprocessing.get_context("spawn")  # no fork of a process holding threads and sockets
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        broker = club_broker(folder / "broker", names=(*names, "club"))
        try:
            door = BrokerDoor(broker.host, broker.port, broker.tls, {u: broker.credentials(u) for u in (*names, "club")})
            club = spawn.Process(target=watch, args=(door, folder), name="club")
            club.start()
            deadline = time.monotonic() + 60
            while not (folder / "club-ready.json").exists():
                if not club.is_alive() or time.monotonic() > deadline:
                    print("the club screen's process did not start")
                    return 1
                time.sleep(0.1)
            shares = [list(range(args.games))[k::n] for k in range(n)]
            workers = [spawn.Process(target=play, args=(door, folder, share, args.minutes, args.bot_delay),
                                     name=f"tables-{share[0]}") for share in shares]
            for w in workers:
                w.start()
            print(f"{2 * args.games} tables, {args.games} games in {n} processes, the club screen in its own; "
                  f"on {broker.url}; playing {args.minutes} min", flush=True)
            for w in workers:
                w.join(args.minutes * 60 + 600)
            (folder / "club-stop").touch()
            club.join(60)
            results = []
            for share in shares:
                path = folder / f"tables-{share[0]}.json"
                results.append(json.loads(path.read_text()) if path.exists() else
                               {"games": 0, "events": 0, "failures": [f"the process of games {share} ended early"],
                                "published": []})
            seen = json.loads((folder / "club.json").read_text()) if (folder / "club.json").exists() else {"held": []}
        finally:
            for p in [*locals().get("workers", []), locals().get("club")]:
                if p is not None and p.is_alive():
                    p.terminate()
            broker.stop()
    failures = [f for r in results for f in r["failures"]]
    published = [p for r in results for p in r["published"]]
    per_state, sampled, never = lags(published, seen["held"])
    behind = sum(1 for s in sampled if s > BAR_S)
    print(f"games finished: {sum(r['games'] for r in results)}; events in the open games: "
          f"{sum(r['events'] for r in results)}; journals differing: {len(failures)}")
    print(f"club screen, each of {len(published)} states from the host publishing it to the screen holding it "
          f"(or a newer one): {_figures(per_state)}; never held: {never}")
    print(f"club screen at any moment ({len(sampled)} looks, every {1000 * SAMPLE_S:.0f} ms per game), behind the "
          f"host's newest published state: {_figures(sampled)}; more than {BAR_S:.0f} s behind: {behind}")
    for f in failures[:10]:
        print("  " + f)
    ok = not failures and not never and per_state and max(per_state) <= BAR_S and not behind
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
