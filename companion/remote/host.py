"""The hosting table: it orders the game's events for every table linked to it.

The host's own service is the referee. A joined table's request (a card, a settled board, a
gift, an undo) is checked against who asks — a table acts for its own seats only, and
table-wide actions are the host's — then committed to the host's journal like any local
event. Every committed event goes out on each joined table's own topic as that table may
see it (`companion.table.event_for`: only its own seats' cards), on the public topic with
no hidden card, and as a retained public snapshot for spectators and the club screen.
"""
from __future__ import annotations

import collections
import logging
import queue
import threading
import time
from dataclasses import dataclass, field

from companion import table as T
from companion.remote import protocol as P
from companion.remote.discovery import discovery_messages, ha_state_message
from companion.remote.link import Endpoint, Link, Outgoing
from companion.remote.memory import Memory
from companion.service import Service
from companion.stream import Update

log = logging.getLogger(__name__)

LOST_AFTER_S = 120.0  # a table paused this long is lost: the host may hand its seats on
REPLIES_KEPT = 512  # request ids remembered, so a request the broker delivers twice acts once
STATE_LOG_TAIL = 20  # log entries in the public snapshot (the club screen shows the last few)
# requests that mean the same whatever happened since they were made: in the exchange every seat
# gives at once, and a seat's own undo is judged by the table (refused once anything came after)
ORDERLESS = (T.CardGiven, T.Undo)
TABLE_WIDE = (T.Deal, T.SetPosition, T.SetTurn, T.SetMode, T.ExchangeDone, T.HandShown)


@dataclass
class Member:
    """A table in the game: its seats and whether it is there."""

    name: str
    seats: tuple[int, ...]
    presence: str = "online"  # online, paused, lost, offline
    paused_at: float | None = field(default=None, compare=False)


def refusal(member: Member, event: T.Event, st: T.TableState) -> str | None:
    """Why `member` may not ask for `event` now (None: it may). Decided from seats, never hands."""
    mine = set(member.seats)
    if isinstance(event, TABLE_WIDE):
        return "only the hosting table may do that (new deals, corrections, the mode)"
    if isinstance(event, T.Undo):
        if event.seat is None:
            return "only the hosting table takes back more than a seat's own play"
        seat = event.seat
    elif isinstance(event, T.CardSeen):
        seat = st.turn if event.seat is None else event.seat
    elif isinstance(event, (T.CardGiven, T.SitOut)):
        seat = event.seat
    else:  # a board, the disc, a discard, a hint: they act on the card in play
        if st.card_seat is None:
            return f"table {member.name}: nothing of its seats is in play"
        seat = st.card_seat
    if seat not in mine:
        return f"seat {seat} does not belong to table {member.name}"
    return None


class HostRelay:
    """Host a game on the broker. `start()` raises LinkError when the broker cannot be used."""

    gate = None  # companion.remote.gate.CarryGate, once this table carries out the others' plays
    role = "host"

    def __init__(self, service: Service, ep: Endpoint, table: str, memory: Memory, *,
                 keep: tuple[int, ...] = (), lost_after_s: float = LOST_AFTER_S) -> None:
        self.service = service
        self.table = P.check_name(table)
        self.game = self.table
        self.memory = memory
        saved = memory.load()
        self.code: str = saved.get("code") or P.new_code(self.table)
        self.members: dict[str, Member] = {
            name: Member(name, tuple(seats)) for name, seats in saved.get("members", {}).items()}
        self.keep = keep  # the seats played here, never given to a joining table
        self.lost_after_s = lost_after_s
        self.lock = threading.RLock()
        self._replies: collections.OrderedDict[tuple[str, str], bytes] = collections.OrderedDict()
        self._work: queue.Queue[tuple[str, dict] | None] = queue.Queue()
        self._last: T.TableState | None = None
        self._epoch = 0
        self._timers: dict[str, threading.Timer] = {}
        self._ha_sent = b""
        self.link = Link(ep, client_id=self.table, name=self.table, on_message=self.handle,
                         subscriptions=(P.table_topic(self.game, "+", "requests"), P.presence_topic("+"),
                                        P.public_topic("+", "state")),  # the other games: the club screen
                         will=Outgoing(P.presence_topic(self.table), self._presence("paused"), retain=True),
                         on_connect=self._on_connect)
        self._worker = threading.Thread(target=self._work_loop, name="remote-host", daemon=True)
        self._linked = False
        self.subscription = None

    # --- life -----------------------------------------------------------------------------
    def connect(self) -> None:
        """Reach the broker (LinkError says why not), before the game opens: a table that cannot
        link changes nothing in its journal. What arrives meanwhile waits for `start()`."""
        if not self._linked:
            self.link.start()
            self._linked = True

    def start(self) -> None:
        self._save()
        with self.service.lock:
            self._last, self._epoch = self.service.state, self.service.game_id
        self._worker.start()
        self.connect()
        self.subscription = self.service.subscribe("remote-host", self._on_update)
        self._publish_state()
        for name in list(self.members):  # back after a restart: each table learns where the game stands
            self._welcome(name)
        self.link.status_observers.append(lambda connected, problem: self._status())
        self._status()

    def stop(self) -> None:
        if self.gate is not None:
            self.gate.stop()
        if self.subscription is not None:
            self.subscription.close()
        for timer in self._timers.values():
            timer.cancel()
        self._work.put(None)
        self.link.stop(last=Outgoing(P.presence_topic(self.table), self._presence("offline"), retain=True))

    def seats_of(self, name: str) -> tuple[int, ...]:
        with self.lock:
            m = self.members.get(name)
            return m.seats if m is not None else ()

    def hand_over(self, name: str, to: str | None = None) -> None:
        """A table's seats go to another joined table, or back to the host (its bots or people)."""
        with self.lock:
            if name not in self.members:
                raise T.TableError(f"no table {name!r} is in this game")
            seats = self.members.pop(name).seats
            if to is not None:
                if to not in self.members:
                    raise T.TableError(f"no table {to!r} is in this game")
                self.members[to].seats = tuple(sorted(self.members[to].seats + seats))
            self._save()
        self._send_reply(name, P.encode("refused", reason=f"the host handed your seats to {to or self.table}"))
        if to is not None:
            self._welcome(to)
            self._show_hands(seats)
        self._members_changed()

    def _show_hands(self, seats: tuple[int, ...]) -> None:
        """The table that took `seats` over holds "?" for their cards: it is shown them (an event
        like any, each table seeing it as its seats allow)."""
        with self.service.lock:
            st = self.service.state
            shown = [T.HandShown(s, st.hands[s], "remote") for s in seats
                     if st.hands is not None and s in st.seats and st.hands[s]]
            for ev in shown:
                try:
                    self.service.commit(ev)
                except T.TableError as exc:
                    log.error("could not show seat %d its hand: %s", ev.seat, exc)

    # --- out ------------------------------------------------------------------------------
    def _presence(self, state: str) -> bytes:
        return P.encode("presence", table=self.table, state=state, game=self.game, sent=time.time())

    def _on_connect(self) -> None:
        self.link.publish(P.presence_topic(self.table), self._presence("online"), retain=True)
        for topic, payload, retain in discovery_messages(self.table):  # one Home Assistant device per table
            self.link.publish(topic, payload, retain=retain)

    def _on_update(self, update: Update) -> None:
        with self.lock:
            if update.game_id != self._epoch:  # a new game at the host: every table follows
                self._epoch, self._last = update.game_id, update.state
                for name in list(self.members):
                    self._welcome(name)
                self._publish_state()
                return
            if update.event is None:
                return
            before, self._last = self._last, update.state
            self._publish_event(update.game_id, update.seq, update.event)
            self._publish_state(update.state, update.seq)
            shown = []
            if before is not None:
                for m in self.members.values():
                    shown += T.needs_hand_shown(before, update.state, frozenset(m.seats))
        for ev in shown:  # the host tells a joined seat the cards it picked up (committed like any event)
            try:
                self.service.commit(ev)
            except T.TableError as exc:
                log.error("could not tell a seat its hand: %s", exc)

    def _publish_event(self, epoch: int, seq: int, event: T.Event, only: str | None = None) -> None:
        """`epoch`: the game the event was read from (a catch-up read just before a new game
        opened must not go out under the new game's number)."""
        now = time.time()
        for m in list(self.members.values()):
            if only is not None and m.name != only:
                continue
            seen = T.event_for(event, frozenset(m.seats))
            self.link.publish(P.table_topic(self.game, m.name, "events"),
                              P.encode("event", game=self.game, epoch=epoch, seq=seq,
                                       event=T.event_to_json(seen), sent=now))
        if only is None:
            self.link.publish(P.public_topic(self.game, "events"),
                              P.encode("event", game=self.game, epoch=epoch, seq=seq,
                                       event=T.public_event_json(event), sent=now))

    def _publish_state(self, st: T.TableState | None = None, seq: int | None = None) -> None:
        with self.lock:
            if st is None:
                st = self.service.state
                seq = st.seq - 1
            tables = {self.table: {"seats": self._host_seats(st), "presence": "online", "host": True}}
            tables.update({m.name: {"seats": list(m.seats), "presence": m.presence}
                           for m in self.members.values()})
            view = T.state_to_json(st, STATE_LOG_TAIL, viewer=None)
            try:
                data = P.encode("state", game=self.game, epoch=self._epoch, seq=max(seq or 0, 0), state=view,
                                tables=tables, sent=time.time())
            except P.ProtocolError:  # a long list of plays: the club screen does without them
                view = {**view, "plays": [], "play_words": []}
                data = P.encode("state", game=self.game, epoch=self._epoch, seq=max(seq or 0, 0), state=view,
                                tables=tables, sent=time.time())
        self.link.publish(P.public_topic(self.game, "state"), data, retain=True)
        topic, payload, retain = ha_state_message(self.table, view, presence="online", game=self.game)
        if payload != self._ha_sent:  # Home Assistant needs a change only: one message fewer per event
            self._ha_sent = payload
            self.link.publish(topic, payload, retain=retain)

    def _members_changed(self) -> None:
        self._publish_state()
        self._status()

    def _status(self) -> None:
        """What the page says of the link: the game, who plays where, who is away, what is wrong."""
        with self.lock:
            st = self.service.state
            seats = {str(s): self.table for s in self._host_seats(st)}
            for m in self.members.values():
                seats.update({str(s): m.name for s in m.seats})
            remote = {"role": "host", "game": self.game, "table": self.table, "code": self.code, "seats": seats,
                      "tables": {m.name: m.presence for m in self.members.values()},
                      "problem": self.link.problem}
        self.service.set_devices_status(remote=remote)

    def _host_seats(self, st: T.TableState) -> list[int]:
        taken = {s for m in self.members.values() for s in m.seats}
        return [s for s in st.seats if s not in taken]

    def _welcome(self, name: str) -> None:
        with self.service.lock:
            st, epoch = self.service.state, self.service.game_id
            setup = self.service.journal.game(epoch).setup
        seats = {str(s): self.table for s in st.seats}
        for m in self.members.values():
            seats.update({str(s): m.name for s in m.seats})
        self._send_reply(name, P.encode("welcome", game=self.game, epoch=epoch, seq=st.seq,
                                        setup={"variant": setup.variant, "players": setup.players,
                                               "mode": setup.mode, "direction": setup.direction},
                                        seats=seats))

    def _send_reply(self, name: str, data: bytes) -> None:
        self.link.publish(P.table_topic(self.game, name, "replies"), data)

    # --- in -------------------------------------------------------------------------------
    def handle(self, topic: str, payload: bytes) -> None:
        """On the link's thread: never blocks (the work goes to the host's worker)."""
        try:
            where = P.parse_topic(topic)
            if where.kind == "presence":
                msg = P.decode(payload, "presence")
                if msg["table"] != where.table:
                    raise P.ProtocolError("a presence message names another table")
            elif where.kind == "requests" and where.game == self.game:
                msg = P.decode(payload, "join", "request", "since")
                if msg["table"] != where.table:
                    raise P.ProtocolError(f"a message on table {where.table}'s topic names table {msg['table']}")
            else:
                return
        except P.ProtocolError as exc:
            log.info("dropped a message on %s: %s", topic[:120], exc)
            return
        self._work.put((where.kind, msg))

    def wait_idle(self, timeout: float) -> bool:
        """Until every message handed over so far was dealt with (tests and benchmarks use it)."""
        deadline = time.monotonic() + timeout
        with self._work.all_tasks_done:
            while self._work.unfinished_tasks:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._work.all_tasks_done.wait(left)
        return True

    def _work_loop(self) -> None:
        while True:
            item = self._work.get()
            if item is None:
                self._work.task_done()
                return
            kind, msg = item
            try:
                if kind == "presence":
                    self._presence_seen(msg)
                elif msg["type"] == "join":
                    self._join(msg)
                elif msg["type"] == "since":
                    self._since(msg)
                else:
                    self._request(msg)
            except Exception:  # noqa: BLE001 - one table's message must not stop the game for the others
                log.exception("a %s message from table %s failed", msg.get("type"), msg.get("table"))
            finally:
                self._work.task_done()

    def _join(self, msg: dict) -> None:
        name, seats = msg["table"], tuple(sorted(set(msg["seats"])))
        if name == self.table:
            return
        if not P.same_code(msg["code"], self.code):
            self._send_reply(name, P.encode("refused", reason=f"that is not the invitation code of table {self.table}'s game"))
            return
        with self.lock:
            st = self.service.state
            held = {s: m.name for m in self.members.values() if m.name != name for s in m.seats}
            problem = None
            if not seats:
                problem = "name the seats to play (--seats)"
            for s in seats:
                if s not in st.seats:
                    problem = f"seat {s} does not play in this game (seats: {list(st.seats)})"
                elif s in held:
                    problem = f"seat {s} is held by table {held[s]}"
                elif s in self.keep:
                    problem = f"seat {s} is played at table {self.table}"
            if problem is not None:
                if all(s in held or s in self.keep for s in st.seats):
                    problem = f"the game at table {self.table} is full"
                self._send_reply(name, P.encode("refused", reason=problem))
                return
            self.members[name] = Member(name, seats)
            self._save()
        log.info("table %s joined with seats %s", name, list(seats))
        self._welcome(name)
        self._members_changed()

    def _since(self, msg: dict) -> None:
        name = msg["table"]
        with self.lock:
            if name not in self.members:
                return
        with self.service.lock:
            epoch = self.service.game_id
            events = self.service.journal.events(epoch) if msg["epoch"] == epoch else []
        if msg["epoch"] != epoch:
            self._welcome(name)
            return
        for seq in range(msg["seq"], len(events)):
            self._publish_event(epoch, seq, events[seq], only=name)

    def _request(self, msg: dict) -> None:
        name, rid = msg["table"], msg["id"]
        with self.lock:
            member = self.members.get(name)
            known = self._replies.get((name, rid))
        if known is not None:  # delivered twice: the same answer, nothing done twice
            self._send_reply(name, known)
            return
        if member is None:
            self._send_reply(name, P.encode("reply", id=rid, ok=False, error=f"table {name} has not joined this game"))
            return
        try:
            event = P.event_from_wire(msg["event"])
        except P.ProtocolError as exc:
            self._answer(name, rid, error=str(exc))
            return
        with self.service.lock:
            st = self.service.state
            if msg["epoch"] != self.service.game_id:
                error = "that was a play of an earlier game"
            elif (msg["at"] != st.seq and not isinstance(event, ORDERLESS)
                  and not self._only_hands_since(msg["at"])):
                error = "the game moved on meanwhile: look again and play once more"
            else:
                error = refusal(member, event, st)
            if error is None:
                try:
                    new = self.service.commit(event)
                except T.TableError as exc:
                    error = str(exc)
        if error is not None:
            self._answer(name, rid, error=error)
        else:
            self._answer(name, rid, seq=new.seq - 1)

    def _only_hands_since(self, seq: int) -> bool:
        """Whether the events after `seq` only showed joined seats their hands (under the service's lock):
        a play asked for on that state still means the same."""
        if not 0 <= seq < self.service.state.seq:
            return False
        later = self.service.journal.events(self.service.game_id)[seq:]
        return all(isinstance(e, T.HandShown) for e in later)

    def _answer(self, name: str, rid: str, *, error: str | None = None, seq: int = 0) -> None:
        data = (P.encode("reply", id=rid, ok=False, error=error) if error is not None
                else P.encode("reply", id=rid, ok=True, seq=seq))
        with self.lock:
            self._replies[(name, rid)] = data
            while len(self._replies) > REPLIES_KEPT:
                self._replies.popitem(last=False)
        self._send_reply(name, data)

    def _presence_seen(self, msg: dict) -> None:
        name, state = msg["table"], msg["state"]
        with self.lock:
            m = self.members.get(name)
            if m is None or m.presence == state:
                return
            old = self._timers.pop(name, None)
            if old is not None:
                old.cancel()
            m.presence = state
            if state == "paused":
                m.paused_at = time.monotonic()
                timer = threading.Timer(self.lost_after_s, self._lost, args=(name,))
                timer.daemon = True
                self._timers[name] = timer
                timer.start()
        log.info("table %s is %s", name, state)
        self._members_changed()

    def _lost(self, name: str) -> None:
        with self.lock:
            m = self.members.get(name)
            if m is None or m.presence != "paused":
                return
            m.presence = "lost"
        log.warning("table %s is lost: the host may hand its seats on", name)
        self._members_changed()

    def _save(self) -> None:
        with self.lock:
            self.memory.save({"role": "host", "code": self.code,
                              "members": {m.name: list(m.seats) for m in self.members.values()}})
