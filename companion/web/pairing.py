"""Who may change the game: the PIN, the host PIN, the QR code's pairing link, the pairing
cookie, the seats the devices hold, CSRF tokens, and a per-address backoff against guessing.

A phone pairs once, with the PIN shown at the table or by scanning the QR code (a link
with a random code that expires), and then carries a random token in an HttpOnly cookie.
The PIN is seen by everyone at the table, so it makes a player, never more: the host PIN
(shown only on the Pi's own screen and console) makes a host. The server keeps only SHA-256
digests of the tokens, each with its expiry, its address, whether it is a host and the
seat the phone holds, in a file beside the journal: a restart (or a power cut) does not
unpair the phones. A seat is held by at most one device (the Pi's own screen is one).
Every change of the game also needs a CSRF token (an HMAC of who is asking) that only a
page from this server can read.
"""
from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import os
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

log = logging.getLogger(__name__)

COOKIE = "dogtable_pair"
TOKEN_LIFETIME_S = 30 * 24 * 3600
CODE_LIFETIME_S = 3600.0  # a QR code's link; a fresh one is made when half of it is gone
FREE_TRIES = 3  # typing mistakes; after that each wrong try doubles the wait: 2 s, 4 s, ...
MAX_DELAY_S = 300.0
MAX_TOKENS = 256  # paired devices remembered in all
# pairings per address: a phone that lost its cookie pairs again (its oldest is forgotten), and
# one address cannot fill the store and push everyone else's pairing out
PAIRINGS_PER_ADDRESS = 8
MAX_ADDRESSES = 4096  # addresses whose failures are remembered
LOCAL = "local"  # the identity of the Pi's own screen (trusted without a cookie)


@dataclass
class Pairing:
    expires: float  # wall-clock time (it outlives the process)
    seat: int | None = None
    host: bool = False  # paired with the host PIN
    address: str = ""  # address_key of the device that paired ("" in files from before it was kept)


@dataclass
class _Tries:
    failures: int = 0
    until: float = 0.0  # no try is checked before this time
    last: float = 0.0


@dataclass(frozen=True)
class Outcome:
    token: str | None = None  # paired: the cookie's value
    wait_s: float = 0.0  # refused without checking: try again after this many seconds
    host: bool = False  # paired with the host PIN
    full: bool = False  # the right PIN, but the store is full of other addresses' pairings

    @property
    def ok(self) -> bool:
        return self.token is not None


class Claim(Enum):
    OK = "ok"
    TAKEN = "taken"  # another device holds the seat
    UNPAIRED = "unpaired"  # the pairing is gone (expired, or forgotten)


def address_key(address: str) -> str:
    """Failures count per device: an IPv6 device may change its address within its /64."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def network_key(address: str) -> str:
    """The network an address is in: its /24 (IPv4) or /64 (IPv6), the most one client on a
    LAN can take addresses from."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    bits = 24 if isinstance(ip, ipaddress.IPv4Address) else 64
    return str(ipaddress.ip_network((ip, bits), strict=False))


def random_pin(unlike: str = "") -> str:
    while True:
        pin = f"{secrets.randbelow(10**6):06d}"
        if pin != unlike:
            return pin


class Pairings:
    def __init__(self, pin: str, store: Path | None = None, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time, host_pin: str = "") -> None:
        self.pin = pin or random_pin()
        # the two PINs differ (the settings' check says so for configured ones): the table's PIN
        # must never make a host
        self.host_pin = host_pin if host_pin and host_pin != self.pin else random_pin(self.pin)
        self.store = store
        self.clock = clock  # waits and codes: monotonic, a clock set at boot does not shift them
        self.wall = wall  # token expiry, kept across restarts
        self.secret = secrets.token_bytes(32)
        self.lock = threading.Lock()
        self.tokens: OrderedDict[bytes, Pairing] = self._load()  # digest -> pairing, oldest first
        self.tries: OrderedDict[str, _Tries] = OrderedDict()
        self.code = ""
        self.code_made = -CODE_LIFETIME_S
        self.old_code = ""  # the previous code stays valid until it expires
        self.old_code_made = -CODE_LIFETIME_S
        self.local_seat: int | None = None  # the seat the Pi's own screen holds
        self.seats_version = 0  # bumped whenever a seat is taken or freed: the streams send again
        # the file is written outside `lock` (an fsync on an SD card takes milliseconds, and the
        # event loop reads the seats under `lock`); `changes` counts what is to be written
        self.write_lock = threading.Lock()
        self.changes = 0
        self.written = 0

    # --- pairing ------------------------------------------------------------------------
    def pair(self, address: str, *, pin: str | None = None, code: str | None = None,
             replacing: str | None = None) -> Outcome:
        """Check a PIN, the host PIN or a pairing code from one address; wrong tries slow only
        that address. `replacing`: the token the device already carries (it pairs again, as
        host say): its pairing makes way for the new one, which keeps its seat."""
        key = address_key(address)
        now = self.clock()
        with self.lock:
            tries = self.tries.get(key)
            if tries is not None and now < tries.until:
                return Outcome(wait_s=tries.until - now)
            right = self._right(pin, code, now)
            if right is None:
                self._failed(key, tries, now)
                return Outcome()
            self.tries.pop(key, None)
            token = self._new_token(key, right == "host", replacing)
        self.flush()
        return Outcome(token=token, host=right == "host", full=token is None)

    def _failed(self, key: str, tries: _Tries | None, now: float) -> None:
        if tries is None:
            tries = self.tries[key] = _Tries()
            while len(self.tries) > MAX_ADDRESSES:
                self.tries.popitem(last=False)
        self.tries.move_to_end(key)
        tries.failures += 1
        tries.last = now
        if tries.failures > FREE_TRIES:
            tries.until = now + min(2.0 ** (tries.failures - FREE_TRIES), MAX_DELAY_S)

    def _right(self, pin: str | None, code: str | None, now: float) -> str | None:
        """"player", "host" or None (wrong)."""
        # bytes, so that any text compares in constant time (compare_digest refuses non-ASCII str)
        if pin is not None:
            given = pin.strip().encode("utf-8", "replace")
            player = hmac.compare_digest(given, self.pin.encode())
            host = hmac.compare_digest(given, self.host_pin.encode())  # both compared: no timing tells which
            return "host" if host else "player" if player else None
        if code is not None:
            given = code.encode("utf-8", "replace")
            if any(c and now - made < CODE_LIFETIME_S and hmac.compare_digest(given, c.encode())
                   for c, made in ((self.code, self.code_made), (self.old_code, self.old_code_made))):
                return "player"
        return None

    def _new_token(self, address: str, host: bool, replacing: str | None) -> str | None:
        """A new pairing for `address`, or None when the store is full of other addresses' pairings.

        Only the address's own pairings make room (its oldest first): a flood of pairings from
        one address never pushes out another device's."""
        wall = self.wall()
        for digest in [d for d, p in self.tokens.items() if p.expires <= wall]:
            del self.tokens[digest]
        seat = None
        if replacing:
            old = self.tokens.pop(_digest(replacing), None)
            seat = old.seat if old is not None else None
        own = [d for d, p in self.tokens.items() if p.address == address]  # oldest first
        while own and (len(own) >= PAIRINGS_PER_ADDRESS or len(self.tokens) >= MAX_TOKENS):
            dropped = self.tokens.pop(own.pop(0))
            if dropped.seat is not None:
                self.seats_version += 1
        if len(self.tokens) >= MAX_TOKENS:
            return None
        token = secrets.token_urlsafe(24)
        self.tokens[_digest(token)] = Pairing(wall + TOKEN_LIFETIME_S, seat, host, address)
        self._save()
        return token

    def pairing(self, token: str | None) -> Pairing | None:
        """The pairing a cookie's token stands for, if it is known and not expired."""
        if not token:
            return None
        with self.lock:
            p = self.tokens.get(_digest(token))
            if p is not None and p.expires <= self.wall():
                del self.tokens[_digest(token)]
                self._save()  # written with the next flush: who() runs on the event loop
                return None
            return p

    # --- seats --------------------------------------------------------------------------
    def held(self) -> frozenset[int]:
        """The seats some device holds (a paired phone, or the Pi's own screen)."""
        with self.lock:
            wall = self.wall()
            seats = {p.seat for p in self.tokens.values() if p.seat is not None and p.expires > wall}
            if self.local_seat is not None:
                seats.add(self.local_seat)
            return frozenset(seats)

    def claim(self, identity: str, seat: int | None) -> Claim:
        """Bind a device (LOCAL or a pairing's token) to a seat, or to none (it watches).

        A seat another device holds is not taken over: only the host frees it (`free`)."""
        with self.lock:
            mine = None if identity == LOCAL else self.tokens.get(_digest(identity))
            if identity != LOCAL and mine is None:
                return Claim.UNPAIRED
            if seat is not None:
                wall = self.wall()
                others = [p for p in self.tokens.values() if p is not mine and p.expires > wall]
                if any(p.seat == seat for p in others) or (identity != LOCAL and self.local_seat == seat):
                    return Claim.TAKEN
            if (self.local_seat if mine is None else mine.seat) != seat:  # a claim of one's own seat changes nothing
                if mine is None:
                    self.local_seat = seat
                else:
                    mine.seat = seat
                    self._save()
                self.seats_version += 1
        self.flush()
        return Claim.OK

    def free(self, seats: set[int] | frozenset[int]) -> None:
        """The devices holding these seats lose them (they watch): the host's word."""
        with self.lock:
            freed = [p for p in self.tokens.values() if p.seat in seats]
            for p in freed:
                p.seat = None
            if freed:
                self._save()
            local = self.local_seat in seats
            if local:
                self.local_seat = None
            if freed or local:
                self.seats_version += 1
        self.flush()

    # --- kept across restarts -----------------------------------------------------------
    def _load(self) -> OrderedDict[bytes, Pairing]:
        tokens: OrderedDict[bytes, Pairing] = OrderedDict()
        if self.store is None or not self.store.exists():
            return tokens
        try:
            data = json.loads(self.store.read_text())
            now = self.wall()
            for row in data["tokens"]:
                seat = row["seat"]
                host, address = row.get("host", False), row.get("address", "")  # absent in older files
                if (isinstance(row["expires"], (int, float)) and row["expires"] > now
                        and (seat is None or (isinstance(seat, int) and not isinstance(seat, bool)))
                        and isinstance(host, bool) and isinstance(address, str)):
                    tokens[bytes.fromhex(row["digest"])] = Pairing(float(row["expires"]), seat, host, address)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("the paired devices in %s cannot be read (%s): phones pair again", self.store, exc)
            return OrderedDict()
        return tokens

    def _save(self) -> None:
        """Mark the pairings as changed (called with `lock` held); `flush` writes them."""
        self.changes += 1

    def flush(self) -> None:
        """Write the pairings if they changed: atomically (a power cut leaves the old file or the
        new one), readable by the service only. Called without `lock` held."""
        if self.store is None:
            return
        with self.write_lock:
            with self.lock:
                if self.changes == self.written:
                    return
                changes = self.changes
                rows = [{"digest": d.hex(), "expires": p.expires, "seat": p.seat, "host": p.host,
                         "address": p.address} for d, p in self.tokens.items()]
            tmp = self.store.with_name(self.store.name + ".tmp")
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(fd, "w") as fh:
                    json.dump({"tokens": rows}, fh)
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, self.store)
            except OSError as exc:  # a full disk must not stop pairing: the phones stay paired until a restart
                log.warning("cannot keep the paired devices in %s: %s", self.store, exc)
            self.written = changes

    def pairing_code(self) -> tuple[str, float]:
        """The QR code's current code and how many seconds it stays valid."""
        now = self.clock()
        with self.lock:
            if now - self.code_made >= CODE_LIFETIME_S / 2:
                self.old_code, self.old_code_made = self.code, self.code_made
                self.code, self.code_made = secrets.token_urlsafe(16), now
            return self.code, CODE_LIFETIME_S - (now - self.code_made)

    # --- CSRF ---------------------------------------------------------------------------
    def csrf(self, identity: str) -> str:
        """The CSRF token for one identity ("paired:<token>", "local" or "guest")."""
        return hmac.new(self.secret, identity.encode(), hashlib.sha256).hexdigest()

    def csrf_ok(self, identity: str, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode("utf-8", "replace"),
                                                         self.csrf(identity).encode())


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "replace")).digest()
