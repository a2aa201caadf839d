"""The table's web server: aiohttp on one asyncio event loop in its own thread.

Every connection, the event streams included, is served by the one loop. Request line and
headers must arrive within [web] head_timeout_s and fit small limits; a body is refused by
its announced length before a byte of it is read (companion.web.app) and the connection
caps hold before aiohttp sees a byte (companion.web.guard).
"""
from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

from aiohttp import web

from companion.errors import UserError
from companion.lights import Lights
from companion.service import Service
from companion.settings import WebSettings
from companion.web.app import WebApp
from companion.web.guard import BACKLOG, Connection, Gate, http_log, listen_socket, raise_file_limit
from companion.web.join import lan_ip
from companion.web.streams import EventStreams

log = logging.getLogger(__name__)


class WebServer:
    """The page's server in its own thread: `start()`, `url`, `stop()`."""

    def __init__(self, service: Service, settings: WebSettings, *, lights: Lights | None = None,
                 simulated: Any = None, club: web.Application | None = None, remote: Any = None) -> None:
        self.app = WebApp(service, settings, lights=lights, simulated=simulated, remote=remote)
        self.club = club  # a linked table's club screen (companion.remote.club), served at /club/
        self.settings = settings
        try:
            self.sock = listen_socket(settings.host, settings.port)
        except OSError as exc:
            raise UserError(f"cannot listen on {settings.host}:{settings.port}: {exc.strerror or exc} "
                            "(choose another --port, or stop what uses it)") from None
        host, port = self.sock.getsockname()[:2]
        shown = "localhost" if host in ("127.0.0.1", "::1") else (
            host if host not in ("0.0.0.0", "::") else lan_ip())
        if ":" in shown:
            shown = f"[{shown}]"
        self.app.url = f"http://{shown}:{port}/"
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread: threading.Thread | None = None
        self.gate: Gate | None = None
        self._stop: asyncio.Event | None = None

    @property
    def url(self) -> str:
        return self.app.url

    def start(self) -> None:
        raise_file_limit(self.settings.max_connections + 256)
        ready = threading.Event()
        failed: list[BaseException] = []
        self.thread = threading.Thread(target=self._run, args=(ready, failed), name="web", daemon=True)
        self.thread.start()
        ready.wait()
        if failed:
            raise failed[0]

    def _run(self, ready: threading.Event, failed: list[BaseException]) -> None:
        loop = asyncio.new_event_loop()
        self.loop = loop
        try:
            loop.run_until_complete(self._serve(ready))
        except BaseException as exc:  # reported to start(), or logged if it happens later
            if not ready.is_set():
                failed.append(exc)
                ready.set()
            else:
                log.exception("the web server stopped")
        finally:
            loop.close()

    async def _serve(self, ready: threading.Event) -> None:
        loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        gate = self.gate = Gate(self.settings.max_connections)
        app = self.app.routes(gate.track)
        if self.club is not None:
            app.router.add_get("/club", lambda request: web.HTTPFound("club/"))
            app.add_subapp("/club/", self.club)
        runner = web.AppRunner(app, handle_signals=False, access_log=None, handler_cancellation=True, logger=http_log(),
                               keepalive_timeout=self.settings.head_timeout_s, max_line_size=4096, max_field_size=4096,
                               max_headers=32, shutdown_timeout=1.0,
                               lingering_time=0)  # a body left unread is never read: the connection closes
        await runner.setup()
        assert runner.server is not None
        gate.make_handler = runner.server
        self.app.streams = EventStreams(self.app, loop)
        server = await loop.create_server(lambda: Connection(gate), sock=self.sock, backlog=BACKLOG)
        ready.set()
        try:
            await self._stop.wait()
        finally:
            self.app.streams.close()
            server.close()
            await runner.cleanup()
            self.app.pool.shutdown(wait=False, cancel_futures=True)

    def stop(self) -> None:
        if self.loop is not None and self._stop is not None and self.thread is not None and self.thread.is_alive():
            self.loop.call_soon_threadsafe(self._stop.set)
            self.thread.join(10)
        else:
            self.sock.close()
