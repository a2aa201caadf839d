"""What linked tables say to each other over MQTT: the topics, and every payload checked.

A table trusts nothing a broker delivers: each payload is size-capped, parsed as JSON and
checked field by field against the message's schema (and an event against the fields of
its `companion.table` dataclass) before anything acts on it. A message that fails is
`ProtocolError`, whose text says what was wrong; the receiver logs it and drops it.
docs/remote.md describes the layout for people.
"""
from __future__ import annotations

import dataclasses
import json
import re
import secrets
import types
import typing
from collections.abc import Mapping
from typing import Any

from companion import table as T

ROOT = "dogtable/v1"
MAX_PAYLOAD = 64 * 1024  # one event or one public state; a catch-up is many messages, never one big one
VERSION = 1
NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: a code read out across a room
CODE_SECRET_LEN = 8


class ProtocolError(ValueError):
    """A message that is not one of ours, or not well-formed: the text says what is wrong."""


# --- topics ---------------------------------------------------------------------------------
def table_topic(game: str, table: str, kind: str) -> str:
    """kind: events (host -> table), requests (table -> host), replies (host -> table)."""
    return f"{ROOT}/games/{game}/tables/{table}/{kind}"


def public_topic(game: str, kind: str) -> str:
    """kind: events (every event, public), state (retained snapshot)."""
    return f"{ROOT}/games/{game}/public/{kind}"


def presence_topic(table: str) -> str:
    return f"{ROOT}/tables/{table}/presence"


@dataclasses.dataclass(frozen=True)
class Topic:
    kind: str  # events, requests, replies, public-events, public-state, presence
    game: str | None
    table: str | None


def parse_topic(topic: str) -> Topic:
    parts = topic.split("/")
    if parts[:2] != ROOT.split("/"):
        raise ProtocolError(f"topic {topic[:80]!r} is not under {ROOT}")
    rest = parts[2:]
    if len(rest) == 5 and rest[0] == "games" and rest[2] == "tables" and rest[4] in ("events", "requests", "replies"):
        game, table = _name(rest[1], "game"), _name(rest[3], "table")
        return Topic(rest[4], game, table)
    if len(rest) == 4 and rest[0] == "games" and rest[2] == "public" and rest[3] in ("events", "state"):
        return Topic(f"public-{rest[3]}", _name(rest[1], "game"), None)
    if len(rest) == 3 and rest[0] == "tables" and rest[2] == "presence":
        return Topic("presence", None, _name(rest[1], "table"))
    raise ProtocolError(f"topic {topic[:80]!r} is not one of dogtable's")


def _name(text: str, what: str) -> str:
    if not NAME.fullmatch(text):
        raise ProtocolError(f"{what} name {text[:40]!r} is not a table name (a-z, 0-9 and -, at most 32)")
    return text


def check_name(text: str, what: str = "table") -> str:
    """A table's name as the config or the command line gave it (ProtocolError says why not)."""
    return _name(text, what)


# --- invitation codes -----------------------------------------------------------------------
def new_code(host: str) -> str:
    return f"{host}-" + "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_SECRET_LEN))


def code_game(code: str) -> str:
    """The game (the host table's name) an invitation code is for; ProtocolError if it is no code."""
    host, sep, secret = code.strip().rpartition("-")
    if not sep or len(secret) != CODE_SECRET_LEN or any(c not in CODE_ALPHABET for c in secret.upper()):
        raise ProtocolError(f"{code[:40]!r} is not an invitation code (it looks like alice-K7Q2M9XD)")
    return _name(host, "game")


def same_code(a: str, b: str) -> bool:
    return secrets.compare_digest(a.strip().upper().encode(), b.strip().upper().encode())


# --- payloads -------------------------------------------------------------------------------
_INT, _STR, _BOOL, _OPT_INT, _DICT, _LIST = "int", "str", "bool", "int?", "dict", "list"
SCHEMAS: dict[str, dict[str, str]] = {
    "event": {"game": _STR, "epoch": _INT, "seq": _INT, "event": _DICT, "sent": "num"},
    "join": {"table": _STR, "code": _STR, "seats": _LIST},
    "request": {"table": _STR, "id": _STR, "epoch": _INT, "at": _INT, "event": _DICT},
    "since": {"table": _STR, "epoch": _INT, "seq": _INT},
    "welcome": {"game": _STR, "epoch": _INT, "setup": _DICT, "seats": _DICT, "seq": _INT},
    "refused": {"reason": _STR},
    "reply": {"id": _STR, "ok": _BOOL},
    "state": {"game": _STR, "epoch": _INT, "seq": _INT, "state": _DICT, "tables": _DICT, "sent": "num"},
    "presence": {"table": _STR, "state": _STR, "sent": "num"},
}
PRESENCE = ("online", "paused", "offline")


def encode(msg_type: str, **fields: Any) -> bytes:
    data = json.dumps({"v": VERSION, "type": msg_type, **fields}, separators=(",", ":"), ensure_ascii=False).encode()
    if len(data) > MAX_PAYLOAD:
        raise ProtocolError(f"a {msg_type} message of {len(data)} bytes is over the {MAX_PAYLOAD}-byte cap")
    return data


def decode(payload: bytes | bytearray | str | None, *expected: str) -> dict[str, Any]:
    """The message, checked against its schema; `expected`: the types this topic may carry."""
    if payload is None:
        raise ProtocolError("an empty message")
    if isinstance(payload, str):
        payload = payload.encode("utf-8", "surrogatepass")
    if len(payload) > MAX_PAYLOAD:
        raise ProtocolError(f"a message of {len(payload)} bytes is over the {MAX_PAYLOAD}-byte cap")
    try:
        msg = json.loads(bytes(payload).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ProtocolError(f"not JSON text: {str(exc)[:80]}") from None
    if not isinstance(msg, dict):
        raise ProtocolError("a message must be a JSON object")
    if msg.get("v") != VERSION:
        raise ProtocolError(f"message version {str(msg.get('v'))[:20]!r} is not {VERSION}")
    kind = msg.get("type")
    if not isinstance(kind, str) or kind not in SCHEMAS or (expected and kind not in expected):
        raise ProtocolError(f"a {str(kind)[:20]!r} message is not expected here ({', '.join(expected)})")
    for key, want in SCHEMAS[kind].items():
        _check(msg, key, want, kind)
    if kind == "reply" and msg["ok"] is False:
        _check(msg, "error", _STR, kind)
    if kind == "reply" and msg["ok"] is True:
        _check(msg, "seq", _INT, kind)
    if kind == "presence" and msg["state"] not in PRESENCE:
        raise ProtocolError(f"presence {msg['state'][:20]!r} is not one of {', '.join(PRESENCE)}")
    if kind == "join" and not all(type(s) is int and 0 <= s < 8 for s in msg["seats"]):
        raise ProtocolError("join: seats must be seat numbers 0-7")
    for key in ("table", "game"):
        if key in SCHEMAS[kind]:
            _name(msg[key], key)
    return msg


def _check(msg: Mapping[str, Any], key: str, want: str, kind: str) -> None:
    if key not in msg:
        raise ProtocolError(f"a {kind} message needs {key!r}")
    value = msg[key]
    ok = {
        _INT: type(value) is int and value >= 0,
        _STR: isinstance(value, str) and len(value) <= 4096,
        _BOOL: type(value) is bool,
        _DICT: isinstance(value, dict),
        _LIST: isinstance(value, list) and len(value) <= 8,
        "num": type(value) in (int, float),
    }[want]
    if not ok:
        raise ProtocolError(f"{kind}: {key!r} must be {want.replace('num', 'a number')}, not {type(value).__name__}")


# --- events ---------------------------------------------------------------------------------
def event_from_wire(obj: Mapping[str, Any]) -> T.Event:
    """An event from a message, every field of the type its dataclass declares."""
    kind = obj.get("kind")
    cls = T.EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ProtocolError(f"unknown event kind {str(kind)[:20]!r}")
    hints = typing.get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    extra = set(obj) - names - {"kind"}
    if extra:
        raise ProtocolError(f"a {kind} event has no field {sorted(extra)[0][:20]!r}")
    for f in dataclasses.fields(cls):
        if f.name in obj and not _fits(obj[f.name], hints[f.name]):
            raise ProtocolError(f"a {kind} event's {f.name!r} is not {_hint_name(hints[f.name])}")
        if f.name not in obj and f.default is dataclasses.MISSING:
            raise ProtocolError(f"a {kind} event needs {f.name!r}")
    try:
        return T.event_from_json(obj)
    except (T.TableError, TypeError, ValueError) as exc:
        raise ProtocolError(f"a bad {kind} event: {str(exc)[:80]}") from None


def _hint_name(hint: Any) -> str:
    return getattr(hint, "__name__", None) if isinstance(hint, type) else str(hint).replace("typing.", "")


def _fits(value: Any, hint: Any, depth: int = 0) -> bool:
    if depth > 3:
        return False
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, h, depth) for h in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is bool:
        return type(value) is bool
    if hint is int:
        return type(value) is int and -1_000_000 < value < 1_000_000
    if hint is str:
        return isinstance(value, str) and len(value) <= 16_384
    if origin is tuple:
        args = typing.get_args(hint)
        if not isinstance(value, list) or len(value) > 200:
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_fits(v, args[0], depth + 1) for v in value)
        return len(value) == len(args) and all(_fits(v, a, depth + 1) for v, a in zip(value, args))
    return False
