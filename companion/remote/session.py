"""A table's part in a linked game, from its settings: host one, join one, or play alone.

`plan` checks everything a person typed ([remote] and the command line) before anything
starts, so a bad URL, a missing credentials file or a code that is no code is one line
at start (exit 2); `connect_host` / `start_joined` then connect (an unreachable broker,
wrong credentials, a full game, a wrong code: one line too, as LinkError).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from companion.remote import credentials as C
from companion.remote import protocol as P
from companion.remote.gate import CarryGate
from companion.remote.host import HostRelay
from companion.remote.joined import JoinedTable
from companion.remote.link import Endpoint, LinkError
from companion.remote.memory import Memory
from companion.service import Service


@dataclass(frozen=True)
class Plan:
    """What this table does with the broker."""

    role: str  # "host" or "joined"
    endpoint: Endpoint
    table: str
    seats: tuple[int, ...]
    code: str | None = None  # the invitation, for a joined table
    memory: Path | None = None


def parse_seats(text: str | None) -> tuple[int, ...]:
    if not text:
        return ()
    try:
        seats = tuple(sorted({int(x) for x in text.split(",") if x.strip()}))
    except ValueError:
        raise LinkError(f"--seats must list seat numbers like 1,3, not {text!r}") from None
    if any(not 0 <= s < 8 for s in seats):
        raise LinkError(f"--seats {text}: seats are numbered from 0")
    return seats


def plan(broker: str, credentials: str, table: str, *, host_game: bool, join: str | None, seats: str | None,
         journal: Path) -> Plan | None:
    """None: this table plays alone. LinkError (one line) for anything that cannot work."""
    if not broker and not host_game and not join:
        return None
    if host_game and join:
        raise LinkError("--host-game and --join exclude each other: a table hosts a game or joins one")
    if not host_game and not join:
        raise LinkError("a broker is set: say --host-game to host a game, or --join CODE to join one")
    if not broker:
        raise LinkError("--host-game and --join need a broker: give --broker mqtts://HOST or [remote] broker")
    address = C.parse_broker_url(broker)
    creds = C.load_credentials(credentials) if credentials else None
    name = table or (creds.username if creds is not None else "")
    if not name:
        raise LinkError("name this table: --table NAME, [remote] table, or a username in the credentials file")
    try:
        name = P.check_name(name)
        code = None
        if join:
            P.code_game(join)
            code = join.strip()
    except P.ProtocolError as exc:
        raise LinkError(str(exc)) from None
    ep = Endpoint(address.host, address.port, address.tls,
                  username=creds.username if creds is not None else None,
                  password=creds.password if creds is not None else None,
                  ca=str(creds.ca) if creds is not None and creds.ca else None)
    return Plan("joined" if join else "host", ep, name, parse_seats(seats), code,
                journal.with_name(journal.name + ".remote.json"))


def connect_host(service: Service, p: Plan) -> HostRelay:
    """The host's link, connected (LinkError if the broker cannot be used), not yet started:
    the service may open its game after it, and `start()` then hosts it."""
    relay = HostRelay(service, p.endpoint, p.table, Memory(p.memory or Path("remote.json")), keep=p.seats)
    relay.connect()
    return relay


def start_joined(service: Service, p: Plan) -> JoinedTable:
    if not p.seats:
        raise LinkError("--join needs --seats: the seats played at this table, like 1,3")
    joined = JoinedTable(service, p.endpoint, p.table, p.code or "", p.seats, Memory(p.memory or Path("remote.json")))
    joined.start()
    return joined


def carry_out_here(service: Service, remote: HostRelay | JoinedTable, lights, simulated=None) -> CarryGate:
    """Plays made at the other tables are carried out on this table's board before its game goes on:
    readings go to the job until the board agrees, the rings light the job, the page says it."""
    forward = service.door or service.commit
    gate: CarryGate | None = None

    def changed() -> None:
        if lights is not None:
            lights.write()
        service.set_devices_status(carry=gate.words(service.lang) if gate is not None else None)
        if simulated is not None and gate is not None and gate.busy():
            threading.Thread(target=simulated.carry_out, name="carry-out", daemon=True).start()

    gate = CarryGate(service, forward, on_change=changed)
    service.door = gate.door
    if lights is not None:
        lights.overlay = gate.leds
    remote.gate = gate
    if simulated is not None:
        simulated.carry_busy = gate.busy
    return gate
