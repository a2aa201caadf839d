"""A table that joined another table's game: its local events go to the host, the host's come back.

Everything local (the page, the camera, its bots) still speaks only through `Service.submit`;
here that door sends the event to the hosting table as a request and waits for its answer.
The host's events arrive on this table's own topic, numbered: each is committed in order
with the host's sequence number (`Service.commit`), a duplicate is dropped, one that comes
early waits for the ones before it, and a gap is asked for again. So this table's journal
holds the host's events in the host's order, with the cards this table may know.
"""
from __future__ import annotations

import logging
import secrets
import threading
import time

from companion import table as T
from companion.remote import protocol as P
from companion.remote.discovery import discovery_messages, ha_state_message
from companion.remote.link import Endpoint, Link, LinkError, Outgoing
from companion.remote.memory import Memory
from companion.service import Service

log = logging.getLogger(__name__)

ANSWER_S = 15.0  # how long a local action waits for the host before the page is told it waits
WELCOME_S = 10.0  # how long joining waits for the host's welcome at start
INBOX_AHEAD = 4096  # events kept that came before their turn (a catch-up in any order); further ahead: dropped
GAP_ASK_S = 2.0  # a gap still open this long is asked for again (the first answer may be on its way)


class JoinedTable:
    """Join the game of an invitation code. `start()` raises LinkError (one line) if it cannot."""

    gate = None  # companion.remote.gate.CarryGate, once this table carries out the others' plays
    role = "joined"

    def __init__(self, service: Service, ep: Endpoint, table: str, code: str, seats: tuple[int, ...],
                 memory: Memory, *, answer_s: float = ANSWER_S) -> None:
        self.service = service
        self.table = P.check_name(table)
        self.code = code.strip()
        self.game = P.code_game(self.code)
        if self.game == self.table:
            raise LinkError(f"table {table} cannot join its own game: give this table another name ([remote] table)")
        self.seats = tuple(sorted(set(seats)))
        self.memory = memory
        self.answer_s = answer_s
        self.epoch: int | None = None
        self.seat_tables: dict[int, str] = {}
        self.host_presence = "online"
        self.problem: str | None = None  # what the page should say about the link (None: all well)
        self._cv = threading.Condition()
        self._inbox: dict[int, T.Event] = {}
        self._answers: dict[str, dict] = {}
        self._asking: set[str] = set()  # request ids waiting for the host's answer (any other answer is dropped)
        self._welcome: dict | None = None
        self._refused: str | None = None
        self._stopping = threading.Event()
        self._ha_sent = b""
        self.host_seq = -1  # the host's newest event as its public state says: a gap shows here too
        self._asked: tuple[int, float] = (-1, 0.0)  # (from which event we last asked the host again, when)
        self.link = Link(ep, client_id=self.table, name=self.table, on_message=self.handle,
                         subscriptions=(P.table_topic(self.game, self.table, "events"),
                                        P.table_topic(self.game, self.table, "replies"),
                                        P.public_topic("+", "state"), P.presence_topic("+")),  # "+": the club screen
                         will=Outgoing(P.presence_topic(self.table), self._presence("paused"), retain=True),
                         on_connect=self._on_connect)
        self._applier = threading.Thread(target=self._apply_loop, name="remote-joined", daemon=True)

    # --- life -----------------------------------------------------------------------------
    def start(self) -> None:
        self.link.start()
        self._send("join", code=self.code, seats=list(self.seats))
        with self._cv:
            self._cv.wait_for(lambda: self._welcome is not None or self._refused is not None, WELCOME_S)
            welcome, refused = self._welcome, self._refused
        if refused is not None:
            self.link.stop()
            raise LinkError(f"table {self.game} refused to let {self.table} join: {refused}")
        if welcome is None:
            self.link.stop()
            raise LinkError(f"no answer from table {self.game}: is it hosting a game now (check the code)?")
        self._follow(welcome)
        self.service.hosted_by = self.game
        self.service.door = self._door
        self._applier.start()
        self.link.status_observers.append(lambda connected, problem: self._status())
        self._status()

    def stop(self) -> None:
        if self.gate is not None:
            self.gate.stop()
        self._stopping.set()
        self.service.door = None
        with self._cv:
            self._cv.notify_all()
        self.link.stop(last=Outgoing(P.presence_topic(self.table), self._presence("offline"), retain=True))

    # --- the game the host holds ----------------------------------------------------------
    def _follow(self, welcome: dict) -> None:
        """Open the host's game here: the one already in the journal when it is the same, else a new one."""
        setup = T.Setup(str(welcome["setup"].get("variant")), int(welcome["setup"].get("players", 4)),
                        str(welcome["setup"].get("mode", "referee")),
                        direction=welcome["setup"].get("direction") or None)
        saved = self.memory.load()
        same = (saved.get("game") == self.game and saved.get("epoch") == welcome["epoch"]
                and saved.get("local_game") is not None)
        with self.service.lock:
            door, self.service.door = self.service.door, None  # opening is local: it goes nowhere
            try:
                resumed = self.service.open(setup, resume=same)
                if resumed and self.service.game_id != saved.get("local_game"):
                    resumed = False
                    self.service.open(setup, resume=False)
            finally:
                self.service.door = door
            with self._cv:  # under the service's lock too: no drain commits an old game's event to the new one
                if welcome["epoch"] != self.epoch:
                    self._inbox = {}  # what the new game sent so far is asked for below
                self.epoch = welcome["epoch"]
            self.seat_tables = {int(s): str(t) for s, t in welcome["seats"].items() if str(s).isdigit()}
            self.problem = None
            local = self.service.game_id
            have = self.service.state.seq
        with self._cv:
            self._inbox = {s: e for s, e in self._inbox.items() if s >= have}
        self.memory.save({"role": "joined", "game": self.game, "code": self.code, "epoch": self.epoch,
                          "local_game": local, "seats": list(self.seats)})
        log.info("following table %s's game %d from event %d (%s)", self.game, self.epoch, have,
                 "resumed" if resumed else "new here")
        self._send("since", epoch=self.epoch, seq=have)

    def _status(self) -> None:
        """What the page says of the link: whose game, who plays where, who is away, what is wrong."""
        problem = self.link.problem or self.problem
        self.service.set_devices_status(remote={
            "role": "joined", "game": self.game, "table": self.table, "code": None,
            "seats": {str(s): t for s, t in self.seat_tables.items()},
            "tables": {self.game: self.host_presence}, "problem": problem})

    def _apply_loop(self) -> None:
        while not self._stopping.is_set():
            with self._cv:
                self._cv.wait_for(lambda: self._stopping.is_set() or self._ready(), 5.0)
                welcome, self._welcome = self._welcome, None
            if welcome is not None and welcome.get("epoch") != self.epoch:
                self._follow(welcome)
            elif welcome is not None:  # the same game: the seats changed hands (a lost table's, given to this one)
                self._seats_from(welcome)
            self.drain()
            self._ask_gaps()

    def _seats_from(self, welcome: dict) -> None:
        self.seat_tables = {int(s): str(t) for s, t in welcome["seats"].items() if str(s).isdigit()}
        self.seats = tuple(sorted(s for s, t in self.seat_tables.items() if t == self.table)) or self.seats
        self._status()

    def _ready(self) -> bool:
        have = self.service.state.seq
        return (self._welcome is not None or have in self._inbox
                or (self.host_seq >= have and self._asked[0] != have))

    def drain(self) -> int:
        """Commit every event that is next in order; returns how many."""
        done = 0
        with self.service.lock:
            while True:
                seq = self.service.state.seq
                with self._cv:
                    event = self._inbox.pop(seq, None)
                if event is None:
                    break
                try:
                    self.service.commit(event, seq=seq)
                    done += 1
                except T.TableError as exc:
                    # the host's game and this one disagree: say so; the next welcome starts over
                    self.problem = f"this table and table {self.game} disagree at event {seq}: {exc}"
                    log.error("%s", self.problem)
                    self._status()
                    break
        return done

    def _ask_gaps(self) -> None:
        """Ask the host again for what is missing: an event that came early, or the host's state
        ahead of this table (an event lost when the host lost power right after committing it)."""
        have = self.service.state.seq
        with self._cv:
            waiting = min(self._inbox) if self._inbox else None
            behind = self.host_seq >= have and have not in self._inbox
        if (waiting is not None and waiting > have) or behind:
            now = time.monotonic()
            if self._asked[0] != have or now - self._asked[1] > GAP_ASK_S:
                self._asked = (have, now)
                self._send("since", epoch=self.epoch or 0, seq=have)

    # --- the door: a local event goes to the host -----------------------------------------
    def _door(self, event: T.Event) -> T.TableState:
        rid = secrets.token_hex(8)
        at = self.service.state.seq
        with self._cv:
            self._asking.add(rid)
        self._send("request", id=rid, epoch=self.epoch or 0, at=at, event=T.event_to_json(event))
        deadline = time.monotonic() + self.answer_s
        answer = None
        while time.monotonic() < deadline:
            self.drain()  # the caller may hold the service's lock: the host's events are committed here then
            with self._cv:
                answer = self._answers.pop(rid, None)
                if answer is not None:
                    if not answer["ok"] or self.service.state.seq > answer["seq"] or answer["seq"] in self._inbox:
                        break
                    self._answers[rid] = answer
                    answer = None
                self._cv.wait(min(0.5, max(0.0, deadline - time.monotonic())))
        with self._cv:
            self._asking.discard(rid)
            self._answers.pop(rid, None)
        if answer is None:
            raise T.TableError(f"no answer from table {self.game} yet: the game waits until it is back")
        if not answer["ok"]:
            raise T.TableError(answer["error"])
        self.drain()
        return self.service.state

    # --- messages -------------------------------------------------------------------------
    def _presence(self, state: str) -> bytes:
        return P.encode("presence", table=self.table, state=state, game=self.game, sent=time.time())

    def _send(self, kind: str, **fields: object) -> None:
        self.link.publish(P.table_topic(self.game, self.table, "requests"),
                          P.encode(kind, table=self.table, **fields))

    def _on_connect(self) -> None:
        self.link.publish(P.presence_topic(self.table), self._presence("online"), retain=True)
        for topic, payload, retain in discovery_messages(self.table):  # one Home Assistant device per table
            self.link.publish(topic, payload, retain=retain)
        if self.epoch is not None:  # back after a break: ask for whatever came meanwhile
            self._send("since", epoch=self.epoch, seq=self.service.state.seq)

    def handle(self, topic: str, payload: bytes) -> None:
        """On the link's thread: checks and files the message, never blocks on the service."""
        try:
            where = P.parse_topic(topic)
            if where.kind == "presence":
                msg = P.decode(payload, "presence")
                if where.table == self.game and msg["table"] == self.game and msg["state"] != self.host_presence:
                    self.host_presence = msg["state"]
                    if self.epoch is not None:  # before the game is open here, start() says it once it is
                        self._status()
                return
            if where.kind == "public-state" and where.game == self.game:
                msg = P.decode(payload, "state")
                with self._cv:
                    if msg["epoch"] == self.epoch:
                        self.host_seq = msg["seq"]
                        self._cv.notify_all()
                topic, payload, retain = ha_state_message(self.table, msg["state"], presence="online", game=self.game)
                if payload != self._ha_sent:  # Home Assistant needs a change only: one message fewer per event
                    self._ha_sent = payload
                    self.link.publish(topic, payload, retain=retain)
                return
            if where.game != self.game or where.table != self.table:
                return
            if where.kind == "events":
                msg = P.decode(payload, "event")
                if msg["game"] != self.game:
                    raise P.ProtocolError("an event of another game")
                event = P.event_from_wire(msg["event"])
                with self._cv:
                    have = self.service.state.seq
                    if msg["epoch"] == self.epoch and have <= msg["seq"] < have + INBOX_AHEAD:
                        self._inbox[msg["seq"]] = event
                        self._cv.notify_all()
            elif where.kind == "replies":
                msg = P.decode(payload, "welcome", "refused", "reply")
                tell = False
                with self._cv:
                    if msg["type"] == "welcome":
                        self._welcome = msg
                    elif msg["type"] == "refused":
                        self._refused = msg["reason"]
                        if self.epoch is not None:
                            self.problem = msg["reason"]
                            tell = True
                    elif msg["id"] in self._asking:
                        self._answers[msg["id"]] = msg
                    self._cv.notify_all()
                if tell:  # outside the condition: the status takes the service's lock
                    self._status()
        except P.ProtocolError as exc:
            log.info("dropped a message on %s: %s", topic[:120], exc)
