"""A game record a person can keep: the plays of one game as readable text or as JSON.

The text file has a header (edition, players, date, result) and one line per play in the
play notation of docs/notation.md ("12  Red      5: T60-H0"); the JSON file holds the same
plays plus the journal's events. Both read back: `read_record` checks a file and
`replay_record` plays every recorded play through the rules engine again, so a record
that was changed by hand into something impossible is named at its line.
"""
from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import Any

import engine
from engine.game import initial_position
from companion import table as T
from companion.errors import UserError

FORMAT = "dogtable-record"
VERSION = 1
TEXT_TITLE = "# dogtable game record"
SUFFIXES = (".txt", ".json")


class RecordError(UserError):
    """A file that is not a game record, or a record that does not re-play."""


# --- from the journal ---------------------------------------------------------------------
def game_record(setup: T.Setup, events: list[tuple[int, float, T.Event]], *, game_id: int = 0,
                created: float | None = None, ended: str | None = None, public: bool = False) -> dict[str, Any]:
    """The record of a journaled game: the plays that stand (undone ones are left out).

    `public`: the cards dealt and given face down are left out of the events (a game still on)."""
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
    return {
        "format": FORMAT, "version": VERSION, "game": game_id,
        "edition": setup.variant, "title": pos.variant.title, "players": setup.players,
        "seats": [{"seat": s, "colour": pos.board.colours[s]} for s in pos.seats],
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(created if created is not None else time.time())),
        "mode": setup.mode,
        "result": _result(state, ended),
        "winners": [pos.board.colours[s] for s in state.winner] if state.winner else [],
        "plays": plays,
        "events": [(T.public_event_json if public else T.event_to_json)(ev) for _, _, ev in events],
    }


def _result(state: T.TableState, ended: str | None) -> str:
    if state.winner:
        return "won"
    return "abandoned" if ended == "abandoned" else "unfinished"


# --- as text ------------------------------------------------------------------------------
def to_text(record: dict[str, Any]) -> str:
    colours = {s["seat"]: s["colour"] for s in record["seats"]}
    names = ", ".join(c.capitalize() for c in colours.values())
    result = {"won": " and ".join(c.capitalize() for c in record["winners"]) + " won",
              "abandoned": "abandoned (a new game began)", "unfinished": "not finished"}[record["result"]]
    lines = [TEXT_TITLE,
             f"Edition: {record['edition']} ({record['title']})",
             f"Players: {record['players']} ({names})",
             f"Date: {record['date']}",
             f"Mode: {record['mode']}",
             f"Result: {result}",
             f"Game: {record['game']}",
             "",
             "# one line per play: number, player, play (docs/notation.md); '=' a position set by hand"]
    round_no = 0
    for n, p in enumerate(record["plays"], 1):
        if p["round"] != round_no:
            round_no = p["round"]
            lines += ["", f"Round {round_no}"]
        who = colours.get(p.get("seat", -1), "").capitalize()
        if p["kind"] == "play":
            lines.append(f"{n:4d}  {who:8s} {p['play']}")
        elif p["kind"] == "discard":
            lines.append(f"{n:4d}  {who:8s} discards {p['card']}")
        elif p["kind"] == "sitout":
            lines.append(f"{n:4d}  {who:8s} sits out")
        else:
            lines.append(f"{n:4d}  = {json.dumps(p['position'], separators=(',', ':'))}")
    return "\n".join(lines) + "\n"


def from_text(text: str, name: str) -> dict[str, Any]:
    """Parse a text record (as `to_text` writes it; a person may have added # comments)."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != TEXT_TITLE:
        raise RecordError(f"{name} is not a dogtable game record (the first line should be '{TEXT_TITLE}')")
    head: dict[str, str] = {}
    plays: list[dict[str, Any]] = []
    round_no = 0
    colour_seat: dict[str, int] = {}
    for i, raw in enumerate(lines[1:], 2):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            if not plays and not round_no and ":" in line and line.split(":", 1)[0] in (
                    "Edition", "Players", "Date", "Mode", "Result", "Game"):
                key, value = line.split(":", 1)
                head[key] = value.strip()
                if key == "Players":
                    inside = value[value.index("(") + 1:value.rindex(")")]
                    colour_seat = {c.strip().lower(): s for s, c in enumerate(inside.split(","))}
                continue
            if line.startswith("Round "):
                round_no = int(line.split()[1])
                continue
            number, rest = line.split(None, 1)
            int(number)
            if rest.startswith("= "):
                plays.append({"kind": "position", "round": round_no, "position": json.loads(rest[2:])})
                continue
            who, what = rest.split(None, 1)
            seat = _seat_of(who, colour_seat, head)
            if what == "sits out":
                plays.append({"kind": "sitout", "round": round_no, "seat": seat})
            elif what.startswith("discards "):
                plays.append({"kind": "discard", "round": round_no, "seat": seat, "card": what.split(None, 1)[1]})
            else:
                card = what.split(":", 1)[0].split(" as ")[0]
                plays.append({"kind": "play", "round": round_no, "seat": seat, "card": card, "play": what})
        except (ValueError, IndexError, KeyError, RecursionError) as exc:
            raise RecordError(f"{name} line {i}: cannot read {raw.strip()[:60]!r} ({_short(exc)})") from None
    for key in ("Edition", "Players"):
        if key not in head:
            raise RecordError(f"{name}: the header has no '{key}:' line")
    try:
        edition = head["Edition"].split()[0]
        players = int(head["Players"].split()[0])
    except (ValueError, IndexError):
        raise RecordError(f"{name}: the header's Edition or Players line is not readable") from None
    return {"format": FORMAT, "version": VERSION, "edition": edition, "players": players,
            "date": head.get("Date", ""), "mode": head.get("Mode", "highlight"), "plays": plays,
            "result_text": head.get("Result", ""), "game": head.get("Game", "")}


def _seat_of(who: str, colour_seat: dict[str, int], head: dict[str, str]) -> int:
    """A player's colour as written in the header's Players line -> its seat number."""
    if who.lower() not in colour_seat:
        raise KeyError(f"'{who}' is not one of the players ({', '.join(colour_seat)})")
    # the Players line lists the playing seats in order; seat numbers come from the edition's board
    players = int(head["Players"].split()[0])
    seats = initial_position(engine.get_variant(head["Edition"].split()[0]), players).seats
    return seats[colour_seat[who.lower()]]


def _short(exc: BaseException) -> str:
    return str(exc).splitlines()[0][:80] if str(exc) else type(exc).__name__


# --- files ----------------------------------------------------------------------------------
def write_record(record: dict[str, Any], path: str | Path) -> str:
    """Write the record as text or JSON, as the file's name says. Returns the format written."""
    p = Path(path)
    fmt = p.suffix.lower().lstrip(".")
    if p.is_dir():
        raise UserError(f"--export {path} is a folder: give a file name, e.g. {p / 'game.txt'}")
    if p.suffix.lower() not in SUFFIXES:
        raise UserError(f"--export {path}: name the file .txt (a record to read) or .json (to keep for programs)")
    if not p.parent.is_dir():
        raise UserError(f"--export {path}: the folder {p.parent} does not exist (create it first)")
    text = to_text(record) if fmt == "txt" else json.dumps(record, ensure_ascii=False, indent=1) + "\n"
    try:
        p.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
    return fmt


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
        if not isinstance(p, dict) or p.get("kind") not in ("play", "discard", "sitout", "position"):
            raise RecordError(f"{name}: play {i} is not a play, discard, sit-out or position")
    return record


# --- re-playing -----------------------------------------------------------------------------
def replay_record(record: dict[str, Any], name: str = "the record") -> tuple[list[str], engine.Position]:
    """Play every recorded play again from the start: the lines to show, and the final position.

    Each play must be one of the engine's legal plays of that card for that seat, with the
    same notation; otherwise RecordError names the play."""
    try:
        variant = engine.get_variant(record["edition"])
        pos = initial_position(variant, int(record["players"]))
    except (engine.EngineError, ValueError, TypeError) as exc:
        raise RecordError(f"{name}: {_short(exc)}") from None
    colours = pos.board.colours
    shown: list[str] = []
    round_no = 0
    for n, p in enumerate(record["plays"], 1):
        try:
            if p.get("round", round_no) != round_no:
                round_no = p["round"]
                pos = dataclasses.replace(pos, last_card=None)  # a new round: nothing to copy yet
                shown.append(f"round {round_no}")
            kind = p["kind"]
            if kind == "position":
                new = engine.parse_position(p["position"])
                if new.variant is not pos.variant or new.seats != pos.seats:
                    raise ValueError("the position is of another edition or other seats")
                pos = new
                shown.append(f"{n:4d}  position set by hand")
                continue
            seat = int(p["seat"])
            if seat not in pos.seats:
                raise ValueError(f"seat {seat} does not play")
            who = colours[seat].capitalize()
            if kind == "sitout":
                shown.append(f"{n:4d}  {who} sits out")
            elif kind == "discard":
                shown.append(f"{n:4d}  {who} discards {p['card']}")
            else:
                legal = engine.legal_moves(pos, str(p["card"]), seat)
                match = next((m for m in legal if m.notation == p["play"]), None)
                if match is None:
                    raise ValueError(f"{p['play']} is not a legal play for {who} here")
                pos = match.result
                shown.append(f"{n:4d}  {who}: {p['play']}")
        except (KeyError, ValueError, TypeError, engine.EngineError) as exc:
            raise RecordError(f"{name}: play {n} does not re-play ({_short(exc)})") from None
    winner = pos.winner()
    shown.append(f"{len(record['plays'])} plays re-played"
                 + (f"; {' and '.join(colours[s].capitalize() for s in winner)} won" if winner else "; no winner yet"))
    return shown, pos
