"""The table's web page: a small JSON API, server-sent events, and one static page.

aiohttp on one asyncio event loop in one thread serves every connection, the event stream
included; the service's blocking calls (they take its lock, and the journal syncs to
disk) run on a small pool of threads, so a slow call never stalls the loop. Hostile or
broken clients are bounded before they cost anything: request line and headers must
arrive within [web] head_timeout_s and fit small limits, a body is refused by its announced
length before a byte of it is read and must arrive within body_timeout_s, and connections
are capped per address and in all (the oldest idle one makes room for a new one).

Viewing is open to the local network. Anything that changes the game needs pairing
(companion.web.pairing) and a CSRF token, and comes from this page's own origin. Every
request must name this table in its Host header (an IP address, localhost, dogtable.local,
this machine's names or [web] hosts): a DNS-rebinding page gets nothing at all.
"""
from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import ipaddress
import json
import logging
import socket
import threading
import time
from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

import engine
from companion import table as T
from companion.service import Service, dumps, geometry_json
from companion.settings import WebSettings
from companion.web.pairing import COOKIE, TOKEN_LIFETIME_S, Pairings
from engine.messages import LANGUAGES

log = logging.getLogger(__name__)

MAX_BODY = 64 * 1024
WRITE_TIMEOUT_S = 30.0  # an event-stream reader that takes no data for this long is dropped
KEEPALIVE_S = 15.0  # an event-stream comment line, so that proxies and phones keep it open
PER_ADDRESS = 32  # connections from one address (a phone's browser opens up to 6, plus events)
STREAMS_PER_ADDRESS = 4  # event streams from one address: a sleeping phone leaves dead ones behind
BACKLOG = 128
WORKERS = 4  # threads for the service's blocking calls
CSRF_HEADER = "X-Dogtable-CSRF"
LOCAL = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1"})
STATIC_TYPES = {".html": ("text/html", "utf-8"), ".js": ("text/javascript", "utf-8"),
                ".css": ("text/css", "utf-8"), ".svg": ("image/svg+xml", None), ".png": ("image/png", None),
                ".json": ("application/json", "utf-8")}
STATIC_FOLDERS = ("", "texts")  # texts/: the page's words per language, generated from the catalogue
SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; "
                               "script-src 'self'; frame-ancestors 'none'",
}
BUSY = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nConnection: close\r\n"
        b"Content-Length: 41\r\n\r\ntoo many connections: try again shortly\r\n")


@dataclass(frozen=True)
class Who:
    """Who is asking: from where, paired or not, and as whom for the CSRF token."""

    address: str
    local: bool  # the Pi's own browser: may see the PIN and the pairing QR code
    paired: bool
    identity: str  # "paired:<token>", "local" or "guest"
    seat: int | None


class WebApp:
    """Routing, pairing and the game's actions; WebServer below moves the bytes."""

    def __init__(self, service: Service, settings: WebSettings) -> None:
        self.service = service
        self.settings = settings
        journal = getattr(service.journal, "path", None)
        self.pairings = Pairings(settings.pin, journal.with_name(journal.stem + ".pairings.json") if journal else None)
        self.pin = self.pairings.pin
        self.hosts = _allowed_hosts(settings.hosts)
        self.variants = {name: {"title": v.title, "players": list(v.players)}
                         for name, v in engine.load_variants().items()}
        folder = resources.files("companion.web") / "static"
        self.static = {f"{sub}/{f.name}".lstrip("/"): f.read_bytes()
                       for sub in STATIC_FOLDERS for f in (folder / sub).iterdir()
                       if f.is_file() and any(f.name.endswith(e) for e in STATIC_TYPES)}
        self.pool = concurrent.futures.ThreadPoolExecutor(WORKERS, thread_name_prefix="web-call")
        self.snapshots: dict[int | None, dict] = {}
        self.url = ""  # set by WebServer once it listens
        self.streams: EventStreams | None = None  # made on the event loop by WebServer

    # --- who is asking --------------------------------------------------------------------
    def host_ok(self, request: web.BaseRequest) -> bool:
        host = _host_name(request.headers.get("Host"))
        if host is None:  # HTTP/1.0 without Host: nothing to rebind
            return "Host" not in request.headers
        if host in self.hosts:
            return True
        try:
            ipaddress.ip_address(host)
            return True
        except ValueError:
            return False

    def address(self, request: web.BaseRequest) -> str:
        peer = request.remote or ""
        if self.settings.behind_proxy and peer in LOCAL:
            # the proxy on this machine says who its client is; without that header nobody is local
            forwarded = request.headers.get("X-Forwarded-For", "")
            return forwarded.rsplit(",", 1)[-1].strip() or "unknown"
        return peer

    def who(self, request: web.BaseRequest) -> Who:
        address = self.address(request)
        local = (self.settings.trust_localhost and address in LOCAL
                 and request.headers.get("Sec-Fetch-Site", "same-origin") in ("same-origin", "none"))
        token = _cookie(request.headers.get("Cookie"))
        pairing = self.pairings.pairing(token)
        if pairing is not None:
            return Who(address, local, True, f"paired:{token}", pairing.seat)
        if local:
            return Who(address, True, True, "local", self.pairings.local_seat)
        return Who(address, False, False, "guest", None)

    # --- what a viewer sees ---------------------------------------------------------------
    async def snapshot(self, viewer: int | None) -> dict:
        """The service's snapshot for one seat, shared by every request of the same version."""
        cached = self.snapshots.get(viewer)
        if cached is not None and cached["version"] == self.service.version:
            return cached
        snap = await asyncio.get_running_loop().run_in_executor(self.pool, self.service.snapshot, viewer)
        self.snapshots[viewer] = snap
        return snap

    async def state(self, who: Who) -> dict[str, Any]:
        out = dict(await self.snapshot(who.seat))
        out["paired"] = who.paired
        out["pin"] = self.pin if who.local else None
        out["pair_url"] = self.pair_url() if who.local else None
        out["variants"] = self.variants
        return out

    def pair_url(self) -> str:
        """The link a QR code carries: it opens the page and pairs (the code expires)."""
        code, _ = self.pairings.pairing_code()
        base = self.url
        if self.settings.behind_proxy and self.settings.hosts:  # phones come through the HTTPS proxy
            base = f"https://{self.settings.hosts[0]}/"
        return f"{base}#pair={code}"

    # --- changing the game ----------------------------------------------------------------
    def action(self, name: str, body: dict[str, Any]) -> None:
        svc = self.service
        events = {
            "card": lambda: T.CardSeen(str(body.get("card", "")), _opt_int(body.get("seat")), "web"),
            "undo": lambda: T.Undo("web"),
            "hint": lambda: T.AskHint("web"),
            "exchange": lambda: T.ExchangeDone("web"),
            "sitout": lambda: T.SitOut(_int(body, "seat"), "web"),
            "discard": lambda: T.Discard(bool(body.get("redraw", False)), "web"),
            "turn": lambda: T.SetTurn(_int(body, "seat"), "web"),
            "mode": lambda: T.SetMode(str(body.get("mode", "")), "web"),
            "position": lambda: T.SetPosition(json.dumps(body.get("position")), "web"),
            "give": lambda: T.CardGiven(_int(body, "seat"), str(body["card"]) if body.get("card") else None, "web"),
            "play": lambda: svc.sim_stage_play(_int(body, "index")),
        }
        if name in events:
            svc.submit(events[name]())
        elif name == "move":
            svc.sim_move(str(body.get("from", "")), str(body.get("to", "")))
        elif name == "settle":
            svc.sim_settle()
        elif name == "disc":
            svc.sim_disc(_int(body, "direction"))
        elif name == "bot":
            svc.play_bot_turn()
        elif name == "bots":
            seats = body.get("seats", [])
            if not isinstance(seats, list) or not all(isinstance(s, int) and not isinstance(s, bool) for s in seats):
                raise T.TableError("seats must be a list of seat numbers")
            svc.set_bots(seats)
        elif name == "board":
            svc.manual_board(body.get("position"))
        elif name == "lang":
            lang = body.get("lang")
            if lang not in LANGUAGES:
                raise T.TableError(f"language must be one of {', '.join(LANGUAGES)}")
            svc.lang = lang
        elif name == "newgame":
            svc.new_game(str(body.get("variant", "")), _int(body, "players"))
        else:
            raise KeyError(name)

    def sit(self, who: Who, seat: object) -> None:
        """Bind the caller's pairing to a seat (its hand is then shown to it), or None to watch."""
        if seat is not None:
            if not isinstance(seat, int) or isinstance(seat, bool) or seat not in self.service.state.seats:
                raise T.TableError(f"seat must be one of {list(self.service.state.seats)} or null (watch)")
        if who.identity == "local":
            self.pairings.local_seat = seat
        elif not self.pairings.set_seat(who.identity.split(":", 1)[1], seat):
            raise T.TableError("pair this device first")

    # --- the HTTP handlers ----------------------------------------------------------------
    def routes(self, *middlewares: Any) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY, middlewares=[*middlewares, self._guard])
        app.router.add_get("/", self._page)
        app.router.add_get("/index.html", self._page)
        app.router.add_get("/static/{name}", self._static)
        app.router.add_get("/static/texts/{name}", self._texts)
        app.router.add_get("/api/state", self._state)
        app.router.add_get("/api/geometry", self._geometry)
        app.router.add_get("/api/export", self._export)
        app.router.add_get("/api/events", self._events)
        app.router.add_get("/api/csrf", self._csrf)
        app.router.add_get("/api/pair-qr.svg", self._pair_qr)
        app.router.add_get("/healthz", self._health)
        app.router.add_post("/api/{name}", self._post)
        app.on_response_prepare.append(_security_headers)
        return app

    @web.middleware
    async def _guard(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if not self.host_ok(request):
            return _json(421, {"error": "this table answers only to its own address: open it by its IP address "
                                        "or dogtable.local (or add the name to [web] hosts)"}, close=True)
        try:
            return await handler(request)
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            return _json(exc.status, {"error": exc.reason or "bad request"}, close=exc.status >= 500)

    async def _page(self, request: web.Request) -> web.Response:
        return self._file("index.html")

    async def _static(self, request: web.Request) -> web.Response:
        return self._file(request.match_info["name"])

    async def _texts(self, request: web.Request) -> web.Response:
        return self._file("texts/" + request.match_info["name"])

    def _file(self, name: str) -> web.Response:
        data = self.static.get(name)  # only the files read at start: no path reaches the disk
        if data is None:
            return _json(404, {"error": "no such file"})
        ctype, charset = STATIC_TYPES["." + name.rsplit(".", 1)[1]]
        return web.Response(body=data, content_type=ctype, charset=charset)

    async def _state(self, request: web.Request) -> web.Response:
        return _json(200, await self.state(self.who(request)))

    async def _geometry(self, request: web.Request) -> web.Response:
        def geometry() -> dict:
            with self.service.lock:
                st = self.service.state
                return geometry_json(st.position.board.segments, st.variant)
        return _json(200, await asyncio.get_running_loop().run_in_executor(self.pool, geometry))

    async def _export(self, request: web.Request) -> web.Response:
        """The game record (companion.record): ?format=txt|json, &download=1 to save it as a file."""
        fmt = request.query.get("format", "json")
        if fmt not in ("json", "txt"):
            return _json(400, {"error": "format must be txt or json"})
        out = await asyncio.get_running_loop().run_in_executor(self.pool, self.service.export, fmt)
        headers = ({"Content-Disposition": f'attachment; filename="dogtable-game-{self.service.game_id}.{fmt}"'}
                   if request.query.get("download") else None)
        if fmt == "txt":
            return web.Response(text=out, content_type="text/plain", charset="utf-8", headers=headers)
        return _json(200, out, headers=headers)

    async def _health(self, request: web.Request) -> web.Response:
        return _json(200, {"ok": True, "version": self.service.version})

    async def _csrf(self, request: web.Request) -> web.Response:
        who = self.who(request)
        return _json(200, {"csrf": self.pairings.csrf(who.identity), "paired": who.paired})

    async def _pair_qr(self, request: web.Request) -> web.Response:
        """The pairing link as a QR code, for the Pi's own screen only."""
        if not self.who(request).local:
            return _json(403, {"error": "the pairing code is shown only on the table's own screen"})
        return web.Response(body=qr_svg(self.pair_url()), content_type="image/svg+xml")

    async def _events(self, request: web.Request) -> web.StreamResponse:
        assert self.streams is not None
        return await self.streams.serve(request, self.who(request))

    async def _post(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        # everything below is decided from the headers alone: no byte of the body is read before
        if request.content_type != "application/json":
            return _json(415, {"error": "send the request as application/json"})
        if not _same_origin(request):
            return _json(403, {"error": "changes are accepted only from this table's own page"})
        length = request.content_length
        if length is None:
            return _json(411 if request.body_exists else 400,
                         {"error": "send the body with a Content-Length (a JSON object)"}, close=request.body_exists)
        if length > MAX_BODY:
            return _json(413, {"error": f"request too large (at most {MAX_BODY // 1024} KiB)"}, close=True)
        who = self.who(request)
        if name != "pair" and not who.paired:
            return _json(403, {"error": "pair this device first: type the PIN shown on the table"}, close=length > 0)
        if not self.pairings.csrf_ok(who.identity, request.headers.get(CSRF_HEADER)):
            return _json(403, {"error": "the page is out of date: reload it", "csrf": True}, close=length > 0)
        try:
            raw = await asyncio.wait_for(request.read(), self.settings.body_timeout_s)
        except asyncio.TimeoutError:
            return _json(408, {"error": "the request body came too slowly"}, close=True)
        try:
            body = json.loads(raw or b"{}")
        except (ValueError, RecursionError):
            body = None
        if not isinstance(body, dict):
            return _json(400, {"error": "the request body must be a JSON object"})
        if name == "pair":
            return await self._pair(request, who, body)
        loop = asyncio.get_running_loop()
        try:
            if name == "seat":  # on the pool: the seat is written to disk
                await loop.run_in_executor(self.pool, self.sit, who, body.get("seat"))
                if self.streams is not None:  # each stream sends its (new) viewer's state
                    self.streams.wake()
            else:
                await loop.run_in_executor(self.pool, self.action, name, body)
                self.snapshots.clear()  # not every change bumps the version (the language does not)
        except KeyError:
            return _json(404, {"error": f"unknown action {name}"})
        except (T.TableError, engine.EngineError, ValueError, TypeError, OverflowError) as exc:
            return _json(400, {"error": str(exc)})
        return _json(200, {"ok": True, "version": self.service.version})

    async def _pair(self, request: web.Request, who: Who, body: dict[str, Any]) -> web.Response:
        pin, code = body.get("pin"), body.get("code")
        if not isinstance(pin, (str, type(None))) or not isinstance(code, (str, type(None))) or \
                (pin is None and code is None):
            return _json(400, {"error": "send the PIN as text of digits, like {\"pin\": \"123456\"}"})
        outcome = await asyncio.get_running_loop().run_in_executor(  # a new pairing is written to disk
            self.pool, lambda: self.pairings.pair(who.address, pin=pin, code=code))
        if outcome.wait_s:
            wait = int(outcome.wait_s) + 1
            return _json(429, {"error": f"too many wrong tries from this device: wait {wait} s"},
                         headers={"Retry-After": str(wait)})
        if not outcome.ok:
            return _json(403, {"error": "wrong PIN: type the PIN shown on the table" if code is None
                               else "this pairing code is old: scan the code on the table again, or type the PIN"})
        https = self.settings.behind_proxy and request.headers.get("X-Forwarded-Proto", "").lower() == "https"
        secure = "; Secure" if https else ""
        cookie = (f"{COOKIE}={outcome.token}; Path=/; HttpOnly; SameSite=Strict; "
                  f"Max-Age={TOKEN_LIFETIME_S}{secure}")
        return _json(200, {"paired": True, "csrf": self.pairings.csrf(f"paired:{outcome.token}")},
                     headers={"Set-Cookie": cookie})


class EventStreams:
    """Server-sent events from the one event loop: the whole state whenever it changes.

    One thread waits on the service's condition and wakes the loop; each stream then
    writes the state its viewer may see. No thread per connection."""

    def __init__(self, app: WebApp, loop: asyncio.AbstractEventLoop) -> None:
        self.app = app
        self.loop = loop
        self.changed = asyncio.Event()
        self.closing = threading.Event()
        self.by_address: dict[str, collections.deque] = {}
        self.watcher = threading.Thread(target=self._watch, name="web-watch", daemon=True)
        self.watcher.start()

    def _watch(self) -> None:
        version = -1
        while not self.closing.is_set():
            now = self.app.service.wait_for_change(version, 1.0)
            if now != version:
                version = now
                try:
                    self.loop.call_soon_threadsafe(self.wake)
                except RuntimeError:  # the loop closed while stopping
                    return

    def wake(self) -> None:
        changed, self.changed = self.changed, asyncio.Event()
        changed.set()

    async def serve(self, request: web.Request, who: Who) -> web.StreamResponse:
        streams = self.by_address.setdefault(who.address, collections.deque())
        while len(streams) >= STREAMS_PER_ADDRESS:  # the oldest is most likely a phone that went to sleep
            old = streams.popleft()
            if old.transport is not None:
                old.transport.abort()
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "X-Accel-Buffering": "no"})
        resp.force_close()
        await resp.prepare(request)
        _drop_dead_peers(request.transport)
        streams.append(request)
        sent = None
        try:
            while not (self.closing.is_set() or self.app.service.stopping.is_set()):
                changed = self.changed
                who = self.app.who(request)  # a seat taken, or a pairing expired, since the last state
                if (self.app.service.version, who.seat, who.paired) != sent:
                    state = await self.app.state(who)
                    sent = (state["version"], who.seat, who.paired)
                    await asyncio.wait_for(resp.write(b"data: " + dumps(state) + b"\n\n"), WRITE_TIMEOUT_S)
                    continue
                try:
                    await asyncio.wait_for(changed.wait(), KEEPALIVE_S)
                except asyncio.TimeoutError:
                    await asyncio.wait_for(resp.write(b": keep-alive\n\n"), WRITE_TIMEOUT_S)
        except (ConnectionError, asyncio.TimeoutError):
            pass
        finally:
            if request in streams:
                streams.remove(request)
            if not streams:
                self.by_address.pop(who.address, None)
        return resp

    def close(self) -> None:
        self.closing.set()
        self.wake()


class Connection(asyncio.Protocol):
    """One accepted connection: admitted against the caps, then handed to aiohttp's handler.

    Forwards every callback, and keeps what the caps need: the address, and whether a
    request is being served (an idle one may be closed to make room)."""

    def __init__(self, gate: Gate) -> None:
        self.gate = gate
        self.handler: asyncio.Protocol | None = None
        self.transport: asyncio.Transport | None = None
        self.address = ""
        self.busy = 0
        self.since = 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        peer = transport.get_extra_info("peername")
        self.address = str(peer[0]) if peer else ""
        self.since = time.monotonic()
        if not self.gate.admit(self):
            transport.write(BUSY)
            transport.close()
            self.transport = None
            return
        self.handler = self.gate.make_handler()
        self.handler.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self.handler is not None:
            self.handler.data_received(data)

    def eof_received(self) -> bool | None:
        return self.handler.eof_received() if self.handler is not None else None

    def pause_writing(self) -> None:
        if self.handler is not None:
            self.handler.pause_writing()

    def resume_writing(self) -> None:
        if self.handler is not None:
            self.handler.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.handler is not None:
            self.gate.gone(self)
            self.handler.connection_lost(exc)
            self.handler = None


class Gate:
    """The connection caps: PER_ADDRESS from one address, `limit` in all. When a cap is
    reached, the connection that has been idle longest (no request in progress) is closed
    for the new one: a flood of idle or slow connections cannot lock a phone out."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.make_handler: Any = None  # aiohttp's server: makes the handler of a connection
        self.open: dict[asyncio.Transport, Connection] = {}
        self.per_address: collections.Counter[str] = collections.Counter()
        self.refused = 0
        self.evicted = 0

    def admit(self, conn: Connection) -> bool:
        if self.per_address[conn.address] >= PER_ADDRESS and not self._evict(conn.address):
            self.refused += 1
            return False
        if len(self.open) >= self.limit and not self._evict(None):
            self.refused += 1
            return False
        assert conn.transport is not None
        self.open[conn.transport] = conn
        self.per_address[conn.address] += 1
        return True

    def _evict(self, address: str | None) -> bool:
        idle = [c for c in self.open.values() if not c.busy and (address is None or c.address == address)]
        if not idle:
            return False
        victim = min(idle, key=lambda c: c.since)
        self.gone(victim)
        if victim.transport is not None:
            victim.transport.abort()
        self.evicted += 1
        return True

    def gone(self, conn: Connection) -> None:
        if conn.transport is not None and self.open.pop(conn.transport, None) is not None:
            self.per_address[conn.address] -= 1
            if self.per_address[conn.address] <= 0:
                del self.per_address[conn.address]

    @web.middleware
    async def track(self, request: web.Request, handler: Any) -> web.StreamResponse:
        """Marks the connection busy while a request is served (idle ones may be evicted)."""
        conn = self.open.get(request.transport) if request.transport is not None else None
        if conn is not None:
            conn.busy += 1
        try:
            return await handler(request)
        finally:
            if conn is not None:
                conn.busy -= 1
                conn.since = time.monotonic()


class WebServer:
    """The page's server in its own thread: `start()`, `url`, `stop()`."""

    def __init__(self, service: Service, settings: WebSettings) -> None:
        self.app = WebApp(service, settings)
        self.settings = settings
        try:
            self.sock = _listen_socket(settings.host, settings.port)
        except OSError as exc:
            from companion.errors import UserError

            raise UserError(f"cannot listen on {settings.host}:{settings.port}: {exc.strerror or exc} "
                            "(choose another --port, or stop what uses it)") from None
        host, port = self.sock.getsockname()[:2]
        shown = "localhost" if host in ("127.0.0.1", "::1") else (
            host if host not in ("0.0.0.0", "::") else _lan_ip())
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
        _raise_file_limit(self.settings.max_connections + 256)
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
        runner = web.AppRunner(app, handle_signals=False, access_log=None, handler_cancellation=True, logger=_http_log(),
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


class _NoBadRequests(logging.Filter):
    """A malformed request is the client's problem, answered with 400: not a traceback in the
    journal (a flood of them would bury what matters)."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, (HttpProcessingError, ConnectionError))


def _http_log() -> logging.Logger:
    logger = logging.getLogger("companion.web.http")
    if not any(isinstance(f, _NoBadRequests) for f in logger.filters):
        logger.addFilter(_NoBadRequests())
    return logger


async def _security_headers(request: web.Request, response: web.StreamResponse) -> None:
    for key, value in SECURITY_HEADERS.items():
        response.headers.setdefault(key, value)
    response.headers["Server"] = "dogtable"


def _json(status: int, obj: object, *, close: bool = False, headers: dict[str, str] | None = None) -> web.Response:
    resp = web.Response(status=status, body=dumps(obj), content_type="application/json", charset="utf-8",
                        headers=headers)
    if close:  # the unread body, or a client we are done with: do not read on
        resp.force_close()
    return resp


def _same_origin(request: web.BaseRequest) -> bool:
    """Browsers name the page that sends a request: it must be this table's own page."""
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("Origin")
    if origin is None:  # not a browser's cross-site request (browsers send Origin with every POST)
        return True
    return urlsplit(origin).netloc.lower() == request.headers.get("Host", "").lower()


def _int(body: dict[str, Any], key: str) -> int:
    value = body.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise T.TableError(f"'{key}' must be a whole number")
    return value


def _opt_int(value: object) -> int | None:
    if value is None or value == "":
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise T.TableError("'seat' must be a whole number")
    return value


def _cookie(header: str | None) -> str | None:
    if not header:
        return None
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(header)
    except CookieError:
        return None
    return jar[COOKIE].value if COOKIE in jar else None


def _host_name(header: str | None) -> str | None:
    """The name in a Host header, without the port, lower case."""
    if header is None:
        return None
    host = header.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    if host.count(":") == 1:
        host = host.rsplit(":", 1)[0]
    return host.rstrip(".")


def _allowed_hosts(extra: tuple[str, ...]) -> frozenset[str]:
    name = socket.gethostname().lower()
    names = {"localhost", "dogtable.local", name, f"{name}.local", name.split(".")[0] + ".local"}
    return frozenset(names | {h.lower().rstrip(".") for h in extra})


def qr_svg(text: str) -> bytes:
    import io

    import segno

    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="svg", scale=6, border=2, xmldecl=False, svgns=True)
    return out.getvalue()


def qr_text(text: str) -> str:
    """The QR code for a terminal: half-block characters, no colour codes (journald keeps it)."""
    import io

    import segno

    out = io.StringIO()
    segno.make(text, error="m").terminal(out=out, compact=True)
    return out.getvalue()


def _drop_dead_peers(transport: asyncio.BaseTransport | None) -> None:
    """An event stream to a phone that went away unacked fails after 60 s, not after 15 min."""
    sock = transport.get_extra_info("socket") if transport is not None else None
    option = getattr(socket, "TCP_USER_TIMEOUT", None)
    if sock is not None and option is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        try:
            sock.setsockopt(socket.IPPROTO_TCP, option, 60_000)
        except OSError:
            pass


def _listen_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6 and host == "::":
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind((host, port))
    except BaseException:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def _raise_file_limit(wanted: int) -> None:
    """Each connection is a file descriptor: make room for the connection cap."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != resource.RLIM_INFINITY and soft < wanted:
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
    except (ImportError, ValueError, OSError):
        pass


def _lan_ip() -> str:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the outgoing interface
        return s.getsockname()[0]
    except OSError:
        return "localhost"
    finally:
        s.close()
