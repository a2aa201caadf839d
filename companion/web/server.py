"""The table's web page: a small JSON API, server-sent events, and one static page.

Viewing is open to the local network. Anything that changes the game needs pairing: the
person types the PIN the service shows on the Pi (console, LEDs or the Pi's own browser)
and gets a cookie. Standard library only, so nothing is downloaded, ever.
"""
from __future__ import annotations

import hmac
import json
import logging
import secrets
import threading
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any

import engine
from companion import table as T
from companion.service import Service, dumps, geometry_json
from companion.settings import WebSettings

log = logging.getLogger(__name__)

COOKIE = "dogtable_pair"
MAX_BODY = 64 * 1024
STATIC_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml", ".png": "image/png"}
LOCAL = ("127.0.0.1", "::1", "::ffff:127.0.0.1")


class WebApp:
    """Routing and pairing; the HTTP handler class below only moves bytes."""

    def __init__(self, service: Service, settings: WebSettings) -> None:
        self.service = service
        self.settings = settings
        self.pin = settings.pin or f"{secrets.randbelow(10**6):06d}"
        self.tokens: set[str] = set()
        self.tokens_lock = threading.Lock()
        self.failures = 0
        self.static = resources.files("companion.web") / "static"

    def trusted(self, client: str) -> bool:
        return self.settings.trust_localhost and client in LOCAL

    def paired(self, client: str, cookie_header: str | None) -> bool:
        if self.trusted(client):
            return True
        token = _cookie(cookie_header)
        with self.tokens_lock:
            return token is not None and any(hmac.compare_digest(token, t) for t in self.tokens)

    def pair(self, pin: str) -> str | None:
        with self.tokens_lock:
            if self.failures >= 20:  # a million PINs cannot be tried from a phone; stop guessing early
                return None
            if not hmac.compare_digest(str(pin).strip(), self.pin):
                self.failures += 1
                return None
            token = secrets.token_urlsafe(24)
            self.tokens.add(token)
            return token

    def state(self, client: str, cookie: str | None) -> dict[str, Any]:
        out = self.service.snapshot()
        out["paired"] = self.paired(client, cookie)
        out["pin"] = self.pin if self.trusted(client) else None
        out["variants"] = {name: {"title": v.title, "players": list(v.players)}
                           for name, v in engine.load_variants().items()}
        return out

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
            if not isinstance(seats, list):
                raise T.TableError("seats must be a list of seat numbers")
            svc.set_bots([int(s) for s in seats])
        elif name == "board":
            svc.manual_board(body.get("position"))
        elif name == "lang":
            lang = body.get("lang")
            if lang not in ("en", "de"):
                raise T.TableError("language must be en or de")
            svc.lang = lang
        elif name == "newgame":
            svc.new_game(str(body.get("variant", "")), _int(body, "players"))
        else:
            raise KeyError(name)


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
    jar = SimpleCookie()
    try:
        jar.load(header)
    except Exception:
        return None
    return jar[COOKIE].value if COOKIE in jar else None


def make_handler(app: WebApp) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "dogtable"
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt: str, *args: Any) -> None:
            log.debug("%s %s", self.client_address[0], fmt % args)

        def _send(self, status: int, body: bytes, ctype: str, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Content-Security-Policy",
                             "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'")
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _json(self, status: int, obj: object, headers: dict[str, str] | None = None) -> None:
            self._send(status, dumps(obj), "application/json; charset=utf-8", headers)

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            client = self.client_address[0]
            if path in ("/", "/index.html"):
                return self._static("index.html")
            if path.startswith("/static/"):
                return self._static(path[len("/static/"):])
            if path == "/api/state":
                return self._json(200, app.state(client, self.headers.get("Cookie")))
            if path == "/api/geometry":
                st = app.service.state
                return self._json(200, geometry_json(st.position.board.segments, st.variant))
            if path == "/api/export":
                return self._json(200, app.service.export())
            if path == "/api/events":
                return self._events()
            if path == "/healthz":
                return self._json(200, {"ok": True, "version": app.service.version})
            self._json(404, {"error": f"no page {path}"})

        def do_HEAD(self) -> None:
            self.do_GET()

        def _static(self, name: str) -> None:
            if "/" in name or name.startswith(".") or not any(name.endswith(e) for e in STATIC_TYPES):
                return self._json(404, {"error": "no such file"})
            f = app.static / name
            try:
                data = f.read_bytes()
            except (FileNotFoundError, IsADirectoryError):
                return self._json(404, {"error": "no such file"})
            self._send(200, data, STATIC_TYPES["." + name.rsplit(".", 1)[1]])

        def _events(self) -> None:
            """Server-sent events: the whole state whenever it changes (it is small)."""
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            client, cookie = self.client_address[0], self.headers.get("Cookie")
            version = -1
            try:
                while not app.service.stopping.is_set():
                    now = app.service.wait_for_change(version, 15.0)
                    if now == version:
                        self.wfile.write(b": keep-alive\n\n")
                    else:
                        version = now
                        self.wfile.write(b"data: " + dumps(app.state(client, cookie)) + b"\n\n")
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError, TimeoutError):
                return

        def do_POST(self) -> None:
            path = self.path.split("?", 1)[0]
            client = self.client_address[0]
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                return self._json(413, {"error": "request too large"})
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
                if not isinstance(body, dict):
                    raise ValueError
            except ValueError:
                return self._json(400, {"error": "the request body must be a JSON object"})
            if path == "/api/pair":
                token = app.pair(str(body.get("pin", "")))
                if token is None:
                    return self._json(403, {"error": "wrong PIN: type the PIN shown on the table"})
                cookie = f"{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000"
                return self._json(200, {"paired": True}, {"Set-Cookie": cookie})
            if not path.startswith("/api/"):
                return self._json(404, {"error": f"no page {path}"})
            if not app.paired(client, self.headers.get("Cookie")):
                return self._json(403, {"error": "pair this device first: type the PIN shown on the table"})
            name = path[len("/api/"):]
            try:
                app.action(name, body)
            except KeyError:
                return self._json(404, {"error": f"unknown action {name}"})
            except (T.TableError, engine.EngineError, ValueError, TypeError) as exc:
                return self._json(400, {"error": str(exc)})
            self._json(200, {"ok": True, "version": app.service.version})

    return Handler


class WebServer:
    def __init__(self, service: Service, settings: WebSettings) -> None:
        self.app = WebApp(service, settings)
        try:
            self.httpd = ThreadingHTTPServer((settings.host, settings.port), make_handler(self.app))
        except OSError as exc:
            from companion.errors import UserError

            raise UserError(f"cannot listen on {settings.host}:{settings.port}: {exc.strerror} "
                            "(choose another --port, or stop what uses it)") from None
        self.httpd.daemon_threads = True
        self.thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        shown = "localhost" if host in ("127.0.0.1", "::1") else (host if host not in ("0.0.0.0", "::") else _lan_ip())
        return f"http://{shown}:{port}/"

    def start(self) -> None:
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="web", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _lan_ip() -> str:
    import socket

    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the outgoing interface
        return s.getsockname()[0]
    except OSError:
        return "localhost"
    finally:
        s.close()
