"""The journal: events survive kill -9 at random points, and a restart resumes the same game."""
from __future__ import annotations

import hashlib
import json
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from companion import table as T
from companion.cli import main
from companion.commands.service import SIM_JOURNAL
from companion.journal import Journal
from companion.service import Service
from companion.settings import Settings
from companion.simulated.scripted import scripted_game

WORKER = Path(__file__).with_name("crash_worker.py")


def _digest(state: T.TableState) -> str:
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
            # kill it at a random point of the game (not a random time: a fast machine would
            # finish the game first): once it has confirmed a random event in the first half of
            # what is left, while it journals the next ones
            start = _journal_count(path) if path.exists() else 0
            target = start + rng.randint(1, max(1, (len(steps) - start) // 2))
            while acked[0] < target and not finished and proc.poll() is None:
                time.sleep(0.001)
            if proc.poll() is None and not finished:
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


def _service(path: Path):
    return Service(Settings(), Journal(path))


def test_a_rejected_new_game_writes_nothing_and_the_game_goes_on_and_resumes(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    svc = _service(path)
    svc.open(T.Setup("classic", 4, "highlight"))
    events = [step.event for step, _ in scripted_game("classic", 4, seed=4)][:30]
    for ev in events[:20]:
        svc.submit(ev)
    before = (svc.game_id, svc.state.seq, svc.journal.games())
    for variant, players in (("chess", 4), ("classic", 7), ("royal", 0), ("", 4)):
        with pytest.raises(T.TableError):
            svc.new_game(variant, players)
        assert (svc.game_id, svc.state.seq, svc.journal.games()) == before  # nothing written, nothing ended
    for ev in events[20:]:
        svc.submit(ev)
    svc.journal.close()
    # a restart resumes the same game with every event, filed under it
    again = _service(path)
    assert again.open(T.Setup("classic", 4, "highlight")) is True
    assert again.game_id == before[0] and again.state.seq == 30
    assert again.journal.events(again.game_id) == events
    again.journal.close()
    assert main(["replay", "--journal", str(path), "--game", str(before[0])]) == 0


def scripted_game_first_event() -> T.Event:
    return next(iter(scripted_game("classic", 4, seed=1)))[0].event


def test_only_a_won_game_is_finished_an_abandoned_one_says_so(tmp_path: Path, capsys) -> None:
    path = tmp_path / "j.sqlite"
    svc = _service(path)
    svc.open(T.Setup("compact", 4, "highlight"))
    for step, _ in scripted_game("compact", 4, seed=2):
        svc.submit(step.event)
    assert svc.state.winner
    svc.new_game("classic", 4)
    svc.submit(scripted_game_first_event())  # the second game has begun, and is left for a third
    svc.new_game("classic", 2)
    ended = {g.id: g.ended for g in svc.journal.games()}
    assert ended == {1: "won", 2: "abandoned", 3: None}
    svc.journal.close()
    assert main(["replay", "--journal", str(path), "--list"]) == 0
    status = [line.split()[-1] for line in capsys.readouterr().out.splitlines()]
    assert status == ["finished", "abandoned", "open"]


def test_a_version_1_journal_is_brought_up_to_date_and_keeps_its_games(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(str(path))
    db.executescript("""
        CREATE TABLE games (id INTEGER PRIMARY KEY, created REAL NOT NULL, setup TEXT NOT NULL,
                            finished INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE events (game_id INTEGER NOT NULL REFERENCES games(id), seq INTEGER NOT NULL,
                             ts REAL NOT NULL, event TEXT NOT NULL, PRIMARY KEY (game_id, seq));""")
    setup = json.dumps({"variant": "compact", "players": 4, "mode": "highlight", "dealer": None})
    won = [T.event_to_json(step.event) for step, _ in scripted_game("compact", 4, seed=2)]
    db.execute("INSERT INTO games VALUES (1, 0, ?, 1)", (setup,))  # finished, with a winner
    db.execute("INSERT INTO games VALUES (2, 0, ?, 1)", (setup,))  # "finished" by a new game: abandoned
    db.execute("INSERT INTO games VALUES (3, 0, ?, 0)", (setup,))
    for gid, evs in ((1, won), (2, won[:10]), (3, won[:5])):
        db.executemany("INSERT INTO events VALUES (?, ?, 0, ?)", [(gid, i, json.dumps(e)) for i, e in enumerate(evs)])
    db.commit()
    db.close()
    j = Journal(path)
    assert j.notice is None
    assert [(g.id, g.ended, g.events) for g in j.games()] == [(1, "won", len(won)), (2, "abandoned", 10), (3, None, 5)]
    j.append(3, 5, T.event_from_json(won[5]))
    j.close()
    assert Journal(path).latest_open().events == 6


def test_replay_reads_a_damaged_journal_without_touching_it(tmp_path: Path, capsys) -> None:
    path = tmp_path / "j.sqlite"
    svc = _service(path)
    svc.open(T.Setup("classic", 4, "highlight"))
    svc.submit(scripted_game_first_event())
    svc.journal.close()
    db = sqlite3.connect(str(path))
    db.execute("UPDATE events SET event = '{oops' WHERE seq = 0")
    db.commit()
    db.close()
    before = path.read_bytes()
    assert main(["replay", "--journal", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "damaged" in err[0] and "game 1 event 0" in err[0]
    assert path.read_bytes() == before and not list(tmp_path.glob("*.damaged-*"))


def test_replay_finds_the_sims_journal_by_default(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    assert main(["replay", "--list"]) == 2
    assert "no journal found" in capsys.readouterr().err
    sim = tmp_path / "state" / "dogtable" / SIM_JOURNAL
    svc = _service(sim)  # as `dogtable sim` writes it
    svc.open(T.Setup("classic", 3, "highlight"))
    svc.journal.close()
    assert main(["replay", "--list"]) == 0
    captured = capsys.readouterr()
    assert "classic" in captured.out and str(sim) in captured.err
