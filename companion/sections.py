"""The service's own config sections, [service] and [web]: what they hold and their checks.

`companion.config` reads and merges the files and reports problems (file, key, fix) with
these checks; `companion.settings` puts the checked sections together for the service.
Defaults make `dogtable sim` work with no config file at all.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from companion.cardtags import CardTagError, CardTags
from engine.bots import BOTS
from engine.game import seats_for
from engine.messages import LANGUAGES


@dataclass(frozen=True)
class ServiceSettings:
    players: int = 4
    direction: str = ""  # clockwise or counter-clockwise; "": the edition's own way (Brändi Dog: counter-clockwise)
    mode: str = "highlight"  # referee | highlight | training
    lang: str = "en"
    journal: str = ""  # empty: <state dir>/journal.sqlite
    bots: tuple[int, ...] = ()  # seats the bots play (simulated table)
    bot_levels: tuple[str, ...] = ()  # level of each seat in `bots`, same order: beginner, club or strong (unlisted: greedy)
    bot_delay_s: float = 0.8
    bot_think_s: float = 1.0  # how long a club or strong bot may search per decision (a Pi 4: 1.0-4.0)
    undo_window_s: float = 3.0  # after a person's action the bots wait this long, so it can still be taken back
    accept_flash_s: float = 0.6
    speak: bool = False  # say verdicts aloud with espeak-ng, if it is installed
    vision: bool = False  # simulated table: read rendered frames with the vision pipeline
    calibration: str = ""  # run: the camera calibration (dogtable vision calibrate); "" = <state dir>/calibration.json
    card_tags: str = ""  # run: RFID tag uid -> card id map (TOML); "" = no RFID reader


@dataclass(frozen=True)
class WebSettings:
    host: str = "127.0.0.1"
    port: int = 8377
    pin: str = ""  # empty: a fresh random PIN each start
    # pairs a device as the host (table-wide actions); shown only on the Pi's own screen and
    # console. Empty: a fresh random one each start
    host_pin: str = ""
    trust_localhost: bool = True  # a browser on the Pi itself (127.0.0.1, ::1) needs no PIN
    # names the page may be reached by, besides IP addresses, localhost, dogtable.local and
    # this machine's own names: any other Host header is refused (DNS rebinding)
    hosts: tuple[str, ...] = ()
    # behind a reverse proxy on this machine (HTTPS): the client's address is taken from the
    # proxy's X-Forwarded-For, and cookies are marked Secure when X-Forwarded-Proto is https
    behind_proxy: bool = False
    max_connections: int = 512  # all clients together; each address gets at most 32
    head_timeout_s: float = 10.0  # a request's line and headers must arrive within this; also idle time
    body_timeout_s: float = 10.0  # and its body within this


@dataclass(frozen=True)
class RemoteSettings:
    """[remote]: this table's link to other tables through an MQTT broker (docs/remote.md)."""

    broker: str = ""  # mqtts://host:8883 (TLS) or mqtt://host:1883; "" = this table plays alone
    credentials: str = ""  # TOML file with username, password and optionally ca (readable by the service only)
    table: str = ""  # this table's name at the broker (its username); "" = the credentials' username


PIN_RULE = "must be 6 to 8 digits 0-9, or empty for a random PIN at each start"


def pin_problem(pin: str) -> str | None:
    """Why a configured PIN cannot be used, or None. ASCII digits only: str.isdigit() would
    take Arabic-Indic or superscript digits that no phone keypad in the page types."""
    if pin and not re.fullmatch(r"[0-9]{6,8}", pin):
        return PIN_RULE
    return None


def check_service(s: ServiceSettings, c: Any) -> None:
    if s.mode not in ("referee", "highlight", "training"):
        c.problem("mode", f"{s.mode!r} is not a mode (choose referee, highlight or training)")
    if s.lang not in LANGUAGES:
        c.problem("lang", f"{s.lang!r} is not a language (choose {', '.join(LANGUAGES)})")
    if s.direction not in ("", "clockwise", "counter-clockwise"):
        c.problem("direction", f"{s.direction!r} is not a direction (choose clockwise or counter-clockwise)")
    if not 2 <= s.players <= 6:
        c.problem("players", f"{s.players} players: DOG is played by 2 to 6")
    if not isinstance(s.bots, tuple) or not all(isinstance(b, int) and not isinstance(b, bool) and 0 <= b < 6
                                                 for b in s.bots):
        c.problem("bots", "must be a list of seat numbers 0..5, e.g. [1, 3]")
    elif len(set(s.bots)) != len(s.bots):
        c.problem("bots", f"{list(s.bots)} names a seat twice")
    elif 2 <= s.players <= 6 and any(b not in _seats(s.players) for b in s.bots):
        seats = _seats(s.players)
        bad = next(b for b in s.bots if b not in seats)
        c.problem("bots", f"seat {bad} does not play with {s.players} players (seats: {', '.join(map(str, seats))})")
    if not isinstance(s.bot_levels, tuple) or not all(isinstance(x, str) and x in BOTS for x in s.bot_levels):
        c.problem("bot_levels", f"must be a list of bot levels ({', '.join(BOTS)}), one per seat in 'bots'")
    elif len(s.bot_levels) > len(s.bots):
        c.problem("bot_levels", f"{len(s.bot_levels)} levels for {len(s.bots)} bot seats: give one level per seat in 'bots'")
    if s.card_tags:
        try:
            CardTags.load(s.card_tags)
        except CardTagError as exc:
            c.problem("card_tags", str(exc))
    if not 0.05 <= s.bot_think_s <= 30:  # also false for NaN
        c.problem("bot_think_s", f"{s.bot_think_s} is outside 0.05..30 seconds (1.0 suits a PC, up to 4.0 a Raspberry Pi 4)")
    if s.bot_delay_s < 0 or s.accept_flash_s < 0:
        c.problem("bot_delay_s", "times must not be negative")
    if not 0 <= s.undo_window_s <= 60:  # also false for NaN
        c.problem("undo_window_s", f"{s.undo_window_s} is outside 0..60 seconds (0: the bots play at once)")


def _seats(players: int) -> tuple[int, ...]:
    return seats_for(players)[1]


def check_web(w: WebSettings, c: Any) -> None:
    if not 0 <= w.port <= 65535:
        c.problem("port", f"{w.port} is outside 0..65535")
    if pin_problem(w.pin):
        c.problem("pin", PIN_RULE)
    if pin_problem(w.host_pin):
        c.problem("host_pin", PIN_RULE)
    elif w.host_pin and w.host_pin == w.pin:
        c.problem("host_pin", "must differ from pin: everyone at the table sees the PIN, the host PIN makes a host")
    for name in w.hosts:
        if not re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?", name):
            c.problem("hosts", f"{name!r} is not a host name (like dogtable.example.org, no port, no scheme)")
    if not 16 <= w.max_connections <= 10000:
        c.problem("max_connections", f"{w.max_connections} is outside 16..10000")
    for key in ("head_timeout_s", "body_timeout_s"):
        if not 0.1 <= getattr(w, key) <= 600:  # also false for NaN
            c.problem(key, f"{getattr(w, key)} is outside 0.1..600 seconds")


def check_remote(r: RemoteSettings, c: Any) -> None:
    if r.broker and not re.fullmatch(r"mqtts?://[^/\s:]+(:[0-9]{1,5})?/?", r.broker):
        c.problem("broker", f"{r.broker!r} is not a broker address (like mqtts://club.example.org:8883 or mqtt://localhost)")
    if r.table and not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,31}", r.table):
        c.problem("table", f"{r.table!r} is not a table name (a-z, 0-9 and -, at most 32, like kitchen-table)")
