#!/usr/bin/env python3
"""Whole games between two `dogtable sim` processes through a real Mosquitto while things go wrong.

Each game runs from the first deal to its end: table alice hosts it (seats 0 and 2), table bob
joins it (seats 1 and 3), bots at every seat, both started from the command line as a club
starts them (TLS, passwords, the shipped access list). Every EVERY events of the host's journal
the next fault in turn: bob killed with -9 and started again (a power cut at the joined table),
the broker restarted, alice killed with -9 and started again (a power cut at the host). At the
end the two journals are compared event by event (the public form, and bob's own cards) and
the lost events counted: the host's events bob never journaled.

    python scripts/remote_faults.py --games 3 --every 120
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion import table as T  # noqa: E402
from tests.remote.conftest import start_broker  # noqa: E402
from tests.remote.linked_rig import FAST, Table, count, credentials_file, events, finished, wait_for  # noqa: E402

FAULTS = ("kill the joined table", "restart the broker", "kill the host")


def one_game(folder: Path, seed: int, every: int) -> dict:
    broker = start_broker(folder / "broker")
    (folder / "fast.toml").write_text(FAST)
    login = ["--broker", broker.url, "--credentials"]
    alice = Table(folder, "alice", [*login, str(credentials_file(broker, "alice", folder)), "--host-game",
                                    "--seats", "0,2", "--bots", "0,2", "--new", "--seed", str(seed)])
    bob = None
    done: list[str] = []
    started = time.monotonic()
    try:
        alice.start()
        code = alice.wait_line(r"--join (alice-[A-Z0-9]+)").group(1)
        bob = Table(folder, "bob", [*login, str(credentials_file(broker, "bob", folder)), "--join", code,
                                    "--seats", "1,3", "--bots", "1,3", "--seed", str(seed + 1)])
        bob.start()
        bob.wait_line(r"joined table alice's game")
        alice.args.remove("--new")  # a restarted host resumes its game
        mark = every
        while not finished(alice.journal):
            if count(alice.journal) < mark:
                time.sleep(0.05)
                continue
            fault = FAULTS[len(done) % len(FAULTS)]
            if fault == FAULTS[0]:
                bob.kill()
                bob.start()
                bob.wait_line(r"joined table alice's game")
            elif fault == FAULTS[1]:
                broker.restart()
            else:
                alice.kill()
                alice.start()
                alice.wait_line(r"hosting game alice: other tables join with --join " + code)
            done.append(fault)
            mark = max(mark, count(alice.journal)) + every  # a journal busy being written counts 0
        wait_for(lambda: count(bob.journal) == count(alice.journal), 120, "bob to hold every event")
    finally:
        if bob is not None:
            bob.stop()
        alice.stop()
        broker.stop()
    host, joined = events(alice.journal), events(bob.journal)
    public_same = [T.public_event_json(e) for e in joined] == [T.public_event_json(e) for e in host]
    own_same = [T.event_to_json(e) for e in joined] == [T.event_to_json(T.event_for(e, frozenset({1, 3})))
                                                         for e in host]
    return {"events": len(host), "lost": max(0, len(host) - len(joined)), "faults": done,
            "identical": public_same and own_same, "seconds": time.monotonic() - started}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--every", type=int, default=120, help="host events between two faults")
    ap.add_argument("--seed", type=int, default=21)
    args = ap.parse_args()
    bad = 0
    totals = {"events": 0, "lost": 0, "faults": 0}
    for g in range(args.games):
        with tempfile.TemporaryDirectory() as tmp:
            r = one_game(Path(tmp), args.seed + 2 * g, args.every)
        totals["events"] += r["events"]
        totals["lost"] += r["lost"]
        totals["faults"] += len(r["faults"])
        bad += not r["identical"] or r["lost"] > 0
        kinds = ", ".join(f"{r['faults'].count(f)}x {f}" for f in FAULTS)
        print(f"game {g + 1}: finished, {r['events']} events, {r['lost']} lost, journals "
              f"{'identical' if r['identical'] else 'DIFFERENT'}; faults: {kinds}; {r['seconds']:.0f} s", flush=True)
    print(f"ALL: {args.games} games finished, {totals['events']} events, {totals['faults']} faults, "
          f"{totals['lost']} lost, {bad} with journals differing or events lost")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
