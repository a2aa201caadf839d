"""The journal under kill -9 and under damage: nothing lost silently, every damage named.

    nice -n 10 python scripts/journal_crash.py              # 100 kills, every damage kind
    python scripts/journal_crash.py --kills 10 --seed 3     # smaller

Kills: a real service process (tests/companion/crash_worker.py: Service + Journal, the
events of a scripted game) is killed with SIGKILL right after a random event is
acknowledged, at 100 random points; the journal is then opened as the service opens it.
Each acknowledged event must be there (or the loss reported), with no damage notice.

Damage: a game is journaled (the -wal file kept as a crash leaves it, or checkpointed by a
clean close), then damaged in one of the ways of DAMAGES. Opening it must name the damage in
one line, move the file aside, and restore the game: every event is back, or the notice
says how many were lost.
"""
from __future__ import annotations

import argparse
import functools
import logging
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKER = ROOT / "tests" / "companion" / "crash_worker.py"
VARIANT, PLAYERS = "classic", 4


def _worker(path: Path, seed: int, stop_at: int | None = None) -> subprocess.Popen:
    cmd = [sys.executable, str(WORKER), str(path), VARIANT, str(PLAYERS), str(seed)]
    if stop_at is not None:
        cmd.append(str(stop_at))
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, cwd=ROOT)


def _events(path: Path) -> list[str]:
    from companion.journal import Journal

    j = Journal(path, readonly=True)
    try:
        g = j.games()[-1]
        return [r[0] for r in j.db.execute("SELECT event FROM events WHERE game_id = ? ORDER BY seq", (g.id,))]
    finally:
        j.close()


# --- kill -9 ----------------------------------------------------------------------------------
def kills(n: int, seed: int, folder: Path, progress: bool = True) -> dict[str, int]:
    """Kill the worker n times at random acknowledged events; check the journal after each kill."""
    from companion.journal import Journal
    from companion.simulated.scripted import scripted_game

    rng = random.Random(seed)
    total = len(list(scripted_game(VARIANT, PLAYERS, seed=seed)))
    out = {"kills": 0, "acked": 0, "lost_silently": 0, "notices": 0, "games": 1}
    path = folder / "kill-1.sqlite"
    while out["kills"] < n:
        stop = rng.randrange(1, total)
        proc = _worker(path, seed)
        acked = 0
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("ack "):
                acked = int(line.split()[1])
                if acked >= stop:
                    # a random moment after this ack: the worker is writing the next events
                    for _ in range(rng.randrange(0, 2000)):
                        pass
                    proc.send_signal(signal.SIGKILL)
                    break
            elif line.startswith("done"):
                break
        proc.wait(timeout=60)
        if proc.returncode == -signal.SIGKILL:
            out["kills"] += 1
        j = Journal(path)  # as the service opens it: checks, and repairs if it must
        have = j.games()[-1].events
        finished = j.games()[-1].finished
        if j.notice:
            out["notices"] += 1
            print(f"  unexpected notice: {j.notice}", file=sys.stderr)
        j.close()
        out["acked"] += acked
        if have < acked:
            out["lost_silently"] += acked - have
        if finished:  # the game is over: the next kills go to a new journal
            out["games"] += 1
            path = folder / f"kill-{out['games']}.sqlite"
        if progress and out["kills"] % 10 == 0:
            print(f"  kill -9: {out['kills']}/{n}", file=sys.stderr)
    return out


# --- damage -----------------------------------------------------------------------------------
@functools.lru_cache(maxsize=4)
def _game_events(seed: int) -> list:
    from companion.simulated.scripted import scripted_game

    return [step.event for step, _ in scripted_game(VARIANT, PLAYERS, seed=seed)]


def _flip(path: Path, offset: int, mask: int = 0x10) -> None:
    with open(path, "r+b") as f:
        f.seek(offset)
        b = f.read(1)
        f.seek(offset)
        f.write(bytes([b[0] ^ mask]))


def _sql(path: Path, *statements: str) -> None:
    db = sqlite3.connect(str(path), isolation_level=None)
    try:
        for s in statements:
            db.execute(s)
    finally:
        db.close()


def _wal_frame(path: Path, frame: int) -> int:
    """Offset of a byte inside the page of WAL frame `frame`."""
    head = Path(f"{path}-wal").read_bytes()[:32]
    page = int.from_bytes(head[8:12], "big")
    return 32 + frame * (24 + page) + 24 + page // 2


def _truncate(path: Path, size: int) -> None:
    os.truncate(path, size)


def _data_page_offset(path: Path) -> int:
    """A byte inside an events table leaf page (where the rows' text is)."""
    db = sqlite3.connect(str(path))
    try:
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        count = db.execute("PRAGMA page_count").fetchone()[0]
    finally:
        db.close()
    return (count - 1) * page_size + page_size - 200


# name -> (wal kept?, damage)
DAMAGES: dict[str, tuple[bool, Callable[[Path], None]]] = {
    "zero bytes": (False, lambda p: _truncate(p, 0)),
    "truncated to half": (False, lambda p: _truncate(p, p.stat().st_size // 2)),
    "truncated in the header": (False, lambda p: _truncate(p, 60)),
    "last page cut": (False, lambda p: _truncate(p, p.stat().st_size - 100)),
    "garbage header": (False, lambda p: p.write_bytes(os.urandom(100) + p.read_bytes()[100:])),
    "not a database": (False, lambda p: p.write_text("these are not the pieces you are looking for\n" * 50)),
    "bit flip in a page": (False, lambda p: _flip(p, _data_page_offset(p))),
    "bad JSON row": (False, lambda p: _sql(p, "UPDATE events SET event = '{not json' WHERE seq = 40")),
    "unknown event kind": (False, lambda p: _sql(p, "UPDATE events SET event = '{\"kind\": \"teleport\"}' WHERE seq = 41")),
    "row changed": (False, lambda p: _sql(p, "UPDATE events SET event = '{\"kind\": \"undo\", \"source\": \"web\"}' WHERE seq = 42")),
    "gap in seq": (False, lambda p: _sql(p, "DELETE FROM events WHERE seq = 50")),
    "bad setup": (False, lambda p: _sql(p, "UPDATE games SET setup = '{\"variant\": \"chess\", \"players\": 4}'")),
    "wrong schema": (False, lambda p: _sql(p, "ALTER TABLE events DROP COLUMN chain")),
    "foreign SQLite database": (False, lambda p: (p.unlink(), _sql(p, "CREATE TABLE photos (id INTEGER, jpeg BLOB)",
                                                                   "INSERT INTO photos VALUES (1, x'ffd8')"))),
    "a folder in its place": (False, lambda p: (p.unlink(), p.mkdir())),
    "deleted -wal": (True, lambda p: (Path(f"{p}-wal").unlink(), Path(f"{p}-shm").unlink(missing_ok=True))),
    "damaged -wal frame": (True, lambda p: _flip(p.with_name(p.name + "-wal"), _wal_frame(p, 60))),
    "truncated -wal": (True, lambda p: _truncate(Path(f"{p}-wal"), Path(f"{p}-wal").stat().st_size // 2)),
    "database deleted, -wal left": (True, lambda p: p.unlink()),
    "damaged -wal frame, no copy": (True, lambda p: (_flip(p.with_name(p.name + "-wal"), _wal_frame(p, 60)),
                                                    Path(f"{p}.events.jsonl").unlink())),
    "bad row and no copy": (False, lambda p: (_sql(p, "UPDATE events SET event = '[1' WHERE seq = 30"),
                                              Path(f"{p}.events.jsonl").unlink())),
    "read-only file": (False, lambda p: p.chmod(0o444)),
}


def damage_one(name: str, folder: Path, seed: int, events: int = 120) -> dict:
    """Journal `events` events, damage the journal, open it: what was said and what came back."""
    from companion.errors import UserError
    from companion.journal import Journal
    from companion import table as T
    from companion.service import Service
    from companion.settings import Settings

    keep_wal, damage = DAMAGES[name]
    path = folder / (name.replace(" ", "-").replace("/", "") + ".sqlite")
    if keep_wal:  # a process that ends without closing, as after kill -9: the events are in the -wal
        proc = _worker(path, seed, stop_at=events)
        proc.communicate(timeout=120)
    else:  # a clean close: everything checkpointed into the file, no -wal
        svc = Service(Settings(), Journal(path))
        svc.open(T.Setup(VARIANT, PLAYERS, "highlight"))
        for ev in _game_events(seed)[:events]:
            svc.submit(ev)
        svc.journal.close()
    written = _events(path)
    damage(path)
    result = {"damage": name, "written": len(written), "notice": None, "error": None, "restored": 0,
              "lost_silently": 0, "resumed_at": None, "aside": []}
    try:
        j = Journal(path)
    except UserError as exc:
        result["error"] = str(exc)
        return result
    result["notice"] = j.notice
    result["repaired"] = j.repaired
    result["aside"] = sorted(p.name for p in folder.iterdir() if ".damaged-" in p.name and p.name.startswith(path.name))
    games = j.games()
    restored = [r[0] for r in j.db.execute("SELECT event FROM events WHERE game_id = ? ORDER BY seq",
                                           (games[-1].id,))] if games else []
    result["restored"] = len(restored)
    if restored != written[:len(restored)]:
        result["lost_silently"] = len(written)  # something other than the written events came back
    lost = len(written) - len(restored)
    if lost > 0 and not (j.notice and (f"; {lost} event(s) lost" in j.notice or "more may be lost" in j.notice)):
        result["lost_silently"] = lost
    # and the service resumes that game where the journal stands
    svc = Service(Settings(), j)
    svc.open(T.Setup(VARIANT, PLAYERS, "highlight"))
    result["resumed_at"] = svc.state.seq
    j.close()
    return result


def damages(folder: Path, seed: int, progress: bool = True) -> list[dict]:
    results = []
    for i, name in enumerate(DAMAGES, 1):
        sub = folder / f"d{i}"
        sub.mkdir()
        results.append(damage_one(name, sub, seed))
        if progress:
            print(f"  damage {i}/{len(DAMAGES)}: {name}", file=sys.stderr)
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    logging.basicConfig(level=logging.ERROR)  # the notices are printed below, once each
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory(prefix="journal-crash-") as tmp:
        started = time.perf_counter()
        k = kills(args.kills, args.seed, Path(tmp))
        print(f"kill -9 at {k['kills']} random points over {k['games']} game(s): {k['acked']} acknowledged events "
              f"re-checked, {k['lost_silently']} lost silently, {k['notices']} damage notices "
              f"({time.perf_counter() - started:.0f} s)")
        folder = Path(tmp) / "damage"
        folder.mkdir()
        bad = 0
        for r in damages(folder, args.seed):
            said = r["notice"] or r["error"] or "(nothing said)"
            one_line = "\n" not in said
            ok = r["lost_silently"] == 0 and one_line and (r["notice"] or r["error"] or r["damage"] == "read-only file")
            bad += not ok
            print(f"{'ok ' if ok else 'BAD'} {r['damage']:28s} written {r['written']:3d}, restored {r['restored']:3d}, "
                  f"resumed at {r['resumed_at']}, lost silently {r['lost_silently']}: {said}")
        print(f"{len(DAMAGES)} kinds of damage: {len(DAMAGES) - bad} named in one line with nothing lost silently")
    return 0 if bad == 0 and k["lost_silently"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
