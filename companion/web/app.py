"""The page's API: who asks, what each viewer may see, and the game's actions.

Viewing is open to the local network. Anything that changes the game needs pairing
(companion.web.pairing) and a CSRF token, and comes from this page's own origin
(companion.web.guard). Pairing alone is not the authority (everyone at the table sees the
PIN): `ROLES` says who may do each action (SEATS.md): a seat's actions come from the device
holding it, table-wide ones from the host. The service's blocking calls (they take its lock,
and the journal syncs to disk) run on a small pool of threads, so a slow call never stalls
the event loop.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import ipaddress
import json
import logging
from collections.abc import Iterator
from importlib import resources
from typing import Any

from aiohttp import web

import engine
from companion import table as T
from companion.lights import Lights
from companion.service import Service
from companion.settings import WebSettings
from companion.texts import player_name
from companion.web.guard import (LOCAL, Who, allowed_hosts, host_name, pairing_cookie, same_origin,
                                 security_headers)
from companion.web.join import join_problem, qr_svg
from companion.web.pairing import COOKIE, MAX_TOKENS, TOKEN_LIFETIME_S, Claim, Pairings
from companion.web.pairing import LOCAL as LOCAL_SCREEN
from companion.web.streams import EventStreams, dumps
from engine.messages import LANGUAGES

log = logging.getLogger(__name__)

MAX_BODY = 64 * 1024
WORKERS = 4  # threads for the service's blocking calls
CSRF_HEADER = "X-Dogtable-CSRF"
STATIC_TYPES = {".html": ("text/html", "utf-8"), ".js": ("text/javascript", "utf-8"),
                ".css": ("text/css", "utf-8"), ".svg": ("image/svg+xml", None), ".png": ("image/png", None),
                ".json": ("application/json", "utf-8")}
STATIC_FOLDERS = ("", "texts")  # texts/: the page's words per language, generated from the catalogue
SIMULATED_ACTIONS = ("move", "settle", "disc", "play", "bot", "bots")

# Who may ask for each action (SEATS.md). SEAT: the device holding the seat the action is for;
# the host for a seat no device holds (played at the table, by a bot, or from the host's
# screen). TURN: the holder of the seat whose turn it is, or the host (the simulated board's
# pieces and disc). HOST: the host only. PLAYER: any paired device (for its own seat).
SEAT, TURN, HOST, PLAYER = "seat", "turn", "host", "player"
ROLES: dict[str, str] = {
    "card": SEAT, "give": SEAT, "sitout": SEAT, "discard": SEAT, "hint": SEAT, "play": SEAT, "undo": SEAT,
    "move": TURN, "settle": TURN, "disc": TURN,
    "newgame": HOST, "mode": HOST, "bots": HOST, "position": HOST, "turn": HOST, "board": HOST,
    "exchange": HOST, "lang": HOST, "bot": HOST, "free": HOST, "handover": HOST,
    "seat": PLAYER,
}
NAMED_SEAT = ("give", "sitout")  # their event is for the body's seat, which must be given
# the same words whatever was asked for: a refusal must not tell what another seat holds
NOT_YOURS = "that is not your seat"
HOST_ONLY = "only the host can do that: the table's own screen, or a phone paired with the host PIN"
BAD_TEXT = "the request has text that is not valid Unicode (a lone surrogate such as \\ud800): send UTF-8 text"
FAULT = "the table could not do that (a fault in the service, written to its log): try again"


class Refused(Exception):
    """An action this asker may not do now: the status, and the one line they are told."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class WebApp:
    """Routing, pairing and the game's actions; WebServer below moves the bytes."""

    def __init__(self, service: Service, settings: WebSettings, *, lights: Lights | None = None,
                 simulated: Any = None, remote: Any = None) -> None:
        """`lights`: the LED rings' subscriber (for the flash of an accepted play); `simulated`:
        the simulated table (`companion.simulated.table.SimulatedTable`), which takes the page's
        actions on the board itself; None at a real table. `remote`: the link of a game linked
        with other tables (companion.remote), for the host's hand-over of a lost table's seats."""
        self.service = service
        self.remote = remote
        self.settings = settings
        self.lights = lights
        self.simulated = simulated
        journal = getattr(service.journal, "path", None)
        self.pairings = Pairings(settings.pin, journal.with_name(journal.stem + ".pairings.json") if journal else None,
                                 host_pin=settings.host_pin)
        self.pin = self.pairings.pin
        self.host_pin = self.pairings.host_pin
        self.hosts = allowed_hosts(settings.hosts)
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
        host = host_name(request.headers.get("Host"))
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
        token = pairing_cookie(request.headers.get("Cookie"))
        pairing = self.pairings.pairing(token)
        if pairing is not None:
            return Who(address, local, True, f"paired:{token}", pairing.seat, pairing.host or local)
        if local:
            return Who(address, True, True, LOCAL_SCREEN, self.pairings.local_seat, True)
        return Who(address, False, False, "guest", None)

    # --- what a viewer sees ---------------------------------------------------------------
    async def snapshot(self, viewer: int | None) -> dict:
        """The service's snapshot for one seat, shared by every request of the same version."""
        cached = self.snapshots.get(viewer)
        if cached is not None and cached["version"] == self.service.version:
            return cached
        snap = await asyncio.get_running_loop().run_in_executor(self.pool, self.view, viewer)
        self.snapshots[viewer] = snap
        return snap

    def view(self, viewer: int | None) -> dict:
        """The service's view for one seat with what the table shows: LEDs, the board as it stands."""
        with self.service.lock:
            out = self.service.snapshot(viewer)
            st = self.service.state
        out["leds"] = self.lights.roles(st) if self.lights is not None else T.leds(st)
        out["timing_ms"] = {"card_to_leds": round((self.lights.card_to_leds if self.lights else 0.0) * 1000, 2),
                            "settle_to_verdict": round(self.service.timing.settle_to_verdict * 1000, 2)}
        if self.simulated is not None:
            table = self.simulated.view()
            out["board"], out["staged"], out["sim"] = table["board"], table["staged"], {"bots": table["bots"]}
        else:
            out["board"], out["staged"], out["sim"] = st.position.field_occupancy(), False, None
        return out

    async def state(self, who: Who) -> dict[str, Any]:
        out = dict(await self.snapshot(who.seat))
        held, bots = self.pairings.held(), set((out.get("sim") or {}).get("bots", ()))
        out["seats"] = [{**s, "holder": holder(s["seat"], who, held, bots)} for s in out["seats"]]
        remote = (out.get("devices") or {}).get("remote")
        if remote:  # a linked game: seats played at other tables, and the invitation for the host only
            for s in out["seats"]:
                elsewhere = remote["seats"].get(str(s["seat"]))
                if elsewhere and elsewhere != remote["table"]:
                    s["holder"], s["table"] = "table", elsewhere
            if not who.host:
                out["devices"] = {**out["devices"], "remote": {**remote, "code": None}}
        out["me"] = {"seat": out["viewer"], "host": who.host, "paired": who.paired}
        out["paired"] = who.paired
        out["pin"] = self.pin if who.local else None
        out["host_pin"] = self.host_pin if who.local else None
        out["pair_url"] = self.pair_url() if who.local else None
        out["join_problem"] = join_problem(self.settings.host) if who.local else None
        out["variants"] = self.variants
        return out

    def pair_url(self) -> str:
        """The link a QR code carries: it opens the page and pairs (the code expires)."""
        code, _ = self.pairings.pairing_code()
        base = self.url
        if self.settings.behind_proxy and self.settings.hosts:  # phones come through the HTTPS proxy
            base = f"https://{self.settings.hosts[0]}/"
        return f"{base}#pair={code}"

    # --- who may do what -------------------------------------------------------------------
    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Who holds which seat and whose turn it is stay as they were checked until the action
        is done. The simulated table's lock first: its bots take it before the service's."""
        with self.simulated.lock if self.simulated is not None else contextlib.nullcontext(), self.service.lock:
            yield

    def seat_elsewhere(self, seat: int) -> str | None:
        """The other table a seat is played at, in a linked game (None: this table's)."""
        remote = (self.service.devices_status or {}).get("remote") or {}
        table = (remote.get("seats") or {}).get(str(seat))
        return table if table and table != remote.get("table") else None

    def bot_seats(self) -> tuple[int, ...]:
        return tuple(self.simulated.bots.seats) if self.simulated is not None else ()

    def authorise(self, who: Who, name: str, body: dict[str, Any], st: T.TableState) -> int | None:
        """Whether `who` may do action `name` now (Refused if not), and the seat it is for
        (None: a table action, or the host's step back). Decided from who holds which seat and
        whose turn it is, before the service is asked anything: never from a hand."""
        role = ROLES[name]
        if role == PLAYER:
            return None
        if role == HOST or (name == "undo" and body.get("table") is True):
            if not who.host:
                raise Refused(403, HOST_ONLY)
            return None
        if role == TURN:
            if not (who.host or (who.seat is not None and who.seat == st.turn)):
                raise Refused(403, NOT_YOURS)
            return None
        if name == "undo" and who.host and who.seat is None and body.get("seat") is None:
            return None  # the host, playing no seat: one step back
        given = body.get("seat")
        if name in NAMED_SEAT:
            seat = whole_number(body, "seat")
        elif given is not None and given != "":
            seat = optional_seat(given)
        elif name == "undo" and who.seat is not None:
            seat = who.seat  # a player's undo is of their own latest action, whoever's turn it is now
        else:  # the flow's own choice: the card in play's seat (a new card: the turn's)
            seat = st.card_seat if name != "card" and st.card is not None and st.card_seat is not None else st.turn
        if not (seat == who.seat or (who.host and seat not in self.pairings.held())):
            raise Refused(403, NOT_YOURS)
        acting = st.card_seat if st.card is not None and st.card_seat is not None else st.turn
        if name in ("discard", "hint", "play") and seat != acting:  # their events act on the card in play
            raise T.TableError(f"it is {colour_name(st, acting)}'s turn, not {colour_name(st, seat)}'s")
        return seat

    def act(self, who: Who, name: str, body: dict[str, Any]) -> None:
        with self.locked():
            seat = self.authorise(who, name, body, self.service.state)
            self.action(name, body, seat)

    # --- changing the game ----------------------------------------------------------------
    def action(self, name: str, body: dict[str, Any], seat: int | None = None) -> None:
        """Do an action `authorise` allowed; `seat`: the seat it is for (undo: None is the host's)."""
        svc, table = self.service, self.simulated
        submit = table.submit if table is not None else svc.submit  # the simulated table follows up its own
        events = {
            "card": lambda: T.CardSeen(str(body.get("card", "")), optional_seat(body.get("seat")), "web"),
            "undo": lambda: T.Undo("web", seat=seat),
            "hint": lambda: T.AskHint("web"),
            "exchange": lambda: T.ExchangeDone("web"),
            "sitout": lambda: T.SitOut(whole_number(body, "seat"), "web"),
            "discard": lambda: T.Discard(bool(body.get("redraw", False)), "web"),
            "turn": lambda: T.SetTurn(whole_number(body, "seat"), "web"),
            "mode": lambda: T.SetMode(str(body.get("mode", "")), "web"),
            "position": lambda: T.SetPosition(json.dumps(body.get("position")), "web"),
        }
        if name in events:
            submit(events[name]())
        elif name == "give":
            seat, card = whole_number(body, "seat"), str(body["card"]) if body.get("card") else None
            if table is not None:
                table.give(seat, card)
            else:
                svc.submit(T.CardGiven(seat, card, "web"))
        elif name == "board":
            svc.submit(T.BoardSettled.of(T.occupancy(engine.parse_position(body.get("position"))), "web"))
        elif name == "lang":
            lang = body.get("lang")
            if lang not in LANGUAGES:
                raise T.TableError(f"language must be one of {', '.join(LANGUAGES)}")
            svc.set_lang(lang)
        elif name == "newgame":
            variant, players = str(body.get("variant", "")), whole_number(body, "players")
            direction = body.get("direction") or None
            if direction not in (None, "clockwise", "counter-clockwise"):
                raise T.TableError("direction must be clockwise or counter-clockwise")
            (table or svc).new_game(variant, players, direction)
        elif name == "handover":  # a linked game: a lost table's seats go to another table, or come here
            link = self.remote
            if link is None or not hasattr(link, "hand_over"):
                raise T.TableError("only the table hosting a linked game hands seats over")
            to = body.get("to")
            link.hand_over(str(body.get("table", "")), str(to) if to else None)
        elif name == "free":
            free = whole_number(body, "seat")
            if free not in svc.state.seats:
                raise T.TableError(f"seat must be one of {list(svc.state.seats)}")
            self.pairings.free({free})
        elif name in SIMULATED_ACTIONS:
            self.simulated_action(name, body)
        else:
            raise T.TableError(f"{name} cannot be done here")

    def simulated_action(self, name: str, body: dict[str, Any]) -> None:
        """What only a simulated table can do: move its pieces, turn its disc, let its bots play."""
        table = self.simulated
        if table is None:
            raise T.TableError("there is no simulated table here (use dogtable sim)")
        if name == "move":
            table.move(str(body.get("from", "")), str(body.get("to", "")))
        elif name == "settle":
            table.settle()
        elif name == "disc":
            table.turn_disc(whole_number(body, "direction"))
        elif name == "play":
            table.stage_play(whole_number(body, "index"))
        elif name == "bot":
            table.play_bot_turn()
        elif name == "bots":
            seats = body.get("seats", [])
            if not isinstance(seats, list) or not all(isinstance(s, int) and not isinstance(s, bool) for s in seats):
                raise T.TableError("seats must be a list of seat numbers")
            table.set_bots(seats)
            self.pairings.free(set(seats))  # a bot plays them now: the devices that held them watch

    def sit(self, who: Who, seat: object) -> None:
        """Claim a seat for the caller's device (its hand is then shown to it), or None to watch.
        A seat another device holds, or a bot plays, is not taken: the host frees or switches it."""
        with self.locked():
            st = self.service.state
            if seat is not None:
                if not isinstance(seat, int) or isinstance(seat, bool) or seat not in st.seats:
                    raise T.TableError(f"seat must be one of {list(st.seats)} or null (watch)")
                if seat in self.bot_seats():
                    raise Refused(409, f"a bot plays {colour_name(st, seat)}: the host can switch it to a person")
                elsewhere = self.seat_elsewhere(seat)
                if elsewhere is not None:
                    raise Refused(409, f"{colour_name(st, seat)} plays at table {elsewhere}: take a seat of this table")
            claim = self.pairings.claim(LOCAL_SCREEN if who.identity == LOCAL_SCREEN else who.identity.split(":", 1)[1],
                                        seat)
        if claim is Claim.TAKEN and isinstance(seat, int):
            raise Refused(409, f"{colour_name(st, seat)}'s seat is taken: ask the host to free it")
        if claim is Claim.UNPAIRED:
            raise Refused(403, "pair this device first: type the PIN shown on the table")

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
        app.on_response_prepare.append(security_headers)
        return app

    @web.middleware
    async def _guard(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if not self.host_ok(request):
            return json_response(421, {"error": "this table answers only to its own address: open it by its IP address "
                                        "or dogtable.local (or add the name to [web] hosts)"}, close=True)
        try:
            return await handler(request)
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            return json_response(exc.status, {"error": exc.reason or "bad request"}, close=exc.status >= 500)
        except (ConnectionError, asyncio.TimeoutError):
            raise  # the client went away: nothing to answer
        except Exception:  # a fault of ours, never the client's: logged once, answered with words
            log.exception("the web page's %s %s failed", request.method, request.path)
            return json_response(503, {"error": FAULT}, close=True)

    async def _page(self, request: web.Request) -> web.Response:
        return self._file("index.html")

    async def _static(self, request: web.Request) -> web.Response:
        return self._file(request.match_info["name"])

    async def _texts(self, request: web.Request) -> web.Response:
        return self._file("texts/" + request.match_info["name"])

    def _file(self, name: str) -> web.Response:
        data = self.static.get(name)  # only the files read at start: no path reaches the disk
        if data is None:
            return json_response(404, {"error": "no such file"})
        ctype, charset = STATIC_TYPES["." + name.rsplit(".", 1)[1]]
        return web.Response(body=data, content_type=ctype, charset=charset)

    async def _state(self, request: web.Request) -> web.Response:
        return json_response(200, await self.state(self.who(request)))

    async def _geometry(self, request: web.Request) -> web.Response:
        def geometry() -> dict:
            with self.service.lock:
                st = self.service.state
                return geometry_json(st.position.board.segments, st.variant)
        return json_response(200, await asyncio.get_running_loop().run_in_executor(self.pool, geometry))

    async def _export(self, request: web.Request) -> web.Response:
        """The game record (companion.record): ?format=txt|json, &download=1 to save it as a file."""
        fmt = request.query.get("format", "json")
        if fmt not in ("json", "txt"):
            return json_response(400, {"error": "format must be txt or json"})
        # the cards dealt and given face down: only the host may ask for them while the game is on
        public = request.query.get("public") == "1" if self.who(request).host else None
        lang = request.query.get("lang", self.service.lang)
        if lang not in LANGUAGES:
            return json_response(400, {"error": f"lang must be one of {', '.join(LANGUAGES)}"})
        out = await asyncio.get_running_loop().run_in_executor(self.pool, self.service.export, fmt, public, lang)
        headers = ({"Content-Disposition": f'attachment; filename="dogtable-game-{self.service.game_id}.{fmt}"'}
                   if request.query.get("download") else None)
        if fmt == "txt":
            return web.Response(text=out, content_type="text/plain", charset="utf-8", headers=headers)
        return json_response(200, out, headers=headers)

    async def _health(self, request: web.Request) -> web.Response:
        return json_response(200, {"ok": True, "version": self.service.version})

    async def _csrf(self, request: web.Request) -> web.Response:
        who = self.who(request)
        return json_response(200, {"csrf": self.pairings.csrf(who.identity), "paired": who.paired})

    async def _pair_qr(self, request: web.Request) -> web.Response:
        """The pairing link as a QR code, for the Pi's own screen only."""
        if not self.who(request).local:
            return json_response(403, {"error": "the pairing code is shown only on the table's own screen"})
        return web.Response(body=qr_svg(self.pair_url()), content_type="image/svg+xml")

    async def _events(self, request: web.Request) -> web.StreamResponse:
        assert self.streams is not None
        return await self.streams.serve(request, self.who(request))

    async def _post(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        # everything below is decided from the headers alone: no byte of the body is read before
        if request.content_type != "application/json":
            return json_response(415, {"error": "send the request as application/json"})
        if not same_origin(request):
            return json_response(403, {"error": "changes are accepted only from this table's own page"})
        length = request.content_length
        if length is None:
            return json_response(411 if request.body_exists else 400,
                         {"error": "send the body with a Content-Length (a JSON object)"}, close=request.body_exists)
        if length > MAX_BODY:
            return json_response(413, {"error": f"request too large (at most {MAX_BODY // 1024} KiB)"}, close=True)
        who = self.who(request)
        if name != "pair" and not who.paired:
            return json_response(403, {"error": "pair this device first: type the PIN shown on the table"}, close=length > 0)
        if not self.pairings.csrf_ok(who.identity, request.headers.get(CSRF_HEADER)):
            return json_response(403, {"error": "the page is out of date: reload it", "csrf": True}, close=length > 0)
        try:
            raw = await asyncio.wait_for(request.read(), self.settings.body_timeout_s)
        except asyncio.TimeoutError:
            return json_response(408, {"error": "the request body came too slowly"}, close=True)
        try:
            body = json.loads(raw or b"{}")
        except (ValueError, RecursionError):
            body = None
        if not isinstance(body, dict):
            return json_response(400, {"error": "the request body must be a JSON object"})
        if undecodable(body):  # it could be neither journaled nor answered
            return json_response(400, {"error": BAD_TEXT})
        if name == "pair":
            return await self._pair(request, who, body)
        if name not in ROLES:
            return json_response(404, {"error": f"unknown action {name}"})
        loop = asyncio.get_running_loop()
        try:
            if name == "seat":  # on the pool: the seat is written to disk
                await loop.run_in_executor(self.pool, self.sit, who, body.get("seat"))
            else:
                await loop.run_in_executor(self.pool, self.act, who, name, body)
                self.snapshots.clear()  # not every change bumps the version (the language does not)
        except Refused as exc:
            return json_response(exc.status, {"error": str(exc)})
        except (T.TableError, engine.EngineError, ValueError, TypeError, OverflowError, RecursionError) as exc:
            return json_response(400, {"error": str(exc)})
        if name in ("seat", "free", "bots") and self.streams is not None:  # each stream sends its viewer's seats
            self.streams.wake()
        return json_response(200, {"ok": True, "version": self.service.version})

    async def _pair(self, request: web.Request, who: Who, body: dict[str, Any]) -> web.Response:
        pin, code = body.get("pin"), body.get("code")
        if not isinstance(pin, (str, type(None))) or not isinstance(code, (str, type(None))) or \
                (pin is None and code is None):
            return json_response(400, {"error": "send the PIN as text of digits, like {\"pin\": \"123456\"}"})
        replacing = who.identity.split(":", 1)[1] if who.identity.startswith("paired:") else None
        outcome = await asyncio.get_running_loop().run_in_executor(  # a new pairing is written to disk
            self.pool, lambda: self.pairings.pair(who.address, pin=pin, code=code, replacing=replacing))
        if outcome.full:
            return json_response(409, {"error": f"this table already remembers {MAX_TOKENS} paired devices from other "
                                                "addresses: a pairing unused for 30 days makes room"})
        if outcome.wait_s:
            wait = int(outcome.wait_s) + 1
            return json_response(429, {"error": f"too many wrong tries from this device: wait {wait} s"},
                         headers={"Retry-After": str(wait)})
        if not outcome.ok:
            return json_response(403, {"error": "wrong PIN: type the PIN shown on the table" if code is None
                               else "this pairing code is old: scan the code on the table again, or type the PIN"})
        https = self.settings.behind_proxy and request.headers.get("X-Forwarded-Proto", "").lower() == "https"
        secure = "; Secure" if https else ""
        cookie = (f"{COOKIE}={outcome.token}; Path=/; HttpOnly; SameSite=Strict; "
                  f"Max-Age={TOKEN_LIFETIME_S}{secure}")
        if self.streams is not None:  # its earlier pairing, and the seat with it, moved to the new one
            self.streams.wake()
        return json_response(200, {"paired": True, "host": outcome.host,
                                   "csrf": self.pairings.csrf(f"paired:{outcome.token}")},
                             headers={"Set-Cookie": cookie})


def json_response(status: int, obj: object, *, close: bool = False, headers: dict[str, str] | None = None) -> web.Response:
    resp = web.Response(status=status, body=dumps(obj), content_type="application/json", charset="utf-8",
                        headers=headers)
    if close:  # the unread body, or a client we are done with: do not read on
        resp.force_close()
    return resp


def whole_number(body: dict[str, Any], key: str) -> int:
    value = body.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise T.TableError(f"'{key}' must be a whole number")
    return value


def optional_seat(value: object) -> int | None:
    if value is None or value == "":
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise T.TableError("'seat' must be a whole number")
    return value


def holder(seat: int, who: Who, held: frozenset[int], bots: set[int]) -> str | None:
    """Who plays a seat, as a viewer may know it: never which device, never its address."""
    if seat == who.seat:
        return "you"
    if seat in held:
        return "phone"
    return "bot" if seat in bots else None


def colour_name(st: T.TableState, seat: int) -> str:
    colours = st.position.board.colours
    return player_name(colours[seat])("en") if 0 <= seat < len(colours) else f"seat {seat}"


def undecodable(value: object) -> bool:
    """Whether any text in a JSON value, keys included, cannot be written as UTF-8 (a lone
    surrogate such as "\\ud800" parses, but no journal or answer can hold it). A loop, not
    recursion: the body's nesting is the client's choice."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(v, dict):
            stack.extend(v)
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False



def geometry_json(segments: int, variant: engine.Variant) -> dict:
    g = engine.load_geometry(segments)
    board = variant.board(segments)
    return {
        "segments": segments, "size": list(g.size), "field_radius": g.field_radius,
        "centres": {k: list(v) for k, v in g.centres.items()},
        "colours": list(board.colours), "start_fields": [f"T{f}" for f in board.start_fields],
        "home_slots": variant.home_slots,
        "disc_fields": [f"T{f}" for f in board.disc_fields], "paw_fields": [f"T{f}" for f in board.paw_fields],
        "special_fields": [f"T{f}" for f in board.special_fields],
        "disc_radius": g.disc_radius, "centre_radius": g.centre_radius,
        "discard": {"centre": list(g.discard_centre), "size": list(g.discard_size)},
    }
