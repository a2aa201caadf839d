"""`dogtable sim`, `dogtable run`, `dogtable replay`: the table service and its journal."""
from __future__ import annotations

import argparse
import dataclasses
import logging
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import engine
from companion import settings as S
from companion.commands.options import web_port
from companion.config import Checker
from companion.errors import UserError
from companion.notify import Notifier
from companion.settings import check_service, check_web
from engine.messages import LANGUAGES

log = logging.getLogger(__name__)

SIM_JOURNAL = "sim.sqlite"  # the sim's journal in the state folder (see settings_from_args), for replay to find


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sim", help="play on a simulated table in the browser (referee, LEDs, bots)",
                       description="Start the table service on a simulated table and open its web page. "
                                   "Prints the address and the pairing PIN.")
    _common(p)
    p.add_argument("--variant", help="edition: classic, compact, royal-basic, royal, black, brandi (default: [table] edition of the config)")
    p.add_argument("--players", type=int, help="number of players (default 4)")
    p.add_argument("--bots", help="seats played by bots, e.g. 1,3 (default none)")
    p.add_argument("--seed", type=int, default=0, help="seed for the simulated hands and bots")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    p.add_argument("--vision", action="store_true",
                   help="read the simulated table through the camera renderer and vision pipeline")
    p.set_defaults(func=cmd_sim)

    p = sub.add_parser("run", help="the table service at the real table (from the config file)",
                       description="Run the table service for the real table: camera, LEDs, buttons and the web page, "
                                   "as the config file says. This is what systemd starts.")
    _common(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("replay", help="re-play a game from the journal or a game record; list games or export one",
                       description="Re-play a journaled game event by event and print what the referee said, "
                                   "export it as a game record (.txt to read, .json for programs), or re-play "
                                   "a game record file. Without --journal it reads the service's journal, or "
                                   "the one dogtable sim writes, whichever was used last.")
    p.add_argument("file", nargs="?", metavar="RECORD", help="a game record (.txt or .json) to re-play and show")
    p.add_argument("--record", metavar="RECORD", help="the same as giving RECORD")
    p.add_argument("--journal", help="journal file (default: the service's or the sim's journal)")
    p.add_argument("--config", help="config file (default: /etc/dogtable/config.toml and ~/.config/dogtable/config.toml)")
    p.add_argument("--game", type=int, help="game id (default: the latest game)")
    p.add_argument("--list", action="store_true", help="list the games in the journal")
    p.add_argument("--export", metavar="FILE", nargs="?", const="",
                   help="write the game as a record (docs/record.md): FILE.txt (to read: tags, deals, one line "
                        "per play in the notation and in words) or FILE.json; - for JSON on stdout; "
                        "no FILE: the text on stdout")
    p.add_argument("--public", action="store_true",
                   help="export without what lay face down (the deal, the cards given): to hand round during a game")
    p.add_argument("--lang", choices=LANGUAGES, default="en",
                   help="language of what is printed and of a text record (default en)")
    p.set_defaults(func=cmd_replay)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", help="config file (default: /etc/dogtable/config.toml and ~/.config/dogtable/config.toml)")
    p.add_argument("--host", help="address to listen on (sim: 127.0.0.1)")
    p.add_argument("--port", type=web_port, help="web port (default 8377; 0 picks a free port)")
    p.add_argument("--mode", choices=["referee", "highlight", "training"])
    p.add_argument("--lang", choices=LANGUAGES, help="language of the page, the referee and the spoken words")
    p.add_argument("--direction", choices=["clockwise", "counter-clockwise"],
                   help="direction of play (default: the edition's own; classic and compact may be played "
                        "counter-clockwise, Brändi Dog is by default)")
    p.add_argument("--journal", help="journal file (SQLite)")
    p.add_argument("--new", action="store_true", help="start a new game instead of resuming the open one")
    p.add_argument("--pin", help="pairing PIN to use instead of a random one (6 to 8 digits 0-9)")
    g = p.add_argument_group("tables linked through an MQTT broker (docs/remote.md)")
    g.add_argument("--broker", metavar="URL", help="the broker: mqtts://HOST[:PORT] (TLS) or mqtt://HOST[:PORT] "
                   "(default: [remote] broker)")
    g.add_argument("--credentials", metavar="FILE", help="TOML file with this table's username and password "
                   "(default: [remote] credentials)")
    g.add_argument("--table", metavar="NAME", help="this table's name at the broker (default: [remote] table)")
    g.add_argument("--host-game", action="store_true", help="host a game other tables join; prints the invitation code")
    g.add_argument("--join", metavar="CODE", help="join the game of this invitation code (like alice-K7Q2M9XD)")
    g.add_argument("--seats", metavar="LIST", help="the seats played at this table, e.g. 1,3")


def _bots(text: str | None) -> tuple[int, ...] | None:
    if text is None:
        return None
    try:
        return tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise UserError(f"--bots must list seat numbers like 1,3, not '{text}'") from None


def settings_from_args(args: argparse.Namespace, sim: bool):
    base = S.load(args.config)
    service = {"mode": args.mode, "lang": args.lang, "journal": args.journal, "direction": args.direction}
    if sim:
        service.update(players=getattr(args, "players", None),
                       bots=_bots(getattr(args, "bots", None)), vision=True if getattr(args, "vision", False) else None)
        if not args.journal and not base.service.journal:
            service["journal"] = str(S.default_state_dir() / "sim.sqlite")
    if args.pin is not None and S.pin_problem(args.pin):
        raise UserError(f"--pin {args.pin!r}: {S.PIN_RULE.replace('or empty for a random PIN at each start', 'or leave --pin out for a random one')}")
    web = {"host": args.host, "port": args.port, "pin": args.pin}
    if sim and args.host is None:
        web["host"] = "127.0.0.1"  # the sim is for this computer unless asked otherwise
    settings = S.with_overrides(base, service, web, getattr(args, "variant", None))
    _check_overrides(settings)
    return settings


def _check_overrides(settings) -> None:
    """The config was checked when it was read; the command-line options are checked here, the same way."""
    problems: list = []
    check_service(settings.service, Checker("service", lambda key: "command line or config", problems))
    check_web(settings.web, Checker("web", lambda key: "command line or config", problems))
    if problems:
        raise UserError(str(problems[0]))


def check_setup(settings) -> None:
    try:
        variant = engine.get_variant(settings.edition)
    except engine.EngineError as exc:
        raise UserError(str(exc)) from None
    if settings.service.players not in variant.players:
        raise UserError(f"{variant.name} is played by {', '.join(map(str, variant.players))} players, "
                        f"not {settings.service.players} (use --players)")
    if settings.service.direction:
        try:
            variant.check_direction(settings.service.direction)
        except engine.EngineError as exc:
            raise UserError(f"--direction {settings.service.direction}: {exc}") from None


@dataclass
class Running:
    """A started service: what `sim` and `run` serve, and what tests drive."""

    settings: Any
    service: Any  # companion.service.Service
    web: Any  # companion.web.server.WebServer
    resumed: bool
    lights: Any  # companion.lights.Lights
    announcer: Any  # companion.speech.Announcer
    table: Any = None  # companion.devices.TableDevices (run only)
    simulated: Any = None  # companion.simulated.table.SimulatedTable (sim only)
    mdns: Any = None  # companion.web.announce.Announcement: dogtable.local on the network
    remote: Any = None  # companion.remote: the HostRelay or JoinedTable of a linked game
    club: Any = None  # companion.remote.club.ClubView: every linked table's game, for the page's /club/

    def stop(self) -> None:
        if self.club is not None:
            self.club.stop()
        if self.remote is not None:
            self.remote.stop()
        if self.mdns is not None:
            self.mdns.stop()
        if self.simulated is not None:
            self.simulated.stop()
        if self.table is not None:
            self.table.stop()
        self.web.stop()
        self.lights.stop()
        self.announcer.stop()
        self.service.stop()
        self.service.journal.close()


def start_service(args: argparse.Namespace, settings, sim: bool, *, link: Any = None) -> Running:
    """Start the service. `link`: a stand-in for the microcontroller bridge (tests)."""
    # here, not at the top: `dogtable moves` and friends start without aiohttp, OpenCV and the journal
    from companion.journal import Journal
    from companion.lights import Lights
    from companion.service import Service
    from companion.speech import Announcer
    from companion.table import Setup, TableError
    from companion.web.announce import start_announcing
    from companion.web.server import WebServer

    started = time.perf_counter()
    plan = _remote_plan(args, settings)
    reader = _vision_reader(settings) if sim and settings.service.vision else None
    journal = Journal(settings.journal_path())
    service = Service(settings, journal)
    announcer = Announcer(service)
    table = simulated = web = remote = club = None
    try:
        if sim:
            from companion.simulated.table import SimulatedTable  # the sim's own wing: `run` never loads it

            lights = Lights(service)
            simulated = SimulatedTable(service, bots=settings.service.bots, levels=settings.service.bot_levels,
                                       seed=getattr(args, "seed", 0), think_s=settings.service.bot_think_s,
                                       reader=reader, linked=plan.role if plan is not None else None)
        else:
            # numpy and the device drivers: only `run` loads them
            from companion.devices import TableDevices, open_table_devices

            table = TableDevices(service, open_table_devices(settings, link=link), settings)
            lights = table.lights
        setup = Setup(settings.edition, settings.service.players, settings.service.mode,
                      direction=settings.service.direction or None)
        try:
            if plan is not None and plan.role == "joined":
                remote = _link(plan, service)  # the hosting table's game, resumed here when it is the same
                resumed = service.state.seq > 0
            else:
                if plan is not None:  # the broker first: a host that cannot link leaves its journal as it was
                    remote = _link(plan, service)
                resumed = (simulated or service).open(setup, resume=not args.new)
                if remote is not None:
                    remote.start()
            if sim:
                bad = [s for s in settings.service.bots if s not in service.state.seats]
                if bad:
                    raise UserError(f"--bots: seat {bad[0]} does not play (seats: {list(service.state.seats)})")
        except TableError as exc:
            raise UserError(str(exc)) from None
        if table is not None:
            table.attach()
        club = _club(plan, remote) if remote is not None else None
        if remote is not None:
            from companion.remote.session import carry_out_here

            carry_out_here(service, remote, lights, simulated)
        web = WebServer(service, settings.web, lights=lights, simulated=simulated,
                        club=_club_routes(club) if club is not None else None, remote=remote)
        web.start()
    except BaseException:
        # whatever opened must close again: pins, the LED strip, the journal
        if club is not None:
            club.stop()
        if remote is not None:
            remote.stop()
        if simulated is not None:
            simulated.stop()
        if table is not None:
            table.stop()
        service.stop()
        journal.close()
        raise
    if simulated is not None:
        simulated.start_bots()
    if table is not None:
        table.start()
    # the page's name on the network (a test's servers are not announced: only the service's)
    mdns = start_announcing(settings.web.host, web.sock.getsockname()[1])
    log.info("service up in %.2f s", time.perf_counter() - started)
    return Running(settings, service, web, resumed, lights, announcer, table, simulated, mdns, remote, club)


def _remote_plan(args: argparse.Namespace, settings):
    """The table's part in a linked game, checked before anything starts (None: it plays alone)."""
    if not (getattr(args, "broker", None) or settings.remote.broker or getattr(args, "host_game", False)
            or getattr(args, "join", None)):
        return None
    from companion.remote.link import LinkError  # MQTT: only a linked table loads it
    from companion.remote.session import plan

    try:
        return plan(getattr(args, "broker", None) or settings.remote.broker,
                    getattr(args, "credentials", None) or settings.remote.credentials,
                    getattr(args, "table", None) or settings.remote.table,
                    host_game=getattr(args, "host_game", False), join=getattr(args, "join", None),
                    seats=getattr(args, "seats", None), journal=settings.journal_path())
    except LinkError as exc:
        raise UserError(str(exc)) from None


def _link(plan, service):
    from companion.remote.link import LinkError
    from companion.remote.session import connect_host, start_joined

    try:  # a host is connected only: its game opens after, then it starts
        return start_joined(service, plan) if plan.role == "joined" else connect_host(service, plan)
    except LinkError as exc:
        raise UserError(str(exc)) from None


def _club(plan, remote):
    """The club screen's view, fed by this table's own link (the broker lets a table connect once)."""
    from companion.remote.club import Broker, ClubView

    ep = plan.endpoint
    view = ClubView(Broker(**dataclasses.asdict(ep)))
    remote.link.observers.append(
        lambda topic, payload: view.ingest(topic, payload) if topic.endswith(("/public/state", "/presence")) else None)
    remote.link.status_observers.append(view.set_link)
    view.set_link(remote.link.connected.is_set(), remote.link.problem)
    return view


def _club_routes(view):
    from companion.remote.club import club_routes

    return club_routes(view)


def _print_remote(running: Running) -> None:
    remote = running.remote
    if remote is None:
        return
    if remote.role == "host":
        print(f"hosting game {remote.game}: other tables join with --join {remote.code}")
        print(f"club screen: {running.web.url}club/")
    else:
        print(f"joined table {remote.game}'s game with seats {','.join(map(str, remote.seats))}")


def _vision_reader(settings):
    try:
        from companion.simulated.camera import SimCamera  # OpenCV and the renderer: only for --vision
    except ImportError as exc:
        raise UserError(f"--vision needs the hardware renderer and the vision pipeline: {exc}") from None
    return SimCamera.for_variant(settings.edition, settings.service.players).read_board


def stop_on_signals() -> threading.Event:
    """SIGTERM (systemd, kill) and Ctrl-C end the service cleanly; set up before anything starts."""
    done = threading.Event()

    def stop(signum, frame) -> None:
        done.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    return done


def _serve_until_stopped(running: Running, notifier, done: threading.Event) -> int:
    try:
        while not done.wait(0.5):
            pass
    finally:
        notifier.stopping()
        running.stop()
    return 0


def log_to_stdout() -> None:
    """The service logs to stdout (journald keeps it); the dispatcher set up stderr."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.StreamHandler):
            handler.setStream(sys.stdout)
    logging.getLogger("companion").setLevel(logging.INFO)


def _print_join(web) -> None:
    """A QR code that opens the page on a phone and pairs it; the PIN stays the fallback."""
    from companion.web.join import qr_text  # segno and urllib: only a starting service prints the code

    link = web.app.pair_url()
    if link.startswith("http://localhost:"):
        print("phones cannot reach localhost: start with --host 0.0.0.0 (or [web] host) to let them join")
        return
    print("scan with a phone to join (the code is valid for an hour; then use the PIN or the code on the page):")
    print(qr_text(link), end="")


def cmd_sim(args: argparse.Namespace) -> int:
    settings = settings_from_args(args, sim=True)
    check_setup(settings)
    log_to_stdout()
    done = stop_on_signals()
    running = start_service(args, settings, sim=True)
    settings, service, web, resumed = running.settings, running.service, running.web, running.resumed
    st = service.state
    print(f"dogtable sim: {st.variant.title}, {st.position.players} players"
          f"{', bots at seats ' + ','.join(map(str, settings.service.bots)) if settings.service.bots else ''}"
          f"{' (resumed game ' + str(service.game_id) + ')' if resumed else ''}")
    print(f"open {web.url}")
    print(f"pairing PIN: {web.app.pin}")
    print(f"host PIN: {web.app.host_pin} (pairs a phone as the host; keep it to yourself)")
    print(f"journal: {settings.journal_path()}")
    _print_remote(running)
    _print_join(web)
    sys.stdout.flush()
    if not args.no_browser:
        import webbrowser

        threading.Thread(target=webbrowser.open, args=(web.url,), daemon=True).start()
    notifier = Notifier()
    notifier.ready(f"sim on {web.url}")
    return _serve_until_stopped(running, notifier, done)


def cmd_run(args: argparse.Namespace) -> int:
    settings = settings_from_args(args, sim=False)
    check_setup(settings)
    log_to_stdout()
    done = stop_on_signals()
    notifier = Notifier()
    running = start_service(args, settings, sim=False)
    service, web = running.service, running.web
    working = running.table.working()
    print(f"dogtable run: web page {web.url}  pairing PIN: {web.app.pin}  host PIN: {web.app.host_pin}  "
          f"journal: {settings.journal_path()}")
    missing = ", ".join(running.table.problems)
    # the reasons were logged once already (and are on the web page): here only the names
    print(f"devices: {', '.join(working) if working else 'none (enter cards and boards on the web page)'}"
          f"{'; not used: ' + missing if missing else ''}")
    _print_remote(running)
    _print_join(web)
    sys.stdout.flush()
    notifier.start_watchdog(service.lock)
    notifier.ready(f"game {service.game_id} at event {service.state.seq}; web {web.url}; PIN {web.app.pin}")
    return _serve_until_stopped(running, notifier, done)


def _replay_journal_path(args: argparse.Namespace) -> Path:
    """--journal, else the config's journal, else the service's or the sim's, whichever was used last."""
    if args.journal:
        return Path(args.journal)
    settings = S.load(args.config)
    if settings.service.journal:
        return settings.journal_path()
    candidates = [settings.journal_path(), S.default_state_dir() / SIM_JOURNAL]
    found = [p for p in candidates if p.is_file()]
    if not found:
        raise UserError(f"no journal found: neither {candidates[0]} (dogtable run) nor {candidates[1]} "
                        f"(dogtable sim) exists; give --journal FILE")
    path = max(found, key=lambda p: max(q.stat().st_mtime for q in (p, Path(f"{p}-wal")) if q.exists()))
    print(f"journal: {path}", file=sys.stderr)
    return path


def cmd_replay(args: argparse.Namespace) -> int:
    # the journal (sqlite3) and the table's state machine: only replay loads them
    from companion import record as R
    from companion import table as T
    from companion.journal import Journal

    if args.file and args.record and args.file != args.record:
        raise UserError("give one game record, either as RECORD or as --record")
    if args.file or args.record:
        return _replay_record_file(args, args.file or args.record)
    path = _replay_journal_path(args)
    journal = Journal(path, readonly=True)
    games = journal.games()
    if not games:
        raise UserError(f"the journal {path} holds no games")
    if args.list:
        for g in games:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(g.created))
            print(f"{g.id:4d}  {when}  {g.setup.variant:11s} {g.setup.players} players  {g.events:5d} events  "
                  f"{g.status}")
        return 0
    record = journal.game(args.game) if args.game is not None else games[-1]
    events = journal.timed_events(record.id)
    if args.export is not None:
        rec = R.game_record(record.setup, events, game_id=record.id, created=record.created, ended=record.ended,
                            public=args.public)
        if _export_to_stdout(args, rec):
            return 0
        R.write_record(rec, args.export, args.lang)
        print(f"exported game {record.id} ({len(rec['plays'])} plays) to {args.export}")
        return 0
    state = T.new_state(record.setup)
    for seq, _ts, ev in events:
        try:
            state, _effects = T.apply(state, ev)
            error = None
        except T.TableError as exc:
            error = str(exc)
        for e in state.log:
            if e.seq == state.seq - 1:
                print(f"{seq:5d}  {e.text[args.lang]}")
        if error:
            print(f"{seq:5d}  (rejected: {error})")
    print(f"game {record.id}: {len(events)} events, phase {state.phase}, round {state.round_no + 1}"
          + (f", won by seats {list(state.winner)}" if state.winner else "")
          + (" (abandoned)" if record.ended == "abandoned" else ""))
    return 0


def _replay_record_file(args: argparse.Namespace, path: str) -> int:
    from companion import record as R  # the table's state machine: only replay loads it

    rec = R.read_record(path)
    shown, _ = R.replay_record(rec, path, args.lang)
    if args.export is not None:
        full = R.complete_record(rec, path)
        if args.public:
            full = R.public_version(full)
        if not _export_to_stdout(args, full):
            R.write_record(full, args.export, args.lang)
            print(f"wrote {args.export}")
        return 0
    print(f"{rec['edition']}, {rec['players']} players, {rec.get('date') or 'no date'}")
    for line in shown:
        print(line)
    return 0


def _export_to_stdout(args: argparse.Namespace, rec: dict) -> bool:
    """--export - (JSON) or --export alone (the text): written to stdout; False for a file."""
    from companion import record as R  # the table's state machine: only replay loads it

    if args.export == "-":
        sys.stdout.write(R.to_json(rec))
    elif args.export == "":
        sys.stdout.write(R.to_text(rec, args.lang))
    else:
        return False
    return True
