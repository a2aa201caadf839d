"""`dogtable moves`, `dogtable check`, `dogtable selfplay`: the engine from the command line."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import engine
from companion.errors import UserError
from engine.bots import BOTS
from engine.game import Game, play_game
from engine.messages import LANGUAGES
from engine.rulesdata import DIRECTIONS

DIRECTION_HELP = ("direction of play: clockwise or counter-clockwise (default: the position's, else the "
                  "edition's; field numbers stay physical, so counter-clockwise play walks them downward)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("moves", help="list every legal play of a card (JSON)",
                       description="Print every legal play of CARD for SEAT in POSITION as JSON.")
    p.add_argument("position", nargs="?", help="position JSON file, or - for standard input")
    p.add_argument("--card", help="card id, e.g. 7, 1/11, swap, joker")
    p.add_argument("--seat", type=int, help="seat number (0 = first seat)")
    p.add_argument("--batch", action="store_true",
                   help='read JSON lines {"position": ..., "card": ..., "seat": ...} on stdin, answer one line each')
    p.add_argument("--direction", choices=DIRECTIONS, help=DIRECTION_HELP)
    p.set_defaults(func=cmd_moves)

    p = sub.add_parser("check", help="is BEFORE -> AFTER a legal play of a card, and if not, why",
                       description="Referee one play: whether a legal play of CARD turns BEFORE into AFTER.")
    p.add_argument("before", help="position JSON file before the play (- for stdin)")
    p.add_argument("after", help="position JSON file after the play")
    p.add_argument("--card", required=True, help="card id")
    p.add_argument("--seat", type=int, required=True, help="seat number of the player")
    p.add_argument("--lang", default="en", choices=LANGUAGES, help="language of the reason")
    p.add_argument("--direction", choices=DIRECTIONS, help=DIRECTION_HELP)
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("selfplay", help="bots play whole games; prints a summary",
                       description="Let bots play whole games and print a summary.")
    p.add_argument("--variant", default="classic")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--bot", default="random", help="random, greedy, beginner, club or strong, or a list per seat: strong,greedy,...")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--direction", choices=DIRECTIONS, help="direction of play (default: the edition's)")
    p.set_defaults(func=cmd_selfplay)


def _read_json(source: str, what: str) -> Any:
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text()
    except FileNotFoundError:
        raise UserError(f"{what} file '{source}' does not exist") from None
    except (IsADirectoryError, PermissionError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read {what} file '{source}': {exc}") from None
    return _loads(text, what)


def _loads(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"{what} is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise UserError(f"{what} is nested too deeply to be a position (JSON arrays or objects inside each other)") from None


def with_direction(obj: Any, direction: str | None) -> Any:
    """The position JSON `obj` played in `direction` (None: as it says). A position that names
    the other direction is refused rather than turned round silently."""
    if direction is None or not isinstance(obj, dict):
        return obj
    said = obj.get("direction")
    if said is not None and said != direction:
        raise ValueError(f"the position says \"direction\": \"{said}\" but --direction says {direction}")
    return {**obj, "direction": direction}


def _position(obj: Any, what: str = "position", direction: str | None = None):
    try:
        return engine.parse_position(with_direction(obj, direction))
    except (engine.EngineError, ValueError) as exc:
        raise UserError(f"bad {what}: {exc}") from None


def _moves_json(pos, card: str, seat: int) -> dict:
    plays = engine.legal_moves(pos, card, seat)
    return {"moves": [{"notation": p.notation, "result": p.result.to_json()} for p in plays]}


def cmd_moves(args: argparse.Namespace) -> int:
    if args.batch:
        if args.position is not None:
            raise UserError("--batch reads queries from standard input; give no POSITION")
        return _batch(args.direction)
    if args.position is None or args.card is None or args.seat is None:
        raise UserError("usage: dogtable moves POSITION --card CARD --seat S (or dogtable moves --batch)")
    pos = _position(_read_json(args.position, "position"), direction=args.direction)
    try:
        out = _moves_json(pos, args.card, args.seat)
    except engine.EngineError as exc:
        raise UserError(str(exc)) from None
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")
    return 0


def _batch(direction: str | None = None) -> int:
    for lineno, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue
        try:
            query = json.loads(line)
            if not isinstance(query, dict) or not {"position", "card", "seat"} <= set(query):
                raise ValueError('each line must be {"position": ..., "card": ..., "seat": ...}')
            pos = engine.parse_position(with_direction(query["position"], direction))
            out = _moves_json(pos, query["card"], query["seat"])
        except json.JSONDecodeError as exc:
            out = {"error": f"line {lineno}: not valid JSON ({exc.msg})"}
        except RecursionError:
            out = {"error": f"line {lineno}: nested too deeply to be a query"}
        except (engine.EngineError, ValueError) as exc:
            out = {"error": f"line {lineno}: {exc}"}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    if args.before == "-" and args.after == "-":
        raise UserError("only one of BEFORE and AFTER can come from standard input")
    before = _position(_read_json(args.before, "BEFORE"), "BEFORE position", args.direction)
    after = _position(_read_json(args.after, "AFTER"), "AFTER position", args.direction)
    try:
        verdict = engine.check(before, after, args.card, args.seat, lang=args.lang)
    except engine.EngineError as exc:
        raise UserError(str(exc)) from None
    json.dump(verdict.to_json(), sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


def cmd_selfplay(args: argparse.Namespace) -> int:
    import random

    if args.games < 1:
        raise UserError("--games must be at least 1")
    try:
        variant = engine.get_variant(args.variant)
        variant.check_direction(args.direction or variant.default_direction)
    except engine.EngineError as exc:
        raise UserError(str(exc)) from None
    names = args.bot.split(",")
    unknown = [n for n in names if n not in BOTS]
    if unknown:
        raise UserError(f"unknown bot '{unknown[0]}' (choose {' or '.join(BOTS)})")
    wins: dict[str, int] = {}
    plies = 0
    branching: list[int] = []
    started = time.perf_counter()
    for g in range(args.games):
        try:
            game = Game.new(args.variant, args.players, seed=args.seed + g, direction=args.direction)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        rng = random.Random(args.seed * 1_000_003 + g)
        bots = {s: BOTS[names[i % len(names)]](rng) for i, s in enumerate(game.seats)}
        play_game(game, bots)
        plies += game.plies
        branching += game.branching
        team = "+".join(f"{s}:{game.position.colour(s)}" for s in game.winner)
        wins[team] = wins.get(team, 0) + 1
        if not args.quiet:
            _progress(g + 1, args.games, started)
    elapsed = time.perf_counter() - started
    if not args.quiet:
        sys.stderr.write("\n")
    summary = {
        "variant": args.variant,
        "direction": game.position.direction,
        "players": args.players,
        "games": args.games,
        "plies": plies,
        "plies_per_game": round(plies / args.games, 1),
        "wins": dict(sorted(wins.items())),
        "plays_per_turn": round(sum(branching) / max(1, len(branching)), 2),
        "games_per_s": round(args.games / elapsed, 2),
        "seconds": round(elapsed, 2),
    }
    json.dump(summary, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


def _progress(done: int, total: int, started: float) -> None:
    width = 30
    filled = int(width * done / total)
    rate = done / max(1e-9, time.perf_counter() - started)
    eta = (total - done) / rate if rate else 0
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games  {rate:.1f}/s  eta {eta:.0f}s ")
    sys.stderr.flush()
