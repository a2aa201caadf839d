"""The door of the web server: which connections and requests get in at all.

Hostile or broken clients are bounded before they cost anything: connections are capped
per address and in all (the connection idle longest makes room for a new one), every
request must name this table in its Host header (a DNS-rebinding page gets nothing), a
change must come from this table's own page, and every answer carries headers that keep
the page from being framed or sniffed.
"""
from __future__ import annotations

import asyncio
import collections
import logging
import socket
import time
from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from companion.web.pairing import COOKIE

PER_ADDRESS = 32  # connections from one address (a phone's browser opens up to 6, plus events)
BACKLOG = 128
LOCAL = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1"})
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
    """Who is asking: from where, paired or not, as whom for the CSRF token, the seat the
    device holds, and whether it is the host (the Pi's own screen, or paired with the host PIN)."""

    address: str
    local: bool  # the Pi's own browser: may see the PINs and the pairing QR code
    paired: bool
    identity: str  # "paired:<token>", "local" or "guest"
    seat: int | None
    host: bool = False


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


class NoBadRequests(logging.Filter):
    """A malformed request is the client's problem, answered with 400: not a traceback in the
    journal (a flood of them would bury what matters)."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, (HttpProcessingError, ConnectionError))


def http_log() -> logging.Logger:
    logger = logging.getLogger("companion.web.http")
    if not any(isinstance(f, NoBadRequests) for f in logger.filters):
        logger.addFilter(NoBadRequests())
    return logger


async def security_headers(request: web.Request, response: web.StreamResponse) -> None:
    for key, value in SECURITY_HEADERS.items():
        response.headers.setdefault(key, value)
    response.headers["Server"] = "dogtable"


def same_origin(request: web.BaseRequest) -> bool:
    """Browsers name the page that sends a request: it must be this table's own page."""
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("Origin")
    if origin is None:  # not a browser's cross-site request (browsers send Origin with every POST)
        return True
    return urlsplit(origin).netloc.lower() == request.headers.get("Host", "").lower()


def pairing_cookie(header: str | None) -> str | None:
    if not header:
        return None
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(header)
    except CookieError:
        return None
    return jar[COOKIE].value if COOKIE in jar else None


def host_name(header: str | None) -> str | None:
    """The name in a Host header, without the port, lower case."""
    if header is None:
        return None
    host = header.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    if host.count(":") == 1:
        host = host.rsplit(":", 1)[0]
    return host.rstrip(".")


def allowed_hosts(extra: tuple[str, ...]) -> frozenset[str]:
    name = socket.gethostname().lower()
    names = {"localhost", "dogtable.local", name, f"{name}.local", name.split(".")[0] + ".local"}
    return frozenset(names | {h.lower().rstrip(".") for h in extra})


def drop_dead_peers(transport: asyncio.BaseTransport | None) -> None:
    """An event stream to a phone that went away unacked fails after 60 s, not after 15 min."""
    sock = transport.get_extra_info("socket") if transport is not None else None
    option = getattr(socket, "TCP_USER_TIMEOUT", None)
    if sock is not None and option is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        try:
            sock.setsockopt(socket.IPPROTO_TCP, option, 60_000)
        except OSError:
            pass


def listen_socket(host: str, port: int) -> socket.socket:
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


def raise_file_limit(wanted: int) -> None:
    """Each connection is a file descriptor: make room for the connection cap."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != resource.RLIM_INFINITY and soft < wanted:
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
    except (ImportError, ValueError, OSError):
        pass
