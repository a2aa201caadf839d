"""The table session: what the service believes about the game at a real (or simulated) table.

Pure: `apply(state, event) -> (state, effects)` with frozen values in and out, no threads,
no clock, no I/O. The service journals each event, applies it here, and turns the result
into LEDs, web updates and speech. Replaying the same events gives the same state, which
is what makes the journal a complete record of a game.

At a real table nobody tells the service what is in a hand. It follows what it can see:
cards played per seat per round (the variant's 6-5-4-3-2 cycle), the exchange phase,
seats that laid their hand down, whose turn it is, partner play and the winner.
"""
from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

import engine
from engine.evaluate import SeatView
from engine.hints import explain
from engine.game import initial_position
from engine.position import HOME, KENNEL, Position
from engine.describe import describe_play
from companion.texts import LANGS, both, player_name, say

log = logging.getLogger(__name__)

MODES = ("referee", "highlight", "training")
PHASES = ("setup", "exchange", "play", "over")
LOG_KEEP = 400  # entries kept in the state (the journal keeps everything)


class TableError(Exception):
    """An event that cannot apply now (bad card, unknown seat): the message says why."""


# --- events -------------------------------------------------------------------------------
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
    source: str = "web"


@dataclass(frozen=True)
class SetPosition:
    """Manual correction: the board really is like this (position JSON, NOTATION.md)."""

    position: str  # JSON text, so the event stays hashable and journals as written
    source: str = "web"


@dataclass(frozen=True)
class SetTurn:
    seat: int
    source: str = "web"


@dataclass(frozen=True)
class SetMode:
    mode: str
    source: str = "web"


@dataclass(frozen=True)
class AskHint:
    """Someone pressed the hint button: show the best play of the card in play, in any mode."""

    source: str = "button"


Event = (CardSeen | BoardSettled | DiscTurned | ExchangeDone | SitOut | Discard | Undo | SetPosition | SetTurn
         | SetMode | AskHint | Deal | CardGiven)
EVENT_TYPES: dict[str, type] = {
    "card": CardSeen, "board": BoardSettled, "disc": DiscTurned, "exchange": ExchangeDone,
    "sitout": SitOut, "discard": Discard, "undo": Undo, "position": SetPosition, "turn": SetTurn,
    "mode": SetMode, "hint": AskHint, "deal": Deal, "give": CardGiven,
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
        elif f.name == "stock":
            value = list(value)
        out[f.name] = value
    return out


def public_event_json(event: Event) -> dict[str, Any]:
    """An event as anyone may see it during a game: the cards dealt and given face down left out."""
    out = event_to_json(event)
    if isinstance(event, Deal):
        out["hands"] = [len(h) for h in event.hands]
        out["stock"] = len(event.stock)
    elif isinstance(event, CardGiven):
        out["card"] = None
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
    try:
        return cls(**args)
    except TypeError as exc:
        raise TableError(f"bad {kind} event: {exc}") from None


# --- state --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Setup:
    variant: str
    players: int
    mode: str = "highlight"
    dealer: int | None = None  # None: the last seat deals, so the first seat starts


@dataclass(frozen=True)
class Verdict:
    legal: bool
    seat: int
    card: str
    play: str | None
    reason: dict[str, str]  # language -> words
    fields: tuple[str, ...]  # fields that changed (green) or are wrong (red)


@dataclass(frozen=True)
class Hint:
    play: str  # the notation
    why: dict[str, str]
    fields: tuple[str, ...]
    words: dict[str, str] = field(default_factory=dict)  # the play in words, per language


@dataclass(frozen=True)
class LogEntry:
    seq: int
    kind: str
    seat: int | None
    text: dict[str, str]
    notation: str | None = None  # a play's notation, shown on tap beside the words


@dataclass(frozen=True)
class Effect:
    """What the service should do besides showing the new state: flash, speak."""

    kind: str  # ok | error | say
    fields: tuple[str, ...] = ()
    text: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class TableState:
    setup: Setup
    position: Position  # what the service believes stands on the board
    mode: str
    phase: str
    round_no: int
    dealer: int
    turn: int
    played: tuple[int, ...]  # cards used this round per seat index (played or discarded)
    drawn: tuple[int, ...]  # extra cards drawn this round (royal special fields, solo redraw)
    out: frozenset[int]
    card: str | None = None  # the card in play, waiting for the board to settle
    card_seat: int | None = None
    plays: tuple[engine.Play, ...] = ()
    disc_delta: int = 0  # the disc as the encoder has it, minus the believed position's disc
    flag: Verdict | None = None  # something is wrong: waiting for the board to be put right
    verdict: Verdict | None = None  # the last verdict given
    hint: Hint | None = None
    reading: tuple[tuple[str, str], ...] | None = None  # the last settled board
    log: tuple[LogEntry, ...] = ()
    seq: int = 0
    undo_to: TableState | None = field(default=None, repr=False)  # the state before the last play or correction
    # Hands by seat index, where the service knows them (the simulated table); None at a real
    # table. Never sent to a page whole: Service.snapshot shows a viewer only its own hand.
    hands: tuple[tuple[str, ...], ...] | None = None
    stock: tuple[str, ...] = ()  # cards left to draw from (royal special fields, solo redraws)
    gifts: tuple[tuple[int, str | None], ...] = ()  # exchange: (seat, card given face down) so far
    given: tuple[tuple[int, str | None], ...] = ()  # this round's exchange once done (card None where unknown)
    # Card counting for the hints and the bots: the cards laid down or shown since the deck was
    # last shuffled (as far as the table saw them), and how many cards the deck still holds,
    # counted from what was dealt and drawn, so the table knows when the pile is shuffled anew.
    seen: tuple[str, ...] = ()
    deck_left: int = 0

    @property
    def seats(self) -> tuple[int, ...]:
        return self.position.seats

    @property
    def variant(self) -> engine.Variant:
        return self.position.variant

    def cards_this_round(self) -> int:
        cycle = self.variant.cards_per_round
        return cycle[self.round_no % len(cycle)]

    def hand_size(self, seat: int) -> int:
        if seat in self.out:
            return 0
        return max(0, self.cards_this_round() + self.drawn[seat] - self.played[seat])

    @property
    def winner(self) -> tuple[int, ...] | None:
        return self.position.winner()

    def receiver(self, seat: int) -> int:
        """Who gets the seat's card in the exchange: the partner; in solo games the left neighbour."""
        partner = self.position.partner(seat)
        return partner if partner is not None else _next_seat(self.seats, seat)

    def still_to_give(self) -> tuple[int, ...]:
        given = {s for s, _ in self.gifts}
        return tuple(s for s in self.seats if s not in given) if self.phase == "exchange" else ()


def new_state(setup: Setup) -> TableState:
    """A new game waiting for the camera (or a person) to confirm the starting position."""
    try:
        variant = engine.get_variant(setup.variant)
        position = initial_position(variant, setup.players)
    except (engine.EngineError, ValueError) as exc:
        raise TableError(str(exc)) from None
    if setup.mode not in MODES:
        raise TableError(f"unknown mode '{setup.mode}' (choose {', '.join(MODES)})")
    seats = position.seats
    dealer = seats[-1] if setup.dealer is None else setup.dealer
    if dealer not in seats:
        raise TableError(f"dealer seat {dealer} does not play (seats: {list(seats)})")
    n = len(position.pieces)
    state = TableState(
        setup=setup, position=position, mode=setup.mode, phase="setup", round_no=0, dealer=dealer,
        turn=_next_seat(seats, dealer), played=(0,) * n, drawn=(0,) * n, out=frozenset(),
        deck_left=variant.deck_size,
    )
    return _dealt(state, state.cards_this_round() * len(seats))


def _dealt(state: TableState, count: int) -> TableState:
    """`count` cards left the deck (dealt or drawn; the hands already hold them).

    RULES.md §3.11: when the deck runs out, the pile of cards laid down is shuffled into a new
    one. Then every card not in a hand is back in the deck and none has been seen.
    """
    if count <= state.deck_left:
        return replace(state, deck_left=state.deck_left - count)
    held = sum(state.hand_size(s) for s in state.seats)
    return replace(state, seen=(), deck_left=max(0, state.variant.deck_size - held))


def _next_seat(seats: tuple[int, ...], seat: int) -> int:
    return seats[(seats.index(seat) + 1) % len(seats)]


def _colour(state: TableState, seat: int) -> str:
    return state.position.board.colours[seat]


# --- reading the board --------------------------------------------------------------------
def occupancy(pos: Position) -> dict[str, str]:
    """Track and home fields only: kennel spots are not told apart (any kennel spot will do)."""
    return {f: who for f, who in pos.field_occupancy().items() if "K" not in f}


def reading_to_position(before: Position, reading: Mapping[str, str], disc: int) -> Position | dict[str, str]:
    """The position a settled board shows, or the reason (both languages) it cannot be one.

    Pieces that stay keep their identity (royal ranks); pieces that moved take the free
    identities in order; pieces not seen on track or home are in the kennel.
    """
    colours = before.board.colours
    seen: dict[int, list[int]] = {s: [] for s in before.seats}
    dog = None
    for fid, who in reading.items():
        try:
            kind, fseat, idx = engine.parse_field_id(fid)
        except engine.EngineError:
            continue
        if kind == "K":
            continue
        if who == "dog":
            if kind == "T":
                dog = idx
            continue
        seat = int(who[1:]) if who.startswith("s") and who[1:].isdigit() else -1
        if seat not in seen:
            return both("unknown_piece", field=fid)
        if kind == "T":
            seen[seat].append(idx)
        elif kind == "H" and fseat == seat:
            seen[seat].append(HOME + idx)
        else:
            return both("unknown_piece", field=fid)
    pieces: list[tuple[int, ...] | None] = []
    for seat, locs in enumerate(before.pieces):
        if locs is None:
            pieces.append(None)
            continue
        now = seen[seat]
        if len(now) > len(locs):
            return both("too_many", player=player_name(colours[seat]), n=len(now), have=len(locs))
        stay = set(now) & set(locs)
        new = [x for x in now if x not in stay]
        out = []
        for loc in locs:
            if loc in stay and loc != KENNEL:
                out.append(loc)
                stay.discard(loc)
            else:
                out.append(new.pop(0) if new else KENNEL)
        pieces.append(tuple(out) if before.variant.name == "royal" else tuple(sorted(out)))
    return Position(before.variant, before.board, tuple(pieces), before.last_card,
                    dog if before.variant.name == "black" else None, disc)


def changed_fields(a: Position, b: Position) -> tuple[str, ...]:
    oa, ob = occupancy(a), occupancy(b)
    return tuple(sorted(f for f in set(oa) | set(ob) if oa.get(f) != ob.get(f)))


def board_key(pos: Position) -> tuple:
    """What a camera and the disc encoder can tell apart (no piece identities, no kennel spots)."""
    return (tuple(sorted(occupancy(pos).items())), pos.disc)


# --- LEDs ---------------------------------------------------------------------------------
def play_fields(before: Position, play: engine.Play, seat: int) -> tuple[set[str], set[str]]:
    """(fields of pieces that move, fields they reach) for one play."""
    ob, oa = occupancy(before), occupancy(play.result)
    team = {f"s{s}" for s in before.team(seat)}
    movers = {f for f, who in ob.items() if oa.get(f) != who and (who in team or play.as_card == "swap")}
    targets = {f for f, who in oa.items() if ob.get(f) != who}
    if len(oa) > len(ob) or any(KENNEL in (p or ()) for p in before.pieces):
        # a piece came out of the kennel: light the seat's kennel so the player sees which
        for s in before.team(seat):
            kb = sum(1 for x in before.pieces[s] or () if x == KENNEL)
            ka = sum(1 for x in play.result.pieces[s] or () if x == KENNEL)
            if ka < kb:
                movers.add(f"S{s}K{kb - 1}")
    return movers, targets


def leds(state: TableState) -> dict[str, str]:
    """Field id -> role (movable, target, hint, error) the LED rings should show now."""
    if state.flag is not None:
        return {f: "error" for f in state.flag.fields}
    out: dict[str, str] = {}
    if state.card is None or state.card_seat is None:
        return out
    if state.mode != "referee":
        for play in state.plays:
            movers, targets = play_fields(state.position, play, state.card_seat)
            for f in movers:
                out[f] = "movable"
            for f in targets:
                out.setdefault(f, "target")
    # A hint exists only in training or when asked for (the hint button), so it shows in any mode.
    if state.hint is not None:
        for f in state.hint.fields:
            out[f] = "hint"
    return out


# --- hints --------------------------------------------------------------------------------
def seat_view(state: TableState, seat: int) -> SeatView:
    """What `seat` knows of the cards now: its hand, the cards seen, every seat's hand size.

    At a real table the service knows only the card the seat shows, so that is the hand.
    """
    if state.hands is not None:
        hand = tuple(state.hands[seat])
        sizes = tuple((s, len(state.hands[s])) for s in state.seats)
    else:
        hand = (state.card,) if state.card is not None and state.card_seat == seat else ()
        sizes = tuple((s, state.hand_size(s)) for s in state.seats)
    return SeatView(state.position, hand, state.seen, sizes, state.round_no, dict(state.given).get(seat))


def best_hint(pos: Position, plays: tuple[engine.Play, ...], seat: int, view: SeatView) -> Hint | None:
    """The best play of the card in play, why, and why the next best is worse (engine.hints).

    The hint weighs the plays of the card shown, knowing what `view` knows: which cards were
    laid down since the deck was shuffled (so which threats are still likely) and the hand sizes.
    """
    hint = explain(pos, seat, [(play.card, play) for play in plays], view.knowledge())
    if hint is None:
        return None
    movers, targets = play_fields(pos, hint.play, seat)
    words = {lang: describe_play(pos, hint.play, seat, lang) for lang in LANGS}
    return Hint(hint.play.notation, {lang: hint.text(lang) for lang in LANGS}, tuple(sorted(movers | targets)), words)


# --- applying events ----------------------------------------------------------------------
def _log(state: TableState, kind: str, seat: int | None, text: dict[str, str]) -> tuple[LogEntry, ...]:
    entries = state.log + (LogEntry(state.seq, kind, seat, text),)
    return entries[-LOG_KEEP:]


def apply(state: TableState, event: Event) -> tuple[TableState, tuple[Effect, ...]]:
    """The state after `event`, and what to show or say. Raises TableError for bad events."""
    handler = _HANDLERS.get(type(event))
    if handler is None:
        raise TableError(f"unknown event {event!r}")
    if state.phase == "over" and not isinstance(event, (Undo, SetMode, SetPosition, BoardSettled)):
        raise TableError("the game is over; start a new game (or undo the last play)")
    new, effects = handler(state, event)
    return replace(new, seq=state.seq + 1), effects


def _card_seen(state: TableState, ev: CardSeen) -> tuple[TableState, tuple[Effect, ...]]:
    pos = state.position
    seat = state.turn if ev.seat is None else ev.seat
    if seat not in state.seats:
        raise TableError(f"seat {seat} does not play in this game (seats: {list(state.seats)})")
    try:
        plays = tuple(engine.legal_moves(pos, ev.card, seat))
    except engine.EngineError as exc:
        raise TableError(str(exc)) from None
    if state.phase == "setup":
        raise TableError("confirm the starting position first (put the pieces out, or correct it by hand)")
    if state.hands is not None:
        if state.phase == "exchange":
            raise TableError(say("en", "exchange_first"))
        if ev.card not in state.hands[seat]:
            raise TableError(say("en", "not_in_hand", player=player_name(_colour(state, seat))("en"), card=ev.card))
    phase = "play"
    logs = state.log
    if state.phase == "exchange":  # a real table: the camera saw the first card, so the exchange is over
        logs = _log(state, "exchange", seat, both("exchange_done", player=player_name(_colour(state, seat))))
    state = replace(state, log=logs)
    name = player_name(_colour(state, seat))
    if seat != state.turn:
        turn = player_name(_colour(state, state.turn))
        verdict = Verdict(False, seat, ev.card, None, both("not_turn", turn=turn, seat=name), ())
        return (replace(state, phase=phase, verdict=verdict,
                        log=_log(state, "flag", seat, verdict.reason)),
                (Effect("say", (), verdict.reason),))
    text = both("card_seen", player=name, card=ev.card)
    effects: list[Effect] = []
    if not plays:
        text = both(_stuck_key(state, seat, ev.card), player=name, card=ev.card)
        effects.append(Effect("say", (), text))
    hint = None
    if state.mode == "training":
        hint = best_hint(pos, plays, seat, seat_view(replace(state, card=ev.card, card_seat=seat), seat))
    new = replace(state, phase=phase, card=ev.card, card_seat=seat, plays=plays, hint=hint,
                  log=_log(state, "card", seat, text))
    if hint is not None:
        effects.append(Effect("say", (), {lang: both("hint", play=hint.words[lang], why=hint.why[lang])[lang] for lang in LANGS}))
    return new, tuple(effects)


def _stuck_key(state: TableState, seat: int, card: str) -> str:
    """What a player whose card cannot move must do: another card, lay the hand down, or discard.

    Only the simulated table knows the other cards; at a real table the words cover both cases.
    """
    if state.hands is None:
        return "no_play_card"
    if any(engine.legal_moves(state.position, c, seat) for c in set(state.hands[seat]) - {card}):
        return "no_play_other"
    return "no_play_hand" if state.position.is_team_game else "no_play_discard"


def stuck(state: TableState) -> str | None:
    """For the page: why the card in play cannot move and what to do (None: it can move)."""
    if state.card is None or state.card_seat is None or state.plays:
        return None
    return _stuck_key(state, state.card_seat, state.card)


def _reading_dict(state: TableState, ev: BoardSettled) -> dict[str, str]:
    return dict(ev.fields)


def _board(state: TableState, ev: BoardSettled) -> tuple[TableState, tuple[Effect, ...]]:
    pos = state.position
    disc = (pos.disc + state.disc_delta) % 4
    seen = reading_to_position(pos, _reading_dict(state, ev), disc)
    state = replace(state, reading=ev.fields)
    seat = state.card_seat if state.card_seat is not None else state.turn
    if isinstance(seen, dict):  # the reading is no position at all
        verdict = Verdict(False, seat, state.card or "", None, seen, tuple(f for f, _ in ev.fields if "K" not in f))
        return _flag(state, verdict)
    if board_key(seen) == board_key(pos):
        void = [p for p in state.plays if board_key(p.result) == board_key(pos)]
        if void and len(void) == len(state.plays) and state.card_seat is not None and state.phase == "play":
            # a swap with no swap possible: laid down without effect. When the card could also
            # move (a joker), a still board is a player thinking, and "lay down" is a button.
            return _accept(state, state.card_seat, void[0])
        if state.flag is not None:
            # the "not allowed" is over: the verdict becomes a note that the board is right again
            note = Verdict(True, seat, state.card or "", None, both("board_back"), ())
            return (replace(state, flag=None, verdict=note, log=_log(state, "back", seat, both("board_back"))),
                    (Effect("ok", (), both("board_back")),))
        return state, ()
    if state.phase == "setup":
        changes = ", ".join(changed_fields(pos, seen))
        verdict = Verdict(False, seat, "", None, both("setup_differs", changes=changes), changed_fields(pos, seen))
        return _flag(state, verdict)
    if state.card is None or state.phase == "over":
        verdict = Verdict(False, seat, "", None, both("no_card"), changed_fields(pos, seen))
        return _flag(state, verdict)
    key = board_key(seen)
    match = [p for p in state.plays if board_key(p.result) == key]
    name = player_name(_colour(state, seat))
    if match:
        return _accept(state, seat, match[0])
    pending = [p for p in state.plays if p.disc_turn and board_key(_unturned(p)) == key]
    if pending and state.disc_delta == 0:
        text = both("turn_disc")
        if state.flag is None and state.verdict is not None and state.verdict.reason == text:
            return state, ()
        verdict = Verdict(True, seat, state.card, None, text, changed_fields(pos, seen))
        return replace(state, flag=None, verdict=verdict, log=_log(state, "disc", seat, text)), (Effect("say", (), text),)
    reason = {}
    for lang in LANGS:
        try:
            reason[lang] = engine.check(pos, seen, state.card, seat, lang).reason
        except engine.EngineError as exc:
            reason[lang] = str(exc)
    reason = {lang: both("flagged", player=name, card=state.card, reason=reason[lang])[lang] for lang in LANGS}
    return _flag(state, Verdict(False, seat, state.card, None, reason, changed_fields(pos, seen)))


def _unturned(play: engine.Play) -> Position:
    """The play's result before its disc turn: what the board shows until the disc moves."""
    return rotate_disc(play.result, -play.disc_turn)


def rotate_disc(pos: Position, quarters: int) -> Position:
    """Turn the Black DOG disc: pieces and the dog on disc fields move a segment per quarter."""
    return engine.turn_disc(pos, quarters)


def _flag(state: TableState, verdict: Verdict) -> tuple[TableState, tuple[Effect, ...]]:
    if state.flag is not None and state.flag.reason == verdict.reason and state.flag.fields == verdict.fields:
        return state, ()  # the same wrong board settled again: say it once
    new = replace(state, flag=verdict, verdict=verdict, log=_log(state, "flag", verdict.seat, verdict.reason))
    return new, (Effect("error", verdict.fields, verdict.reason),)


def _accept(state: TableState, seat: int, play: engine.Play) -> tuple[TableState, tuple[Effect, ...]]:
    before = state.position
    text = {lang: describe_play(before, play, seat, lang) for lang in LANGS}
    verdict = Verdict(True, seat, play.card, play.notation, text, changed_fields(before, play.result))
    played = _bump(state.played, seat)
    drawn = _bump(state.drawn, seat, play.draws) if play.draws else state.drawn
    hands, stock = _take(state, seat, state.card or play.card, play.draws)
    entries = state.log + (LogEntry(state.seq, "play", seat, text, play.notation),)
    new = replace(state, position=play.result, played=played, drawn=drawn, card=None, card_seat=None, plays=(),
                  disc_delta=_delta(state, play.result), flag=None, verdict=verdict, hint=None,
                  log=entries[-LOG_KEEP:], undo_to=state, hands=hands, stock=stock,
                  seen=state.seen + (state.card or play.card,))
    if play.draws:
        new = _dealt(new, play.draws)
    effects = [Effect("ok", verdict.fields, text)]
    win = new.winner
    if win is not None:
        names = {lang: both("and")[lang].join(player_name(_colour(state, s))(lang) for s in win) for lang in LANGS}
        wtext = {lang: both("winners" if len(win) > 1 else "winner", players=names[lang])[lang] for lang in LANGS}
        new = replace(new, phase="over", log=_log(new, "win", None, wtext))
        effects.append(Effect("say", (), wtext))
        return new, tuple(effects)
    return _advance(new, seat, effects)


def _take(state: TableState, seat: int, card: str | None, draws: int = 0
          ) -> tuple[tuple[tuple[str, ...], ...] | None, tuple[str, ...]]:
    """Hands and stock after `seat` laid `card` down and drew `draws` cards (where hands are known)."""
    if state.hands is None:
        return None, state.stock
    hand = list(state.hands[seat])
    if card in hand:
        hand.remove(card)
    stock = list(state.stock)
    for _ in range(draws):
        if stock:  # the simulated stock is one deck; an empty one simply gives nothing more
            hand.append(stock.pop())
    hands = tuple(tuple(hand) if i == seat else h for i, h in enumerate(state.hands))
    return hands, tuple(stock)


def _delta(state: TableState, believed: Position) -> int:
    """Quarter turns between the physical disc (as the encoder counts it) and `believed`."""
    return ((state.position.disc + state.disc_delta - believed.disc + 2) % 4) - 2


def _bump(values: tuple[int, ...], seat: int, by: int = 1) -> tuple[int, ...]:
    return tuple(v + by if i == seat else v for i, v in enumerate(values))


def _advance(state: TableState, seat: int, effects: list[Effect]) -> tuple[TableState, tuple[Effect, ...]]:
    """Pass the turn on; when nobody holds a card any more, start the next round."""
    seats = state.seats
    nxt = seat
    for _ in seats:
        nxt = _next_seat(seats, nxt)
        if state.hand_size(nxt) > 0:
            return replace(state, turn=nxt), tuple(effects)
    return _new_round(state, effects)


def _new_round(state: TableState, effects: list[Effect]) -> tuple[TableState, tuple[Effect, ...]]:
    seats = state.seats
    dealer = _next_seat(seats, state.dealer)
    p = state.position
    n = len(p.pieces)
    new = replace(state, round_no=state.round_no + 1, dealer=dealer, turn=_next_seat(seats, dealer),
                  played=(0,) * n, drawn=(0,) * n, out=frozenset(), phase="exchange",
                  position=Position(p.variant, p.board, p.pieces, None, p.black_dog, p.disc),
                  hands=None, stock=(), gifts=(), given=())
    return _exchange_note(_dealt(new, new.cards_this_round() * len(seats)), effects)


def _exchange_note(state: TableState, effects: list[Effect]) -> tuple[TableState, tuple[Effect, ...]]:
    whom = "exchange_partner" if state.position.is_team_game else "exchange_left"
    text = {lang: both("exchange", round=state.round_no + 1, cards=state.cards_this_round(),
                       whom=both(whom)[lang])[lang] for lang in LANGS}
    return replace(state, log=_log(state, "round", None, text)), tuple(effects) + (Effect("say", (), text),)


def _disc(state: TableState, ev: DiscTurned) -> tuple[TableState, tuple[Effect, ...]]:
    if ev.direction not in (1, -1):
        raise TableError("a disc turn is +1 (clockwise) or -1 (anticlockwise)")
    if state.variant.name != "black":
        raise TableError(f"{state.variant.name} has no disc; only Black DOG does")
    text = both("disc_turned", direction=lambda lang: both("clockwise" if ev.direction > 0 else "anticlockwise")[lang])
    seat = state.card_seat if state.card_seat is not None else state.turn
    delta = ((state.disc_delta + ev.direction + 2) % 4) - 2
    return replace(state, disc_delta=delta, log=_log(state, "disc", seat, text)), ()


def _exchange(state: TableState, ev: ExchangeDone) -> tuple[TableState, tuple[Effect, ...]]:
    if state.phase != "exchange":
        raise TableError("there is no card exchange now (it comes at the start of each round)")
    if state.hands is not None:
        raise TableError(say("en", "exchange_give_each"))
    text = both("exchange_done", player=player_name(_colour(state, state.turn)))
    return replace(state, phase="play", gifts=(), log=_log(state, "exchange", None, text)), ()


def _give(state: TableState, ev: CardGiven) -> tuple[TableState, tuple[Effect, ...]]:
    """One seat's card goes face down to its receiver; once every seat gave, all are picked up."""
    if state.phase != "exchange":
        raise TableError("there is no card exchange now (it comes at the start of each round)")
    if ev.seat not in state.seats:
        raise TableError(f"seat {ev.seat} does not play in this game (seats: {list(state.seats)})")
    name = player_name(_colour(state, ev.seat))
    if ev.seat not in state.still_to_give():
        raise TableError(say("en", "already_given", player=name("en")))
    card = None
    hands = state.hands
    if hands is not None:
        if ev.card is None or ev.card not in hands[ev.seat]:
            raise TableError(say("en", "not_in_hand", player=name("en"), card=ev.card or "?"))
        card = ev.card
        hands, _ = _take(state, ev.seat, card)
    to = player_name(_colour(state, state.receiver(ev.seat)))
    text = both("gave_card", player=name, to=to)
    new = replace(state, gifts=state.gifts + ((ev.seat, card),), hands=hands, log=_log(state, "give", ev.seat, text))
    if new.still_to_give():
        return new, ()
    if hands is not None:  # everybody gave: now each picks up the card received
        got = [list(h) for h in hands]
        for seat, c in new.gifts:
            got[new.receiver(seat)].append(c or "")
        new = replace(new, hands=tuple(tuple(h) for h in got))
    done = both("exchange_done", player=player_name(_colour(state, state.turn)))
    return (replace(new, phase="play", gifts=(), given=new.gifts, log=_log(new, "exchange", None, done)),
            (Effect("say", (), done),))


def _deal(state: TableState, ev: Deal) -> tuple[TableState, tuple[Effect, ...]]:
    if ev.round_no != state.round_no:
        raise TableError(f"a deal for round {ev.round_no + 1}, but round {state.round_no + 1} is on")
    if state.phase not in ("exchange", "play") or state.gifts:
        raise TableError("cards are dealt at the start of a round, before the exchange")
    if len(ev.hands) != len(state.position.pieces):
        raise TableError(f"a deal needs one hand per seat index ({len(state.position.pieces)})")
    deck = {c for c, _ in state.variant.deck}
    for seat, hand in enumerate(ev.hands):
        want = state.hand_size(seat) if seat in state.seats else 0
        if len(hand) != want:
            raise TableError(f"seat {seat} should be dealt {want} cards, not {len(hand)}")
        bad = [c for c in hand + ev.stock if c not in deck]
        if bad:
            raise TableError(f"{bad[0]!r} is not a card of {state.variant.name}")
    # the simulated table deals every round from a fresh deck: nothing laid down yet
    return replace(state, hands=ev.hands, stock=ev.stock, seen=(), deck_left=len(ev.stock)), ()


def _sit_out(state: TableState, ev: SitOut) -> tuple[TableState, tuple[Effect, ...]]:
    if ev.seat not in state.seats:
        raise TableError(f"seat {ev.seat} does not play in this game (seats: {list(state.seats)})")
    if state.phase == "setup":
        raise TableError("the game has not started yet")
    text = both("sat_out", player=player_name(_colour(state, ev.seat)))
    hands, seen = state.hands, state.seen
    if hands is not None:  # the hand is shown and laid down (at a real table the service does not see it)
        seen += hands[ev.seat]
        hands = tuple(() if i == ev.seat else h for i, h in enumerate(hands))
    new = replace(state, out=state.out | {ev.seat}, phase="play", log=_log(state, "out", ev.seat, text),
                  undo_to=state, flag=None, hands=hands, gifts=(), seen=seen)
    if ev.seat == state.card_seat:
        new = replace(new, card=None, card_seat=None, plays=(), hint=None)
    if ev.seat == state.turn:
        return _advance(new, ev.seat, [Effect("say", (), text)])
    return new, (Effect("say", (), text),)


def _discard(state: TableState, ev: Discard) -> tuple[TableState, tuple[Effect, ...]]:
    if state.card is None or state.card_seat is None:
        raise TableError("show the card to discard first")
    seat = state.card_seat
    void = [p for p in state.plays if board_key(p.result) == board_key(state.position)]
    if void and not ev.redraw:
        return _accept(state, seat, void[0])  # the engine's own "laid down without effect" play
    name = player_name(_colour(state, seat))
    key = "discard_draw" if ev.redraw else ("card_void" if state.plays else "discard")
    text = both(key, player=name, card=state.card)
    played = _bump(state.played, seat)
    drawn = _bump(state.drawn, seat) if ev.redraw else state.drawn
    hands, stock = _take(state, seat, state.card, 1 if ev.redraw else 0)
    p = state.position
    new = replace(state, played=played, drawn=drawn, card=None, card_seat=None, plays=(), hint=None, flag=None,
                  log=_log(state, "discard", seat, text), undo_to=state, hands=hands, stock=stock,
                  position=Position(p.variant, p.board, p.pieces, p.last_card, p.black_dog, p.disc),
                  seen=state.seen + (state.card,))
    if ev.redraw:
        new = _dealt(new, 1)
    if ev.redraw:
        return new, (Effect("say", (), text),)
    return _advance(new, seat, [Effect("say", (), text)])


def _undo(state: TableState, ev: Undo) -> tuple[TableState, tuple[Effect, ...]]:
    if state.undo_to is None and state.card is not None and state.card_seat is not None and state.flag is None:
        # a card shown, nothing played yet: undo takes the card back (it stays in the hand);
        # with a play before it, undo takes that play back and the card with it, as always
        text = both("card_back", player=player_name(_colour(state, state.card_seat)), card=state.card)
        return replace(state, card=None, card_seat=None, plays=(), hint=None, verdict=None,
                       log=_log(state, "undo", state.card_seat, text)), (Effect("say", (), text),)
    prev = state.undo_to
    if prev is None:
        text = both("nothing_to_undo")
        return replace(state, log=_log(state, "undo", None, text)), (Effect("say", (), text),)
    last = state.log[-1].text if state.log else {lang: "" for lang in LANGS}
    undone = next((e.text for e in reversed(state.log) if e.kind in ("play", "out", "discard", "fix", "turn")), last)
    text = {lang: both("undo", what=undone[lang])[lang] for lang in LANGS}
    # keep the log and the mode: undo takes back a play, not what was said about it
    # the disc stays where it physically is until someone turns it back (the encoder reports that)
    restored = replace(prev, mode=state.mode, log=_log(state, "undo", None, text), card=None, card_seat=None,
                       plays=(), hint=None, flag=None, disc_delta=_delta(state, prev.position))
    return restored, (Effect("say", (), text),)


def _set_position(state: TableState, ev: SetPosition) -> tuple[TableState, tuple[Effect, ...]]:
    try:
        obj = json.loads(ev.position)
        pos = engine.parse_position(obj)
    except (json.JSONDecodeError, engine.EngineError) as exc:
        raise TableError(f"bad position: {exc}") from None
    old = state.position
    if pos.variant is not old.variant or pos.board is not old.board or pos.seats != old.seats:
        raise TableError("the corrected position must keep the game's edition, board and seats")
    if state.phase == "setup":
        text = both("setup_ok")
        new = replace(state, position=pos, phase="exchange", flag=None, log=_log(state, "fix", None, text),
                      undo_to=None)
        return _exchange_note(new, [Effect("ok", (), text)])
    text = both("corrected")
    plays = state.plays
    if state.card is not None and state.card_seat is not None:
        plays = tuple(engine.legal_moves(pos, state.card, state.card_seat))
    new = replace(state, position=pos, plays=plays, flag=None, disc_delta=0, log=_log(state, "fix", None, text),
                  undo_to=state, phase="play" if state.phase == "over" and pos.winner() is None else state.phase)
    return new, (Effect("ok", (), text),)


def confirm_start(state: TableState, ev: BoardSettled) -> bool:
    """Whether a settled board shows the starting position the game expects."""
    seen = reading_to_position(state.position, dict(ev.fields), state.position.disc)
    return isinstance(seen, Position) and board_key(seen) == board_key(state.position)


def _board_or_setup(state: TableState, ev: BoardSettled) -> tuple[TableState, tuple[Effect, ...]]:
    if state.phase == "setup" and confirm_start(state, ev):
        text = both("setup_ok")
        new = replace(state, phase="exchange", flag=None, reading=ev.fields, log=_log(state, "fix", None, text))
        return _exchange_note(new, [Effect("ok", (), text)])
    return _board(state, ev)


def _set_turn(state: TableState, ev: SetTurn) -> tuple[TableState, tuple[Effect, ...]]:
    if ev.seat not in state.seats:
        raise TableError(f"seat {ev.seat} does not play in this game (seats: {list(state.seats)})")
    text = both("turn_set", player=player_name(_colour(state, ev.seat)))
    return replace(state, turn=ev.seat, card=None, card_seat=None, plays=(), hint=None,
                   log=_log(state, "turn", ev.seat, text), undo_to=state), ()


def _set_mode(state: TableState, ev: SetMode) -> tuple[TableState, tuple[Effect, ...]]:
    if ev.mode not in MODES:
        raise TableError(f"unknown mode '{ev.mode}' (choose {', '.join(MODES)})")
    hint = None  # leaving training drops the hint; an asked-for one would have to be asked again
    if ev.mode == "training" and state.card is not None and state.card_seat is not None:
        hint = best_hint(state.position, state.plays, state.card_seat, seat_view(state, state.card_seat))
    text = {lang: both("mode", mode=both(f"mode_{ev.mode}")[lang])[lang] for lang in LANGS}
    return replace(state, mode=ev.mode, hint=hint, log=_log(state, "mode", None, text)), ()


def _ask_hint(state: TableState, ev: AskHint) -> tuple[TableState, tuple[Effect, ...]]:
    if state.card is None or state.card_seat is None:
        raise TableError("show a card first: the hint is the best play of the card in play")
    hint = best_hint(state.position, state.plays, state.card_seat, seat_view(state, state.card_seat))
    if hint is None:
        text = both("no_play_card", player=player_name(_colour(state, state.card_seat)), card=state.card)
    else:
        text = {lang: both("hint", play=hint.words[lang], why=hint.why[lang])[lang] for lang in LANGS}
    return replace(state, hint=hint, log=_log(state, "hint", state.card_seat, text)), (Effect("say", (), text),)


_HANDLERS = {
    CardSeen: _card_seen, BoardSettled: _board_or_setup, DiscTurned: _disc, ExchangeDone: _exchange,
    SitOut: _sit_out, Discard: _discard, Undo: _undo, SetPosition: _set_position, SetTurn: _set_turn,
    SetMode: _set_mode, AskHint: _ask_hint, Deal: _deal, CardGiven: _give,
}


def replay(setup: Setup, events: list[Event]) -> TableState:
    """Rebuild a game from its journal; an event that failed when it was live fails the same way."""
    state = new_state(setup)
    for ev in events:
        try:
            state, _ = apply(state, ev)
        except TableError as exc:
            log.warning("journal event %r no longer applies: %s", ev, exc)
    return state


# --- JSON for the web page ----------------------------------------------------------------
def state_to_json(state: TableState, log_tail: int = 60) -> dict[str, Any]:
    pos = state.position
    seats = []
    for s in state.seats:
        partner = pos.partner(s)
        seats.append({
            "seat": s, "colour": pos.board.colours[s], "cards": state.hand_size(s), "out": s in state.out,
            "home": pos.pieces_home(s), "partner": partner,
            "plays_for": partner if partner is not None and pos.is_finished(s) else None,
        })
    def verdict(v: Verdict | None) -> dict | None:
        if v is None:
            return None
        return {"legal": v.legal, "seat": v.seat, "card": v.card, "play": v.play, "reason": v.reason,
                "fields": list(v.fields)}
    return {
        "variant": pos.variant.name, "title": pos.variant.title, "segments": pos.board.segments,
        "players": pos.players, "team_game": pos.is_team_game,
        "position": pos.to_json(), "mode": state.mode, "phase": state.phase, "round": state.round_no + 1,
        "cards_this_round": state.cards_this_round(), "dealer": state.dealer, "turn": state.turn,
        "seats": seats, "card": state.card, "card_seat": state.card_seat,
        "plays": [p.notation for p in state.plays[:40]], "plays_total": len(state.plays),
        "play_words": [{lang: describe_play(pos, p, state.card_seat, lang) for lang in LANGS}
                       for p in state.plays[:40]] if state.card_seat is not None else [],
        "leds": leds(state), "flag": verdict(state.flag), "verdict": verdict(state.verdict),
        "hint": None if state.hint is None else
        {"play": state.hint.play, "why": state.hint.why, "fields": list(state.hint.fields), "words": state.hint.words},
        "winner": list(state.winner) if state.winner else None,
        "deck": [c for c, _ in pos.variant.deck],
        "log": [{"seq": e.seq, "kind": e.kind, "seat": e.seat, "text": e.text, "notation": e.notation}
                for e in state.log[-log_tail:]],
        "seq": state.seq, "can_undo": state.undo_to is not None or state.card is not None,
        # who still owes a card in the exchange (never which card), and whether hands are known
        "to_give": list(state.still_to_give()), "hands_known": state.hands is not None,
        "receivers": {str(s): state.receiver(s) for s in state.seats}, "stuck": stuck(state),
    }
