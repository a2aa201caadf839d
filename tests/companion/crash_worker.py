"""Feeds a scripted game into a service with a journal; killed at random by test_journal.py.

Usage: python crash_worker.py JOURNAL VARIANT PLAYERS SEED [STOP_AT]
Prints "ack N" once event N is journaled and applied, then "done <state digest>".
With STOP_AT it ends abruptly after that many events (os._exit, as kill -9 would: the -wal
file stays), for scripts/journal_crash.py to damage what a crash leaves behind.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys

from companion import table as T
from companion.journal import Journal
from companion.simulated.scripted import scripted_game
from companion.service import Service
from companion.settings import Settings


def digest(state: T.TableState) -> str:
    return hashlib.sha256(json.dumps(T.state_to_json(state, 10_000), sort_keys=True).encode()).hexdigest()


def main() -> None:
    path, variant, players, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    stop_at = int(sys.argv[5]) if len(sys.argv) > 5 else None
    events = [step.event for step, _ in scripted_game(variant, players, seed=seed)]
    journal = Journal(path)
    games = journal.games()
    service = Service(Settings(), journal)
    if games and games[-1].finished:
        service.game_id = games[-1].id
        service.state = T.replay(games[-1].setup, journal.events(games[-1].id))
    else:
        service.open(T.Setup(variant, players, "highlight"))
    print(f"resumed {service.state.seq}", flush=True)
    for ev in events[service.state.seq:]:
        service.submit(ev)
        print(f"ack {service.state.seq}", flush=True)
        if stop_at is not None and service.state.seq >= stop_at:
            os._exit(0)
    print(f"done {service.state.seq} {digest(service.state)}", flush=True)


if __name__ == "__main__":
    main()
