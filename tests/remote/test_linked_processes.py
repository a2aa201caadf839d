"""Two `dogtable sim` processes play a game through a real Mosquitto while things go wrong:
the joined table is killed (-9) and started again, the broker restarts, the host is killed
and started again. At the end both journals hold the same events and the game is over."""
from __future__ import annotations

import json
import os
import re
import urllib.request
import subprocess
import sys
from pathlib import Path

from companion import table as T
from companion.journal import Journal
from tests.remote.linked_rig import credentials_file, wait_for

FAST = "[service]\nbot_delay_s = 0.0\nundo_window_s = 0.0\n"
# a short game the host sets as a correction (as a family agrees on one): each team a piece or two to bring home
START = {"variant": "classic", "board": 4, "last_card": None,
         "pieces": [["H2", "H3", "T10", "T40"], ["H2", "H3", "T30", "K"], ["H2", "H3", "T50", "T20"],
                    ["K", "K", "T5", "T60"]]}


class Table:
    """One `dogtable sim` process, started again with the same arguments after a kill."""

    def __init__(self, folder: Path, name: str, args: list[str]) -> None:
        self.folder, self.name, self.args = folder, name, args
        self.journal = folder / f"{name}.sqlite"
        self.proc: subprocess.Popen | None = None
        self.out = folder / f"{name}.out"
        self.starts = 0

    def start(self) -> None:
        self.starts += 1
        self.log = open(self.out.with_suffix(f".{self.starts}.out"), "w")
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen([sys.executable, "-m", "companion.cli", "sim", "--no-browser", "--port", "0",
                                      "--config", str(self.folder / "fast.toml"), "--journal", str(self.journal),
                                      *self.args], stdout=self.log, stderr=subprocess.STDOUT, env=env)

    def text(self) -> str:
        return self.out.with_suffix(f".{self.starts}.out").read_text()

    def wait_line(self, pattern: str) -> re.Match:
        found: list[re.Match] = []

        def seen() -> bool:
            if self.proc.poll() is not None:
                raise AssertionError(f"{self.name} stopped:\n{self.text()[-2000:]}")
            m = re.search(pattern, self.text())
            if m:
                found.append(m)
            return bool(m)

        wait_for(seen, 60, f"{self.name} to print {pattern!r}")
        return found[0]

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(10)
        self.log.close()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(20)
        self.log.close()


def events(path: Path) -> list:
    j = Journal(path, readonly=True)
    try:
        g = j.latest_open() or j.games()[-1]
        return j.events(g.id)
    finally:
        j.close()


def count(path: Path) -> int:
    try:
        return len(events(path))
    except Exception:  # noqa: BLE001 - the journal is being written by the other process
        return 0


def test_kills_and_a_broker_restart_lose_nothing(broker, tmp_path):
    (tmp_path / "fast.toml").write_text(FAST)
    url = broker.url
    assert url.startswith("mqtts://")  # TLS, passwords and the access list, as a club runs it
    alice = Table(tmp_path, "alice", ["--broker", url, "--credentials", str(credentials_file(broker, "alice", tmp_path)),
                                      "--host-game", "--seats", "0,2",
                                      "--bots", "0,2", "--new", "--seed", "11"])
    alice.start()
    code = alice.wait_line(r"--join (alice-[A-Z0-9]+)").group(1)
    page = alice.wait_line(r"open (http://localhost:[0-9]+/)").group(1)
    base = correct(page, START)  # the table's own screen is the host
    bob = Table(tmp_path, "bob", ["--broker", url, "--credentials", str(credentials_file(broker, "bob", tmp_path)),
                                  "--join", code, "--seats", "1,3",
                                  "--bots", "1,3", "--seed", "12"])
    try:
        bob.start()
        bob.wait_line(r"joined table alice's game")
        wait_for(lambda: count(alice.journal) > base + 20, 120, "the game to be under way")
        bob.kill()  # a power cut at bob's table
        bob.start()
        bob.wait_line(r"joined table alice's game")
        wait_for(lambda: count(alice.journal) > base + 40, 120, "the game to go on after bob came back")
        broker.restart()
        wait_for(lambda: count(alice.journal) > base + 60, 120, "the game to go on after the broker restarted")
        alice.kill()  # a power cut at the host
        alice.args = [a for a in alice.args if a != "--new"]
        alice.start()
        alice.wait_line(r"hosting game alice: other tables join with --join " + code)
        wait_for(lambda: finished(alice.journal), 240, "the game to end")
        wait_for(lambda: count(bob.journal) == count(alice.journal), 60, "bob to hold every event")
    finally:
        bob.stop()
        alice.stop()
    host, joined = events(alice.journal), events(bob.journal)
    assert [T.public_event_json(e) for e in joined] == [T.public_event_json(e) for e in host]
    assert [T.event_to_json(e) for e in joined] == [T.event_to_json(T.event_for(e, frozenset({1, 3}))) for e in host]

    assert len(host) > base + 60
    for path in (alice.journal, bob.journal):  # the host's restart resumed the game: still the one game
        j = Journal(path, readonly=True)
        assert [g.status for g in j.games()] == ["finished"]
        j.close()


def correct(page: str, position: dict) -> int:
    """The host's correction from its own screen (a browser on the Pi needs no PIN); the events before it."""
    def call(path: str, body: dict | None = None, csrf: str | None = None) -> dict:
        req = urllib.request.Request(page.rstrip("/") + path, data=json.dumps(body).encode() if body else None,
                                     method="POST" if body else "GET")
        req.add_header("Content-Type", "application/json")
        if csrf:
            req.add_header("X-Dogtable-CSRF", csrf)
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    call("/api/position", {"position": position}, call("/api/csrf")["csrf"])
    return call("/api/state")["seq"]


def finished(path: Path) -> bool:
    try:
        j = Journal(path, readonly=True)
    except Exception:  # noqa: BLE001 - the journal is being written by the other process
        return False
    try:
        return j.games()[-1].finished
    finally:
        j.close()
