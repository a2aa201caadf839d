"""A table's connection to the MQTT broker: aiomqtt in an asyncio loop on a thread of its own.

The service is built on threads and one lock; the link keeps MQTT's asyncio out of it. It
reconnects by itself (a Wi-Fi blip, the broker restarting), keeps its session at the broker
(MQTT 5 clean start off, with a session expiry) so QoS 1 messages sent while it was away are
delivered when it is back, and holds what it has to publish until the broker takes it.
Messages are handed to `on_message(topic, payload)` on the link's thread, in arrival order.
"""
from __future__ import annotations

import asyncio
import collections
import logging
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import aiomqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from companion.remote.protocol import MAX_PAYLOAD

log = logging.getLogger(__name__)

SESSION_EXPIRY_S = 24 * 3600  # the broker keeps a table's messages for a day: a game paused overnight goes on
WILL_DELAY_S = 10  # a table gone this long is "paused" to the others; a shorter blip shows nothing
RETRY_S = (0.2, 0.5, 1.0, 2.0, 5.0)  # reconnect backoff: soon after a blip, then gently
KEEPALIVE_S = 15
IN_FLIGHT = 16  # QoS 1 messages awaiting the broker's acknowledgement at once (paho allows 20)


@dataclass(frozen=True)
class Endpoint:
    """Where the broker is and who this table is to it."""

    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = field(default=None, repr=False)  # never in a log line
    ca: str | None = None  # a CA file for the broker's certificate; None: the system's


class LinkError(Exception):
    """The broker cannot be used: the text says why and what to do, in one line."""


@dataclass(frozen=True)
class Outgoing:
    topic: str
    payload: bytes
    qos: int = 1
    retain: bool = False


def tls_context(ep: Endpoint) -> ssl.SSLContext | None:
    if not ep.tls:
        return None
    try:
        return ssl.create_default_context(cafile=ep.ca)
    except (OSError, ssl.SSLError) as exc:
        raise LinkError(f"cannot read the broker's CA file {ep.ca}: {exc}") from None


def explain(exc: BaseException, ep: Endpoint) -> str:
    """One line for a person: why the broker at `ep` could not be used."""
    text = str(exc)
    where = f"{ep.host}:{ep.port}"
    low = text.lower()
    if isinstance(exc, aiomqtt.MqttCodeError) and getattr(exc, "rc", None) is not None:
        rc = int(getattr(exc.rc, "value", exc.rc))
        if rc in (4, 5, 134, 135):
            return (f"the broker at {where} refused the username or password of table {ep.username!r}: "
                    "check the credentials file ([remote] credentials)")
    if "not authori" in low or "bad user name" in low:
        return (f"the broker at {where} refused the username or password of table {ep.username!r}: "
                "check the credentials file ([remote] credentials)")
    if "certificate" in low or "ssl" in low or isinstance(exc, ssl.SSLError):
        return f"TLS with the broker at {where} failed ({text[:120]}): check [remote] broker and the CA file"
    if "refused" in low:
        return f"cannot reach the broker at {where}: connection refused (is mosquitto running there?)"
    if "timed out" in low or "timeout" in low:
        return f"cannot reach the broker at {where}: no answer (check the address and the network)"
    if "name or service" in low or "nodename" in low or "resolution" in low:
        return f"cannot reach the broker at {where}: the name {ep.host!r} is unknown"
    return f"cannot use the broker at {where}: {text[:160]}"


def _taken(task: asyncio.Task[None]) -> bool:
    """A finished publish the broker acknowledged."""
    return not task.cancelled() and task.exception() is None


class Link:
    """One table's MQTT client. `start()` returns once connected, or raises LinkError."""

    def __init__(self, ep: Endpoint, client_id: str, subscriptions: tuple[str, ...],
                 on_message: Callable[[str, bytes], None], *, will: Outgoing | None = None,
                 on_connect: Callable[[], None] | None = None, name: str = "remote") -> None:
        self.ep = ep
        self.client_id = client_id
        self.subscriptions = subscriptions
        self.on_message = on_message
        self.on_connect = on_connect
        self.will = will
        self.name = name
        self.connected = threading.Event()
        self.problem: str | None = None  # why the link is down now (for the page), None when up
        # more readers of every message, and of the link's state (connected, problem): the table's club screen
        self.observers: list[Callable[[str, bytes], object]] = []
        self.status_observers: list[Callable[[bool, str | None], None]] = []
        self._stopping = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._outbox: asyncio.Queue[Outgoing] | None = None
        self._pending: list[Outgoing] = []  # published before the loop ran
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._first: threading.Event = threading.Event()
        self._tls = tls_context(ep)

    # --- the table's side ---------------------------------------------------------------
    def start(self, timeout: float = 10.0) -> None:
        self._thread = threading.Thread(target=self._run, name=f"mqtt-{self.name}", daemon=True)
        self._thread.start()
        if not self._first.wait(timeout):
            self.stop()
            raise LinkError(f"cannot reach the broker at {self.ep.host}:{self.ep.port}: no answer in {timeout:.0f} s")
        if not self.connected.is_set():
            problem = self.problem
            self.stop()
            raise LinkError(problem or "the broker did not take the connection")

    def publish(self, topic: str, payload: bytes, *, qos: int = 1, retain: bool = False) -> None:
        """Thread-safe; never blocks. Kept until the broker took it (reconnects included)."""
        if len(payload) > MAX_PAYLOAD:
            log.warning("not published: %d bytes to %s is over the cap", len(payload), topic)
            return
        out = Outgoing(topic, payload, qos, retain)
        with self._lock:
            loop, box = self._loop, self._outbox
            if loop is None or box is None:
                self._pending.append(out)
                return
        try:
            loop.call_soon_threadsafe(box.put_nowait, out)
        except RuntimeError:  # the link has stopped: nothing more goes out
            log.info("not published after the link stopped: %s", topic)

    def stop(self, last: Outgoing | None = None) -> None:
        """Close the connection (after publishing `last`, e.g. an 'offline' presence)."""
        if last is not None and self.connected.is_set():
            self.publish(last.topic, last.payload, qos=last.qos, retain=last.retain)
            self.flush(2.0)
        self._stopping.set()
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(lambda: None)
            except RuntimeError:  # it closed meanwhile: nothing to wake
                pass
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def flush(self, timeout: float) -> bool:
        """Until everything handed to publish so far went out (or `timeout`)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                empty = not self._pending and (self._outbox is None or self._outbox.empty())
            if empty and not self._sending:
                return True
            self._stopping.wait(0.01)
        return False

    _sending = False

    # --- the loop -----------------------------------------------------------------------
    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(self._main())
        finally:
            loop.close()

    async def _main(self) -> None:
        box: asyncio.Queue[Outgoing] = asyncio.Queue()
        with self._lock:
            self._loop, self._outbox = asyncio.get_running_loop(), box
            for out in self._pending:
                box.put_nowait(out)
            self._pending.clear()
        attempt = 0
        while not self._stopping.is_set():
            try:
                await self._session(box)
                attempt = 0
            except (aiomqtt.MqttError, OSError, ssl.SSLError) as exc:
                self.problem = explain(exc, self.ep)
                self.connected.clear()
                if not self._first.is_set():
                    self._first.set()
                    return
                log.warning("%s; trying again", self.problem)
                self._tell_status()
            if self._stopping.is_set():
                break
            await self._sleep(RETRY_S[min(attempt, len(RETRY_S) - 1)])
            attempt += 1
        self.connected.clear()

    def _tell_status(self) -> None:
        for tell in self.status_observers:
            try:
                tell(self.connected.is_set(), self.problem)
            except Exception:  # noqa: BLE001 - a page's view of the link must not stop the link
                log.exception("telling the link's state")

    async def _sleep(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while not self._stopping.is_set() and time.monotonic() < end:
            await asyncio.sleep(min(0.05, end - time.monotonic()))

    async def _session(self, box: asyncio.Queue[Outgoing]) -> None:
        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = SESSION_EXPIRY_S
        will = None
        if self.will is not None:
            wp = Properties(PacketTypes.WILLMESSAGE)
            wp.WillDelayInterval = WILL_DELAY_S
            will = aiomqtt.Will(self.will.topic, self.will.payload, self.will.qos, self.will.retain, wp)
        async with aiomqtt.Client(self.ep.host, self.ep.port, username=self.ep.username, password=self.ep.password,
                                  identifier=self.client_id, protocol=aiomqtt.ProtocolVersion.V5, will=will,
                                  clean_start=False, properties=props, tls_context=self._tls,
                                  keepalive=KEEPALIVE_S, timeout=10,
                                  # small messages, each waited for: Nagle's delay would add ~40 ms to each
                                  socket_options=((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),),
                                  max_queued_incoming_messages=10_000) as client:
            client.pending_calls_threshold = IN_FLIGHT  # aiomqtt warns past its own 10; ours are bounded here
            for topic in self.subscriptions:
                await client.subscribe(topic, qos=1)
            self.problem = None
            self.connected.set()
            self._first.set()
            self._tell_status()
            if self.on_connect is not None:
                try:
                    self.on_connect()
                except Exception:  # noqa: BLE001 - the table's follow-up must not drop the connection
                    log.exception("after connecting")
            sender = asyncio.create_task(self._send(client, box))
            stopper = asyncio.create_task(self._wait_stop())
            reader = asyncio.create_task(self._read(client))
            done, _ = await asyncio.wait({sender, reader, stopper}, return_when=asyncio.FIRST_COMPLETED)
            for task in (sender, reader, stopper):
                task.cancel()
            await asyncio.gather(sender, reader, stopper, return_exceptions=True)
            for task in done:
                if task is not stopper and task.exception() is not None:
                    raise task.exception()  # type: ignore[misc]

    async def _wait_stop(self) -> None:
        while not self._stopping.is_set():
            await asyncio.sleep(0.05)

    async def _send(self, client: aiomqtt.Client, box: asyncio.Queue[Outgoing]) -> None:
        """Publish in order, up to IN_FLIGHT messages awaiting the broker's acknowledgement at once.

        One message per round trip (publish, wait for PUBACK, publish the next) made each
        event's state wait behind the event's own messages: a round trip per message, more on
        a busy table or a slow Wi-Fi. The messages still leave in the order they were handed
        over (one connection, written in turn); whatever the broker has not acknowledged when
        the session ends goes first again once the link is back, in its order (a receiver drops
        the duplicate of one that had arrived)."""
        inflight: collections.deque[tuple[Outgoing, asyncio.Task[None]]] = collections.deque()
        room = asyncio.Semaphore(IN_FLIGHT)
        broken = asyncio.Event()
        failure: list[BaseException] = []
        watch = asyncio.create_task(broken.wait())
        getter: asyncio.Task[Outgoing] | None = None

        def acked(task: asyncio.Task[None]) -> None:
            room.release()
            if not _taken(task):
                if not task.cancelled():
                    failure.append(task.exception())  # type: ignore[arg-type]
                broken.set()
                return
            while inflight and inflight[0][1].done() and _taken(inflight[0][1]):
                inflight.popleft()
            self._sending = bool(inflight)

        try:
            while True:
                await room.acquire()
                if box.empty():
                    getter = asyncio.create_task(box.get())
                    await asyncio.wait({getter, watch}, return_when=asyncio.FIRST_COMPLETED)
                if broken.is_set():
                    raise failure[0] if failure else aiomqtt.MqttError("a publish was not acknowledged")
                if getter is not None:
                    out, getter = getter.result(), None
                else:
                    out = box.get_nowait()
                self._sending = True
                task = asyncio.create_task(client.publish(out.topic, out.payload, qos=out.qos, retain=out.retain,
                                                          timeout=10))
                inflight.append((out, task))
                task.add_done_callback(acked)
        finally:
            watch.cancel()
            again = [out for out, task in inflight if not (task.done() and _taken(task))]
            for _, task in inflight:
                task.remove_done_callback(acked)
                task.cancel()
            if getter is not None:
                if getter.done() and not getter.cancelled():
                    again.append(getter.result())
                else:
                    getter.cancel()
            while not box.empty():
                again.append(box.get_nowait())
            for item in again:
                box.put_nowait(item)
            self._sending = False

    async def _read(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            payload = message.payload
            if not isinstance(payload, (bytes, bytearray)):
                payload = str(payload).encode() if payload is not None else b""
            for handle in (self.on_message, *self.observers):
                try:
                    handle(str(message.topic), bytes(payload))
                except Exception:  # noqa: BLE001 - one message's fault must not drop the link
                    log.exception("a message on %s could not be handled", message.topic)
