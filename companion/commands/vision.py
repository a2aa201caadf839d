"""`dogtable vision ...`: calibrate the camera, read a picture of the board, enrol the cards.

OpenCV and the vision package are imported inside the handlers, so that other commands
start quickly.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from companion.errors import UserError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("vision", help="camera: calibrate, read the board, enrol cards")
    sub = p.add_subparsers(dest="vision_command", metavar="SUBCOMMAND")
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])

    c = sub.add_parser("calibrate", help="find the markers and fields, learn the colours; write a calibration file")
    c.add_argument("--image", help="picture of the empty board (all four corner markers visible)")
    c.add_argument("--start", help="picture of the start position (every piece in its kennel), to learn colours")
    c.add_argument("--start-position", help="position JSON of what --start shows, if not the start position")
    c.add_argument("--segments", type=int, choices=(4, 6), default=4)
    c.add_argument("--board", choices=("standard", "royal", "black"), default="standard", help="board kind")
    c.add_argument("--disc", type=int, choices=range(4), default=0, help="disc orientation in the pictures (black)")
    c.add_argument("--out", default="calibration.json", help="calibration file to write (default: %(default)s)")
    c.add_argument("--simulate", action="store_true", help="calibrate on pictures from the simulated table")
    c.add_argument("--seed", type=int, default=0, help="simulated table seed (with --simulate)")
    c.set_defaults(func=cmd_calibrate)

    r = sub.add_parser("read", help="read a picture: print each field's occupant as JSON")
    r.add_argument("image", help="picture of the board (same camera setting as the calibration)")
    r.add_argument("--calibration", default="calibration.json", help="calibration file (default: %(default)s)")
    r.add_argument("--disc", type=int, choices=range(4), help="disc orientation from the encoder (black)")
    r.add_argument("--card", action="store_true", help="also recognise the card on the discard zone")
    r.set_defaults(func=cmd_read)

    e = sub.add_parser("enrol-cards", help="show each card type once: pictures named after the card (1/11 as 1_11)")
    e.add_argument("images", nargs="*", help="pictures with one card on the discard zone, e.g. 7.png swap.png 1_11.png")
    e.add_argument("--calibration", default="calibration.json", help="calibration file (default: %(default)s)")
    e.add_argument("--empty", help="picture of the empty discard zone (default: the calibration's empty board)")
    e.add_argument("--out", default="cards.json", help="card template file to write (default: %(default)s)")
    e.add_argument("--simulate", action="store_true", help="enrol every card from the simulated table")
    e.add_argument("--seed", type=int, default=0)
    e.set_defaults(func=cmd_enrol)


def _image(path: str, what: str) -> Any:
    import cv2

    p = Path(path)
    if not p.exists():
        raise UserError(f"{what} {path} does not exist")
    img = cv2.imread(str(p), cv2.IMREAD_COLOR)
    if img is None:
        raise UserError(f"{what} {path} is unreadable: is it a PNG or JPEG picture?")
    return img


def _sim_frames(segments: int, board: str, disc: int, seed: int) -> tuple[Any, Any, dict[str, str]]:
    import dataclasses

    import engine
    from hardware.simtable import SimTable

    table = SimTable(segments=segments, seed=seed)
    pos = engine.parse_position({"variant": "classic", "board": segments, "pieces": [["K"] * 4] * segments})
    pos = dataclasses.replace(pos, board=engine.load_board(board, segments), disc=disc)
    empty = dataclasses.replace(pos, pieces=tuple(() for _ in pos.pieces))
    return table.render(empty, frame_index=0), table.render(pos, frame_index=1), pos.field_occupancy()


def _sim_lit_frames(segments: int, board: str, disc: int, seed: int) -> list[tuple[Any, dict]]:
    """The simulated table drives its LED rings: the empty board with rings lit, group by group, per role colour."""
    import dataclasses

    import engine
    from companion.pipeline import ROLE_RGB
    from hardware.simtable import SimTable
    from vision.calibration import glow_groups

    table = SimTable(segments=segments, seed=seed)
    pos = engine.parse_position({"variant": "classic", "board": segments, "pieces": [[] for _ in range(segments)]})
    pos = dataclasses.replace(pos, board=engine.load_board(board, segments), disc=disc)
    out = []
    for colour in dict.fromkeys(ROLE_RGB.values()):
        for g in glow_groups(segments):
            lit = {f: colour for f in g}
            out.append((table.render(pos, lit=lit, frame_index=2 + len(out)), lit))
    return out


def cmd_calibrate(args: argparse.Namespace) -> int:
    import engine
    from vision.calibration import calibrate, default_start
    from vision.errors import VisionError

    occupancy = None
    lit_frames = None
    if args.simulate:
        empty, start, occupancy = _sim_frames(args.segments, args.board, args.disc, args.seed)
        lit_frames = _sim_lit_frames(args.segments, args.board, args.disc, args.seed)
    else:
        if not args.image:
            raise UserError("give --image EMPTY.png (a picture of the empty board), or --simulate")
        empty = _image(args.image, "empty-board picture")
        start = _image(args.start, "start-position picture") if args.start else None
    if args.start_position:
        try:
            occupancy = engine.parse_position(json.loads(Path(args.start_position).read_text())).field_occupancy()
        except (OSError, json.JSONDecodeError, engine.EngineError) as exc:
            raise UserError(f"--start-position {args.start_position}: {exc}") from None
    try:
        if occupancy is None and start is not None:
            occupancy = default_start("classic", args.segments)
        cal = calibrate(empty, args.segments, args.board, start, occupancy, args.disc, lit_frames=lit_frames)
    except VisionError as exc:
        raise UserError(str(exc)) from None
    cal.save(args.out)
    rep = cal.report
    print(f"calibrated: {rep.get('fields_found', '?')}/{rep.get('fields_total', len(cal.field_ids))} field circles found, "
          f"{rep.get('grid_points')} bare-board patches, {rep.get('pixels_per_mm')} px/mm; "
          f"colours {'learned for seats ' + ', '.join(map(str, sorted(cal.seat_features))) if cal.has_colours else 'NOT learned (give --start)'}")
    if cal.pale_seats:
        if cal.has_glow:
            print(f"seat{'s' if len(cal.pale_seats) > 1 else ''} {', '.join(map(str, cal.pale_seats))}: pieces nearly the "
                  f"empty field's colour, told apart by the field's pattern; LED glow learned for "
                  f"{len(cal.glow_colours)} colours (reach {cal.glow_reach_mm:.0f} mm)")
        else:
            print(f"seat{'s' if len(cal.pale_seats) > 1 else ''} {', '.join(map(str, cal.pale_seats))}: pieces nearly the "
                  "empty field's colour, told apart by the field's pattern; this calibration could not light the LEDs, "
                  "so fields next to lit LEDs read 'unknown' (the service blanks the LEDs for a frame to read them)")
    print(f"wrote {args.out}")
    return 0


def _load(path: str) -> Any:
    from vision.calibration import load_calibration
    from vision.errors import VisionError

    try:
        return load_calibration(path)
    except VisionError as exc:
        raise UserError(str(exc)) from None


def cmd_read(args: argparse.Namespace) -> int:
    from vision.cards import load_card_reader
    from vision.errors import VisionError
    from vision.reader import BoardReader

    cal = _load(args.calibration)
    if not cal.has_colours:
        raise UserError(f"{args.calibration} has no learned colours: calibrate again with --start START.png")
    frame = _image(args.image, "picture")
    reader = BoardReader(cal)
    reading = reader.read(frame, disc=args.disc)
    out = reading.to_json()
    if args.card:
        if not cal.cards_path:
            raise UserError("no cards enrolled for this calibration: run 'dogtable vision enrol-cards' first")
        try:
            out["card"] = load_card_reader(cal, cal.cards_path).recognise(frame, reader.homography).to_json()
        except VisionError as exc:
            raise UserError(str(exc)) from None
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


def cmd_enrol(args: argparse.Namespace) -> int:
    import engine
    from vision.cards import CardReader
    from vision.errors import VisionError
    from vision.reader import BoardReader

    cal = _load(args.calibration)
    cards = CardReader(cal)
    reader = BoardReader(cal)
    try:
        if args.simulate:
            import dataclasses

            from hardware.simtable import SimTable

            table = SimTable(segments=cal.segments, seed=args.seed)
            pos = engine.parse_position({"variant": "classic", "board": cal.segments, "pieces": [["K"] * 4] * cal.segments})
            pos = dataclasses.replace(pos, board=engine.load_board(cal.board_kind, cal.segments))
            cards.set_empty(table.render(pos, frame_index=0))
            for i, card in enumerate(engine.ALL_CARDS):
                frame = table.render(pos, card=card, frame_index=10 + i)
                reader.measure(frame)
                cards.enrol(frame, card, reader.homography)
                print(f"enrolled {card}", file=sys.stderr)
        else:
            if not args.images:
                raise UserError("give one picture per card type (named after the card, 1/11 as 1_11.png), or --simulate")
            if not args.empty:
                raise UserError("give --empty EMPTY.png: a picture with nothing on the discard zone")
            cards.set_empty(_image(args.empty, "empty-zone picture"))
            for path in args.images:
                card = Path(path).stem.replace("_", "/") if Path(path).stem == "1_11" else Path(path).stem
                if card not in engine.ALL_CARDS:
                    raise UserError(f"{path}: '{card}' is not a card id (name files after a card: {', '.join(engine.ALL_CARDS)})")
                frame = _image(path, "card picture")
                reader.measure(frame)
                cards.enrol(frame, card, reader.homography)
                print(f"enrolled {card}", file=sys.stderr)
    except VisionError as exc:
        raise UserError(str(exc)) from None
    cards.save(args.out)
    data = json.loads(Path(args.calibration).read_text())
    data["cards"] = str(Path(args.out).resolve())
    Path(args.calibration).write_text(json.dumps(data) + "\n")
    print(f"wrote {args.out} ({len(cards.templates)} cards) and linked it from {args.calibration}")
    return 0
