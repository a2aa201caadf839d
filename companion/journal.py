"""The game journal: every table event in SQLite, written and synced before it takes effect.

WAL with `synchronous=FULL` makes each committed event survive `kill -9` and power loss;
the table state is never stored, only rebuilt by replaying the events (companion.table is
deterministic), so the journal cannot disagree with itself.
"""
from __future__ import annotations

import json
import logging
import sqlite3
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from companion.errors import UserError
from companion.table import Event, Setup, event_from_json, event_to_json

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    created REAL NOT NULL,
    setup TEXT NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS events (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    ts REAL NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""


@dataclass(frozen=True)
class GameRecord:
    id: int
    created: float
    setup: Setup
    finished: bool
    events: int


class Journal:
    """One SQLite file; not thread-safe by itself (the service serialises calls under its lock)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: we say BEGIN/COMMIT ourselves, one transaction per event
            self.db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise UserError(f"cannot open the game journal {self.path}: {exc} (check the path and its permissions)") from None

    def close(self) -> None:
        self.db.close()

    def new_game(self, setup: Setup) -> int:
        cur = self.db.execute("INSERT INTO games (created, setup) VALUES (?, ?)",
                              (time.time(), json.dumps(asdict(setup))))
        log.info("journal %s: new game %d (%s, %d players)", self.path, cur.lastrowid, setup.variant, setup.players)
        return int(cur.lastrowid)

    def append(self, game_id: int, seq: int, event: Event) -> None:
        """Store the event durably; returns only once it is on disk."""
        self.db.execute("INSERT INTO events (game_id, seq, ts, event) VALUES (?, ?, ?, ?)",
                        (game_id, seq, time.time(), json.dumps(event_to_json(event), ensure_ascii=False)))

    def finish(self, game_id: int) -> None:
        self.db.execute("UPDATE games SET finished = 1 WHERE id = ?", (game_id,))

    def events(self, game_id: int) -> list[Event]:
        rows = self.db.execute("SELECT event FROM events WHERE game_id = ? ORDER BY seq", (game_id,)).fetchall()
        return [event_from_json(json.loads(r[0])) for r in rows]

    def timed_events(self, game_id: int) -> list[tuple[int, float, Event]]:
        rows = self.db.execute("SELECT seq, ts, event FROM events WHERE game_id = ? ORDER BY seq", (game_id,)).fetchall()
        return [(int(s), float(t), event_from_json(json.loads(e))) for s, t, e in rows]

    def games(self) -> list[GameRecord]:
        rows = self.db.execute(
            "SELECT g.id, g.created, g.setup, g.finished, (SELECT COUNT(*) FROM events e WHERE e.game_id = g.id) "
            "FROM games g ORDER BY g.id"
        ).fetchall()
        return [GameRecord(int(i), float(c), Setup(**json.loads(s)), bool(f), int(n)) for i, c, s, f, n in rows]

    def game(self, game_id: int) -> GameRecord:
        for g in self.games():
            if g.id == game_id:
                return g
        raise UserError(f"the journal {self.path} has no game {game_id} (it has: {[g.id for g in self.games()]})")

    def latest_open(self) -> GameRecord | None:
        """The most recent game that has not finished: the one to resume after a restart."""
        open_games = [g for g in self.games() if not g.finished]
        return open_games[-1] if open_games else None
