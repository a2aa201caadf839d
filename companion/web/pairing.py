"""Who may change the game: the PIN, the QR code's pairing link, the pairing cookie, CSRF
tokens, and a per-address backoff against guessing.

A phone pairs once, with the PIN shown at the table or by scanning the QR code (a link
with a random code that expires), and then carries a random token in an HttpOnly cookie.
The server keeps only SHA-256 digests of the tokens, each with its expiry and the seat the
phone sits at, in a file beside the journal: a restart (or a power cut) does not unpair
the phones. Every change of the game also needs a CSRF token (an HMAC of who is asking)
that only a page from this server can read.
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
from pathlib import Path

log = logging.getLogger(__name__)

COOKIE = "dogtable_pair"
TOKEN_LIFETIME_S = 30 * 24 * 3600
CODE_LIFETIME_S = 3600.0  # a QR code's link; a fresh one is made when half of it is gone
FREE_TRIES = 3  # typing mistakes; after that each wrong try doubles the wait: 2 s, 4 s, ...
MAX_DELAY_S = 300.0
MAX_TOKENS = 256  # paired devices remembered; the oldest is forgotten beyond this
MAX_ADDRESSES = 4096  # addresses whose failures are remembered


@dataclass
class Pairing:
    expires: float  # wall-clock time (it outlives the process)
    seat: int | None = None


@dataclass
class _Tries:
    failures: int = 0
    until: float = 0.0  # no try is checked before this time
    last: float = 0.0


@dataclass(frozen=True)
class Outcome:
    token: str | None = None  # paired: the cookie's value
    wait_s: float = 0.0  # refused without checking: try again after this many seconds

    @property
    def ok(self) -> bool:
        return self.token is not None


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


def random_pin() -> str:
    return f"{secrets.randbelow(10**6):06d}"


class Pairings:
    def __init__(self, pin: str, store: Path | None = None, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time) -> None:
        self.pin = pin or random_pin()
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
        self.local_seat: int | None = None  # the Pi's own screen (trusted without a cookie)

    # --- pairing ------------------------------------------------------------------------
    def pair(self, address: str, *, pin: str | None = None, code: str | None = None) -> Outcome:
        """Check a PIN or a pairing code from one address; wrong tries slow only that address."""
        key = address_key(address)
        now = self.clock()
        with self.lock:
            tries = self.tries.get(key)
            if tries is not None and now < tries.until:
                return Outcome(wait_s=tries.until - now)
            if self._right(pin, code, now):
                self.tries.pop(key, None)
                return Outcome(token=self._new_token())
            if tries is None:
                tries = self.tries[key] = _Tries()
                while len(self.tries) > MAX_ADDRESSES:
                    self.tries.popitem(last=False)
            self.tries.move_to_end(key)
            tries.failures += 1
            tries.last = now
            if tries.failures > FREE_TRIES:
                tries.until = now + min(2.0 ** (tries.failures - FREE_TRIES), MAX_DELAY_S)
            return Outcome()

    def _right(self, pin: str | None, code: str | None, now: float) -> bool:
        # bytes, so that any text compares in constant time (compare_digest refuses non-ASCII str)
        if pin is not None:
            return hmac.compare_digest(pin.strip().encode("utf-8", "replace"), self.pin.encode())
        if code is not None:
            given = code.encode("utf-8", "replace")
            return any(c and now - made < CODE_LIFETIME_S and hmac.compare_digest(given, c.encode())
                       for c, made in ((self.code, self.code_made), (self.old_code, self.old_code_made)))
        return False

    def _new_token(self) -> str:
        token = secrets.token_urlsafe(24)
        self.tokens[_digest(token)] = Pairing(self.wall() + TOKEN_LIFETIME_S)
        while len(self.tokens) > MAX_TOKENS:
            self.tokens.popitem(last=False)
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
                self._save()
                return None
            return p

    def set_seat(self, token: str, seat: int | None) -> bool:
        with self.lock:
            p = self.tokens.get(_digest(token))
            if p is None:
                return False
            p.seat = seat
            self._save()
            return True

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
                if (isinstance(row["expires"], (int, float)) and row["expires"] > now
                        and (seat is None or (isinstance(seat, int) and not isinstance(seat, bool)))):
                    tokens[bytes.fromhex(row["digest"])] = Pairing(float(row["expires"]), seat)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("the paired devices in %s cannot be read (%s): phones pair again", self.store, exc)
            return OrderedDict()
        return tokens

    def _save(self) -> None:
        """Atomically (a power cut leaves the old file or the new one), readable by the service only."""
        if self.store is None:
            return
        rows = [{"digest": d.hex(), "expires": p.expires, "seat": p.seat} for d, p in self.tokens.items()]
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
