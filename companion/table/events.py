"""The events of a table session: what happened at the table, as frozen values, and their JSON.

Each event is one thing the service was told (a card seen, a board settled, a button pressed),
journaled as `event_to_json` writes it and read back by `event_from_json`; the `kind` strings
are the journal's format and never change.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any


class TableError(Exception):
    """An event that cannot apply now (bad card, unknown seat): the message says why."""


# A card this table may not know: at a table joined to another's game (over MQTT), every card
# of a hand it does not hold and every card of the stock. Not a card of any deck, so it never
# matches a card shown, and the hands keep their sizes (everybody sees how many cards a hand has).
UNKNOWN = "?"


@dataclass(frozen=True)
class CardSeen:
    """A card was played: seen by the camera, scanned, or entered on the web page."""

    card: str
    seat: int | None = None  # None: the seat whose turn it is
    source: str = "web"


@dataclass(frozen=True)
class BoardSettled:
    """The board stood still and reads like this: field id -> 's<seat>' or 'dog'."""

    fields: tuple[tuple[str, str], ...]
    source: str = "camera"

    @classmethod
    def of(cls, occupancy: Mapping[str, str], source: str = "camera") -> BoardSettled:
        return cls(tuple(sorted(occupancy.items())), source)


@dataclass(frozen=True)
class DiscTurned:
    """The Black DOG disc was turned a quarter: +1 clockwise, -1 anticlockwise."""

    direction: int
    source: str = "encoder"


@dataclass(frozen=True)
class ExchangeDone:
    """Every seat has passed its card in the exchange (a real table, where hands are not known)."""

    source: str = "web"


@dataclass(frozen=True)
class Deal:
    """The simulated table dealt this round: each seat's hand (by seat index) and the stock left.

    Journaled, so a resumed game holds exactly the cards it held (a real table has no Deal:
    nobody tells the service what is in a hand, it checks the card it sees).
    """

    round_no: int
    hands: tuple[tuple[str, ...], ...]
    stock: tuple[str, ...] = ()
    source: str = "sim"


@dataclass(frozen=True)
class CardGiven:
    """In the exchange a seat passed one card face down (to the partner, solo: the left neighbour).

    `card` is known only where hands are (the simulated table, a phone); at a real table None.
    """

    seat: int
    card: str | None = None
    source: str = "web"


@dataclass(frozen=True)
class SitOut:
    """A player laid the hand down (no card could move): out for the rest of the round."""

    seat: int
    source: str = "web"


@dataclass(frozen=True)
class Discard:
    """The card just seen goes to the pile without a move (solo: optionally draw a new one)."""

    redraw: bool = False
    source: str = "web"


@dataclass(frozen=True)
class Undo:
    """Take back the last play or correction (or the card just shown, before anything was played).

    `seat`: a player taking back their own latest action (refused once anything came after
    it); None: the host, who takes back the table's latest action, one at a time."""

    source: str = "web"
    seat: int | None = None


@dataclass(frozen=True)
class SetPosition:
    """Manual correction: the board really is like this (position JSON, NOTATION.md)."""

    position: str  # JSON text, so the event stays hashable and journals as written
    source: str = "web"


@dataclass(frozen=True)
class SetTurn:
    """Manual correction: it is this seat's turn."""

    seat: int
    source: str = "web"


@dataclass(frozen=True)
class SetMode:
    """Switch between referee, highlight and training."""

    mode: str
    source: str = "web"


@dataclass(frozen=True)
class AskHint:
    """Someone pressed the hint button: show the best play of the card in play, in any mode."""

    source: str = "button"


@dataclass(frozen=True)
class HandShown:
    """The cards a seat holds now, told to a table whose state holds "?" for some of them.

    A joined table learns its own seats' cards from the deal; a card such a seat gets later
    from another table's seat (the exchange) or from the stock (a redraw) it cannot know, so
    the host says what the hand now is. The host applies it too, as a check that changes
    nothing, so every table journals the same events under the same numbers.
    """

    seat: int
    cards: tuple[str, ...]
    source: str = "remote"


Event = (CardSeen | BoardSettled | DiscTurned | ExchangeDone | SitOut | Discard | Undo | SetPosition | SetTurn
         | SetMode | AskHint | Deal | CardGiven | HandShown)
EVENT_TYPES: dict[str, type] = {
    "card": CardSeen, "board": BoardSettled, "disc": DiscTurned, "exchange": ExchangeDone,
    "sitout": SitOut, "discard": Discard, "undo": Undo, "position": SetPosition, "turn": SetTurn,
    "mode": SetMode, "hint": AskHint, "deal": Deal, "give": CardGiven, "hand": HandShown,
}
_KIND_OF = {t: k for k, t in EVENT_TYPES.items()}


def event_to_json(event: Event) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": _KIND_OF[type(event)]}
    for f in fields(event):
        value = getattr(event, f.name)
        if f.name == "fields":
            value = [list(p) for p in value]
        elif f.name == "hands":
            value = [list(h) for h in value]
        elif f.name in ("stock", "cards"):
            value = list(value)
        out[f.name] = value
    return out


def public_event_json(event: Event) -> dict[str, Any]:
    """An event as anyone may see it during a game: the cards dealt, given face down or shown to
    one table left out (a hand shown is its size, as a deal's hands are)."""
    out = event_to_json(event)
    if isinstance(event, Deal):
        out["hands"] = [len(h) for h in event.hands]
        out["stock"] = len(event.stock)
    elif isinstance(event, CardGiven):
        out["card"] = None
    elif isinstance(event, HandShown):
        out["cards"] = len(event.cards)
    return out


def event_from_json(obj: Mapping[str, Any]) -> Event:
    kind = obj.get("kind")
    if kind not in EVENT_TYPES:
        raise TableError(f"unknown event kind {kind!r} (known: {', '.join(EVENT_TYPES)})")
    cls = EVENT_TYPES[kind]
    args = {k: v for k, v in obj.items() if k != "kind"}
    if cls is BoardSettled:
        args["fields"] = tuple(sorted((str(a), str(b)) for a, b in args.get("fields", ())))
    if cls is Deal:
        args["hands"] = tuple(tuple(str(c) for c in h) for h in args.get("hands", ()))
        args["stock"] = tuple(str(c) for c in args.get("stock", ()))
    if cls is HandShown and "cards" in args:
        if not isinstance(args["cards"], list):
            raise TableError(f"bad {kind} event: cards must be a list, not {args['cards']!r}")
        args["cards"] = tuple(str(c) for c in args["cards"])
    try:
        return cls(**args)
    except TypeError as exc:
        raise TableError(f"bad {kind} event: {exc}") from None
