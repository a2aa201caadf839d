"""`dogtable sim --remote`: linked tables on one computer, to try them before a club sets up its broker.

A local Mosquitto (TLS, passwords and the shipped access list, as a club runs it) and two
simulated tables in this process: "alice" hosts with seats 0 and 2, "bob" joins with 1 and 3.
Each has its own page; bots play the seats `--bots` names.
"""
from __future__ import annotations

import argparse
import copy
import secrets
import sys
import threading

from companion import settings as S
from companion.commands.service import (
    check_setup,
    log_to_stdout,
    stop_on_signals,
    cmd_sim,
    settings_from_args,
    start_service,
)
from companion.errors import UserError
from companion.notify import Notifier


def register(sub: argparse._SubParsersAction) -> None:
    sim = sub.choices["sim"]
    sim.add_argument("--remote", action="store_true",
                     help="try linked tables on this computer: a local Mosquitto and two simulated tables, "
                          "seats 0,2 at one and 1,3 at the other, each with its own page")
    sim.set_defaults(func=cmd_sim_or_remote)


def cmd_sim_or_remote(args: argparse.Namespace) -> int:
    return cmd_sim_remote(args) if args.remote else cmd_sim(args)


def cmd_sim_remote(args: argparse.Namespace) -> int:
    from companion.remote.broker import BrokerError, LocalBroker
    from companion.remote.credentials import write_credentials

    if args.broker or args.join or args.host_game:
        raise UserError("--remote starts its own broker and both tables: leave out --broker, --join and --host-game")
    folder = (S.Path(args.journal).parent if args.journal else S.default_state_dir()) / "remote-sim"
    log_to_stdout()
    done = stop_on_signals()
    broker = LocalBroker(folder / "broker")
    try:
        for name in ("alice", "bob"):
            broker.add_user(name, _password())
        broker.start()
    except BrokerError as exc:
        raise UserError(str(exc).splitlines()[0]) from None
    tables = []
    try:
        for name, role in (("alice", "host"), ("bob", "joined")):
            a = copy.copy(args)
            a.journal = str(folder / f"{name}.sqlite")
            a.broker, a.table = broker.url, name
            a.credentials = str(write_credentials(broker.credentials(name), folder / f"{name}-credentials.toml"))
            a.host_game, a.join = role == "host", (tables[0].remote.code if role == "joined" else None)
            a.seats = "0,2" if role == "host" else "1,3"
            a.bots = _bots_for(args.bots, a.seats)
            a.port = args.port if role == "host" else 0
            settings = settings_from_args(a, sim=True)
            check_setup(settings)
            tables.append(start_service(a, settings, sim=True))
        alice, bob = tables
        print(f"dogtable sim --remote: broker {broker.url} (a local Mosquitto)")
        print(f"alice hosts seats 0,2: open {alice.web.url}  (pairing PIN {alice.web.app.pin}, host PIN {alice.web.app.host_pin})")
        print(f"bob joined with seats 1,3: open {bob.web.url}  (pairing PIN {bob.web.app.pin})")
        print(f"invitation code: {alice.remote.code}; club screen: {alice.web.url}club/")
        sys.stdout.flush()
        if not args.no_browser:
            # one thread for both pages: webbrowser.open from two threads at once opens only one
            # (Python 3.11's first call registers the browsers while the second finds none yet)
            threading.Thread(target=_open_pages, args=([t.web.url for t in tables],), daemon=True).start()
        notifier = Notifier()
        notifier.ready(f"sim --remote on {alice.web.url} and {bob.web.url}")
        try:
            done.wait()
        finally:
            notifier.stopping()
        return 0
    finally:
        for t in tables:
            t.stop()
        broker.stop()


def _open_pages(urls: list[str]) -> None:
    import webbrowser

    for url in urls:
        webbrowser.open(url)


def _bots_for(bots: str | None, seats: str) -> str | None:
    if not bots:
        return None
    mine = set(seats.split(","))
    return ",".join(b for b in bots.split(",") if b.strip() in mine) or None


def _password() -> str:
    return secrets.token_urlsafe(12)
