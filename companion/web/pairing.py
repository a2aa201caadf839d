"""Who may change the game: the PIN, the QR code's pairing link, the pairing cookie, CSRF
tokens, and a per-address backoff against guessing.

A phone pairs once, with the PIN shown at the table or by scanning the QR code (a link
with a random code that expires), and then carries a random token in an HttpOnly cookie.
The server keeps only SHA-256 digests of the tokens, each with its expiry and the seat the
phone sits at. Every change of the game also needs a CSRF token (an HMAC of who is asking)
that only a page from this server can read.
"""
from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

COOKIE = "dogtable_pair"
TOKEN_LIFETIME_S = 30 * 24 * 3600
CODE_LIFETIME_S = 3600.0  # a QR code's link; a fresh one is made when half of it is gone
FREE_TRIES = 3  # typing mistakes; after that each wrong try doubles the wait: 2 s, 4 s, ...
MAX_DELAY_S = 300.0
MAX_TOKENS = 256  # paired devices remembered; the oldest is forgotten beyond this
MAX_ADDRESSES = 4096  # addresses whose failures are remembered


@dataclass
class Pairing:
    expires: float
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
    def __init__(self, pin: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.pin = pin or random_pin()
        self.clock = clock
        self.secret = secrets.token_bytes(32)
        self.lock = threading.Lock()
        self.tokens: OrderedDict[bytes, Pairing] = OrderedDict()  # digest -> pairing, oldest first
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
                return Outcome(token=self._new_token(now))
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

    def _new_token(self, now: float) -> str:
        token = secrets.token_urlsafe(24)
        self.tokens[_digest(token)] = Pairing(now + TOKEN_LIFETIME_S)
        while len(self.tokens) > MAX_TOKENS:
            self.tokens.popitem(last=False)
        return token

    def pairing(self, token: str | None) -> Pairing | None:
        """The pairing a cookie's token stands for, if it is known and not expired."""
        if not token:
            return None
        with self.lock:
            p = self.tokens.get(_digest(token))
            if p is not None and p.expires <= self.clock():
                del self.tokens[_digest(token)]
                return None
            return p

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
