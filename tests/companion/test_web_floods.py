"""Floods and bad text against the web page: pairings from one address, event streams from
many, lone surrogates in every body field, a fault inside the service. Outcomes only, no
timing (scripts/hostile_clients.py measures the latency): the Pi's own screen and the paired
phones still get their answers, and nothing answers 5xx from a client's input.

Sources are real loopback addresses (127.A.B.C all reach the server on 127.0.0.1), so the
per-address and per-network caps see what they would see on a Wi-Fi."""
from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from phone import HOST_PIN, PIN, Phone

from companion.service import Service
from companion.web.app import BAD_TEXT, FAULT, ROLES
from companion.web.pairing import MAX_TOKENS, PAIRINGS_PER_ADDRESS, Pairings
from companion.web.server import WebServer
from companion.web.streams import GUEST_STREAMS, GUEST_STREAMS_PER_NETWORK, RESERVE, STREAMS_PER_ADDRESS


@pytest.fixture
def table(trusted_web_service: tuple[Service, WebServer, int]) -> tuple[Service, WebServer, int]:
    return trusted_web_service


@pytest.fixture
def patient(trusted_web_service: tuple[Service, WebServer, int]) -> Iterator[tuple[Service, WebServer, int]]:
    """The same table with the default head timeout: hundreds of connections at once keep a
    slow machine's event loop busy for longer than the fixture's 0.5 s."""
    service, web, _ = trusted_web_service
    server = WebServer(service, replace(web.settings, head_timeout_s=10.0, body_timeout_s=10.0),
                       lights=web.app.lights, simulated=web.app.simulated)
    server.start()
    yield service, server, server.sock.getsockname()[1]
    server.stop()


# --- pairings ---------------------------------------------------------------------------
def test_a_pairing_flood_from_one_address_unpairs_nobody_else(table) -> None:
    _, web, port = table
    phones = [Phone(port, f"127.0.0.{20 + i}") for i in range(3)]
    for i, phone in enumerate(phones):
        phone.pair()
        phone.sit(i)
    flooder = Phone(port, "127.0.0.66")
    for _ in range(MAX_TOKENS):  # enough to push every other pairing out of a store that keeps the newest
        flooder.cookie = flooder.csrf = None  # each a new device, as far as the server can tell
        status, out = flooder.post("/api/pair", {"pin": PIN})
        assert status == 200, out
    for i, phone in enumerate(phones):
        st = phone.state()
        assert st["paired"] is True and st["me"]["seat"] == i
        assert phone.post("/api/seat", {"seat": i})[0] == 200
    assert sum(1 for p in web.app.pairings.tokens.values() if p.address == "127.0.0.66") == PAIRINGS_PER_ADDRESS


def test_a_full_store_makes_room_only_from_the_new_pairings_own_address(tmp_path: Path) -> None:
    store = tmp_path / "p.json"
    p = Pairings("424242", store)
    first = [p.pair(f"10.0.{i // 200}.{i % 200}", pin="424242").token for i in range(MAX_TOKENS)]
    assert all(first) and len(p.tokens) == MAX_TOKENS
    refused = p.pair("10.9.9.9", pin="424242")  # a new address: nobody else's pairing is pushed out
    assert refused.full and refused.token is None and not refused.wait_s
    assert all(p.pairing(t) is not None for t in first)
    again = p.pair("10.0.0.5", pin="424242")  # an address already in it: its own oldest makes room
    assert again.ok and p.pairing(first[5]) is None and all(p.pairing(t) for t in first[:5] + first[6:])
    assert len(Pairings("424242", store).tokens) == MAX_TOKENS  # and so the file says


def test_a_full_store_is_one_clear_line(table, monkeypatch) -> None:
    _, web, port = table
    monkeypatch.setattr("companion.web.pairing.MAX_TOKENS", 2)
    Phone(port, "127.0.0.20").pair()
    Phone(port, "127.0.0.21").pair()
    status, out = Phone(port, "127.0.0.22").post("/api/pair", {"pin": PIN})
    assert status == 409 and "paired devices" in out["error"] and "\n" not in out["error"]


# --- event streams ----------------------------------------------------------------------
async def open_stream(port: int, source: str, cookie: str | None = None) -> tuple[int, asyncio.StreamWriter | None]:
    """An event stream from `source`: its status (0: no answer) and, if it stays open, its writer."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    except OSError:
        return 0, None
    head = f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n{'Cookie: ' + cookie + chr(13) + chr(10) if cookie else ''}\r\n"
    writer.write(head.encode())
    try:
        line = await asyncio.wait_for(reader.readline(), 30)
    except (asyncio.TimeoutError, ConnectionError):
        line = b""
    status = int(line.split()[1]) if line.startswith(b"HTTP/1.1 ") else 0
    if status != 200:
        writer.transport.abort()
        return status, None
    return status, writer


def attackers() -> list[str]:
    """128 addresses in 4 networks (/24s) of 32 each."""
    return [f"127.0.{net}.{host}" for net in (101, 102, 103, 104) for host in range(10, 42)]


def test_many_event_streams_leave_room_for_the_pi_and_the_paired_phones(patient) -> None:
    service, web, port = patient
    local = Phone(port, "127.0.0.1", host=f"localhost:{port}")
    phones = [Phone(port, f"127.0.0.{20 + i}") for i in range(3)]
    for i, phone in enumerate(phones):
        phone.pair()
        phone.sit(i)

    async def flood() -> tuple[list[int], list[int], list[int], list[asyncio.StreamWriter]]:
        opened = await asyncio.gather(*(open_stream(port, a) for a in attackers() for _ in range(STREAMS_PER_ADDRESS)))
        held = [w for _, w in opened if w is not None]
        loop = asyncio.get_running_loop()
        # with the flood's streams held open: the Pi's screen and the phones, requests and streams
        answers = [await loop.run_in_executor(None, lambda: local.get("/api/state")[0])]
        for phone in phones:
            answers.append(await loop.run_in_executor(None, lambda: phone.get("/api/state")[0]))
        answers.append(await loop.run_in_executor(None, lambda: local.post("/api/mode", {"mode": "training"})[0]))
        trusted = [await open_stream(port, "127.0.0.1")]
        trusted += [await open_stream(port, p.source, p.cookie) for p in phones for _ in range(2)]
        held += [w for _, w in trusted if w is not None]
        return [s for s, _ in opened], answers, [s for s, _ in trusted], held

    flooded, answers, trusted, _ = asyncio.run(closing(flood))
    assert len(flooded) == 512 and not [s for s in flooded if s >= 500 and s != 503]
    assert 0 < flooded.count(200) <= GUEST_STREAMS and flooded.count(429) >= 512 - GUEST_STREAMS - RESERVE
    assert answers == [200] * 5 and trusted == [200] * 7
    streams = web.app.streams
    assert streams is not None
    guests = [s for s in streams.open if not s.trusted]
    assert len(guests) <= GUEST_STREAMS and len(streams.open) <= GUEST_STREAMS + RESERVE
    for net in {s.network for s in guests}:
        assert sum(1 for s in guests if s.network == net) <= GUEST_STREAMS_PER_NETWORK


def test_a_paired_phone_gets_a_stream_when_every_place_is_taken(patient, monkeypatch) -> None:
    """Guests fill their share, paired streams the reserve: the next paired one closes the guest
    stream idle longest."""
    service, web, port = patient
    monkeypatch.setattr("companion.web.streams.GUEST_STREAMS", 4)
    monkeypatch.setattr("companion.web.streams.RESERVE", 2)
    phones = [Phone(port, f"127.0.0.{20 + i}") for i in range(3)]
    for phone in phones:
        phone.pair()

    async def fill() -> tuple[list[int], list[int], list[asyncio.StreamWriter]]:
        guests = [await open_stream(port, f"127.0.{110 + i}.1") for i in range(5)]
        paired = [await open_stream(port, p.source, p.cookie) for p in phones]
        return [s for s, _ in guests], [s for s, _ in paired], [w for _, w in guests + paired if w]

    guests, paired, _ = asyncio.run(closing(fill))
    assert guests == [200, 200, 200, 200, 429]  # the guests' share is 4
    assert paired == [200, 200, 200]  # 2 in the reserve, then the oldest guest made room
    assert web.app.streams is not None and web.app.streams.evicted >= 1


async def closing(make):
    """Run `make` (its last result: the streams it left open), then close those streams."""
    *results, held = await make()
    for w in held:
        w.transport.abort()
    return (*results, held)


# --- text that is not Unicode -------------------------------------------------------------
FIELDS = {"card": ("card", "seat"), "give": ("card", "seat"), "sitout": ("seat",), "discard": ("redraw", "seat"),
          "hint": ("seat",), "play": ("index", "seat"), "undo": ("seat", "table"), "move": ("from", "to"),
          "settle": ("x",), "disc": ("direction",), "newgame": ("variant", "players"), "mode": ("mode",),
          "bots": ("seats",), "position": ("position",), "turn": ("seat",), "board": ("position",),
          "exchange": ("x",), "lang": ("lang",), "bot": ("x",), "free": ("seat",), "handover": ("table", "to"), "seat": ("seat",),
          "pair": ("pin", "code")}


def test_lone_surrogates_in_any_field_are_a_400_without_a_traceback(table, caplog) -> None:
    service, _, port = table
    assert set(FIELDS) == set(ROLES) | {"pair"}
    host = Phone(port)
    host.pair(HOST_PIN)
    before = len(service.journal.events(service.game_id))
    caplog.set_level(logging.INFO)
    for name, fields in FIELDS.items():
        for key in fields:
            for value in ("\ud800", "a\udfffb", ["\udc00"], {"x": {"y": ["\ud83d"]}}):
                status, out = host.post(f"/api/{name}", {key: value})
                assert status == 400 and out == {"error": BAD_TEXT}, (name, key, value, status, out)
        status, out = host.post(f"/api/{name}", {"\ud800": 1})  # in a key
        assert status == 400 and out == {"error": BAD_TEXT}, name
    assert len(service.journal.events(service.game_id)) == before
    assert not [r for r in caplog.records if r.exc_info], [r.getMessage() for r in caplog.records if r.exc_info]
    assert host.state()["phase"] == "exchange"


def test_a_fault_in_the_service_is_logged_once_and_answered_with_words(table, caplog, monkeypatch) -> None:
    service, web, port = table
    host = Phone(port)
    host.pair(HOST_PIN)

    def broken(*args, **kwargs):
        raise RuntimeError("a fault")

    monkeypatch.setattr(service, "submit", broken)
    monkeypatch.setattr(service, "export", broken)
    caplog.set_level(logging.INFO)
    status, out = host.post("/api/mode", {"mode": "training"})
    assert status == 503 and out == {"error": FAULT}
    assert Phone(port, "127.0.0.3").get("/api/export") == (503, {"error": FAULT})
    faults = [r for r in caplog.records if r.exc_info]
    assert len(faults) == 2 and all("a fault" in str(r.exc_info[1]) for r in faults)
    assert "Traceback" not in json.dumps(out)
    monkeypatch.undo()
    assert host.post("/api/mode", {"mode": "training"})[0] == 200
