"""Hostile clients against the real table service, on loopback only (127.0.0.x).

Starts `dogtable sim` (bots playing) as its own process on 127.0.0.1, then three floods
one after the other:
1. all at once: malformed requests (fuzzed request lines, headers, lengths, bodies, JSON),
   bodies that announce or stream hundreds of MiB, idle connections, slow clients
   (slowloris headers and bodies), wrong PINs from one address;
2. pairings: the right PIN, again and again from one address (each try a new device);
3. event streams: 512 at once from 128 addresses in 4 networks (/24), held open.
Meanwhile a paired phone (127.0.0.2, holding Red's seat) and the Pi's own screen (127.0.0.1,
the host), each in its own process, measure their request latency; an event stream must
keep flowing, another address must still pair, the phones paired before the pairing flood
stay paired, and the phone still gets an event stream during the stream flood. Prints the
figures per flood, and the service's peak memory and thread count against the systemd
unit's MemoryMax=300M and TasksMax=64. The bar, per flood: the phone and the Pi's screen
answered in < 100 ms p99, none of their answers 5xx.

    .venv/bin/python scripts/hostile_clients.py                     # the full run
    .venv/bin/python scripts/hostile_clients.py --malformed 300 --idle 50 --slow 20 --pairings 300 --streams 512  # quick

Exit code 1 if a bar is missed. tests/companion/test_web_hostile.py runs a small seeded
version and asserts the outcomes (never the timing).

Over 600 lines: one script, so that one command measures every flood against the same
running service and the same two meters; each flood is a function of its own.
"""
from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import multiprocessing
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MEMORY_MAX_MB = 300  # systemd/dogtable.service
TASKS_MAX = 64
PIN = "424242"
HOST_PIN = "135790"
PHONE = "127.0.0.2"
SCREEN = "127.0.0.1"  # the Pi's own browser: trusted without pairing, the host
PAIRER = "127.0.0.77"  # the pairing flood
OTHER = "127.0.0.3"  # pairs while the flood goes on
GUESSER = "127.0.0.4"  # the wrong PINs
FUZZER_PAIRED = "127.0.0.5"  # malformed bodies with a valid cookie and token: the actions' own checks
ACTIONS = ["card", "undo", "hint", "exchange", "sitout", "discard", "turn", "mode", "position", "move", "settle",
           "disc", "bot", "bots", "board", "lang", "newgame", "seat", "pair", "nothing", "../etc", "%00"]


@dataclass
class Meter:
    """What one well-behaved client saw during one flood."""

    ms: list[float] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)  # answer status (0: no answer) -> count

    @property
    def server_errors(self) -> int:
        return sum(n for status, n in self.statuses.items() if status >= 500)

    @property
    def failures(self) -> int:
        return sum(n for status, n in self.statuses.items() if status != 200)


@dataclass
class Flood:
    name: str
    began: float = 0.0
    ended: float = 0.0
    phone: Meter = field(default_factory=Meter)
    screen: Meter = field(default_factory=Meter)
    answers: Counter = field(default_factory=Counter)  # what the flood's own requests were answered
    notes: list[str] = field(default_factory=list)
    ok: bool = True  # what the flood must leave working still works (see notes)

    def failed(self) -> list[str]:
        bad = [] if self.ok else [f"{self.name}: {'; '.join(self.notes)}"]
        for who, m in (("phone", self.phone), ("Pi's screen", self.screen)):
            if not m.ms:
                bad.append(f"{self.name}: no requests from the {who}")
                continue
            if m.server_errors:
                bad.append(f"{self.name}: {m.server_errors} answers 5xx to the {who}")
            if m.failures:
                bad.append(f"{self.name}: {m.failures} requests of the {who} failed")
            if _pct(m.ms, 99) >= 100:
                bad.append(f"{self.name}: {who} p99 {_pct(m.ms, 99):.1f} ms >= 100 ms")
        return bad


@dataclass
class Report:
    malformed: Counter = field(default_factory=Counter)  # answer status (or "closed") -> count
    server_errors: int = 0
    huge_bodies: list[int] = field(default_factory=list)  # bytes the server took before it closed
    idle_opened: int = 0
    idle_refused: int = 0
    idle_closed_after: list[float] = field(default_factory=list)
    slow_opened: int = 0
    slow_closed_after: list[float] = field(default_factory=list)
    slow_answers: Counter = field(default_factory=Counter)
    wrong_pins: list[int] = field(default_factory=list)
    other_paired: bool = False
    phone_ms: list[float] = field(default_factory=list)  # during the attack
    quiet_ms: list[float] = field(default_factory=list)  # before it: what the machine's own load gives
    phone_failures: int = 0
    service_cpu_s: float = 0.0
    stream_events: int = 0
    stream_alive: bool = False
    peak_rss_mb: float = 0.0
    max_threads: int = 0
    answers_at_end: bool = False
    floods: list[Flood] = field(default_factory=list)

    def p99(self) -> float:
        return _pct(self.phone_ms, 99)

    def failed(self) -> list[str]:
        bad = []
        if not self.answers_at_end:
            bad.append("the service no longer answers")
        if self.server_errors:
            bad.append(f"{self.server_errors} answers 5xx")
        if not self.other_paired:
            bad.append("another address could not pair")
        if self.phone_failures or not self.phone_ms:
            bad.append(f"the paired phone failed {self.phone_failures} requests")
        elif self.p99() >= 100:
            bad.append(f"phone p99 {self.p99():.1f} ms >= 100 ms")
        if self.peak_rss_mb >= MEMORY_MAX_MB:
            bad.append(f"peak RSS {self.peak_rss_mb:.0f} MB >= MemoryMax")
        if self.max_threads >= TASKS_MAX:
            bad.append(f"{self.max_threads} threads >= TasksMax")
        if not self.stream_alive:
            bad.append("the event stream stopped")
        for flood in self.floods:
            bad += flood.failed()
        return bad


def _pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


# --- the service --------------------------------------------------------------------------
def start_service(workdir: Path, head_timeout: float, body_timeout: float) -> tuple[subprocess.Popen, int, Path]:
    cfg = workdir / "hostile.toml"
    cfg.write_text(f"[web]\nhead_timeout_s = {head_timeout}\nbody_timeout_s = {body_timeout}\n"
                   f"host_pin = \"{HOST_PIN}\"\n[service]\nbot_delay_s = 0.3\n")
    out = workdir / "service.log"
    cmd = [sys.executable, "-m", "companion.cli", "sim", "--port", "0", "--no-browser", "--host", "127.0.0.1",
           "--pin", PIN, "--bots", "1,3", "--journal", str(workdir / "hostile.sqlite"), "--config", str(cfg)]
    proc = subprocess.Popen(cmd, stdout=out.open("w"), stderr=subprocess.STDOUT, cwd=ROOT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        m = re.search(r"open http://localhost:(\d+)/", out.read_text())
        if m:
            return proc, int(m.group(1)), out
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    raise SystemExit(f"dogtable sim did not start:\n{out.read_text()}")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def sample(pid: int) -> tuple[float, int]:
    """Peak RSS so far (VmHWM, MB) and the thread count of the service process."""
    text = Path(f"/proc/{pid}/status").read_text()
    hwm = int(re.search(r"VmHWM:\s+(\d+)", text).group(1)) / 1024  # type: ignore[union-attr]
    threads = int(re.search(r"Threads:\s+(\d+)", text).group(1))  # type: ignore[union-attr]
    return hwm, threads


# --- a client that behaves: pairing, then requests --------------------------------------------
def request(port: int, source: str, method: str, path: str, body: object = None,
            headers: dict[str, str] | None = None, timeout: float = 10) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
    try:
        data = None if body is None else json.dumps(body).encode()
        sent = {"Content-Type": "application/json", **(headers or {})}
        conn.request(method, path, body=data, headers=sent)
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


def pair(port: int, source: str, pin: str = PIN) -> tuple[int, str | None, str | None]:
    """(status, cookie, csrf token) of one pairing try from `source`."""
    _, _, raw = request(port, source, "GET", "/api/csrf")
    csrf = json.loads(raw)["csrf"]
    status, headers, raw = request(port, source, "POST", "/api/pair", {"pin": pin}, {"X-Dogtable-CSRF": csrf})
    if status != 200:
        return status, None, None
    return status, headers["set-cookie"].split(";")[0], json.loads(raw)["csrf"]


def meter(port: int, role: str, stop, results) -> None:
    """A client that behaves, in its own process so that the attack's own loop does not skew it:
    a new connection per request (as after a phone wakes), state mostly, now and then a change.
    "phone": paired with the PIN, it holds Red's seat (a bot plays 1 and 3); "screen": the Pi's
    own browser, the host, which changes the language."""
    if role == "phone":
        source = PHONE
        status, cookie, csrf = pair(port, source)
        assert status == 200 and cookie and csrf
        headers = {"Cookie": cookie, "X-Dogtable-CSRF": csrf}
        assert request(port, source, "POST", "/api/seat", {"seat": 0}, headers)[0] == 200
    else:
        source = SCREEN
        headers = {"X-Dogtable-CSRF": json.loads(request(port, source, "GET", "/api/csrf")[2])["csrf"]}
    times, n = [], 0  # (monotonic start, ms, status): CLOCK_MONOTONIC is the same in every process
    while not stop.is_set():
        n += 1
        started, t = time.monotonic(), time.perf_counter()
        try:
            if n % 10 == 0 and role == "phone":
                status, _, _ = request(port, source, "POST", "/api/seat", {"seat": 0}, headers)
            elif n % 10 == 0:
                status, _, _ = request(port, source, "POST", "/api/lang", {"lang": "de" if n % 20 else "en"}, headers)
            else:
                status, _, _ = request(port, source, "GET", "/api/state", headers=headers)
        except OSError:
            status = 0
        times.append((started, (time.perf_counter() - t) * 1000, status))
        time.sleep(0.03)
    results.put((role, times))


# --- the hostile ones ---------------------------------------------------------------------
def fuzzed(rng: random.Random, port: int, paired: tuple[str, str] | None) -> bytes:
    """One malformed request: what a broken or hostile client might send."""
    host = f"127.0.0.1:{port}"
    action = rng.choice(ACTIONS)
    junk_json = rng.choice([
        b"{", b"[]", b"null", b'"x"', b"1e999999", b"{" * 5000, b"[" * 60000, b'{"card": {"$gt": 1}}',
        b'{"seat": 99999999999999999999999}', b'{"seat": -1}', b'{"position": "' + b"\\ud800" * 50 + b'"}',
        json.dumps({"from": "T" * 1000, "to": None, "seats": ["a", 1.5, True], "variant": "\x00",
                    "players": 2**70, "lang": ["en"], "direction": "1"}).encode(),
        bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 200))),
        json.dumps({"pin": "".join(chr(rng.randint(0x20, 0x2FFF)) for _ in range(rng.randint(0, 40)))}).encode(),
    ])
    kind = rng.randrange(12)
    if kind == 0:  # random bytes for a request line
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 300))) + b"\r\n\r\n"
    if kind == 1:  # mutated request line
        method = rng.choice([b"GET", b"POST", b"PUT", b"DELETE", b"G\x00T", b"CONNECT", b"TRACE", b"x" * 100])
        path = rng.choice([b"/", b"/api/state", b"/../../etc/passwd", b"/static/../server.py", b"/" + b"a" * 9000,
                           b"/%00", b"*", b"http://evil/", b"/api/" + action.encode()])
        version = rng.choice([b"HTTP/1.1", b"HTTP/1.0", b"HTTP/2.0", b"HTTP/9", b"", b"HTTP/1.1 extra"])
        return method + b" " + path + b" " + version + f"\r\nHost: {host}\r\n\r\n".encode()
    if kind == 2:  # header garbage
        lines = rng.choice([[b"NoColonHere"], [b"X: " + b"v" * 20000], [b"X-%d: y" % i for i in range(300)],
                            [b"X:\x00\x01\x02"], [b"\xff\xfe: \xff"], [b" continued: line"], [b"Host: a", b"Host: b"]])
        return b"GET /api/state HTTP/1.1\r\nHost: " + host.encode() + b"\r\n" + b"\r\n".join(lines) + b"\r\n\r\n"
    if kind == 3:  # lengths
        length = rng.choice([b"-1", b"-99999999", b"abc", b"1e9", b"0x10", b"18446744073709551616", b"300000000",
                             b"65537", b"5, 7", b""])
        extra = rng.choice([b"", b"Transfer-Encoding: chunked\r\n", b"Content-Length: 3\r\n"])
        return (f"POST /api/{action} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n".encode()
                + b"Content-Length: " + length + b"\r\n" + extra + b"\r\n{}")
    if kind == 4:  # chunked with lies
        return (f"POST /api/{action} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                "Transfer-Encoding: chunked\r\n\r\n").encode() + rng.choice([b"zz\r\n", b"ffffffff\r\n{}", b"0\r\n\r\n"])
    if kind == 5:  # foreign Host or Origin
        hdr = rng.choice([b"Host: rebind.evil.example", b"Host: " + host.encode() + b"\r\nOrigin: http://evil.example",
                          b"Host: ", b"Host: [::1", b"Host: \xff\xfe"])
        body = b'{"pin":"424242"}'
        return (f"POST /api/{action} HTTP/1.1\r\n".encode() + hdr + b"\r\nContent-Type: application/json\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    if kind in (6, 7, 8) and paired is not None:  # junk JSON to every action, paired: the actions' own checks
        cookie, csrf = paired
        return (f"POST /api/{action} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                f"Cookie: {cookie}\r\nX-Dogtable-CSRF: {csrf}\r\nContent-Length: {len(junk_json)}\r\n\r\n").encode() + junk_json
    if kind == 9:  # cookie and token garbage
        cookie = rng.choice(["dogtable_pair=" + "A" * 5000, 'dogtable_pair="\\x"', "a=b; ; ;;=", "dogtable_pair=\x7f"])
        return (f"POST /api/undo HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nCookie: {cookie}\r\n"
                f"X-Dogtable-CSRF: {'z' * rng.randint(0, 100)}\r\nContent-Length: 2\r\n\r\n{{}}").encode("utf-8", "replace")
    # unpaired junk
    return (f"POST /api/{action} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(junk_json)}\r\n\r\n").encode() + junk_json


async def read_status(reader: asyncio.StreamReader, timeout: float) -> int | str:
    try:
        line = await asyncio.wait_for(reader.readline(), timeout)
    except (asyncio.TimeoutError, ConnectionError):
        return "timeout"
    if not line:
        return "closed"
    parts = line.split()
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else "garbled"


async def malformed(port: int, count: int, seed: int, paired: tuple[str, str] | None, report: Report) -> None:
    rng = random.Random(seed)
    requests = [fuzzed(rng, port, paired) for _ in range(count)]
    sources = [f"127.0.0.{60 + i}" for i in range(8)] + [FUZZER_PAIRED]
    queue = asyncio.Queue()
    for i, data in enumerate(requests):
        queue.put_nowait((i, data))

    async def worker() -> None:
        while not queue.empty():
            i, data = queue.get_nowait()
            source = FUZZER_PAIRED if paired and paired[0] in data.decode("latin-1") else sources[i % (len(sources) - 1)]
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
            except OSError:
                report.malformed["connect failed"] += 1
                continue
            try:
                writer.write(data)
                await writer.drain()
                status = await read_status(reader, 15)
            except ConnectionError:
                status = "reset"
            finally:
                writer.transport.abort()
            report.malformed[status] += 1
            if isinstance(status, int) and status >= 500 and status != 503:
                report.server_errors += 1

    await asyncio.gather(*(worker() for _ in range(16)))


async def huge_bodies(port: int, count: int, report: Report) -> None:
    """A body far over the limit: announce 284 MiB and send it. The server must answer 413 and
    close without taking the body."""
    for i in range(count):
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(f"127.0.0.{80 + i}", 0))
        length = 284 * 1024 * 1024 if i % 2 else -1
        writer.write(f"POST /api/pair HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {length}\r\n\r\n".encode())
        sent, chunk = 0, b"9" * 65536
        try:
            while sent < 284 * 1024 * 1024:
                writer.write(chunk)
                await asyncio.wait_for(writer.drain(), 5)
                sent += len(chunk)
        except (ConnectionError, asyncio.TimeoutError):
            pass
        status = await read_status(reader, 5)
        if isinstance(status, int) and status >= 500:
            report.server_errors += 1
        report.huge_bodies.append(sent)
        writer.transport.abort()


async def idle(port: int, count: int, report: Report, deadline: float) -> None:
    """Connections that send nothing, from 20 addresses (a room full of sleeping phones)."""

    async def one(i: int) -> None:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(f"127.0.1.{i % 20 + 1}", 0))
        except OSError:
            report.idle_refused += 1
            return
        report.idle_opened += 1
        t = time.monotonic()
        try:
            first = await asyncio.wait_for(reader.read(200), deadline - time.monotonic())
            if first.startswith(b"HTTP/1.1 503"):
                report.idle_refused += 1
            else:  # closed: timed out, or made room for a newer connection
                report.idle_closed_after.append(time.monotonic() - t)
        except ConnectionError:
            report.idle_closed_after.append(time.monotonic() - t)
        except asyncio.TimeoutError:
            pass
        finally:
            writer.transport.abort()

    await asyncio.gather(*(one(i) for i in range(count)))


async def slow(port: int, count: int, report: Report, deadline: float, csrf: str) -> None:
    """Slowloris: a header byte a second; half of them a body byte a second instead (with the
    page's CSRF token, which any guest can read, so that the server would read the body)."""

    async def one(i: int) -> None:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(f"127.0.2.{i % 10 + 1}", 0))
        except OSError:
            return
        report.slow_opened += 1
        t = time.monotonic()
        if i % 2:
            writer.write(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        else:
            writer.write(b"POST /api/pair HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         b"X-Dogtable-CSRF: " + csrf.encode() + b"\r\nContent-Length: 1000\r\n\r\n{")
        try:
            while time.monotonic() < deadline:
                try:
                    got = await asyncio.wait_for(reader.read(200), 1.0)
                except asyncio.TimeoutError:
                    writer.write(b"a")  # one more byte of the header or body
                    await writer.drain()
                    continue
                if got.startswith(b"HTTP/"):
                    report.slow_answers[int(got.split()[1])] += 1
                report.slow_closed_after.append(time.monotonic() - t)
                return
        except ConnectionError:
            report.slow_closed_after.append(time.monotonic() - t)
        finally:
            writer.transport.abort()

    await asyncio.gather(*(one(i) for i in range(count)))


async def event_stream(port: int, cookie: str, report: Report, stop: asyncio.Event) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(PHONE, 0))
    writer.write(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookie}\r\n\r\n".encode())
    try:
        while not stop.is_set():
            try:
                line = await asyncio.wait_for(reader.readline(), 1.0)
            except asyncio.TimeoutError:
                continue
            if not line:
                return
            if line.startswith(b"data: "):
                report.stream_events += 1
        report.stream_alive = True
    finally:
        writer.transport.abort()


async def attack(port: int, args: argparse.Namespace, report: Report, flood: Flood) -> None:
    """Flood 1: malformed requests, huge bodies, idle and slow connections, wrong PINs, all at once."""
    loop = asyncio.get_running_loop()
    status, cookie, csrf = await loop.run_in_executor(None, pair, port, FUZZER_PAIRED)
    assert status == 200 and cookie and csrf
    _, stream_cookie, _ = await loop.run_in_executor(None, pair, port, PHONE)
    stream_stop = asyncio.Event()
    stream = asyncio.create_task(event_stream(port, stream_cookie or "", report, stream_stop))
    deadline = time.monotonic() + args.head_timeout * 3 + 20
    guest = json.loads((await loop.run_in_executor(None, request, port, "127.0.2.1", "GET", "/api/csrf"))[2])["csrf"]
    attacks = [idle(port, args.idle, report, deadline), slow(port, args.slow, report, deadline, guest),
               malformed(port, args.malformed, args.seed, (cookie, csrf), report), huge_bodies(port, 4, report)]

    async def pins() -> None:
        await asyncio.sleep(0.5)  # with the flood under way
        for n in range(args.wrong_pins):
            s, _, _ = await loop.run_in_executor(None, pair, port, GUESSER, f"{(n * 7919) % 10**6:06d}")
            report.wrong_pins.append(s)
        s, _, _ = await loop.run_in_executor(None, pair, port, OTHER)
        report.other_paired = s == 200

    flood.began = time.monotonic()
    await asyncio.gather(*attacks, pins())
    flood.ended = time.monotonic()
    flood.answers = Counter(report.malformed)
    stream_stop.set()
    await asyncio.sleep(0)
    await asyncio.gather(stream, return_exceptions=True)


def still_paired(port: int, source: str, cookie: str) -> bool:
    status, _, raw = request(port, source, "GET", "/api/state", headers={"Cookie": cookie})
    return status == 200 and json.loads(raw)["me"]["paired"] is True


async def pairing_flood(port: int, count: int, flood: Flood) -> None:
    """Flood 2: the right PIN `count` times from one address, each time as a new device (no
    cookie): the store keeps a few of that address's pairings, never at the others' cost."""
    loop = asyncio.get_running_loop()
    before = [(f"127.0.0.{30 + i}", (await loop.run_in_executor(None, pair, port, f"127.0.0.{30 + i}"))[1])
              for i in range(3)]
    flood.began = time.monotonic()
    for _ in range(count):
        status, _, _ = await loop.run_in_executor(None, pair, port, PAIRER)
        flood.answers[status] += 1
    flood.ended = time.monotonic()
    kept = [await loop.run_in_executor(None, still_paired, port, source, cookie or "") for source, cookie in before]
    flood.ok = all(kept)
    flood.notes.append(f"{sum(kept)} of the {len(kept)} phones paired before it still paired")


async def open_stream(port: int, source: str, cookie: str | None = None) -> tuple[int, asyncio.StreamWriter | None]:
    """An event stream from `source`: its status (0: no answer) and, if it stays open, its writer."""
    try:  # a state is one line, larger than asyncio's 64 KiB default
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0), limit=1 << 24)
    except OSError:
        return 0, None
    writer.write((f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  + (f"Cookie: {cookie}\r\n" if cookie else "") + "\r\n").encode())
    try:
        line = await asyncio.wait_for(reader.readline(), 30)
        status = int(line.split()[1]) if line.startswith(b"HTTP/1.1 ") else 0
        while status == 200 and line and not line.startswith(b"data: "):  # an open stream: up to its first state
            line = await asyncio.wait_for(reader.readline(), 30)
        if status == 200 and not line:
            status = 0
    except (asyncio.TimeoutError, ConnectionError, ValueError, IndexError):
        status = 0
    if status != 200:
        writer.transport.abort()
        return status, None
    return status, writer


async def stream_flood(port: int, count: int, hold_s: float, flood: Flood) -> None:
    """Flood 3: `count` event streams at once from 128 addresses in 4 networks (/24), held open
    for `hold_s`; meanwhile the phone opens a stream of its own, which must get the state."""
    loop = asyncio.get_running_loop()
    _, cookie, _ = await loop.run_in_executor(None, pair, port, PHONE)
    sources = [f"127.0.{201 + net}.{10 + host}" for net in range(4) for host in range(32)]
    flood.began = time.monotonic()
    opened = await asyncio.gather(*(open_stream(port, sources[i % len(sources)]) for i in range(count)))
    for status, _ in opened:
        flood.answers[status] += 1
    own, own_writer = await open_stream(port, PHONE, cookie)
    await asyncio.sleep(hold_s)
    flood.ended = time.monotonic()
    for _, writer in [*opened, (own, own_writer)]:
        if writer is not None:
            writer.transport.abort()
    flood.ok = own == 200
    flood.notes.append(f"the phone's own event stream during it: {'got the state' if own == 200 else f'answered {own}'}")


async def floods(port: int, pid: int, args: argparse.Namespace, report: Report) -> None:
    stop_sampling = asyncio.Event()

    async def sampler() -> None:
        while not stop_sampling.is_set():
            try:
                rss, threads = sample(pid)
            except (OSError, AttributeError):
                return
            report.peak_rss_mb, report.max_threads = max(report.peak_rss_mb, rss), max(report.max_threads, threads)
            await asyncio.sleep(0.1)

    sampling = asyncio.create_task(sampler())
    report.floods = [Flood("malformed, huge, idle, slow, wrong PINs"), Flood(f"{args.pairings} pairings from one address"),
                     Flood(f"{args.streams} event streams from 128 addresses")]
    await attack(port, args, report, report.floods[0])
    await pairing_flood(port, args.pairings, report.floods[1])
    await stream_flood(port, args.streams, args.hold_s, report.floods[2])
    stop_sampling.set()
    await sampling


def run(args: argparse.Namespace) -> Report:
    report = Report()
    with tempfile.TemporaryDirectory() as tmp:
        proc, port, log_path = start_service(Path(tmp), args.head_timeout, args.body_timeout)
        ctx = multiprocessing.get_context("fork")
        stop, results = ctx.Event(), ctx.Queue()
        meters = [ctx.Process(target=meter, args=(port, role, stop, results), daemon=True) for role in ("phone", "screen")]
        for m in meters:
            m.start()
        try:
            time.sleep(args.quiet_s)  # the phone and the screen alone first
            began, cpu = time.monotonic(), cpu_seconds(proc.pid)
            asyncio.run(floods(port, proc.pid, args, report))
            report.service_cpu_s = cpu_seconds(proc.pid) - cpu
            stop.set()
            measured = dict(results.get(timeout=60) for _ in meters)
            phone_times = measured["phone"]
            report.phone_failures = sum(1 for _, _, status in phone_times if status != 200)
            report.quiet_ms = [ms for t, ms, _ in phone_times if t < began]
            report.phone_ms = [ms for t, ms, _ in phone_times if report.floods[0].began <= t <= report.floods[0].ended]
            for flood in report.floods:
                for role, m in (("phone", flood.phone), ("screen", flood.screen)):
                    for t, ms, status in measured[role]:
                        if flood.began <= t <= flood.ended:
                            m.ms.append(ms)
                            m.statuses[status] += 1
            for m in meters:
                m.join(10)
            try:
                report.answers_at_end = request(port, "127.0.0.9", "GET", "/healthz")[0] == 200 and proc.poll() is None
            except OSError:
                report.answers_at_end = False
        finally:
            stop.set()
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
            for m in meters:
                if m.is_alive():
                    m.kill()
        report.log_tail = log_path.read_text()[-2000:]  # type: ignore[attr-defined]
    return report


def print_report(r: Report, args: argparse.Namespace) -> None:
    def ms(values: list[float]) -> str:
        return (f"median {statistics.median(values):.1f} / p95 {_pct(values, 95):.1f} / p99 {_pct(values, 99):.1f} "
                f"/ max {max(values):.1f}") if values else "none"

    def secs(values: list[float]) -> str:
        return f"median {statistics.median(values):.1f} s, max {max(values):.1f} s" if values else "none"

    answers = ", ".join(f"{k}: {v}" for k, v in sorted(r.malformed.items(), key=lambda kv: str(kv[0])))
    print(f"malformed requests: {sum(r.malformed.values())} ({answers}); 5xx: {r.server_errors}")
    print(f"bodies announcing 284 MiB or -1, then sent: {', '.join(f'{b // 1024} KiB' for b in r.huge_bodies)} "
          "written before the server closed the connection")
    early = sum(1 for t in r.idle_closed_after if t < 0.9 * args.head_timeout)
    print(f"idle connections: {r.idle_opened} opened from 20 addresses, {r.idle_refused} refused (503), "
          f"{len(r.idle_closed_after)} closed by the server after {secs(r.idle_closed_after)} "
          f"(head timeout {args.head_timeout} s; {early} of them early, to make room under the connection cap)")
    print(f"slow clients: {r.slow_opened} (half slow headers, half slow bodies), {len(r.slow_closed_after)} cut off "
          f"after {secs(r.slow_closed_after)}; answers {dict(r.slow_answers)}")
    print(f"wrong PINs from {GUESSER}: {Counter(r.wrong_pins)}; another address paired meanwhile: "
          f"{'yes' if r.other_paired else 'NO'}")
    print(f"paired phone ({PHONE}, new connection per request): {len(r.phone_ms)} requests during the attack, "
          f"{r.phone_failures} failed in all, latency ms {ms(r.phone_ms)}; before the attack {ms(r.quiet_ms)}")
    print(f"event stream: {r.stream_events} states received, {'still open' if r.stream_alive else 'CLOSED'}")
    for flood in r.floods:
        answers = ", ".join(f"{k}: {v}" for k, v in sorted(flood.answers.items(), key=lambda kv: str(kv[0])))
        print(f"flood \"{flood.name}\" ({flood.ended - flood.began:.1f} s; its own answers {answers})"
              f"{': ' + '; '.join(flood.notes) if flood.notes else ''}")
        for who, m in ((f"paired phone {PHONE}", flood.phone), (f"Pi's screen {SCREEN}", flood.screen)):
            print(f"    {who}: {len(m.ms)} requests, answers {dict(m.statuses)}, {m.server_errors} 5xx, "
                  f"latency ms {ms(m.ms)}")
    print(f"service process: {r.service_cpu_s:.1f} s CPU during the attack, peak RSS {r.peak_rss_mb:.1f} MB (MemoryMax {MEMORY_MAX_MB}M), "
          f"at most {r.max_threads} threads (TasksMax {TASKS_MAX})")
    print(f"service answers at the end: {'yes' if r.answers_at_end else 'NO'}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--malformed", type=int, default=10_000)
    ap.add_argument("--idle", type=int, default=500)
    ap.add_argument("--slow", type=int, default=200)
    ap.add_argument("--wrong-pins", type=int, default=20)
    ap.add_argument("--pairings", type=int, default=300, help="pairings from one address in the pairing flood")
    ap.add_argument("--streams", type=int, default=512, help="event streams from 128 addresses in the stream flood")
    ap.add_argument("--hold-s", type=float, default=10.0, help="seconds the stream flood holds its streams open")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quiet-s", type=float, default=3.0, help="seconds the phone measures alone, before the attack")
    ap.add_argument("--head-timeout", type=float, default=10.0, help="[web] head_timeout_s of the service")
    ap.add_argument("--body-timeout", type=float, default=10.0, help="[web] body_timeout_s of the service")
    args = ap.parse_args()
    started = time.monotonic()
    print(f"load average of this machine at the start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    report = run(args)
    print_report(report, args)
    bad = report.failed()
    print(f"{'ALL BARS MET' if not bad else 'MISSED: ' + '; '.join(bad)} ({time.monotonic() - started:.0f} s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
