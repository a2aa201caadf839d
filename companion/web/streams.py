"""The page's event streams: server-sent events with the whole state its viewer may see,
sent again whenever the service changes."""
from __future__ import annotations

import asyncio
import collections
import json
import threading
from typing import Any

from aiohttp import web

from companion.stream import Update
from companion.web.guard import Who, drop_dead_peers

WRITE_TIMEOUT_S = 30.0  # an event-stream reader that takes no data for this long is dropped
KEEPALIVE_S = 15.0  # an event-stream comment line, so that proxies and phones keep it open
STREAMS_PER_ADDRESS = 4  # event streams from one address: a sleeping phone leaves dead ones behind


def dumps(obj: object) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


class EventStreams:
    """Server-sent events from the one event loop: the whole state whenever it changes.

    The service's stream of updates wakes the loop; each stream then writes the state its
    viewer may see. No thread per connection. `app` is the page's `companion.web.app.WebApp`:
    it says who asks (`who`) and what they may see (`state`)."""

    def __init__(self, app: Any, loop: asyncio.AbstractEventLoop) -> None:
        self.app = app
        self.loop = loop
        self.changed = asyncio.Event()
        self.closing = threading.Event()
        self.by_address: dict[str, collections.deque] = {}
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

    async def serve(self, request: web.Request, who: Who) -> web.StreamResponse:
        streams = self.by_address.setdefault(who.address, collections.deque())
        while len(streams) >= STREAMS_PER_ADDRESS:  # the oldest is most likely a phone that went to sleep
            old = streams.popleft()
            if old.transport is not None:
                old.transport.abort()
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "X-Accel-Buffering": "no"})
        resp.force_close()
        await resp.prepare(request)
        drop_dead_peers(request.transport)
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
        self.subscription.close()
        self.wake()
