"""`dogtable vision ...`: calibrate the camera, read a picture of the board, enrol the cards.

OpenCV, the vision pipeline and the simulated table are imported inside the handlers, so
that other commands start quickly.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import engine
from companion.config import load_config
from companion.errors import UserError
from vision.errors import VisionError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("vision", help="camera: calibrate, read the board, enrol cards")
    sub = p.add_subparsers(dest="vision_command", metavar="SUBCOMMAND")
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])

    c = sub.add_parser("calibrate", help="find the markers and fields, learn the colours; write a calibration file")
    c.add_argument("--image", help="picture of the empty board (all four corner markers visible)")
    c.add_argument("--camera", action="store_true",
                   help="take the pictures with the configured camera, lighting the LED rings to learn their look; "
                        "asks you to clear the board, then to set the pieces out (stop the service first)")
    c.add_argument("--start", help="picture of the start position (every piece in its kennel), to learn colours")
    c.add_argument("--start-position", help="position JSON of what --start shows, if not the start position")
    c.add_argument("--segments", type=int, choices=(4, 6),
                   help="board size (default 4; with --camera: [table] segments)")
    c.add_argument("--board", choices=("standard", "royal", "black"),
                   help="board kind (default standard; with --camera: the [table] edition's)")
    c.add_argument("--disc", type=int, choices=range(4), default=0, help="disc orientation in the pictures (black)")
    c.add_argument("--out", default="calibration.json", help="calibration file to write (default: %(default)s)")
    c.add_argument("--simulate", action="store_true",
                   help="calibrate on pictures from the simulated table (with --camera: its simulated camera and LEDs)")
    c.add_argument("--seed", type=int, default=0,
                   help="simulated table seed (with --simulate; with --camera: [table] seed)")
    c.add_argument("--config", action="append", type=Path, metavar="PATH",
                   help="with --camera: configuration file(s) instead of /etc and ~/.config")
    c.add_argument("--no-leds", action="store_true", help="with --camera: do not light the LED rings")
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
    e.add_argument("--pile", action="store_true",
                   help="enrol for reading the top card of a pile (its corner index and big symbol)")
    e.add_argument("--add", action="store_true",
                   help="add these pictures as a second photo of their cards to the calibration's pile templates "
                        "(for a card the table keeps asking about)")
    e.set_defaults(func=cmd_enrol)


def _check_out(path: str, what: str) -> None:
    """Refuse an --out that cannot be written before the long work, not after it."""
    p = Path(path)
    if p.is_dir():
        raise UserError(f"--out {path} is a folder: give a file name for the {what}, e.g. {p / 'calibration.json'}"
                        if what == "calibration" else
                        f"--out {path} is a folder: give a file name for the {what}, e.g. {p / 'cards.json'}")
    if not p.parent.is_dir():
        raise UserError(f"--out {path}: the folder {p.parent} does not exist; create it or choose another place")


def _save(obj: Any, path: str) -> None:
    try:
        obj.save(path)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror}") from None


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

    from hardware.simtable import SimTable  # OpenCV: only --simulate renders pictures

    table = SimTable(segments=segments, seed=seed)
    pos = engine.parse_position({"variant": "classic", "board": segments, "pieces": [["K"] * 4] * segments})
    pos = dataclasses.replace(pos, board=engine.load_board(board, segments), disc=disc)
    empty = dataclasses.replace(pos, pieces=tuple(() for _ in pos.pieces))
    return table.render(empty, frame_index=0), table.render(pos, frame_index=1), pos.field_occupancy()


def _sim_lit_frames(segments: int, board: str, disc: int, seed: int) -> list[tuple[Any, dict]]:
    """The simulated table drives its LED rings: the empty board with rings lit, group by group, per role colour."""
    import dataclasses

    # OpenCV: only --simulate renders pictures
    from companion.simulated.camera import ROLE_RGB
    from hardware.simtable import SimTable
    from vision.calibration import glow_groups

    table = SimTable(segments=segments, seed=seed)
    pos = engine.parse_position({"variant": "classic", "board": segments, "pieces": [["K"] * 4] * segments})
    pos = dataclasses.replace(pos, board=engine.load_board(board, segments), disc=disc,
                              pieces=tuple(() for _ in range(segments)))  # the empty board: no pieces to parse
    out = []
    for colour in dict.fromkeys(ROLE_RGB.values()):
        for g in glow_groups(segments):
            lit = {f: colour for f in g}
            out.append((table.render(pos, lit=lit, frame_index=2 + len(out)), lit))
    return out


WITHOUT_CAMERA = "to try it without one: --simulate; or calibrate from pictures: --image EMPTY.png --start START.png"
ARRANGE = {
    "empty": "take every piece and card off the board and your hands away, then press Enter",
    "start": "set every piece in its kennel (the start position), then press Enter",
}


def _camera_frames(args: argparse.Namespace) -> tuple[Any, Any, dict[str, str] | None, list | None]:
    """Empty board, lit rings and start position from the configured camera and LEDs (simulated with --simulate)."""
    # OpenCV, numpy and the device drivers: only --camera opens the table's devices
    from companion.calibration_shots import take_shots
    from hardware.factory import open_devices, start_position, with_backend

    settings = load_config(args.config).hardware
    if args.simulate:
        settings = settings.simulated()
    # Only the camera and the LEDs: the encoder's and buttons' pins stay free.
    settings = with_backend(with_backend(settings, "encoder", "none"), "buttons", "none")
    if args.no_leds:
        settings = with_backend(settings, "leds", "none")
    table = settings.table
    board = start_position(table.edition, table.segments).board.kind
    if args.segments not in (None, table.segments) or args.board not in (None, board):
        raise UserError(f"--segments/--board say a {args.segments or table.segments}-segment {args.board or board} "
                        f"board, but the configuration's [table] is a {table.segments}-segment {board} board "
                        "(the LED map follows it): fix [table] in the config, or leave --segments/--board out")
    args.segments, args.board = table.segments, board
    if settings.camera.backend == "none":
        raise UserError(f"no camera configured (camera.backend = \"none\"): set [camera] in the config; "
                        f"{WITHOUT_CAMERA}")
    if settings.camera.backend == "file":
        raise UserError("camera.backend = \"file\" shows a fixed picture that cannot show the LEDs lit: "
                        "calibrate from pictures (--image EMPTY.png --start START.png)")
    start = _image(args.start, "start-position picture") if args.start else None  # before the long part
    with open_devices(settings) as devices:
        if devices.camera is None:
            raise UserError(f"{devices.problems.get('camera', 'the camera did not open')}; {WITHOUT_CAMERA}")
        if devices.leds is None and settings.leds.backend != "none":
            raise UserError(f"{devices.problems.get('leds', 'the LEDs did not open')}; calibrate --camera lights the "
                            "LED rings to learn their look: fix them (`dogtable hw test`), or add --no-leds")
        simulated = settings.camera.backend == "simulated"  # nobody stands at the simulated table
        arrange, occupancy = _simulated_person(devices.table) if simulated else (_ask, None)
        shots = take_shots(devices.camera, devices.leds, table.segments, arrange, start=start is None,
                           progress=_progress_line("LED rings lit"))
    if settings.leds.backend == "none":
        print("LED rings not lit (--no-leds, or leds.backend = \"none\")", file=sys.stderr)
    if start is not None:  # --start: a picture of whatever the person set out, not the simulated start
        return list(shots.empty), start, None, list(shots.lit_frames) or None
    return list(shots.empty), list(shots.start or ()), occupancy, list(shots.lit_frames) or None


def _simulated_person(play: Any) -> tuple[Any, dict[str, str]]:
    """The program plays the person at the simulated table: it clears the board, then sets the pieces out."""
    import dataclasses

    set_out = play.position  # hardware.simtable.play.PlayTable starts with every piece in its kennel
    cleared = dataclasses.replace(set_out, pieces=tuple(() for _ in set_out.pieces), black_dog=None)

    def arrange(what: str) -> None:
        play.set_position(set_out if what == "start" else cleared)

    return arrange, set_out.field_occupancy()


def _ask(what: str) -> None:
    """Wait until the person at the table has arranged the board."""
    print(f"{ARRANGE[what]} ", end="", file=sys.stderr, flush=True)
    if not sys.stdin.readline():
        print(file=sys.stderr)
        raise UserError("no answer on standard input: run it in a terminal, it waits for Enter "
                        "while you arrange the board")


def _progress_line(what: str) -> Any:
    """Progress on stderr: one line rewritten in place on a terminal; in a log, every tenth step."""
    tty = sys.stderr.isatty()

    def show(done: int, total: int) -> None:
        if tty:
            print(f"\r{what}: {done}/{total} pictures", end="\n" if done == total else "", file=sys.stderr, flush=True)
        elif done % 10 == 0 or done == total:
            print(f"{what}: {done}/{total} pictures", file=sys.stderr)

    return show


def cmd_calibrate(args: argparse.Namespace) -> int:
    from vision.calibration import calibrate, default_start  # OpenCV: only the vision commands load it

    occupancy = None
    lit_frames = None
    _check_out(args.out, "calibration")
    if (args.config or args.no_leds) and not args.camera:
        raise UserError("--config and --no-leds go with --camera")
    if args.camera:
        if args.image:
            raise UserError("give --camera or --image EMPTY.png, not both")
        empty, start, occupancy, lit_frames = _camera_frames(args)
    elif args.simulate:
        args.segments, args.board = args.segments or 4, args.board or "standard"
        empty, start, occupancy = _sim_frames(args.segments, args.board, args.disc, args.seed)
        lit_frames = _sim_lit_frames(args.segments, args.board, args.disc, args.seed)
    else:
        args.segments, args.board = args.segments or 4, args.board or "standard"
        if not args.image:
            raise UserError("give --image EMPTY.png (a picture of the empty board), --camera, or --simulate")
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
    _save(cal, args.out)
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
            why = ("the LED pictures did not show every field lit in every colour" if lit_frames else
                   "this calibration did not light the LEDs (--camera with the table's LEDs does)")
            print(f"seat{'s' if len(cal.pale_seats) > 1 else ''} {', '.join(map(str, cal.pale_seats))}: pieces nearly the "
                  f"empty field's colour, told apart by the field's pattern; {why}, "
                  "so fields next to lit LEDs read 'unknown' (the service blanks the LEDs for a frame to read them)")
    for warning in rep.get("warnings", []):
        print(f"warning: {warning}", file=sys.stderr)
    print(f"wrote {args.out}")
    return 0


def _load(path: str) -> Any:
    from vision.calibration import load_calibration  # OpenCV: only the vision commands load it

    try:
        return load_calibration(path)
    except VisionError as exc:
        raise UserError(str(exc)) from None


def cmd_read(args: argparse.Namespace) -> int:
    # OpenCV: only the vision commands load it
    from vision.pile_cards import load_table_card_reader
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
            out["card"] = load_table_card_reader(cal, cal.cards_path).recognise(frame, reader.homography).to_json()
        except VisionError as exc:
            raise UserError(str(exc)) from None
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


def _card_of(path: str) -> str:
    """The card a picture is named after (1/11 as 1_11.png)."""
    card = Path(path).stem.replace("_", "/") if Path(path).stem == "1_11" else Path(path).stem
    if card not in engine.ALL_CARDS:
        raise UserError(f"{path}: '{card}' is not a card id (name files after a card: {', '.join(engine.ALL_CARDS)})")
    return card


def _add_photos(args: argparse.Namespace, cal: Any) -> int:
    """One more photo of each pictured card, added to the pile templates the calibration links."""
    from vision.pile_cards import load_pile_card_reader  # OpenCV: only the vision commands load it
    from vision.reader import BoardReader

    if not cal.cards_path:
        raise UserError("no cards enrolled for this calibration: run 'dogtable vision enrol-cards --pile' first")
    if not args.images:
        raise UserError("give a picture of each card to add (named after the card, 1/11 as 1_11.png)")
    reader = BoardReader(cal)
    try:
        cards = load_pile_card_reader(cal, cal.cards_path)
        for path in args.images:
            card = _card_of(path)
            if card not in cards.templates:
                raise UserError(f"{path}: '{card}' is not enrolled yet: enrol it first")
            frame = _image(path, "card picture")
            reader.measure(frame)
            cards.enrol(frame, card, reader.homography, add=True)
            print(f"added a photo of {card}", file=sys.stderr)
    except VisionError as exc:
        raise UserError(str(exc)) from None
    cards.save(cal.cards_path)
    print(f"wrote {cal.cards_path}")
    return 0


def cmd_enrol(args: argparse.Namespace) -> int:
    # OpenCV: only the vision commands load it
    from vision.cards import CardReader
    from vision.pile_cards import PileCardReader
    from vision.reader import BoardReader

    if not args.add:  # --add writes the templates the calibration links
        _check_out(args.out, "card templates")
    cal = _load(args.calibration)
    if args.add:
        return _add_photos(args, cal)
    cards = PileCardReader(cal) if args.pile else CardReader(cal)
    reader = BoardReader(cal)
    try:
        if args.simulate:
            import dataclasses

            from hardware.simtable import SimTable  # OpenCV: only --simulate renders pictures

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
                card = _card_of(path)
                frame = _image(path, "card picture")
                reader.measure(frame)
                cards.enrol(frame, card, reader.homography)
                print(f"enrolled {card}", file=sys.stderr)
    except VisionError as exc:
        raise UserError(str(exc)) from None
    _save(cards, args.out)
    data = json.loads(Path(args.calibration).read_text())
    data["cards"] = str(Path(args.out).resolve())
    Path(args.calibration).write_text(json.dumps(data) + "\n")
    print(f"wrote {args.out} ({len(cards.templates)} cards) and linked it from {args.calibration}")
    return 0
