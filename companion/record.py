"""A game record a person can keep: the plays of one game as readable text or as JSON.

The text begins with tag pairs, as PGN and PBN records do (`[Edition "classic (Classic DOG)"]`),
then one section per round: the deal (each seat's hand, where the table knew it), the cards
given in the exchange, and one numbered line per play in the play notation of
docs/notation.md with the play in words beside it (`  12  Red      5: T60-H0   # Red moves
5 to the home`). What a person reads is in the record's language; the tag names, the
notation and the JSON keys are the same in every language, so every record reads back.
docs/record.md describes the format.

The public version (for anyone while a game is on) leaves out what lay face down: the deal
and the cards given. `read_record` checks a file and `replay_record` plays every recorded
play through the rules engine again, so a record that was changed by hand into something
impossible is named at its line.

Longer than 600 lines because the text is written and read here side by side: one format,
and a change to the writing is seen beside the reading it must keep working.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import re
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import engine
from engine.describe import describe_play
from engine.game import initial_position
from engine.messages import LANGUAGES, card_name, colour_name, load_catalogue, lookup
from companion import table as T
from companion.errors import UserError
from companion.texts import say

FORMAT = "dogtable-record"
VERSION = 1  # the keys added since (deals, gifts, rounds, ...) are optional: a record without them reads as before
TEXT_TITLE = "# dogtable game record"
SUFFIXES = (".txt", ".json")
KINDS = ("play", "discard", "sitout", "position")
PLAYER_KINDS = ("bot", "phone", "table")  # who played a seat, where the table knows it
# An event's source -> who played the seat. "web" and "sim" are left out: the page may be the
# host's screen acting for a seat or a phone, and the simulated table moves pieces for anyone.
SOURCE_KIND = {"bot": "bot", "phone": "phone", "camera": "table", "rfid": "table", "button": "table"}
SITES = ("simulated", "table")


class RecordError(UserError):
    """A file that is not a game record, or a record that does not re-play."""


# --- from the journal ---------------------------------------------------------------------
def game_record(setup: T.Setup, events: list[tuple[int, float, T.Event]], *, game_id: int = 0,
                created: float | None = None, ended: str | None = None, public: bool = False) -> dict[str, Any]:
    """The record of a journaled game: the plays that stand (undone ones are left out).

    `public`: what lay face down is left out (a game still on): the deal, the cards given in
    the exchange, and the cards of the journal's deal and exchange events."""
    state = T.new_state(setup)
    for _seq, _ts, ev in events:
        try:
            state, _ = T.apply(state, ev)
        except T.TableError:
            continue  # it failed live as well: not part of the game
    # the actions that stand are the table's own history: an undo popped what it took back
    plays: list[dict[str, Any]] = []
    for act in state.history:
        if act.kind in ("start", "fix") and act.position is not None:
            plays.append({"kind": "position", "round": act.round_no + 1, "position": act.position.to_json()})
        elif act.kind == "out":
            plays.append({"kind": "sitout", "round": act.round_no + 1, "seat": act.seat})
        elif act.kind == "discard":
            plays.append({"kind": "discard", "round": act.round_no + 1, "seat": act.seat, "card": act.card})
        elif act.kind == "play":
            plays.append({"kind": "play", "round": act.round_no + 1, "seat": act.seat, "card": act.card,
                          "play": act.notation})
    pos = state.position
    facts = table_facts(setup, events)
    rounds = max([state.round_no + 1 if state.phase != "setup" else 0] + [p["round"] for p in plays])
    whole = {
        "format": FORMAT, "version": VERSION, "game": game_id,
        "edition": setup.variant, "title": pos.variant.title, "players": setup.players,
        "seats": [{"seat": s, "colour": pos.board.colours[s], "player": facts.players.get(s)} for s in pos.seats],
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(created if created is not None else time.time())),
        "mode": setup.mode,
        "result": _result(state, ended),
        "winners": [pos.board.colours[s] for s in state.winner] if state.winner else [],
        "plays": plays,
        "public": False,
        "site": "simulated" if facts.deals else "table",  # only the simulated table deals through the service
        "direction": _direction(setup, pos),
        "rounds": rounds,
        # a deal is recorded whole or not at all: a table joined to another's game knew only its
        # own seats' cards ("?" for the others'), and a record's deal is read against the deck
        "deals": [{"round": r, "hands": [{"seat": s, "cards": list(hands[s])} for s in pos.seats]}
                  for r, hands in sorted(facts.deals.items())
                  if r <= rounds and all(T.UNKNOWN not in h for h in hands)],
        "gifts": [{"round": r, "seat": s, "to": to, "card": card}
                  for r, given in sorted(facts.gifts.items()) if r <= rounds for s, to, card in given],
        "events": [T.event_to_json(ev) for _, _, ev in events],
    }
    return public_version(whole) if public else whole


def public_version(record: dict[str, Any]) -> dict[str, Any]:
    """The record as anyone may see it during a game: no deal, no card given face down.

    The exchange stays (who gave a card to whom), and so do the journal's events, with each
    deal's hands as counts and each card given as null."""
    try:
        events = [T.public_event_json(T.event_from_json(e)) for e in record.get("events") or []]
    except (T.TableError, AttributeError, TypeError) as exc:
        raise RecordError(f"the record's events are not readable ({_short(exc)})") from None
    return {**record, "public": True, "deals": [], "events": events,
            "gifts": [{**g, "card": None} for g in record.get("gifts") or []]}


@dataclass(frozen=True)
class TableFacts:
    """What the plays do not say: each round's deal and exchange, and who played each seat."""

    deals: dict[int, tuple[tuple[str, ...], ...]]  # round (from 1) -> hands by seat index
    gifts: dict[int, tuple[tuple[int, int, str | None], ...]]  # round -> (giver, receiver, card or None)
    players: dict[int, str]  # seat -> one of PLAYER_KINDS, where the events' sources tell


def table_facts(setup: T.Setup, events: list[tuple[int, float, T.Event]]) -> TableFacts:
    """The deals, the exchanges and the players of a journaled game, from a pass of its own.

    For each round the deal and exchange that stand at the end are kept: an undo back over
    the end of a round takes that round's deal back with it, and the new deal replaces it.
    Events the table refused live are refused here too and count for nothing."""
    state = T.new_state(setup)
    deals: dict[int, tuple[tuple[str, ...], ...]] = {}
    gifts: dict[int, tuple[tuple[int, int, str | None], ...]] = {}
    kinds: dict[int, Counter[str]] = {}
    for _seq, _ts, ev in events:
        old = state
        try:
            state, _ = T.apply(state, ev)
        except T.TableError:
            continue
        seat = _actor(old, ev)
        kind = SOURCE_KIND.get(ev.source)
        if seat is not None and kind is not None:
            kinds.setdefault(seat, Counter())[kind] += 1
        if isinstance(ev, T.Deal):
            deals[ev.round_no + 1] = ev.hands
        if state.given and state.given is not old.given:  # an exchange just done (or one restored by an undo)
            gifts[state.round_no + 1] = tuple((s, state.receiver(s), c) for s, c in state.given)
    return TableFacts(deals, gifts, {s: c.most_common(1)[0][0] for s, c in kinds.items()})


def _actor(before: T.TableState, ev: T.Event) -> int | None:
    """The seat an event acts for, where it acts for one."""
    if isinstance(ev, T.CardSeen):
        return before.turn if ev.seat is None else ev.seat
    if isinstance(ev, (T.CardGiven, T.SitOut)):
        return ev.seat
    if isinstance(ev, T.Discard):
        return before.card_seat
    return None


def _direction(*where: object) -> str:
    """Clockwise, unless the setup or the position says the game goes the other way round."""
    for obj in where:
        d = getattr(obj, "direction", None)
        if d:  # a setup without one is played the edition's way: its position says which
            return "anticlockwise" if d == "counter-clockwise" else "clockwise"
    return "clockwise"


def _engine_direction(word: object) -> str | None:
    """The record's word for the direction as the engine names it (None: the edition's own way)."""
    return {"anticlockwise": "counter-clockwise", "clockwise": "clockwise"}.get(str(word)) if word else None


def _result(state: T.TableState, ended: str | None) -> str:
    if state.winner:
        return "won"
    return "abandoned" if ended == "abandoned" else "unfinished"


# --- re-playing -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Step:
    """One recorded play re-played: the position before it and the engine's play (None: no move)."""

    number: int
    entry: dict[str, Any]
    before: engine.Position
    play: engine.Play | None
    after: engine.Position


def _where(record: dict[str, Any], name: str, key: str) -> str:
    """"game.txt line 40" for a text record (its reader keeps the lines), else the file's name."""
    line = (record.get("text_lines") or {}).get(key)
    return f"{name} line {line}" if line else name


def _start(record: dict[str, Any], name: str) -> engine.Position:
    try:
        return initial_position(engine.get_variant(record["edition"]), int(record["players"]),
                                direction=_engine_direction(record.get("direction")))
    except (engine.EngineError, ValueError, TypeError, KeyError) as exc:
        raise RecordError(f"{name}: {_short(exc)}") from None


def replayed(record: dict[str, Any], name: str = "the record") -> tuple[list[Step], engine.Position]:
    """Every recorded play again from the start, checked; the steps and the final position.

    Each play must be one of the engine's legal plays of its card for its seat; where the
    deal is known, each card laid down must be one the seat holds. Otherwise RecordError
    names the line (a text record) or the play."""
    pos = _start(record, name)
    colours = pos.board.colours
    hands = Hands(record, name, pos)
    steps: list[Step] = []
    round_no = 0
    for n, p in enumerate(record["plays"], 1):
        where = _where(record, name, f"play {n}")
        try:
            if not isinstance(p, dict) or p.get("kind") not in KINDS:
                raise ValueError("not a play, discard, sit-out or position")
            if p.get("round", round_no) != round_no:
                round_no = int(p["round"])
                pos = dataclasses.replace(pos, last_card=None)  # a new round: nothing to copy yet
                hands.new_round(round_no)
            if p["kind"] == "position":
                new = engine.parse_position(p["position"])
                if new.variant is not pos.variant or new.seats != pos.seats:
                    raise ValueError("the position is of another edition or other seats")
                steps.append(Step(n, p, pos, None, new))
                pos = new
                continue
            seat = int(p["seat"])
            if seat not in pos.seats:
                raise ValueError(f"seat {seat} does not play")
            who = colours[seat].capitalize()
            play = None
            if p["kind"] == "play":
                play = _parse_play(pos, str(p["play"]), str(p["card"]), seat)
                if play.card != p["card"]:
                    raise ValueError(f"the play is of the {play.card}, the record says {p['card']}")
        except (KeyError, ValueError, TypeError, engine.EngineError) as exc:
            what = f" ({_entry_words(p)})" if isinstance(p, dict) and "kind" in p else ""
            raise RecordError(f"{where}: play {n}{what} does not re-play: {_short(exc)}") from None
        hands.lay(p, play, pos, f"{where}: play {n} ({who} {_entry_words(p)})")
        after = play.result if play is not None else pos
        steps.append(Step(n, p, pos, play, after))
        pos = after
    return steps, pos


def _parse_play(pos: engine.Position, text: str, card: str, seat: int) -> engine.Play:
    """The engine's play the text names. A joker's play may name another card it stands for
    with the same result ("joker as 13: K-T32" where the engine says "joker as 1/11"): a
    person writing a record cannot know which one the engine names first."""
    try:
        return engine.parse_play(pos, text, seat)
    except engine.NotationError:
        head, _, rest = text.partition(":")
        if " as " not in head:
            raise
        try:
            alone = engine.parse_play(pos, f"{head.split(' as ', 1)[1].strip()}:{rest}", seat)
        except engine.EngineError:
            raise engine.NotationError(f"'{text}' is not a legal play for seat {seat} in this position") from None
        same = [m for m in engine.legal_moves(pos, card, seat) if _board(m.result) == _board(alone.result)]
        if not same:
            raise
        return same[0]


def _board(pos: engine.Position) -> tuple[Any, ...]:
    return pos.pieces, pos.black_dog, pos.disc


def _entry_words(p: dict[str, Any]) -> str:
    kind = p.get("kind")
    if kind == "play":
        return str(p.get("play"))
    if kind == "discard":
        return f"discards {p.get('card')}"
    return "sits out" if kind == "sitout" else "a position set by hand"


class Hands:
    """Each seat's cards as far as the record knows them: dealt, given and received, laid down.

    Only where a round's deal and every card given in its exchange are known (the simulated
    table, the private version); elsewhere nothing is checked. Cards drawn later (royal
    special fields, a solo redraw) are not in the record: a seat that may have drawn one may
    lay down a card it was not dealt, as many times as it drew."""

    def __init__(self, record: dict[str, Any], name: str, start: engine.Position) -> None:
        self.record, self.name, self.start = record, name, start
        self.held: dict[int, list[str]] | None = None
        self.drawn: Counter[int] = Counter()
        self.deals = self._deals()
        self.gifts = self._gifts()

    def _deals(self) -> dict[int, dict[int, list[str]]]:
        variant = self.start.variant
        cycle = variant.cards_per_round
        deck = dict(variant.deck)
        out: dict[int, dict[int, list[str]]] = {}
        for d in self.record.get("deals") or []:
            r = d.get("round") if isinstance(d, dict) else None
            where = _where(self.record, self.name, f"round {r}")
            try:
                r = int(r)  # type: ignore[arg-type]
                hands = {int(h["seat"]): [str(c) for c in h["cards"]] for h in d["hands"]}
            except (KeyError, ValueError, TypeError) as exc:
                raise RecordError(f"{where}: a deal is not readable ({_short(exc)})") from None
            want = cycle[(r - 1) % len(cycle)] if r >= 1 else 0
            for seat in self.start.seats:
                who = self.start.board.colours[seat].capitalize()
                cards = hands.get(seat)
                if cards is None:
                    raise RecordError(f"{where}: the deal of round {r} has no hand for {who}")
                if len(cards) != want:
                    raise RecordError(f"{_where(self.record, self.name, f'deal {r} {seat}')}: {who} is dealt "
                                      f"{len(cards)} cards, but round {r} deals {want}")
            if set(hands) - set(self.start.seats):
                raise RecordError(f"{where}: the deal of round {r} has a hand for a seat that does not play")
            for card, count in Counter(c for cards in hands.values() for c in cards).items():
                if count > deck.get(card, 0):
                    raise RecordError(f"{where}: the deal of round {r} has {count} of '{card}', "
                                      f"the {variant.name} deck {deck.get(card, 0)}")
            out[r] = hands
        return out

    def _gifts(self) -> dict[int, list[dict[str, Any]]]:
        out: dict[int, list[dict[str, Any]]] = {}
        for g in self.record.get("gifts") or []:
            try:
                r, seat, to = int(g["round"]), int(g["seat"]), int(g["to"])
            except (KeyError, ValueError, TypeError) as exc:
                raise RecordError(f"{self.name}: a card given in the exchange is not readable ({_short(exc)})") from None
            if seat not in self.start.seats or to not in self.start.seats or seat == to:
                raise RecordError(f"{_where(self.record, self.name, f'gift {r} {seat}')}: seat {seat} cannot give "
                                  f"a card to seat {to}")
            out.setdefault(r, []).append(g)
        return out

    def new_round(self, r: int) -> None:
        self.held, self.drawn = None, Counter()
        deal = self.deals.get(r)
        if deal is None or any(g.get("card") is None for g in self.gifts.get(r, [])):
            return
        held = {s: list(c) for s, c in deal.items()}
        for g in self.gifts.get(r, []):
            seat, card = int(g["seat"]), str(g["card"])
            if card not in held[seat]:
                who = self.start.board.colours[seat].capitalize()
                raise RecordError(f"{_where(self.record, self.name, f'gift {r} {seat}')}: {who} gives {card} but "
                                  f"holds {', '.join(held[seat]) or 'no card'}")
            held[seat].remove(card)
        for g in self.gifts.get(r, []):
            held[int(g["to"])].append(str(g["card"]))
        self.held = held

    def lay(self, p: dict[str, Any], play: engine.Play | None, pos: engine.Position, where: str) -> None:
        if self.held is None or p["kind"] == "position":
            return
        seat = int(p["seat"])
        hand = self.held[seat]
        if p["kind"] == "sitout":
            hand.clear()
            self.drawn[seat] = 0
            return
        card = str(p["card"])
        if card in hand:
            hand.remove(card)
        elif self.drawn[seat] > 0:
            self.drawn[seat] -= 1
        else:
            raise RecordError(f"{where}: the seat does not hold {card} (it holds {', '.join(hand) or 'no card'})")
        if play is not None:
            self.drawn[seat] += play.draws
        elif not pos.is_team_game:
            self.drawn[seat] += 1  # a solo discard may draw a new card (RULES.md: the redraw)


def replay_record(record: dict[str, Any], name: str = "the record", lang: str = "en"
                  ) -> tuple[list[str], engine.Position]:
    """Play every recorded play again from the start: the lines to show, and the final position.

    Each play must be one of the engine's legal plays of that card for that seat, with the
    same notation, and a record that says who won must end with them winning; otherwise
    RecordError names the line or play."""
    steps, pos = replayed(record, name)
    colours = pos.board.colours
    shown: list[str] = []
    round_no = 0
    for st in steps:
        p = st.entry
        if p.get("round", round_no) != round_no:
            round_no = p["round"]
            shown.append(f"round {round_no}")
        if p["kind"] == "position":
            shown.append(f"{st.number:4d}  position set by hand")
            continue
        who = colours[p["seat"]].capitalize()
        if st.play is None:
            shown.append(f"{st.number:4d}  {who} {_entry_words(p)}")
        else:
            shown.append(f"{st.number:4d}  {who}: {st.play.notation}  ({describe_play(st.before, st.play, p['seat'], lang)})")
    winner = pos.winner()
    said = record.get("winners") if record.get("result") == "won" else None
    if said is not None and sorted(said) != sorted(colours[s] for s in winner or ()):
        raise RecordError(f"{_where(record, name, 'Result')}: the record says {' and '.join(str(c).capitalize() for c in said)} won, but "
                          f"after its plays {' and '.join(colours[s].capitalize() for s in winner) if winner else 'nobody'} has won")
    shown.append(f"{len(record['plays'])} plays re-played"
                 + (f"; {' and '.join(colours[s].capitalize() for s in winner)} won" if winner else "; no winner yet"))
    return shown, pos


def complete_record(record: dict[str, Any], name: str = "the record") -> dict[str, Any]:
    """The record with what a short one leaves out (an older file, a text typed by hand), re-played."""
    _, final = replayed(record, name)
    return _filled(record, final)


def _filled(record: dict[str, Any], final: engine.Position) -> dict[str, Any]:
    start = _start(record, "the record")
    colours = start.board.colours
    winner = final.winner()
    plays = record["plays"]
    rounds = max([0] + [int(p.get("round", 0)) for p in plays] + [int(d["round"]) for d in record.get("deals") or []])
    defaults: dict[str, Any] = {
        "format": FORMAT, "version": VERSION, "game": 0, "title": start.variant.title,
        "seats": [{"seat": s, "colour": colours[s], "player": None} for s in start.seats],
        "date": "", "mode": "highlight", "result": "won" if winner else "unfinished",
        "winners": [colours[s] for s in winner] if winner else [], "public": False, "site": None,
        "direction": "clockwise", "rounds": rounds, "deals": [], "gifts": [], "events": []}
    return {**defaults, **{k: v for k, v in record.items() if v is not None and v != ""}}


# --- as text ------------------------------------------------------------------------------
def _name(colour: str, lang: str) -> str:
    return colour_name(colour, lang).capitalize()


def _player_word(player: str, lang: str) -> str:
    return say(lang, f"record_{player}") if player in PLAYER_KINDS else player


def _result_words(record: dict[str, Any], lang: str) -> str:
    if record["result"] == "won":
        return say(lang, "record_won", players=say(lang, "and").join(_name(c, lang) for c in record["winners"]))
    return say(lang, "record_abandoned" if record["result"] == "abandoned" else "record_unfinished")


def _tags(record: dict[str, Any], lang: str) -> list[tuple[str, str]]:
    players = ", ".join(_name(s["colour"], lang) + (f" = {_player_word(s['player'], lang)}" if s.get("player") else "")
                        for s in record["seats"])
    site = record.get("site")
    event = record.get("event") or (say(lang, "record_event", game=record["game"]) if record.get("game") else None)
    tags = [("Event", event)] if event else []
    if site:
        tags.append(("Site", say(lang, f"record_site_{'sim' if site == 'simulated' else 'table'}")
                     if site in SITES else str(site)))
    tags += [("Date", record["date"]), ("Edition", f"{record['edition']} ({record['title']})"), ("Players", players),
             ("Rounds", str(record["rounds"])), ("Result", _result_words(record, lang)),
             ("Direction", say(lang, record["direction"])), ("Mode", say(lang, f"mode_{record['mode']}")),
             ("Language", lang)] + ([("Game", str(record["game"]))] if record.get("game") else [])
    return tags + [(k, str(v)) for k, v in (record.get("tags") or {}).items()]


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def to_text(record: dict[str, Any], lang: str = "en", name: str = "the record") -> str:
    """The record as text in `lang`: tag pairs, then each round's deal, exchange and plays.

    The plays are re-played to say them in words, so a record that does not re-play raises
    RecordError (a record made from the journal always does)."""
    if lang not in LANGUAGES:
        raise UserError(f"language {lang!r} is not one of {', '.join(LANGUAGES)}")
    steps, final = replayed(record, name)
    rec = _filled(record, final)
    colours = {s["seat"]: s["colour"] for s in rec["seats"]}
    width = max(len(_name(c, lang)) for c in colours.values())
    lines = [TEXT_TITLE] + [f'[{key} "{_escape(value)}"]' for key, value in _tags(rec, lang)]
    lines += ["", "# " + say(lang, "record_help")]
    deals = {d["round"]: d for d in rec["deals"]}
    gifts: dict[int, list[dict[str, Any]]] = {}
    for g in rec["gifts"]:
        gifts.setdefault(g["round"], []).append(g)

    def open_round(r: int) -> None:
        lines.extend(["", say(lang, "record_round", round=r)])
        if r in deals:
            for h in deals[r]["hands"]:
                lines.append(say(lang, "record_deal", player=_name(colours[h["seat"]], lang),
                                 cards=", ".join(card_name(c, lang) for c in h["cards"])))
        else:
            lines.append(say(lang, "record_deal_hidden" if rec["public"] else "record_deal_unknown"))
        for g in gifts.get(r, []):
            who, to = _name(colours[g["seat"]], lang), _name(colours[g["to"]], lang)
            lines.append(say(lang, "record_gives", player=who, card=g["card"], to=to) if g.get("card")
                         else say(lang, "record_gives_hidden", player=who, to=to))

    current = 0
    for st in steps:
        r = int(st.entry["round"])
        if r != current:
            for q in range(current + 1, r):  # rounds with a deal but no play (everybody laid the hand down)
                open_round(q)
            open_round(r)
            current = r
        lines.append(_play_line(st, lang, colours, width))
    for q in range(current + 1, rec["rounds"] + 1):
        open_round(q)
    lines += ["", say(lang, "record_end", plays=len(steps))]
    return "\n".join(lines) + "\n"


def _play_line(st: Step, lang: str, colours: dict[int, str], width: int) -> str:
    p = st.entry
    if p["kind"] == "position":
        return f"{st.number:4d}  = {json.dumps(p['position'], separators=(',', ':'))}   # {say(lang, 'record_position')}"
    who = f"{_name(colours[p['seat']], lang):{width}s}"
    if p["kind"] == "sitout":
        return f"{st.number:4d}  {who}  {say(lang, 'record_sits_out')}"
    if p["kind"] == "discard":
        return f"{st.number:4d}  {who}  {say(lang, 'record_discards', card=p['card'])}"
    assert st.play is not None  # a play step always has the engine's play
    words = describe_play(st.before, st.play, p["seat"], lang)
    return f"{st.number:4d}  {who}  {st.play.notation:28s}  # {words}"


# --- reading text -------------------------------------------------------------------------
TAG_LINE = re.compile(r'^\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]$')
FIRST_HEADER = ("Edition", "Players", "Date", "Mode", "Result", "Game")  # the first text format's "Key: value" head


@functools.cache
def _pattern(lang: str, key: str) -> re.Pattern[str]:
    """A message of the catalogue as a pattern that gives back its {placeholders}."""
    parts = re.split(r"\{(\w+)\}", lookup(load_catalogue("companion", "companion"), lang, key))
    body = "".join(re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)" for i, part in enumerate(parts))
    return re.compile(rf"^{body}$", re.IGNORECASE)


def _match(lang: str, key: str, text: str) -> dict[str, str] | None:
    m = _pattern(lang, key).match(text)
    return {k: v.strip() for k, v in m.groupdict().items()} if m else None


@functools.cache
def _words_of(lang: str, kind: str) -> dict[str, str]:
    """Words in `lang` (and the ids themselves) -> the id: cards, modes, directions, players, sites."""
    if kind == "card":
        pairs = [(card_name(c, lang), c) for c in engine.ALL_CARDS]
    elif kind == "mode":
        pairs = [(say(lang, f"mode_{m}"), m) for m in T.MODES]
    elif kind == "direction":
        pairs = [(say(lang, d), d) for d in ("clockwise", "anticlockwise")]
    elif kind == "player":
        pairs = [(say(lang, f"record_{p}"), p) for p in PLAYER_KINDS]
    else:
        pairs = [(say(lang, "record_site_sim"), "simulated"), (say(lang, "record_site_table"), "table")]
    out = {v.lower(): v for _, v in pairs}
    out.update({w.lower(): v for w, v in pairs})
    return out


class TextReader:
    """Reads a text record line by line (as `to_text` writes it, or as a person typed it)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.tags: dict[str, str] = {}
        self.lines: dict[str, int] = {}
        self.first_colours: list[str] | None = None  # the first format's "Players: 4 (Red, Blue, ...)"
        self.start: engine.Position | None = None
        self.colour_seat: dict[str, int] = {}
        self.players: dict[int, str | None] = {}
        self.plays: list[dict[str, Any]] = []
        self.deals: dict[int, dict[int, list[str]]] = {}
        self.gifts: list[dict[str, Any]] = []
        self.round_no = 0
        self.public = False
        self.end: int | None = None

    @property
    def lang(self) -> str:
        return self.tags.get("Language", "en")

    def read(self, number: int, line: str) -> None:
        tag = TAG_LINE.match(line)
        if tag:
            if self.start is not None:
                raise ValueError("a tag pair belongs at the head, before the first round")
            self.tags[tag[1]] = re.sub(r"\\(.)", r"\1", tag[2])
            self.lines[tag[1]] = number
            if tag[1] == "Language" and self.lang not in LANGUAGES:
                raise ValueError(f"the language must be one of {', '.join(LANGUAGES)}")
            return
        key = line.split(":", 1)[0]
        if self.start is None and ":" in line and key in FIRST_HEADER and not line[0].isdigit():
            value = line.split(":", 1)[1].strip()
            if key == "Players":
                self.first_colours = [c.strip() for c in value[value.index("(") + 1:value.rindex(")")].split(",")]
                value = value.split()[0]
            self.tags[key] = value
            self.lines[key] = number
            return
        if self.end is not None:
            raise ValueError("a line after the end line")
        self.begin()
        if line[0].isdigit():
            self.numbered(number, line)
            return
        lang = self.lang
        if (m := _match(lang, "record_round", line)) is not None:
            self.round_no = int(m["round"])
            if self.round_no < 1:
                raise ValueError("rounds count from 1")
            self.lines[f"round {self.round_no}"] = number
            return
        if (m := _match(lang, "record_end", line)) is not None:
            self.end = int(m["plays"])
            self.lines["end"] = number
            return
        if self.round_no == 0:
            raise ValueError("the deal, the exchange and the plays go in a round (a 'Round 1' line first)")
        if _match(lang, "record_deal_hidden", line) is not None:
            self.public = True
        elif _match(lang, "record_deal_unknown", line) is not None:
            pass
        elif (m := _match(lang, "record_deal", line)) is not None:
            seat = self.seat(m["player"])
            self.deals.setdefault(self.round_no, {})[seat] = [self.card(c) for c in m["cards"].split(",") if c.strip()]
            self.lines[f"deal {self.round_no} {seat}"] = number
        elif (m := _match(lang, "record_gives_hidden", line)) is not None:
            self.gift(number, m["player"], m["to"], None)
        elif (m := _match(lang, "record_gives", line)) is not None:
            self.gift(number, m["player"], m["to"], self.card(m["card"]))
        else:
            raise ValueError("not a tag, round, deal, exchange, play or end line")

    def begin(self) -> None:
        """The head is read: the edition and the players give the seats and their colours."""
        if self.start is not None:
            return
        for key in ("Edition", "Players"):
            if key not in self.tags:
                raise RecordError(f"{self.name}: the head has no {key} tag ('[{key} \"...\"]')")
        entries = self._entries()
        try:
            self.start = initial_position(engine.get_variant(self.tags["Edition"].split()[0]), len(entries),
                                          direction=_engine_direction(self._word("Direction", "direction", "clockwise")))
        except (engine.EngineError, ValueError, IndexError) as exc:
            raise RecordError(f"{self._at('Edition')}: {_short(exc)}") from None
        colours = {c: s for s, c in enumerate(self.start.board.colours) if s in self.start.seats}
        words = {}
        for c, s in colours.items():
            words[c] = s
            words[colour_name(c, self.lang).lower()] = s
        for word, who in entries:
            seat = words.get(word.lower())
            if seat is None or seat in self.players:
                raise RecordError(f"{self._at('Players')}: '{word}' is not a colour of a {len(entries)}-player "
                                  f"game, or is named twice (the colours: {', '.join(_name(c, self.lang) for c in colours)})")
            self.players[seat] = _words_of(self.lang, "player").get(who.lower(), who) if who else None
        self.colour_seat = words

    def _entries(self) -> list[tuple[str, str]]:
        """The Players tag: "Red = bot, Blue, Green = Anna" -> (colour, who) pairs."""
        value = self.tags["Players"]
        if self.first_colours is not None:
            if not value.isdigit() or int(value) != len(self.first_colours):
                raise RecordError(f"{self._at('Players')}: the Players line is not readable")
            return [(c, "") for c in self.first_colours]
        entries = []
        for part in value.split(","):
            colour, _, who = part.partition("=")
            if not colour.strip():
                raise RecordError(f"{self._at('Players')}: a player without a colour in {value!r}")
            entries.append((colour.strip(), who.strip()))
        return entries

    def _at(self, key: str) -> str:
        return f"{self.name} line {self.lines[key]}" if key in self.lines else self.name

    def seat(self, word: str) -> int:
        seat = self.colour_seat.get(word.strip().lower())
        if seat is None:
            names = ", ".join(_name(self.start.board.colours[s], self.lang) for s in self.players) if self.start else ""
            raise KeyError(f"'{word}' is not one of the players ({names})")
        return seat

    def card(self, word: str) -> str:
        card = _words_of(self.lang, "card").get(word.strip().lower())
        if card is None:
            raise ValueError(f"'{word.strip()}' is not a card")
        return card

    def gift(self, number: int, giver: str, receiver: str, card: str | None) -> None:
        seat = self.seat(giver)
        self.gifts.append({"round": self.round_no, "seat": seat, "to": self.seat(receiver), "card": card})
        self.lines[f"gift {self.round_no} {seat}"] = number

    def numbered(self, number: int, line: str) -> None:
        head, rest = line.split(None, 1)
        n = int(head)
        if n != len(self.plays) + 1:
            raise ValueError(f"play {n} where play {len(self.plays) + 1} comes next (a line lost, or one too many?)")
        if self.round_no == 0:
            raise ValueError("a play before the first round line ('Round 1')")
        rest = rest.split("#", 1)[0].strip()  # after '#' the words, for people: made anew from the play
        entry: dict[str, Any]
        if rest.startswith("="):
            entry = {"kind": "position", "round": self.round_no, "position": json.loads(rest[1:])}
        else:
            who, what = rest.split(None, 1)
            seat = self.seat(who)
            discard = _match(self.lang, "record_discards", what) or _match("en", "record_discards", what)
            if _match(self.lang, "record_sits_out", what) is not None or what == "sits out":
                entry = {"kind": "sitout", "round": self.round_no, "seat": seat}
            elif discard is not None:
                entry = {"kind": "discard", "round": self.round_no, "seat": seat, "card": self.card(discard["card"])}
            else:
                card = what.split(":", 1)[0].split(" as ")[0].strip()
                entry = {"kind": "play", "round": self.round_no, "seat": seat, "card": card, "play": what}
        self.plays.append(entry)
        self.lines[f"play {n}"] = number

    def record(self) -> dict[str, Any]:
        self.begin()
        tagged = "Language" in self.tags or "Rounds" in self.tags or self.first_colours is None
        if self.end is None and tagged:
            raise RecordError(f"{self.name} ends before its end line ('{say(self.lang, 'record_end', plays='N')}'): "
                              f"cut short after line {max(self.lines.values())}?")
        if self.end is not None and self.end != len(self.plays):
            raise RecordError(f"{self._at('end')}: the end line says {self.end} plays, the record has {len(self.plays)}")
        rounds = max([0] + [int(k.split()[1]) for k in self.lines if k.startswith("round ")])
        if "Rounds" in self.tags and self.tags["Rounds"] != str(rounds):
            raise RecordError(f"{self._at('Rounds')}: the Rounds tag says {self.tags['Rounds']}, "
                              f"the record has {rounds} rounds")
        assert self.start is not None  # begin() set it or raised
        colours = self.start.board.colours
        result, winners = self._result()
        site = self.tags.get("Site")
        event = self.tags.get("Event")
        known = {"Event", "Site", "Date", "Edition", "Players", "Rounds", "Result", "Direction", "Mode", "Language",
                 "Game"}
        game: Any = self.tags.get("Game", "")
        return {
            "format": FORMAT, "version": VERSION, "game": int(game) if game.isdigit() else game,
            "edition": self.tags["Edition"].split()[0], "title": self.start.variant.title,
            "players": len(self.players),
            "seats": [{"seat": s, "colour": colours[s], "player": self.players[s]} for s in self.start.seats],
            "date": self.tags.get("Date", ""), "mode": self._word("Mode", "mode", "highlight"),
            "result": result, "winners": winners, "plays": self.plays, "public": self.public,
            "site": _words_of(self.lang, "site").get(site.lower(), site) if site else None,
            "direction": self._word("Direction", "direction", "clockwise"), "rounds": rounds,
            "deals": [{"round": r, "hands": [{"seat": s, "cards": cards} for s, cards in sorted(hands.items())]}
                      for r, hands in sorted(self.deals.items())],
            "gifts": self.gifts,
            "event": event if event and event != say(self.lang, "record_event", game=game) else None,
            "tags": {k: v for k, v in self.tags.items() if k not in known},
            "events": [],
            "text_lines": self.lines,  # where each play stands in the file, for the errors; never written out
        }

    def _word(self, tag: str, kind: str, default: str) -> str:
        if tag not in self.tags:
            return default
        word = _words_of(self.lang, kind).get(self.tags[tag].lower())
        if word is None:
            known = ", ".join(dict.fromkeys(_words_of(self.lang, kind).values()))
            raise RecordError(f"{self._at(tag)}: {tag} '{self.tags[tag]}' is not known ({known})")
        return word

    def _result(self) -> tuple[str | None, list[str]]:
        """The Result tag -> ("won", winners), ("abandoned" | "unfinished", []), or None: left to the re-play."""
        text = self.tags.get("Result")
        if not text:
            return None, []
        for key, result in (("record_abandoned", "abandoned"), ("record_unfinished", "unfinished")):
            if _match(self.lang, key, text) is not None:
                return result, []
        m = _match(self.lang, "record_won", text)
        if m is None:
            return None, []  # a result in other words (the first text format): the re-play tells
        names = m["players"].split(say(self.lang, "and").strip() and say(self.lang, "and"))
        assert self.start is not None
        return "won", [self.start.board.colours[self.seat(w)] for w in names]


def from_text(text: str, name: str) -> dict[str, Any]:
    """Parse a text record (as `to_text` writes it, in any of its languages; # comments allowed)."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != TEXT_TITLE:
        raise RecordError(f"{name} is not a dogtable game record (the first line should be '{TEXT_TITLE}')")
    reader = TextReader(name)
    for i, raw in enumerate(lines[1:], 2):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            reader.read(i, line)
        except (ValueError, IndexError, KeyError, RecursionError) as exc:
            raise RecordError(f"{name} line {i}: cannot read {line[:60]!r} ({_short(exc)})") from None
    return reader.record()


def _short(exc: BaseException) -> str:
    text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    return text.splitlines()[0][:120] if text else type(exc).__name__


# --- files ----------------------------------------------------------------------------------
def write_record(record: dict[str, Any], path: str | Path, lang: str = "en") -> str:
    """Write the record as text (in `lang`) or JSON, as the file's name says. Returns the format written."""
    p = Path(path)
    fmt = p.suffix.lower().lstrip(".")
    if p.is_dir():
        raise UserError(f"--export {path} is a folder: give a file name, e.g. {p / 'game.txt'}")
    if p.suffix.lower() not in SUFFIXES:
        raise UserError(f"--export {path}: name the file .txt (a record to read) or .json (to keep for programs)")
    if not p.parent.is_dir():
        raise UserError(f"--export {path}: the folder {p.parent} does not exist (create it first)")
    text = to_text(record, lang, str(path)) if fmt == "txt" else to_json(record)
    try:
        p.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
    return fmt


def to_json(record: dict[str, Any]) -> str:
    """The record as the JSON file holds it (without the places a text record was read from)."""
    return json.dumps({k: v for k, v in record.items() if k != "text_lines"}, ensure_ascii=False, indent=1) + "\n"


def read_record(path: str | Path) -> dict[str, Any]:
    """A record file (.txt or .json, by its content) -> the record; RecordError if it is none."""
    p = Path(path)
    if p.is_dir():
        raise RecordError(f"{path} is a folder, not a game record")
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise RecordError(f"{path} does not exist") from None
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise RecordError(f"{path} is not a game record (not UTF-8 text)") from None
    if text.lstrip().startswith("{"):
        try:
            record = json.loads(text)
        except RecursionError:
            raise RecordError(f"{path}: the JSON is nested too deeply to be a game record") from None
        except ValueError as exc:
            raise RecordError(f"{path} is damaged: not valid JSON ({_short(exc)})") from None
        return _check_json(record, str(path))
    return from_text(text, str(path))


def _check_json(record: Any, name: str) -> dict[str, Any]:
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise RecordError(f"{name} is JSON but not a dogtable game record (no \"format\": \"{FORMAT}\")")
    if record.get("version") != VERSION:
        raise RecordError(f"{name}: record version {record.get('version')!r} is not known (this is version {VERSION})")
    if not isinstance(record.get("edition"), str) or not isinstance(record.get("players"), int) \
            or not isinstance(record.get("plays"), list):
        raise RecordError(f"{name}: the record needs edition (text), players (a number) and plays (a list)")
    for i, p in enumerate(record["plays"], 1):
        if not isinstance(p, dict) or p.get("kind") not in KINDS:
            raise RecordError(f"{name}: play {i} is not a play, discard, sit-out or position")
    for key in ("deals", "gifts", "seats"):
        if not isinstance(record.get(key, []), list) or not all(isinstance(x, dict) for x in record.get(key, [])):
            raise RecordError(f"{name}: \"{key}\" must be a list of objects")
    record.pop("text_lines", None)  # only a text record's reader sets it
    return record
