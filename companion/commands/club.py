"""`dogtable club --broker URL`: the club screen alone, every table's game on one page.

The page is public game state only (what any watcher at a table sees), so it listens on
every interface by default: the club's big screen and the phones in the room reach it.
"""
from __future__ import annotations

import argparse
import asyncio
import signal
from pathlib import Path

from aiohttp import web

from companion.commands.options import web_port
from companion.errors import UserError
from companion.remote.club import CONNECT_TIMEOUT_S, Broker, ClubView, club_routes

DEFAULT_PORT = 8378  # the table's own page is on 8377: both may run on one Pi


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("club", help="the club screen: every table's game live from the MQTT broker")
    p.add_argument("--broker", required=True, metavar="URL", help="mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
    p.add_argument("--credentials", type=Path, metavar="FILE",
                   help="TOML file with username, password and optionally ca (the broker's CA certificate)")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default: every interface)")
    p.add_argument("--port", type=web_port, default=DEFAULT_PORT, help=f"web port (default {DEFAULT_PORT}; 0 picks a free port)")
    p.set_defaults(func=_club)


def _club(args: argparse.Namespace) -> int:
    broker = Broker.from_url(args.broker, args.credentials)
    view = ClubView(broker)
    view.start()
    try:
        # the first attempt ends within the client's own timeout; a little more for the thread to report it
        if not view.wait_connected(CONNECT_TIMEOUT_S + 5):
            raise UserError(view.snapshot().error or
                            f"cannot reach the broker at {broker.where}: no answer in {CONNECT_TIMEOUT_S:.0f} s")
        asyncio.run(_serve(view, args.host, args.port))
    finally:
        view.stop()
    return 0


async def _serve(view: ClubView, host: str, port: int) -> None:
    runner = web.AppRunner(club_routes(view), handle_signals=False, access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        try:
            await site.start()
        except OSError as exc:
            raise UserError(f"cannot listen on {host}:{port}: {exc.strerror or exc} "
                            "(choose another --port, or stop what uses it)") from None
        bound = runner.addresses[0]
        shown = "localhost" if bound[0] in ("127.0.0.1", "::1") else bound[0]
        print(f"dogtable club: http://{shown}:{bound[1]}/  (broker {view.broker.where})", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, stop.set)  # systemd's stop: a clean exit, not a kill
        await stop.wait()
    finally:
        await runner.cleanup()
