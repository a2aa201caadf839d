"""The journal: events survive kill -9 at random points, and a restart resumes the same game."""
from __future__ import annotations

import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

from companion import table as T
from companion.journal import Journal
from companion.scripted import scripted_game

WORKER = Path(__file__).with_name("crash_worker.py")


def _digest(state: T.TableState) -> str:
    import hashlib
    import json

    return hashlib.sha256(json.dumps(T.state_to_json(state, 10_000), sort_keys=True).encode()).hexdigest()


def _journal_count(path: Path) -> int:
    db = sqlite3.connect(str(path))
    try:
        return db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    finally:
        db.close()


def test_journal_uses_wal_and_full_sync(tmp_path: Path) -> None:
    j = Journal(tmp_path / "j.sqlite")
    assert j.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert j.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    gid = j.new_game(T.Setup("classic", 4))
    j.append(gid, 0, T.CardSeen("7"))
    assert j.events(gid) == [T.CardSeen("7")]
    assert j.latest_open().id == gid
    j.finish(gid)
    assert j.latest_open() is None


def test_kill_9_at_random_points_loses_nothing(tmp_path: Path) -> None:
    seed = 11
    steps = list(scripted_game("classic", 4, seed=seed))
    expected = _digest(steps[-1][1])
    path = tmp_path / "journal.sqlite"
    rng = random.Random(seed)
    kills = 0
    done = None
    for attempt in range(40):
        proc = subprocess.Popen([sys.executable, str(WORKER), str(path), "classic", "4", str(seed)],
                                stdout=subprocess.PIPE, text=True)
        acked = [0]
        finished: list[str] = []

        def read() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                if line.startswith("ack "):
                    acked[0] = int(line.split()[1])
                elif line.startswith("done "):
                    finished.append(line)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        if kills < 6:
            # wait for the worker to get going, then kill it at a random moment
            deadline = time.monotonic() + 10
            while acked[0] == 0 and not finished and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.005)
            time.sleep(rng.uniform(0.0, 0.15))
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                kills += 1
        proc.wait(timeout=60)
        reader.join(timeout=5)
        # every event the worker confirmed is in the journal
        assert _journal_count(path) >= acked[0]
        if finished:
            done = finished[0]
            break
    assert kills >= 3, "the worker finished before it could be killed: make the game longer"
    assert done is not None
    _, seq, digest = done.split()
    assert int(seq) == len(steps)
    assert digest == expected
    # and the journal replays to the same state outside the worker as well
    j = Journal(path)
    g = j.games()[-1]
    assert len(j.games()) == 1 and g.finished
    assert _digest(T.replay(g.setup, j.events(g.id))) == expected
