"""A simulated table wired as `dogtable sim` wires it: the service, its LED rings' subscriber
and the simulated table as its client (tests that need no web page use this alone)."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from companion import table as T
from companion.journal import Journal
from companion.lights import Lights
from companion.service import Service
from companion.settings import Settings
from companion.simulated.table import SimulatedTable
from companion.web.server import WebServer


@dataclass
class Rig:
    service: Service
    table: SimulatedTable
    lights: Lights

    def stop(self) -> None:
        self.table.stop()
        self.lights.stop()
        self.service.stop()
        self.service.journal.close()


def simulated(settings: Settings, journal: Path, seed: int = 0,
              setup: T.Setup | None = T.Setup("classic", 4, "highlight"), resume: bool = True) -> Rig:
    service = Service(settings, Journal(journal))
    lights = Lights(service)
    s = settings.service
    table = SimulatedTable(service, bots=s.bots, levels=s.bot_levels, seed=seed, think_s=s.bot_think_s)
    if setup is not None:
        table.open(setup, resume=resume)
    return Rig(service, table, lights)


def close(table: SimulatedTable) -> None:
    """Stop a simulated table made without a rig, with its service and journal."""
    table.stop()
    table.service.stop()
    table.service.journal.close()


@contextmanager
def served(settings: Settings, journal: Path, seed: int = 3) -> Iterator[tuple[Service, WebServer]]:
    """A simulated table with its web page, listening as `settings.web` says."""
    rig = simulated(settings, journal, seed=seed)
    web = WebServer(rig.service, settings.web, lights=rig.lights, simulated=rig.table)
    web.start()
    try:
        yield rig.service, web
    finally:
        web.stop()
        rig.stop()
