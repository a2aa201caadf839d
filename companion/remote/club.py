"""The club screen: every table's game, live from the broker, on one page.

`ClubView` subscribes to every game's public state and every table's presence and keeps the
newest valid one of each; `club_routes(view)` is the page (an aiohttp application, served on
its own by `dogtable club` or mounted as `/club/` on a table's own web server).

The view runs its MQTT client on its own asyncio loop in its own thread, not on the page's
loop: the table's web server owns its loop and its lifetime, a broker that takes seconds to
answer a TLS handshake or to time out must never delay a page request, and one view can serve
any number of page servers (or none: the tests read it directly). The page's loop is woken
through `ClubView.listen`, the way the table's event streams are woken by the service.

Everything on the wire is somebody else's bytes: every payload is size-capped before it is
decoded and checked field by field (the position through the engine's own parser); what the
page gets is rebuilt from the checked values only, so a hostile payload can neither crash the
view nor put a field the page did not expect in front of it. Nothing here publishes.

Longer than one idea's usual size because the checks and the page's JSON are one contract:
the page reads exactly the fields `parse_state` checked.
"""
from __future__ import annotations

import asyncio
import functools
import json
import logging
import math
import re
import ssl
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiomqtt
from aiohttp import web

import engine
from companion.remote.credentials import load_credentials, parse_broker_url
from companion.remote.link import Endpoint
from companion.table import PHASES

log = logging.getLogger(__name__)

ROOT = "dogtable/v1"
STATES = f"{ROOT}/games/+/public/state"
PRESENCE = f"{ROOT}/tables/+/presence"
MAX_PAYLOAD = 64 * 1024  # the design's cap on every payload: a state with its log tail is ~10 KiB
NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,31}\Z")
PRESENCE_STATES = ("online", "paused", "offline")  # what a table says of itself (its will: paused)
HOST_PRESENCE = ("online", "paused", "lost", "offline")  # what a host says of a table in its game
MAX_TABLES = 16  # tables in one game: six seats, each its own table, leaves room to spare
MAX_WORDS = 600  # characters of one verdict reason in one language: a sentence or two
RECONNECT_S = (1.0, 30.0)  # first and longest wait between attempts: quick after a blip, gentle on a dead broker
CONNECT_TIMEOUT_S = 10.0
POLL_WAIT_S = 25.0  # a long poll's answer at the latest: under the 30 s proxies and phones allow an idle request
POLL_WAITERS = 256  # long polls held open at once; more are answered at once (the page then waits a little)
COMPLAINTS = (10, 60.0)  # malformed payloads logged one line each, at most this many per this many seconds
STATIC = Path(__file__).resolve().parents[1] / "web" / "static"  # the page's files live with the table page's


class Malformed(ValueError):
    """A payload that is not what the design says: the message says what is wrong."""


@dataclass(frozen=True)
class Broker(Endpoint):
    """A table's broker address, as the club screen reads it (`Broker.from_url` reads `mqtt[s]://host[:port]`)."""

    @property
    def where(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    @classmethod
    def from_url(cls, url: str, credentials: str | Path | None = None) -> Broker:
        """`mqtt://host[:port]` (plain, 1883) or `mqtts://host[:port]` (TLS, 8883), with the
        credentials file's `username`, `password` and optional `ca`; UserError says what is wrong."""
        address = parse_broker_url(url)
        creds = load_credentials(credentials) if credentials is not None else None
        if creds is None:
            return cls(address.host, address.port, address.tls, None, None, None)
        return cls(address.host, address.port, address.tls, creds.username, creds.password,
                   str(creds.ca) if creds.ca else None)


@dataclass(frozen=True)
class Presence:
    """What a table last said of itself on its presence topic."""

    table: str
    state: str  # one of PRESENCE_STATES
    game: str | None
    sent: float
    order: int = 0  # arrival order in this view: presence has no sequence number


@dataclass(frozen=True)
class GameView:
    """A game's newest valid public state: the checked payload and the page's summary of it."""

    game: str
    epoch: int
    seq: int
    state: Mapping[str, Any]  # the host's state_to_json(state, viewer=None), as received and checked
    tables: Mapping[str, tuple[tuple[int, ...], str]]  # table -> (its seats, the host's word on its presence)
    sent: float
    summary: Mapping[str, Any]  # what the page draws, rebuilt from checked values only
    order: int = 0


@dataclass(frozen=True)
class ClubSnapshot:
    version: int
    games: Mapping[str, GameView]
    presence: Mapping[str, Presence]
    broker: str
    connected: bool
    error: str | None  # "cannot reach the broker at HOST:PORT: ..." while it cannot


def _int(v: Any, what: str, lo: int = 0, hi: int = 2**53) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise Malformed(f"{what} must be a whole number from {lo} to {hi}")
    return v


def _text(v: Any, what: str, most: int) -> str:
    if not isinstance(v, str) or len(v) > most:
        raise Malformed(f"{what} must be text of at most {most} characters")
    return v


def _name(v: Any, what: str) -> str:
    if not isinstance(v, str) or not NAME.match(v):
        raise Malformed(f"{what} must be a table name ([a-z0-9][a-z0-9-]{{0,31}})")
    return v


def _sent(v: Any) -> float:
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) or v < 0:
        raise Malformed("sent must be a time (seconds since 1970)")
    return float(v)


def _decode(payload: bytes, kind: str) -> dict[str, Any]:
    if len(payload) > MAX_PAYLOAD:
        raise Malformed(f"{len(payload)} bytes, more than the {MAX_PAYLOAD} allowed")
    try:
        obj = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # RecursionError: "[[[[..." nested past the stack
        raise Malformed(f"not JSON: {str(exc)[:80]}") from None
    if not isinstance(obj, dict) or obj.get("v") != 1 or isinstance(obj.get("v"), bool) or obj.get("type") != kind:
        raise Malformed(f"not a version 1 {kind!r} message")
    return obj


def topic_name(topic: str, kind: str) -> str:
    """The game (kind 'state') or table (kind 'presence') a topic names; Malformed if none."""
    parts = topic.split("/")
    if kind == "state" and len(parts) == 6 and parts[:3] == ["dogtable", "v1", "games"] and parts[4:] == ["public", "state"]:
        return _name(parts[3], "the topic's game")
    if kind == "presence" and len(parts) == 5 and parts[:3] == ["dogtable", "v1", "tables"] and parts[4] == "presence":
        return _name(parts[3], "the topic's table")
    raise Malformed(f"topic {topic[:120]!r} is not a {kind} topic")


def parse_presence(topic: str, payload: bytes) -> Presence:
    table = topic_name(topic, "presence")
    obj = _decode(payload, "presence")
    if obj.get("table") != table:
        raise Malformed(f"a presence for {str(obj.get('table'))[:40]!r} on table {table}'s topic")
    if obj.get("state") not in PRESENCE_STATES:
        raise Malformed(f"presence state must be one of {', '.join(PRESENCE_STATES)}")
    game = obj.get("game")
    return Presence(table, obj["state"], None if game is None else _name(game, "presence game"), _sent(obj.get("sent")))


def _verdict(v: Any) -> dict[str, Any] | None:
    if v is None:
        return None
    if not isinstance(v, dict) or not isinstance(v.get("legal"), bool) or not isinstance(v.get("reason"), dict):
        raise Malformed("verdict must be null or an object with legal and reason")
    reason = v["reason"]
    if len(reason) > 12:
        raise Malformed("verdict reason has too many languages")
    words = {_text(lang, "a reason's language", 8): _text(text, "a reason", MAX_WORDS) for lang, text in reason.items()}
    card = v.get("card")
    play = v.get("play")
    return {"legal": v["legal"], "seat": _int(v.get("seat"), "verdict seat", 0, 5),
            "card": None if card is None else _text(card, "verdict card", 24),
            "play": None if play is None else _text(play, "verdict play", 120), "reason": words}


def parse_state(topic: str, payload: bytes) -> GameView:
    """A public state message, checked; Malformed says the first thing wrong with it."""
    game = topic_name(topic, "state")
    obj = _decode(payload, "state")
    if obj.get("game") != game:
        raise Malformed(f"a state of game {str(obj.get('game'))[:40]!r} on game {game}'s topic")
    epoch, seq = _int(obj.get("epoch"), "epoch"), _int(obj.get("seq"), "seq")
    sent = _sent(obj.get("sent"))
    st = obj.get("state")
    if not isinstance(st, dict):
        raise Malformed("state must be an object")
    try:
        pos = engine.parse_position(st.get("position"))
    except engine.EngineError as exc:
        raise Malformed(f"position: {str(exc)[:120]}") from None
    seats = pos.seats
    if st.get("variant") != pos.variant.name:
        raise Malformed("state variant differs from its position's")
    turn = _int(st.get("turn"), "turn", 0, 5)
    if turn not in seats:
        raise Malformed(f"turn {turn} is not a seat in play")
    if st.get("phase") not in PHASES:
        raise Malformed(f"phase must be one of {', '.join(PHASES)}")
    raw_seats = st.get("seats")
    if not isinstance(raw_seats, list) or [s.get("seat") if isinstance(s, dict) and type(s.get("seat")) is int else None
                                                  for s in raw_seats] != list(seats):  # not True for seat 1
        raise Malformed("seats must list the position's seats in order")
    colours = pos.board.colours
    seat_rows = [{"seat": s["seat"], "colour": colours[s["seat"]], "cards": _int(s.get("cards"), "cards", 0, 20),
                  "home": _int(s.get("home"), "pieces home", 0, 8), "out": bool(s.get("out") is True)}
                 for s in raw_seats]
    winner = st.get("winner")
    if winner is not None and (not isinstance(winner, list) or any(_int(w, "winner", 0, 5) not in seats for w in winner)):
        raise Malformed("winner must be null or a list of seats in play")
    card = st.get("card")
    verdict = _verdict(st.get("verdict"))
    if verdict is not None:
        if verdict["seat"] not in seats:
            raise Malformed("the verdict's seat is not in play")
        verdict["colour"] = colours[verdict["seat"]]
    raw_tables = obj.get("tables")
    if not isinstance(raw_tables, dict) or len(raw_tables) > MAX_TABLES:
        raise Malformed(f"tables must be an object of at most {MAX_TABLES} tables")
    tables: dict[str, tuple[tuple[int, ...], str]] = {}
    for name, t in raw_tables.items():
        _name(name, "a table in tables")
        if not isinstance(t, dict) or not isinstance(t.get("seats"), list) or t.get("presence") not in HOST_PRESENCE:
            raise Malformed(f"table {name}: needs seats (a list) and presence ({', '.join(HOST_PRESENCE)})")
        own = tuple(_int(s, f"table {name}'s seat", 0, 5) for s in t["seats"])
        if any(s not in seats for s in own):
            raise Malformed(f"table {name} holds a seat not in play")
        tables[name] = (own, t["presence"])
    summary = {
        "game": game, "epoch": epoch, "seq": seq, "sent": sent,
        "variant": pos.variant.name, "title": _text(st.get("title", pos.variant.name), "title", 80),
        "segments": pos.board.segments, "home_slots": pos.variant.home_slots, "board": pos.field_occupancy(),
        "seats": seat_rows, "turn": turn, "turn_colour": colours[turn], "phase": st["phase"],
        "round": _int(st.get("round", 1), "round", 0, 10_000),
        "card": None if card is None else _text(card, "card", 24),
        "verdict": verdict,
        "winner": None if winner is None else [colours[w] for w in winner],
    }
    return GameView(game, epoch, seq, st, tables, sent, summary)


def shown_presence(table: str, host_word: str | None, game_order: int, own: Presence | None) -> str:
    """The word the page shows for a table: its own newest word, or the host's when newer.

    The host's "lost" (paused for good, by the host's clock) stands over the table's own
    "paused" whatever came first: a paused table's will is retained, so a club screen that
    connects late hears it after the host's verdict."""
    if own is None:
        return host_word or "offline"
    if host_word is None:
        return own.state
    if host_word == "lost" and own.state == "paused":
        return "lost"
    return own.state if own.order > game_order else host_word


@functools.lru_cache(maxsize=4)
def board_geometry(segments: int) -> dict[str, Any]:
    """Where the page draws each field of a board of `segments` (the engine's packaged geometry)."""
    g = engine.load_geometry(segments)
    return {"field_radius": g.field_radius, "centres": {k: [round(x, 1), round(y, 1)] for k, (x, y) in g.centres.items()}}


def club_json(snap: ClubSnapshot) -> dict[str, Any]:
    """The page's whole view: every game with its tables' presence, the tables in no game, the broker."""
    games = []
    in_games: set[str] = set()
    for name in sorted(snap.games):
        g = snap.games[name]
        tables = [{"table": t, "seats": list(seats), "colours": [row["colour"] for row in g.summary["seats"] if row["seat"] in seats],
                   "presence": shown_presence(t, word, g.order, snap.presence.get(t))}
                  for t, (seats, word) in sorted(g.tables.items())]
        in_games.update(g.tables)
        games.append(dict(g.summary, tables=tables))
    idle = [{"table": p.table, "presence": p.state, "game": p.game}
            for t, p in sorted(snap.presence.items()) if t not in in_games]
    return {"version": snap.version, "broker": snap.broker, "connected": snap.connected, "error": snap.error,
            "games": games, "tables": idle,
            "geometry": {str(s): board_geometry(s) for s in sorted({g["segments"] for g in games})}}


class _Complaints:
    """One log line per malformed payload, but a flood of them is a count, not a full disk."""

    def __init__(self) -> None:
        self.window = 0.0
        self.logged = 0
        self.hushed = 0

    def __call__(self, topic: str, why: str) -> None:
        now = time.monotonic()
        if now - self.window > COMPLAINTS[1]:
            if self.hushed:
                log.warning("%d more malformed messages ignored", self.hushed)
            self.window, self.logged, self.hushed = now, 0, 0
        if self.logged < COMPLAINTS[0]:
            self.logged += 1
            log.warning("ignored a malformed message on %.120r: %s", topic, why)
        else:
            self.hushed += 1


class ClubView:
    """Every game's newest public state and every table's presence, from one broker.

    `start()` runs the client in its own thread and keeps reconnecting (the error says why it
    cannot); `snapshot()` and `version` read it from any thread; `wait(since, timeout)` blocks
    until the version differs from `since`; `listen(callback)` calls back (on the view's
    thread) after every change. `ingest(topic, payload)` is what every message goes through."""

    def __init__(self, broker: Broker, *, client_id: str | None = None) -> None:
        self.broker = broker
        self.client_id = client_id or f"club-{uuid.uuid4().hex[:12]}"
        self.ignored = 0  # malformed payloads
        self.stale = 0  # states older than (or the same as) the one kept: by (epoch, seq, sent)
        self._lock = threading.Condition()
        self._version = 0
        self._order = 0
        self._games: dict[str, GameView] = {}
        self._presence: dict[str, Presence] = {}
        self._connected = False
        self._error: str | None = None
        self._tried = threading.Event()  # the first attempt to connect has ended, either way
        self._listeners: list[Callable[[], None]] = []
        self._complain = _Complaints()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task | None = None
        self._thread: threading.Thread | None = None

    # -- reading --
    @property
    def version(self) -> int:
        return self._version

    def snapshot(self) -> ClubSnapshot:
        with self._lock:
            return ClubSnapshot(self._version, dict(self._games), dict(self._presence), self.broker.where,
                                self._connected, self._error)

    def wait(self, since: int, timeout: float) -> ClubSnapshot:
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._version == since and (left := deadline - time.monotonic()) > 0:
                self._lock.wait(left)
            return self.snapshot()

    def listen(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call `callback()` after every change; returns the function that stops it."""
        with self._lock:
            self._listeners.append(callback)

        def stop() -> None:
            with self._lock:
                if callback in self._listeners:
                    self._listeners.remove(callback)
        return stop

    # -- changing --
    def ingest(self, topic: str, payload: bytes | bytearray | str | None) -> bool:
        """One message off the broker: kept if it is valid and newest. True if the view changed."""
        data = payload.encode("utf-8", "surrogatepass") if isinstance(payload, str) else bytes(payload or b"")
        try:
            if topic.endswith("/presence"):
                return self._presence_message(topic, data)
            return self._state_message(topic, data)
        except Malformed as exc:
            self.ignored += 1
            self._complain(topic, str(exc))
        except Exception as exc:  # hostile bytes reached a check that did not expect them: never a crash
            self.ignored += 1
            self._complain(topic, f"{type(exc).__name__}: {str(exc)[:120]}")
        return False

    def _state_message(self, topic: str, data: bytes) -> bool:
        if not data:  # the host cleared its retained state: that game is gone
            game = topic_name(topic, "state")
            with self._lock:
                return self._changed(self._games.pop(game, None) is not None)
        view = parse_state(topic, data)
        with self._lock:
            kept = self._games.get(view.game)
            # the same seq again, sent later: the host's word on its tables changed (paused, lost,
            # seats handed on) with no event, or a new game's first event after its start
            if kept is not None and (view.epoch, view.seq, view.sent) <= (kept.epoch, kept.seq, kept.sent):
                self.stale += 1
                return False
            self._order += 1
            self._games[view.game] = GameView(view.game, view.epoch, view.seq, view.state, view.tables, view.sent,
                                              view.summary, self._order)
            return self._changed(True)

    def _presence_message(self, topic: str, data: bytes) -> bool:
        if not data:
            table = topic_name(topic, "presence")
            with self._lock:
                return self._changed(self._presence.pop(table, None) is not None)
        p = parse_presence(topic, data)
        with self._lock:
            self._order += 1
            self._presence[p.table] = Presence(p.table, p.state, p.game, p.sent, self._order)
            return self._changed(True)

    def set_link(self, connected: bool, error: str | None) -> None:
        """Whether the broker is reached (a table's own link feeds a view that has no client of its own)."""
        self._set_link(connected, error)

    def _set_link(self, connected: bool, error: str | None) -> None:
        with self._lock:
            if (connected, error) != (self._connected, self._error):
                self._connected, self._error = connected, error
                self._changed(True)
        self._tried.set()

    def _changed(self, changed: bool) -> bool:
        """Under the lock: a new version, the waiters woken, the listeners told."""
        if changed:
            self._version += 1
            self._lock.notify_all()
            for callback in list(self._listeners):
                try:
                    callback()
                except Exception:  # one page server's trouble must not stop the view
                    log.exception("a club view listener failed")
        return changed

    # -- the client --
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="club-mqtt", daemon=True)
        self._thread.start()

    def wait_connected(self, timeout: float) -> bool:
        """Until the first attempt to connect ended (or `timeout`): True if it connected."""
        self._tried.wait(timeout)
        return self._connected

    def stop(self) -> None:
        loop, task = self._loop, self._task
        if loop is not None and task is not None:
            try:
                loop.call_soon_threadsafe(task.cancel)
            except RuntimeError:  # the loop already closed
                pass
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(10)

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            self._task = loop.create_task(self._follow())
            loop.run_until_complete(self._task)
        except asyncio.CancelledError:
            pass
        finally:
            loop.close()

    def _client(self) -> aiomqtt.Client:
        b = self.broker
        # No MQTT 5 Maximum Packet Size asked of the broker, though it would drop oversized
        # payloads for us: Mosquitto 2.0.11, once it had dropped a few dozen QoS 1 messages for
        # that reason, delivered nothing more to this client, so a hostile publisher could
        # freeze the screen. The cap holds in `ingest` instead, and
        # the broker's own message_size_limit bounds what reaches us at all.
        tls = ssl.create_default_context(cafile=b.ca) if b.tls else None
        return aiomqtt.Client(b.host, b.port, username=b.username, password=b.password, identifier=self.client_id,
                              protocol=aiomqtt.ProtocolVersion.V5, tls_context=tls,
                              timeout=CONNECT_TIMEOUT_S, keepalive=30, max_queued_incoming_messages=10_000)

    async def _follow(self) -> None:
        wait = RECONNECT_S[0]
        while True:
            try:
                async with self._client() as client:
                    await client.subscribe([(STATES, 1), (PRESENCE, 1)])
                    self._set_link(True, None)
                    wait = RECONNECT_S[0]
                    async for message in client.messages:
                        self.ingest(str(message.topic), message.payload)  # type: ignore[arg-type]
                raise aiomqtt.MqttError("the broker closed the connection")
            except (aiomqtt.MqttError, OSError, ssl.SSLError) as exc:
                why = str(exc).strip() or type(exc).__name__
                self._set_link(False, f"cannot reach the broker at {self.broker.where}: {why}")
            await asyncio.sleep(wait)
            wait = min(wait * 2, RECONNECT_S[1])


class _Waker:
    """Wakes the page server's loop (whichever it is) when the view changes."""

    def __init__(self, view: ClubView) -> None:
        self.view = view
        self.loop: asyncio.AbstractEventLoop | None = None
        self.changed: asyncio.Event | None = None
        self.unlisten: Callable[[], None] | None = None
        self.waiting = 0
        self.closing = False
        self.encoded: tuple[int, bytes] = (-1, b"")

    def attach(self) -> asyncio.Event:
        if self.changed is None:
            self.loop = asyncio.get_running_loop()
            self.changed = asyncio.Event()
            self.unlisten = self.view.listen(self._from_view)
        return self.changed

    def _from_view(self) -> None:
        if self.loop is not None:
            try:
                self.loop.call_soon_threadsafe(self.wake)
            except RuntimeError:  # the page's loop closed while stopping
                pass

    def wake(self) -> None:
        changed, self.changed = self.changed, asyncio.Event()
        if changed is not None:
            changed.set()

    def body(self) -> bytes:
        version = self.view.version
        if self.encoded[0] != version:  # every open page wants the same bytes: encode once per version
            snap = self.view.snapshot()
            self.encoded = (snap.version, json.dumps(club_json(snap), ensure_ascii=False,
                                                     separators=(",", ":")).encode("utf-8", "backslashreplace"))
        return self.encoded[1]


def club_routes(view: ClubView) -> web.Application:
    """The club page as an aiohttp application: `/` the page, `api/club?since=N` its long poll.

    Every URL the page uses is relative, so it works served alone at `/` and mounted on a
    table's server with `app.add_subapp("/club/", club_routes(view))`."""
    app = web.Application()
    waker = _Waker(view)
    files = {"": ("club.html", "text/html"), "club.js": ("club.js", "text/javascript"),
             "club.css": ("club.css", "text/css")}

    async def static(request: web.Request) -> web.StreamResponse:
        name, kind = files[request.match_info.get("name", "")]
        return web.Response(body=(STATIC / name).read_bytes(), content_type=kind, charset="utf-8",
                            headers={"Cache-Control": "no-cache"})

    async def texts(request: web.Request) -> web.StreamResponse:
        lang = request.match_info["lang"]
        path = STATIC / "texts" / f"{lang}.json"
        if not re.fullmatch(r"[a-z]{2}", lang) or not path.is_file():
            raise web.HTTPNotFound()
        return web.Response(body=path.read_bytes(), content_type="application/json", headers={"Cache-Control": "no-cache"})

    async def poll(request: web.Request) -> web.StreamResponse:
        try:
            since = int(request.query.get("since", "-1"))
        except ValueError:
            since = -1
        changed = waker.attach()
        if view.version == since and waker.waiting < POLL_WAITERS and not waker.closing:
            waker.waiting += 1
            try:
                await asyncio.wait_for(changed.wait(), POLL_WAIT_S)
            except asyncio.TimeoutError:
                pass
            finally:
                waker.waiting -= 1
        return web.Response(body=waker.body(), content_type="application/json", headers={"Cache-Control": "no-store"})

    async def shutdown(_app: web.Application) -> None:
        waker.closing = True  # the polls still waiting answer now, so the server stops without cutting them
        waker.wake()

    async def cleanup(_app: web.Application) -> None:
        if waker.unlisten is not None:
            waker.unlisten()

    app.router.add_get("/", static)
    app.router.add_get("/{name:club\\.(?:js|css)}", static)
    app.router.add_get("/texts/{lang}.json", texts)
    app.router.add_get("/api/club", poll)
    app.on_shutdown.append(shutdown)
    app.on_cleanup.append(cleanup)
    return app
