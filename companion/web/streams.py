"""The page's event streams: server-sent events with the whole state its viewer may see,
sent again whenever the service changes.

A stream holds its connection for as long as the page is open, so streams are capped before
they can hold every connection the server has: per address, per network (/24, IPv6 /64) and
in all for guests, with a reserve beyond that only the Pi's own screen and paired devices
get. When even that is full, a paired device's stream closes the guest stream idle longest
(a guest's page still reads /api/state; a player needs the live state to play).
"""
from __future__ import annotations

import asyncio
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from companion.stream import Update
from companion.web.guard import Who, drop_dead_peers
from companion.web.pairing import network_key

WRITE_TIMEOUT_S = 30.0  # an event-stream reader that takes no data for this long is dropped
KEEPALIVE_S = 15.0  # an event-stream comment line, so that proxies and phones keep it open
STREAMS_PER_ADDRESS = 4  # event streams from one address: a sleeping phone leaves dead ones behind
# guests' streams: a club's Wi-Fi is one /24, a watcher needs one stream, and the server's 512
# connections must stay mostly free for requests (each stream holds one for good)
GUEST_STREAMS_PER_NETWORK = 32
GUEST_STREAMS = 64
# beyond the guests' share, for the Pi's own screen and paired devices only: six players'
# phones and the Pi, each with a few tabs or a stream a sleeping phone left behind
RESERVE = 32
RETRY_S = 30  # what a refused guest is told to wait


def dumps(obj: object) -> bytes:
    # a lone surrogate (from a client's text) is written as its JSON escape, never a failure
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "backslashreplace")


@dataclass(eq=False)
class Stream:
    request: web.Request
    address: str
    network: str
    trusted: bool  # the Pi's own screen or a paired device
    since: float = field(default_factory=time.monotonic)  # its last write: idle longest is closed first

    def close(self) -> None:
        if self.request.transport is not None:
            self.request.transport.abort()


class EventStreams:
    """Server-sent events from the one event loop: the whole state whenever it changes.

    The service's stream of updates wakes the loop; each stream then writes the state its
    viewer may see. No thread per connection. `app` is the page's `companion.web.app.WebApp`:
    it says who asks (`who`), what they may see (`state`) and who holds which seat (`pairings`)."""

    def __init__(self, app: Any, loop: asyncio.AbstractEventLoop) -> None:
        self.app = app
        self.loop = loop
        self.changed = asyncio.Event()
        self.closing = threading.Event()
        self.open: list[Stream] = []  # oldest first
        self.encoded: dict[tuple, bytes] = {}  # (version, seats version, seat, paired, host) -> message
        self.encoding = asyncio.Lock()
        self.refused = 0
        self.evicted = 0
        self.subscription = app.service.subscribe("web", self._on_update)

    def _on_update(self, update: Update) -> None:
        if self.closing.is_set():
            return
        try:
            self.loop.call_soon_threadsafe(self.wake)
        except RuntimeError:  # the loop closed while stopping
            pass

    def wake(self) -> None:
        changed, self.changed = self.changed, asyncio.Event()
        changed.set()

    def admit(self, new: Stream) -> bool:
        """Room for a new stream under the caps, made by closing older ones where the caps allow."""
        own = [s for s in self.open if s.address == new.address]
        while len(own) >= STREAMS_PER_ADDRESS:  # the oldest is most likely a phone that went to sleep
            self._drop(own.pop(0))
        guests = [s for s in self.open if not s.trusted]
        if not new.trusted:
            return (len(guests) < GUEST_STREAMS
                    and sum(1 for s in guests if s.network == new.network) < GUEST_STREAMS_PER_NETWORK
                    and len(self.open) < GUEST_STREAMS + RESERVE)
        if len(self.open) >= GUEST_STREAMS + RESERVE:
            self._drop(min(guests or self.open, key=lambda s: s.since))
        return True

    def _drop(self, stream: Stream) -> None:
        if stream in self.open:
            self.open.remove(stream)
            self.evicted += 1
        stream.close()

    async def serve(self, request: web.Request, who: Who) -> web.StreamResponse:
        stream = Stream(request, who.address, network_key(who.address), who.paired)
        if not self.admit(stream):
            self.refused += 1
            resp = web.Response(status=429, body=dumps({"error": "too many live views from this network: the page "
                                                        "shows the table without live updates for now"}),
                                content_type="application/json", headers={"Retry-After": str(RETRY_S)})
            resp.force_close()
            return resp
        self.open.append(stream)
        try:
            resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "X-Accel-Buffering": "no"})
            resp.force_close()
            await resp.prepare(request)
            drop_dead_peers(request.transport)
            await self._send(request, resp, stream)
        except (ConnectionError, asyncio.TimeoutError):
            pass
        finally:
            if stream in self.open:
                self.open.remove(stream)
        return resp

    async def _send(self, request: web.Request, resp: web.StreamResponse, stream: Stream) -> None:
        sent = None
        while not (self.closing.is_set() or self.app.service.stopping.is_set()) and stream in self.open:
            changed = self.changed
            who = self.app.who(request)  # a seat taken, or a pairing expired, since the last state
            key = (self.app.service.version, self.app.pairings.seats_version, who.seat, who.paired, who.host)
            if key != sent:
                sent = key
                await asyncio.wait_for(resp.write(await self._message(who, key)), WRITE_TIMEOUT_S)
                stream.since = time.monotonic()
                continue
            try:
                await asyncio.wait_for(changed.wait(), KEEPALIVE_S)
            except asyncio.TimeoutError:
                await asyncio.wait_for(resp.write(b": keep-alive\n\n"), WRITE_TIMEOUT_S)
                stream.since = time.monotonic()

    async def _message(self, who: Who, key: tuple) -> bytes:
        """The state's message for a viewer. Viewers alike (every guest, say) share one encoding:
        the state is tens of KiB of JSON, and a room of streams wants it at every change."""
        if who.local:  # the only viewer shown the PINs and the pairing link (which changes on its own)
            return b"data: " + dumps(await self.app.state(who)) + b"\n\n"
        async with self.encoding:  # streams opened at once wait for the first one's encoding
            if self.encoded and next(iter(self.encoded))[:2] != key[:2]:
                self.encoded.clear()  # a new version: the old messages are gone for good
            message = self.encoded.get(key)
            if message is None:
                message = b"data: " + dumps(await self.app.state(who)) + b"\n\n"
                if key[:2] == (self.app.service.version, self.app.pairings.seats_version):  # not changed meanwhile
                    self.encoded[key] = message
            return message

    def close(self) -> None:
        self.closing.set()
        self.subscription.close()
        self.wake()
