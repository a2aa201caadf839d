"""The game journal: every table event in SQLite, written and synced before it takes effect.

WAL with `synchronous=FULL` makes each committed event survive `kill -9` and power loss;
the table state is never stored, only rebuilt by replaying the events (companion.table is
deterministic), so the journal cannot disagree with itself.

Damage is found, named and repaired at start, never silently:
- each event row carries a hash chain (`chain` = hash of the previous chain and this row),
  so a changed, missing or reordered row is found where it happened;
- every write also goes, after the SQLite commit, as one JSON line to a copy next to the
  database (`<journal>.events.jsonl`). A deleted or damaged `-wal`, a truncated file, a
  database that is no database: the copy says what the journal held and gives it back.
- a damaged journal is moved aside (renamed with a timestamp, never deleted), a fresh one
  is written from the longest good prefix of every game, and `Journal.notice` says in one
  line what was wrong, what was restored and how many events were lost.

Over 600 lines because writing, checking and repairing are one idea here: the repair must
read exactly the rows and the copy the writer made, in the same transaction rules.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import sqlite3
import struct
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from companion.errors import UserError
from companion.table import Event, Setup, TableError, apply, event_from_json, event_to_json, new_state

log = logging.getLogger(__name__)

SCHEMA_VERSION = 2  # PRAGMA user_version; 0 with the tables of OLD_COLUMNS is version 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    created REAL NOT NULL,
    setup TEXT NOT NULL,
    ended TEXT
);
CREATE TABLE IF NOT EXISTS events (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    ts REAL NOT NULL,
    event TEXT NOT NULL,
    chain TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""
COLUMNS = {"games": ["id", "created", "setup", "ended"], "events": ["game_id", "seq", "ts", "event", "chain"]}
OLD_COLUMNS = {"games": ["id", "created", "setup", "finished"], "events": ["game_id", "seq", "ts", "event"]}
ENDINGS = (None, "won", "abandoned")
SQLITE_MAGIC = b"SQLite format 3\x00"


class JournalDamage(Exception):
    """What is wrong with a journal file, in a few words (the start of the one-line notice).

    `lost`: how many committed transactions (events) the damage took, when the file itself
    tells (a damaged -wal frame with later commits after it)."""

    def __init__(self, message: str, lost: int | None = None) -> None:
        super().__init__(message)
        self.lost = lost


@dataclass(frozen=True)
class GameRecord:
    id: int
    created: float
    setup: Setup
    ended: str | None  # None: still open; "won": a seat or team won; "abandoned": a new game began first
    events: int

    @property
    def finished(self) -> bool:
        """Only a game somebody won is finished."""
        return self.ended == "won"

    @property
    def status(self) -> str:
        return {"won": "finished", "abandoned": "abandoned"}.get(self.ended or "", "open")


def chain_start(game_id: int, setup_text: str) -> str:
    return hashlib.sha256(f"dogtable game {game_id} {setup_text}".encode()).hexdigest()[:16]


def chain_next(prev: str, seq: int, event_text: str) -> str:
    return hashlib.sha256(f"{prev} {seq} {event_text}".encode()).hexdigest()[:16]


@dataclass
class _Game:
    """One game as read from a journal or its copy, before it is trusted."""

    id: int
    created: float
    setup: str
    ended: str | None = None
    events: list[tuple[int, float, str, str]] = field(default_factory=list)  # seq, ts, event JSON, chain


class Journal:
    """One SQLite file and its JSON-lines copy; not thread-safe by itself (the service
    serialises calls under its lock)."""

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self.copy_path = self.path.with_name(self.path.name + ".events.jsonl")
        self.notice: str | None = None  # what was wrong at start and what was restored, if anything
        # the same for the players' page, in numbers the page words in its own language
        self.repaired: dict[str, Any] | None = None
        self.readonly = readonly
        self._copy: IO[str] | None = None
        self._copy_failed = False
        if readonly:
            self._open_readonly()
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"cannot create the folder for the game journal {self.path}: {exc}") from None
        self._refuse_unwritable()
        copy = read_copy(self.copy_path)
        try:
            db_games = check_journal(self.path)
            lost = _missing_from(db_games, copy)
            if lost:
                raise JournalDamage(lost)
        except JournalDamage as damage:
            self._repair(str(damage), copy, damage.lost)
        else:
            self._connect()
            self._migrate()
        self._rewrite_copy()

    # --- opening ------------------------------------------------------------------------
    def _refuse_unwritable(self) -> None:
        """A file or folder the service may not write is a setup problem, not damage: say so."""
        if self.path.is_file() and not os.access(self.path, os.R_OK | os.W_OK):
            raise UserError(f"the game journal {self.path} is read-only for this user: give it back write "
                            f"permission (chmod u+rw), or choose another [service] journal")
        if not os.access(self.path.parent, os.W_OK | os.X_OK):
            raise UserError(f"cannot write in the folder of the game journal {self.path.parent}: "
                            f"check its permissions, or choose another [service] journal")

    def _connect(self) -> None:
        try:
            # isolation_level=None: we say BEGIN/COMMIT ourselves, one transaction per event
            self.db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            if _table_columns(self.db) == {}:
                self.db.execute("BEGIN IMMEDIATE")
                _create(self.db)
                self.db.execute("COMMIT")
        except (OSError, sqlite3.Error) as exc:
            raise UserError(f"cannot open the game journal {self.path}: {exc} (check the path and its permissions)") from None

    def _open_readonly(self) -> None:
        """For `dogtable replay`: look, never repair (the service may be running on it)."""
        if not self.path.exists():
            raise UserError(f"journal {self.path} does not exist (give --journal FILE)")
        try:
            games = check_journal(self.path)
        except JournalDamage as damage:
            raise UserError(f"the journal {self.path} is damaged: {damage} (the service moves it aside and "
                            f"restores it when it starts next)") from None
        # the checked games, in memory: a read-only look must not depend on the file afterwards
        self.db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        _create(self.db)
        self._store(games.values())

    def _migrate(self) -> None:
        """Version 1 journals (no chain, `finished` for any ended game) become version 2 in place."""
        if _table_columns(self.db) != OLD_COLUMNS:
            return
        games = _read_games(self.db, OLD_COLUMNS)
        self.db.execute("BEGIN IMMEDIATE")
        self.db.execute("ALTER TABLE games RENAME TO games_v1")
        self.db.execute("ALTER TABLE events RENAME TO events_v1")
        _create(self.db)
        self._store(games.values(), in_transaction=True)
        self.db.execute("DROP TABLE events_v1")
        self.db.execute("DROP TABLE games_v1")
        self.db.execute("COMMIT")
        log.info("journal %s: brought to schema version %d", self.path, SCHEMA_VERSION)

    def _store(self, games, in_transaction: bool = False) -> None:
        if not in_transaction:
            self.db.execute("BEGIN IMMEDIATE")
        for g in games:
            self.db.execute("INSERT INTO games (id, created, setup, ended) VALUES (?, ?, ?, ?)",
                            (g.id, g.created, g.setup, g.ended))
            self.db.executemany("INSERT INTO events (game_id, seq, ts, event, chain) VALUES (?, ?, ?, ?, ?)",
                                [(g.id, s, t, e, c) for s, t, e, c in g.events])
        if not in_transaction:
            self.db.execute("COMMIT")

    def _repair(self, damage: str, copy: dict[int, _Game], wal_lost: int | None = None) -> None:
        """Move the damaged file aside, salvage what is good, merge the copy, write a fresh journal."""
        aside = self._move_aside()
        salvaged, known = salvage(aside) if aside is not None else ({}, 0)
        games, lost, unknown = _merge(salvaged, copy, known)
        if unknown and wal_lost is not None:
            # no copy, but the -wal frames say how many commits came after the damage
            lost, unknown = lost + wal_lost, False
        self._connect()
        self._store(games.values())
        n = sum(len(g.events) for g in games.values())
        where = f"moved aside to {aside.name}" if aside is not None else "nothing to move aside"
        if games:
            last = games[max(games)]
            restored = f"restored {len(games)} game(s), {n} events (game {last.id} at event {len(last.events)})"
        else:
            restored = "nothing could be restored: a new game starts"
        if unknown:
            loss = (f"{lost} event(s) the damaged file shows could not be restored, and its copy was missing, "
                    f"so more may be lost")
        else:
            loss = f"{lost} event(s) lost"
        self.notice = f"journal {self.path}: {damage}; {where}; {restored}; {loss}"
        self.repaired = {"games": len(games), "events": n, "lost": lost, "more_may_be_lost": unknown,
                         "kept_as": aside.name if aside is not None else None}
        log.warning("%s", self.notice)

    def _move_aside(self) -> Path | None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        aside = self.path.with_name(f"{self.path.name}.damaged-{stamp}")
        n = 1
        while any(Path(f"{aside}{s}").exists() for s in ("", "-wal", "-shm", ".events.jsonl")):
            n += 1
            aside = self.path.with_name(f"{self.path.name}.damaged-{stamp}-{n}")
        moved = False
        # the copy stays: it is read again and rewritten from the fresh journal; a copy of it goes aside
        for suffix in ("", "-wal", "-shm"):
            src = Path(f"{self.path}{suffix}")
            if src.exists() or src.is_symlink():
                os.replace(src, f"{aside}{suffix}")
                moved = True
        if self.copy_path.is_file():
            shutil.copyfile(self.copy_path, f"{aside}.events.jsonl")
            moved = True
        return aside if moved else None

    def _rewrite_copy(self) -> None:
        """The copy is the journal, line for line: written whole at start, appended after each commit."""
        tmp = self.copy_path.with_name(self.copy_path.name + ".tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                for g in _read_games(self.db, COLUMNS).values():
                    f.write(_game_line(g.id, g.created, g.setup) + "\n")
                    for seq, ts, ev, chain in g.events:
                        f.write(_event_line(g.id, seq, ts, ev, chain) + "\n")
                    if g.ended:
                        f.write(json.dumps({"game": g.id, "ended": g.ended}) + "\n")
            os.replace(tmp, self.copy_path)
            self._copy = open(self.copy_path, "a", encoding="utf-8")
        except OSError as exc:
            self._copy_warn(exc)

    def _to_copy(self, line: str) -> None:
        if self._copy is None:
            return
        try:
            self._copy.write(line + "\n")
            self._copy.flush()  # in the kernel: survives kill -9; the database itself is synced
        except OSError as exc:
            self._copy_warn(exc)

    def _copy_warn(self, exc: OSError) -> None:
        if not self._copy_failed:
            log.warning("journal copy %s cannot be written (%s): the journal works, but damage to it "
                        "can no longer be repaired from the copy", self.copy_path, exc)
        self._copy_failed = True
        self._copy = None

    def close(self) -> None:
        if self._copy is not None:
            self._copy.close()
            self._copy = None
        self.db.close()

    # --- writing ------------------------------------------------------------------------
    def _no_writes(self) -> None:
        if self.readonly:
            raise UserError(f"the journal {self.path} was opened to read only")

    def new_game(self, setup: Setup) -> int:
        self._no_writes()
        new_state(setup)  # a setup that cannot start a game is refused before anything is written
        text = json.dumps(asdict(setup))
        created = time.time()
        cur = self.db.execute("INSERT INTO games (created, setup) VALUES (?, ?)", (created, text))
        gid = int(cur.lastrowid)
        self._to_copy(_game_line(gid, created, text))
        log.info("journal %s: new game %d (%s, %d players)", self.path, gid, setup.variant, setup.players)
        return gid

    def append(self, game_id: int, seq: int, event: Event) -> None:
        """Store the event durably; returns only once it is on disk."""
        self._no_writes()
        text = json.dumps(event_to_json(event), ensure_ascii=False)
        prev = self._last_chain(game_id, seq)
        chain = chain_next(prev, seq, text)
        ts = time.time()
        self.db.execute("INSERT INTO events (game_id, seq, ts, event, chain) VALUES (?, ?, ?, ?, ?)",
                        (game_id, seq, ts, text, chain))
        self._to_copy(_event_line(game_id, seq, ts, text, chain))

    def _last_chain(self, game_id: int, seq: int) -> str:
        if seq == 0:
            row = self.db.execute("SELECT setup FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise UserError(f"the journal {self.path} has no game {game_id}")
            return chain_start(game_id, row[0])
        row = self.db.execute("SELECT chain FROM events WHERE game_id = ? AND seq = ?", (game_id, seq - 1)).fetchone()
        if row is None:
            raise UserError(f"the journal {self.path} has no event {seq - 1} of game {game_id} to follow")
        return row[0]

    def finish(self, game_id: int, won: bool = False) -> None:
        """The game ended: won (somebody won) or abandoned (a new game began first). Once only."""
        self._no_writes()
        ended = "won" if won else "abandoned"
        cur = self.db.execute("UPDATE games SET ended = ? WHERE id = ? AND ended IS NULL", (ended, game_id))
        if cur.rowcount:
            self._to_copy(json.dumps({"game": game_id, "ended": ended}))

    # --- reading ------------------------------------------------------------------------
    def events(self, game_id: int) -> list[Event]:
        rows = self.db.execute("SELECT event FROM events WHERE game_id = ? ORDER BY seq", (game_id,)).fetchall()
        return [event_from_json(json.loads(r[0])) for r in rows]

    def timed_events(self, game_id: int) -> list[tuple[int, float, Event]]:
        rows = self.db.execute("SELECT seq, ts, event FROM events WHERE game_id = ? ORDER BY seq", (game_id,)).fetchall()
        return [(int(s), float(t), event_from_json(json.loads(e))) for s, t, e in rows]

    def games(self) -> list[GameRecord]:
        rows = self.db.execute(
            "SELECT g.id, g.created, g.setup, g.ended, (SELECT COUNT(*) FROM events e WHERE e.game_id = g.id) "
            "FROM games g ORDER BY g.id"
        ).fetchall()
        return [GameRecord(int(i), float(c), Setup(**json.loads(s)), e, int(n)) for i, c, s, e, n in rows]

    def game(self, game_id: int) -> GameRecord:
        for g in self.games():
            if g.id == game_id:
                return g
        raise UserError(f"the journal {self.path} has no game {game_id} (it has: {[g.id for g in self.games()]})")

    def latest_open(self) -> GameRecord | None:
        """The most recent game that has not ended: the one to resume after a restart."""
        open_games = [g for g in self.games() if g.ended is None]
        return open_games[-1] if open_games else None


def _game_line(gid: int, created: float, setup: str) -> str:
    return json.dumps({"game": gid, "created": created, "setup": setup})


def _event_line(gid: int, seq: int, ts: float, event: str, chain: str) -> str:
    return json.dumps({"game": gid, "seq": seq, "ts": ts, "event": event, "chain": chain}, ensure_ascii=False)


# --- checking -------------------------------------------------------------------------------
def _create(db: sqlite3.Connection) -> None:
    """The tables and the version mark, inside the caller's transaction (executescript would commit)."""
    for statement in SCHEMA.split(";"):
        if statement.strip():
            db.execute(statement)
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")


def _table_columns(db: sqlite3.Connection) -> dict[str, list[str]]:
    names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {n: [r[1] for r in db.execute(f"PRAGMA table_info({json.dumps(n)})")] for n in names}


def _read_games(db: sqlite3.Connection, columns: dict[str, list[str]]) -> dict[int, _Game]:
    """Every game with its events, as stored (version 1 rows get their chain and ending here)."""
    v1 = columns == OLD_COLUMNS
    games: dict[int, _Game] = {}
    ended_col = "finished" if v1 else "ended"
    for gid, created, setup, ended in db.execute(f"SELECT id, created, setup, {ended_col} FROM games ORDER BY id"):
        games[gid] = _Game(gid, created, setup, ended)
    chain_col = "''" if v1 else "chain"
    for gid, seq, ts, ev, chain in db.execute(
            f"SELECT game_id, seq, ts, event, {chain_col} FROM events ORDER BY game_id, seq"):
        g = games.get(gid)
        if g is None:
            raise JournalDamage(f"event {seq} belongs to game {gid!r}, which the journal does not have")
        g.events.append((seq, ts, ev, chain))
    if v1:
        for g in games.values():
            prev = chain_start(g.id, g.setup)
            events = []
            for seq, ts, ev, _ in g.events:
                prev = chain_next(prev, seq, ev)
                events.append((seq, ts, ev, prev))
            g.events = events
            if g.ended:  # version 1 said "finished" for every ended game: only a winner finishes one
                g.ended = "won" if _replays(g)[1] else "abandoned"
            else:
                g.ended = None
    return games


def _replays(g: _Game) -> tuple[int, bool]:
    """How many events of the game parse and replay, and whether the game has a winner then."""
    try:
        setup = Setup(**json.loads(g.setup))
        state = new_state(setup)
    except (TypeError, ValueError, TableError):
        return -1, False
    for n, (_, _, text, _) in enumerate(g.events):
        try:
            ev = event_from_json(json.loads(text))
            state, _ = apply(state, ev)
        except TableError:
            continue  # failed when it was live too: journaled events apply, but an older engine may differ
        except (ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError):
            return n, False
    return len(g.events), state.winner is not None


def verify_game(g: _Game, replay: bool = True) -> str | None:
    """What is wrong with one game, or None: setup, seq order, hash chain, parse and replay."""
    if g.ended not in ENDINGS:
        return f"game {g.id} has an unknown ending {g.ended!r}"
    try:
        setup_obj = json.loads(g.setup)
        new_state(Setup(**setup_obj))
    except (TypeError, ValueError, TableError, RecursionError) as exc:
        return f"game {g.id} has a bad setup ({str(exc)[:80]})"
    prev = chain_start(g.id, g.setup)
    for n, (seq, _, text, chain) in enumerate(g.events):
        if seq != n:
            return f"game {g.id} jumps from event {n - 1} to {seq} (events {n}..{seq - 1} are missing)"
        try:
            event_from_json(json.loads(text))
        except (ValueError, TypeError, AttributeError, TableError, RecursionError) as exc:
            return f"game {g.id} event {seq} cannot be read back ({str(exc).splitlines()[0][:80]})"
        if chain != chain_next(prev, seq, text):
            return f"game {g.id} event {seq} was changed after it was written (its check does not match)"
        prev = chain
    if not replay:
        return None
    done, _ = _replays(g)
    if done == -1:
        return f"game {g.id} has a bad setup"
    if done < len(g.events):
        return f"game {g.id} event {done} cannot be read back ({g.events[done][2][:60]!r})"
    return None


def _header_problem(path: Path) -> str | None:
    if path.is_dir():
        return "a folder stands where the journal file should be"
    if not path.is_file():
        return "the journal is not a regular file"
    size = path.stat().st_size
    if size == 0:
        return "the journal file is empty (0 bytes)"
    with open(path, "rb") as f:
        head = f.read(100)
    if not head.startswith(SQLITE_MAGIC):
        return f"the journal file is not an SQLite database (it starts with {head[:16]!r})"
    if len(head) < 100:
        return f"the journal file is cut short ({size} bytes)"
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    pages = int.from_bytes(head[28:32], "big")
    if page < 512 or page & (page - 1):
        return f"the journal file's header is damaged (page size {page})"
    if pages and size < page * pages:
        return f"the journal file is cut short ({size} bytes of {page * pages})"
    return None


def check_journal(path: Path) -> dict[int, _Game]:
    """Every game of a journal file, checked; raises JournalDamage naming the first problem.

    The file is opened read-only, so that looking at a damaged journal changes nothing in it.
    A journal that does not exist yet has no games.
    """
    wal = Path(f"{path}-wal")
    if not path.exists() and not path.is_symlink():
        if wal.exists():
            raise JournalDamage("the journal file is missing, but its -wal file is there")
        if Path(f"{path}.events.jsonl").is_file() and read_copy(Path(f"{path}.events.jsonl")):
            raise JournalDamage("the journal file is missing, but its copy is there")
        return {}
    try:
        problem = _header_problem(path)
    except OSError as exc:
        problem = f"the journal file cannot be read ({exc.strerror or exc})"
    if problem:
        raise JournalDamage(problem)
    wal_problem = wal_damage(wal)
    if wal_problem:
        raise JournalDamage(*wal_problem)
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        raise JournalDamage(f"SQLite cannot open it ({exc})") from None
    try:
        check = [r[0] for r in db.execute("PRAGMA integrity_check(5)")]
        if check != ["ok"]:
            raise JournalDamage(f"SQLite's integrity check fails ({check[0][:100]})")
        columns = _table_columns(db)
        if not columns:
            return {}
        if columns not in (COLUMNS, OLD_COLUMNS):
            if set(columns) == set(COLUMNS):
                raise JournalDamage(f"the journal has the wrong schema (columns {columns})")
            raise JournalDamage(f"this SQLite database is not a dogtable journal (tables: {', '.join(sorted(columns))})")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if columns == COLUMNS and version != SCHEMA_VERSION:
            raise JournalDamage(f"the journal says schema version {version}, not {SCHEMA_VERSION}")
        games = _read_games(db, columns)
    except sqlite3.Error as exc:
        raise JournalDamage(f"SQLite cannot read it ({exc})") from None
    finally:
        db.close()
    latest = max(games, default=None)
    for g in games.values():
        # replaying every game of a long journal would slow the start down: the chain covers
        # later changes to any row, a replay shows a row that was wrong when written
        problem = verify_game(g, replay=g.id == latest)
        if problem:
            raise JournalDamage(problem)
    return games


WAL_MAGIC = (0x377F0682, 0x377F0683)


def _wal_checksum(data: bytes, big_endian: bool, s0: int, s1: int) -> tuple[int, int]:
    """SQLite's WAL checksum (https://www.sqlite.org/fileformat.html#checksum_algorithm)."""
    words = struct.unpack(f"{'>' if big_endian else '<'}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1


def wal_damage(wal: Path) -> tuple[str, int] | None:
    """A frame of the -wal whose checksum fails although it belongs to the current WAL (its salts
    match), and how many commits follow it. SQLite stops reading at such a frame without a word,
    so every later commit would be lost silently. Frames of an older WAL after the valid ones,
    and a torn last frame, are normal and not damage."""
    try:
        data = wal.read_bytes()
    except OSError:
        return None
    if len(data) < 32:
        return None
    magic, _, page, _, salt1, salt2, c0, c1 = struct.unpack(">8I", data[:32])
    if magic not in WAL_MAGIC:
        return ("the -wal file is not an SQLite WAL (its header is damaged)", 0) if data.strip(b"\x00") else None
    big = bool(magic & 1)
    s0, s1 = _wal_checksum(data[:24], big, 0, 0)
    if (s0, s1) != (c0, c1) or page < 512 or page & (page - 1):
        return None  # an invalid header: SQLite ignores the whole WAL; the copy tells what is missing
    size = 24 + page
    frames = (len(data) - 32) // size
    for n in range(frames):
        at = 32 + n * size
        pgno, commit, fs1, fs2, f0, f1 = struct.unpack(">6I", data[at:at + 24])
        if (fs1, fs2) != (salt1, salt2):
            return None  # an older WAL's frames: the valid WAL ends here
        s0, s1 = _wal_checksum(data[at:at + 8] + data[at + 24:at + size], big, s0, s1)
        if (s0, s1) != (f0, f1):
            later = sum(1 for m in range(n, frames)
                        if struct.unpack(">6I", data[32 + m * size:32 + m * size + 24])[1:4] != (0, salt1, salt2)
                        and struct.unpack(">6I", data[32 + m * size:32 + m * size + 24])[2:4] == (salt1, salt2))
            if later == 0:
                return None  # a torn last transaction that never committed
            return (f"the -wal file is damaged at frame {n + 1} of {frames}: {later} later commit(s) "
                    f"(events) cannot be read", later)
    return None


# --- the copy -------------------------------------------------------------------------------
def read_copy(path: Path) -> dict[int, _Game]:
    """The games in a journal's JSON-lines copy, each up to its first bad line.

    A last line cut short by kill -9 is normal (the database has that event: it commits first).
    """
    games: dict[int, _Game] = {}
    broken: set[int] = set()
    try:
        f = open(path, encoding="utf-8", errors="replace")
    except OSError:
        return games
    with f:
        for line in f:
            try:
                obj = json.loads(line)
                gid = obj["game"]
                if "setup" in obj:
                    games[gid] = _Game(gid, float(obj["created"]), str(obj["setup"]))
                    continue
                g = games[gid]
                if gid in broken:
                    continue
                if "ended" in obj:
                    g.ended = obj["ended"] if obj["ended"] in ENDINGS else None
                    continue
                seq, text, chain = int(obj["seq"]), str(obj["event"]), str(obj["chain"])
                prev = g.events[-1][3] if g.events else chain_start(gid, g.setup)
                if seq != len(g.events) or chain != chain_next(prev, seq, text):
                    broken.add(gid)
                    continue
                g.events.append((seq, float(obj["ts"]), text, chain))
            except (ValueError, KeyError, TypeError, RecursionError):
                continue
    return games


def _missing_from(db_games: dict[int, _Game], copy: dict[int, _Game]) -> str | None:
    """What the copy holds that the checked journal lacks: events lost from it (e.g. with its -wal).

    A copy that disagrees with the journal where both have events is not the journal's copy
    (an older backup put back, say): the journal wins and the copy is rewritten from it."""
    missing, games_missing, first = 0, 0, None
    for gid, c in sorted(copy.items()):
        g = db_games.get(gid)
        if g is None:
            games_missing += 1
            missing += len(c.events)
            first = first or (gid, 0, len(c.events))
            continue
        have = len(g.events)
        if len(c.events) > have and (have == 0 or c.events[have - 1][3] == g.events[-1][3]):
            missing += len(c.events) - have
            first = first or (gid, have, len(c.events))
    if not missing and not games_missing:
        return None
    gid, have, total = first
    if not db_games:
        return (f"the journal file holds none of the {missing} event(s) its copy has "
                f"(a deleted -wal file, or the file replaced?)")
    return (f"the journal lacks {missing} event(s) its copy has (game {gid} stops at event {have} of {total}; "
            f"a deleted or damaged -wal file?)")


def salvage(aside: Path) -> tuple[dict[int, _Game], int]:
    """The longest good prefix of every game in a damaged journal, read from a scratch copy
    (SQLite may write while reading; what was moved aside stays as it was found), and the
    number of events the damaged file shows at all (good or not)."""
    if not aside.is_file():
        return {}, 0
    try:
        return _salvage(aside)
    except Exception:  # salvage is best effort: whatever it meets, the service must still start
        log.exception("journal %s: nothing could be salvaged from it", aside)
        return {}, 0


def _salvage(aside: Path) -> tuple[dict[int, _Game], int]:
    with tempfile.TemporaryDirectory(prefix="dogtable-salvage-") as tmp:
        scratch = Path(tmp) / "journal.sqlite"
        for suffix in ("", "-wal"):
            src = Path(f"{aside}{suffix}")
            if src.is_file():
                try:
                    shutil.copyfile(src, f"{scratch}{suffix}")
                except OSError:
                    return {}, 0
        games: dict[int, _Game] = {}
        seen = 0
        try:
            db = sqlite3.connect(str(scratch), isolation_level=None)
        except sqlite3.Error:
            return {}, 0
        try:
            try:
                columns = _table_columns(db)
            except sqlite3.Error:
                return {}, 0
            if columns not in (COLUMNS, OLD_COLUMNS):
                return {}, 0
            ended_col = "finished" if columns == OLD_COLUMNS else "ended"
            for gid, created, setup, ended in _rows(db, f"SELECT id, created, setup, {ended_col} FROM games"):
                if isinstance(gid, int):
                    ending = ended if ended in ENDINGS else None
                    if columns == OLD_COLUMNS:
                        ending = "abandoned" if ended else None  # a winner is found again below
                    games[gid] = _Game(gid, float(created or 0), str(setup), ending)
            chain_col = "''" if columns == OLD_COLUMNS else "chain"
            for gid, seq, ts, ev, chain in _rows(db, f"SELECT game_id, seq, ts, event, {chain_col} FROM events "
                                                     f"ORDER BY game_id, seq"):
                seen += 1
                g = games.get(gid)
                if g is None or not isinstance(seq, int) or not isinstance(ev, str):
                    continue
                g.events.append((seq, float(ts or 0), ev, str(chain)))
        finally:
            db.close()
    for g in games.values():
        _trim(g, rechain=columns == OLD_COLUMNS)
    return games, seen


def _rows(db: sqlite3.Connection, sql: str):
    """The rows SQLite can read before it meets the damage."""
    try:
        cur = db.execute(sql)
        while True:
            try:
                row = cur.fetchone()
            except sqlite3.Error:
                return
            if row is None:
                return
            yield row
    except sqlite3.Error:
        return


def _trim(g: _Game, rechain: bool = False) -> None:
    """Keep the longest prefix of events in order, unchanged (chain) and replayable."""
    prev = chain_start(g.id, g.setup)
    good = []
    for n, (seq, ts, text, chain) in enumerate(g.events):
        expect = chain_next(prev, seq, text)
        if seq != n or (not rechain and chain != expect):
            break
        good.append((seq, ts, text, expect))
        prev = expect
    g.events = good
    done, won = _replays(g)
    if done < 0:
        g.events = []
        return
    g.events = g.events[:done]
    if g.ended == "won" and not won:
        g.ended = "abandoned"
    elif rechain and g.ended and won:
        g.ended = "won"


def _merge(salvaged: dict[int, _Game], copy: dict[int, _Game], known: int) -> tuple[dict[int, _Game], int, bool]:
    """Per game, the longer of the salvaged journal and the copy (when they agree where both have
    events). Returns the games, the events lost, and whether that count is unknown."""
    out: dict[int, _Game] = {}
    for gid in sorted(set(salvaged) | set(copy)):
        s, c = salvaged.get(gid), copy.get(gid)
        if c is not None:
            _trim(c)
        candidates = [g for g in (s, c) if g is not None and verify_game(g) is None]
        if not candidates:
            continue
        best = max(candidates, key=lambda g: len(g.events))
        if s is not None and c is not None and best is c and s.events and (
                len(c.events) < len(s.events) or c.events[len(s.events) - 1][3] != s.events[-1][3]):
            best = s  # the copy disagrees with the journal: the journal wins
        if s is not None and c is not None and (s.ended or c.ended):
            best.ended = best.ended or s.ended or c.ended
        out[gid] = best
    restored = sum(len(g.events) for g in out.values())
    copy_total = sum(len(g.events) for g in copy.values())
    if not copy:
        # without a copy only the damaged file itself tells how many events there were: more may be gone
        return out, max(0, known - restored), True
    total = max(copy_total, known)
    return out, max(0, total - restored), False
