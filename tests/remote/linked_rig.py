"""Simulated tables linked through a real broker, wired as `dogtable sim --broker` wires them."""
from __future__ import annotations

import secrets
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
