"""Simulated tables linked through a real broker, wired as `dogtable sim --broker` wires them."""
from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

from companion import table as T
from companion.journal import Journal
from companion.lights import Lights
from companion.remote.host import HostRelay
from companion.remote.joined import JoinedTable
from companion.remote.broker import LocalBroker
from companion.remote.credentials import write_credentials
from companion.remote.link import Endpoint
from companion.remote.memory import Memory
from companion.remote.session import carry_out_here
from companion.service import Service
from companion.settings import Settings
from companion.simulated.table import SimulatedTable


def quick_settings() -> Settings:
    s = Settings()
    return replace(s, service=replace(s.service, bot_delay_s=0.0, bot_think_s=0.0, undo_window_s=0.0))


@dataclass
class Linked:
    """One table: its service, simulated table and link (host or joined)."""

    name: str
    service: Service
    table: SimulatedTable
    lights: Lights
    link: HostRelay | JoinedTable

    def stop(self) -> None:
        self.table.stop()
        self.link.stop()
        self.lights.stop()
        self.service.stop()
        self.service.journal.close()


def host_table(ep: LocalBroker, folder: Path, name: str, setup: T.Setup, *, bots: tuple[int, ...],
               keep: tuple[int, ...] = (), seed: int = 0, resume: bool = False,
               settings: Settings | None = None) -> Linked:
    settings = settings or quick_settings()
    service = Service(settings, Journal(folder / f"{name}.sqlite"))
    lights = Lights(service)
    table = SimulatedTable(service, bots=bots, seed=seed, think_s=0.0, undo_window_s=0.0, linked="host")
    table.open(setup, resume=resume)
    relay = HostRelay(service, ep_for(ep, name), name, Memory(folder / f"{name}.remote.json"), keep=keep)
    relay.start()
    carry_out_here(service, relay, lights, table)
    return Linked(name, service, table, lights, relay)


def joined_table(ep: LocalBroker, folder: Path, name: str, code: str, seats: tuple[int, ...], *,
                 bots: tuple[int, ...] = (), seed: int = 1, settings: Settings | None = None) -> Linked:
    settings = settings or quick_settings()
    service = Service(settings, Journal(folder / f"{name}.sqlite"))
    lights = Lights(service)
    table = SimulatedTable(service, bots=bots, seed=seed, think_s=0.0, undo_window_s=0.0, linked="joined")
    joined = JoinedTable(service, ep_for(ep, name), name, code, seats, Memory(folder / f"{name}.remote.json"))
    try:
        joined.start()
    except BaseException:
        table.stop()
        lights.stop()
        service.stop()
        service.journal.close()
        raise
    carry_out_here(service, joined, lights, table)
    return Linked(name, service, table, lights, joined)


def club_broker(folder: Path, names: tuple[str, ...] = ("alice", "bob", "carol", "club"),
                tls: bool = True) -> LocalBroker:
    """A started local Mosquitto as a club runs it (TLS, passwords, the shipped access list)."""
    broker = LocalBroker(folder, tls=tls)
    for name in names:
        broker.add_user(name, secrets.token_urlsafe(12))
    broker.start()
    return broker


def ep_for(broker: LocalBroker, name: str) -> Endpoint:
    """The broker's address with this table's credentials (tables log in as their own name)."""
    creds = broker.credentials(name)
    return Endpoint(broker.host, broker.port, broker.tls, creds.username, creds.password,
                    str(creds.ca) if creds.ca else None)


def credentials_file(broker: LocalBroker, name: str, folder: Path) -> Path:
    """The [remote] credentials file a table started from the command line reads."""
    return write_credentials(broker.credentials(name), folder / f"{name}-credentials.toml")


def wait_for(cond, timeout: float = 60.0, what: str = "a condition") -> None:
    """Until `cond()` holds; a test fails (does not hang) when it never does."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def journal_view(service: Service, seats: frozenset[int] | None = None) -> list[dict]:
    """Every event of the open game as a table holding `seats` may see it (None: the public)."""
    with service.lock:
        events = service.journal.events(service.game_id)
    if seats is None:
        return [T.public_event_json(e) for e in events]
    return [T.event_to_json(T.event_for(e, seats)) for e in events]


# --- `dogtable sim` processes linked through a broker (the process test, scripts/remote_faults.py) ---
FAST = "[service]\nbot_delay_s = 0.0\nundo_window_s = 0.0\n"


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


def finished(path: Path) -> bool:
    try:
        j = Journal(path, readonly=True)
    except Exception:  # noqa: BLE001 - the journal is being written by the other process
        return False
    try:
        return j.games()[-1].finished
    finally:
        j.close()
