"""`dogtable doctor`: is this machine ready to run the table? One line per check, with the fix.

It looks and never changes anything: it opens no device (the service may be holding them),
reads the journal read-only, and runs no game. What it checks: the config; the camera, the
LEDs (SPI or PWM, permissions, the power budget), the encoder's and the buttons' pins, the
serial bridge; the camera calibration and the card templates against the config; the
journal; free disk; clock sync; the systemd unit. Exit 1 if any check fails.
"""
from __future__ import annotations

import argparse
import grp
import importlib.util
import os
import pwd
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import engine
from companion import settings as S
from companion.config import load_config
from companion.errors import UserError
from hardware.machine import board_model, is_raspberry_pi, is_raspberry_pi_5
from vision.errors import VisionError

UNIT = "dogtable.service"
USER = "dogtable"
SPI_DEVICE = "spidev0.0"
SPI_PINS = (7, 8, 9, 10, 11)  # SPI0: CE1, CE0, MISO, MOSI, SCLK: taken when the LEDs use SPI
MIN_FREE_MB = 100  # a game journal grows by kilobytes; below this SQLite's synced writes may fail mid-game
LOW_FREE_MB = 1000
PI_SUPPLY_MA = 3000  # what a Pi 4 itself may draw on the 5 V rail (its official supply gives 3 A)


@dataclass(frozen=True)
class Check:
    status: str  # ok | warn | FAIL | skip
    name: str
    text: str
    fix: str = ""

    def line(self) -> str:
        return f"{self.status:<4} {self.name:<11} {self.text}" + (f"; fix: {self.fix}" if self.fix else "")


@dataclass(frozen=True)
class Machine:
    """What the checks look at; a test points it at a made-up machine."""

    model: str = field(default_factory=board_model)
    dev: Path = Path("/dev")
    systemd: bool = field(default_factory=lambda: Path("/run/systemd/system").is_dir())
    unit_dir: Path = Path("/etc/systemd/system")
    run: Callable[[list[str]], tuple[int, str]] = None  # type: ignore[assignment]
    user: str = USER
    has_module: Callable[[str], bool] = lambda name: importlib.util.find_spec(name) is not None

    def command(self, cmd: list[str]) -> tuple[int, str]:
        if self.run is not None:
            return self.run(cmd)
        if shutil.which(cmd[0]) is None:
            return 127, ""
        proc = subprocess.run(cmd, capture_output=True, text=True)
        return proc.returncode, proc.stdout.strip()

    def groups_of_user(self) -> set[str] | None:
        """The groups the service's user is in (None: no such user here; then this process's groups)."""
        try:
            pw = pwd.getpwnam(self.user)
        except KeyError:
            return None
        return {g.gr_name for g in grp.getgrall() if self.user in g.gr_mem} | {grp.getgrgid(pw.pw_gid).gr_name}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("doctor", help="check this machine for the table: devices, calibration, journal, disk, clock, unit",
                       description="Check everything `dogtable run` needs, one line per check with the fix. "
                                   "Opens no device and changes nothing.")
    p.add_argument("--config", help="config file (default: /etc/dogtable/config.toml and ~/.config/dogtable/config.toml)")
    p.set_defaults(func=cmd_doctor)


def cmd_doctor(args: argparse.Namespace) -> int:
    checks = list(run_checks(args.config, Machine()))
    for c in checks:
        print(c.line())
    failed = [c.name for c in checks if c.status == "FAIL"]
    print(f"{len(checks)} checks: {len(failed)} failed{' (' + ', '.join(failed) + ')' if failed else ''}, "
          f"{sum(c.status == 'warn' for c in checks)} warnings")
    return 1 if failed else 0


def run_checks(config: str | None, machine: Machine) -> Iterator[Check]:
    try:
        settings = S.load(config)
        yield Check("ok", "config", f"{', '.join(settings.files[1:]) or 'defaults only'}: valid")
    except UserError as exc:
        yield Check("FAIL", "config", str(exc), "dogtable config check")
        settings = S.Settings(hardware=_default_hardware())
    hw = settings.hardware
    yield camera(hw.camera, machine)
    yield from leds(hw.leds, settings, machine)
    yield gpio("encoder", hw.encoder.backend, {"pin_a": hw.encoder.pin_a, "pin_b": hw.encoder.pin_b}, hw, machine)
    yield gpio("buttons", hw.buttons.backend, {f"pins.{k}": v for k, v in hw.buttons.pins.items()}, hw, machine)
    yield bridge(settings, machine)
    yield from calibration(settings)
    yield journal(settings)
    yield disk(settings)
    yield clock(machine)
    yield unit(machine)
    if settings.service.speak:
        yield (Check("ok", "speech", "espeak-ng found") if shutil.which("espeak-ng")
               else Check("FAIL", "speech", "service.speak is on but espeak-ng is not installed", "sudo apt install espeak-ng"))


def _default_hardware():
    return load_config([]).hardware


def _access(path: Path, what: str, group: str, machine: Machine) -> Check | None:
    """None when `path` is there and this process (or the service's user, by group) may use it."""
    if not path.exists():
        return None
    try:
        owner = grp.getgrgid(path.stat().st_gid).gr_name
    except KeyError:
        owner = str(path.stat().st_gid)
    groups = machine.groups_of_user()
    if groups is not None:
        if owner not in groups and owner != "root" or (owner == "root" and not os.access(path, os.R_OK | os.W_OK)):
            return Check("FAIL", what, f"{path} belongs to group {owner}, which user {machine.user} is not in",
                         f"sudo usermod -aG {owner} {machine.user} (the installer does it)")
        return Check("ok", what, f"{path} (group {owner}, user {machine.user} in it)")
    if not os.access(path, os.R_OK | os.W_OK):
        return Check("FAIL", what, f"{path}: no read/write access for this user", f"add the user to group {group}")
    return Check("ok", what, f"{path}")


def camera(s, machine: Machine) -> Check:
    if s.backend in ("none", "simulated"):
        return Check("skip" if s.backend == "none" else "ok", "camera", f"backend {s.backend!r}")
    if s.backend == "file":
        return (Check("ok", "camera", f"file {s.path}") if Path(s.path).is_file()
                else Check("FAIL", "camera", f"no such file: {s.path}", "set camera.path"))
    if s.backend == "opencv":
        dev = Path(s.device) if not s.device.isdigit() else machine.dev / f"video{s.device}"
        if not dev.exists():
            return Check("FAIL", "camera", f"opencv: {dev} does not exist", "plug the USB camera in, or set camera.device")
        return _access(dev, "camera", "video", machine) or Check("ok", "camera", str(dev))
    # picamera2
    lib = machine.has_module("picamera2")
    if not is_raspberry_pi(machine.model):
        return Check("FAIL", "camera", f"picamera2: not a Raspberry Pi{'' if lib else ' and picamera2 is not installed'}",
                     "on a Pi: sudo apt install python3-picamera2 (the venv sees it with --system-site-packages); "
                     "elsewhere set camera.backend = \"opencv\" or \"simulated\"")
    if not lib:
        return Check("FAIL", "camera", "picamera2 is not installed (it comes from apt, not pip)",
                     "sudo apt install python3-picamera2, in a venv made with --system-site-packages (scripts/install-pi.sh)")
    media = sorted(machine.dev.glob("media*")) + sorted(machine.dev.glob("video*"))
    if not media:
        return Check("FAIL", "camera", "picamera2: no /dev/media* or /dev/video* device", "check the ribbon cable and reboot")
    return _access(media[0], "camera", "video", machine) or Check("ok", "camera", f"picamera2, {media[0]}")


def leds(s, settings, machine: Machine) -> Iterator[Check]:
    if s.backend in ("none", "simulated", "bridge"):
        yield Check("skip" if s.backend == "none" else "ok", "leds",
                    f"backend {s.backend!r}" + ("; see the bridge line" if s.backend == "bridge" else ""))
    elif not is_raspberry_pi(machine.model):
        yield Check("FAIL", "leds", "ws281x: not a Raspberry Pi", "set leds.backend = \"simulated\", or \"bridge\" with a Pico")
    elif is_raspberry_pi_5(machine.model):
        yield Check("FAIL", "leds", "ws281x: rpi-ws281x does not support a Raspberry Pi 5", "drive the LEDs from the Pico: leds.backend = \"bridge\"")
    elif not machine.has_module("rpi_ws281x"):
        yield Check("FAIL", "leds", "rpi-ws281x is not installed", "sudo ./scripts/install-pi.sh (it builds it)")
    elif s.pin == 10:
        spi = machine.dev / SPI_DEVICE
        if not spi.exists():
            yield Check("FAIL", "leds", f"SPI (GPIO10): {spi} does not exist",
                        "dtparam=spi=on in /boot/firmware/config.txt, then reboot (the installer adds the line)")
        else:
            yield _access(spi, "leds", "spi", machine) or Check("ok", "leds", f"SPI {spi}")
    elif os.geteuid() != 0:
        yield Check("FAIL", "leds", f"PWM (GPIO{s.pin}) needs root, and the service runs without it",
                    "wire the strip to GPIO10 and set leds.pin = 10 (SPI)")
    else:
        yield Check("warn", "leds", f"PWM (GPIO{s.pin}) as root: the unit runs as {USER} without root",
                    "wire the strip to GPIO10 and set leds.pin = 10 (SPI)")
    if s.backend != "none":
        yield power(s, settings)


def power(s, settings) -> Check:
    from hardware.factory import load_ledmap  # numpy and the device drivers: only for this line

    try:
        count = s.count or load_ledmap(settings.hardware).count
    except Exception as exc:  # a bad map file is the config's problem, reported there too
        return Check("FAIL", "power", f"cannot read the LED map ({exc})", "dogtable config check")
    white = count * (s.idle_ma_per_led + 3 * s.ma_per_channel * s.brightness)
    text = (f"{count} LEDs: all white at brightness {s.brightness} would draw {white:.0f} mA; "
            f"the strip is held to {s.max_current_ma} mA")
    supply = f"a 5 V supply for at least {(s.max_current_ma + PI_SUPPLY_MA) / 1000:.1f} A (the strip and the Pi)"
    if white <= s.max_current_ma:
        return Check("ok", "power", f"{text} (never reached); size {supply}")
    return Check("ok", "power", f"{text}, dimmed above that; size {supply}")


def _pins_in_use(hw) -> dict[int, str]:
    used: dict[int, str] = {}
    if hw.leds.backend == "ws281x":
        used[hw.leds.pin] = "leds.pin"
        if hw.leds.pin == 10:
            used.update({p: "SPI0 (the LEDs)" for p in SPI_PINS if p != 10})
    if hw.encoder.backend == "gpio":
        used.setdefault(hw.encoder.pin_a, "encoder.pin_a")
        used.setdefault(hw.encoder.pin_b, "encoder.pin_b")
    return used


def gpio(name: str, backend: str, pins: dict[str, int], hw, machine: Machine) -> Check:
    if backend in ("none", "simulated", "bridge"):
        return Check("skip" if backend == "none" else "ok", name,
                     f"backend {backend!r}" + ("; see the bridge line" if backend == "bridge" else ""))
    listed = ", ".join(f"{k}=GPIO{v}" for k, v in pins.items())
    others = {p: who for p, who in _pins_in_use(hw).items() if not who.startswith(name)}
    clash = next(((k, v) for k, v in pins.items() if v in others), None)
    if clash:
        return Check("FAIL", name, f"{name}.{clash[0]} = GPIO{clash[1]} is also {others[clash[1]]}",
                     "move one of them to a free pin (docs/hardware.md)")
    if not is_raspberry_pi(machine.model):
        return Check("FAIL", name, f"gpio ({listed}): not a Raspberry Pi",
                     f"set {name}.backend = \"simulated\", or \"bridge\" with a Pico")
    chips = sorted(machine.dev.glob("gpiochip*"))
    if not chips:
        return Check("FAIL", name, "no /dev/gpiochip*", "a kernel without GPIO? update Raspberry Pi OS")
    if not machine.has_module("lgpio"):
        return Check("FAIL", name, "lgpio (gpiozero's pins on bookworm) is not installed", "pip install 'dogtable[pi]' (the installer does it)")
    found = _access(chips[0], name, "gpio", machine)
    if found is not None and found.status == "FAIL":
        return found
    return Check("ok", name, f"gpio {listed} on {chips[0]}")


def bridge(settings, machine: Machine) -> Check:
    hw = settings.hardware
    users = [n for n, b in (("leds", hw.leds.backend), ("encoder", hw.encoder.backend), ("buttons", hw.buttons.backend))
             if b == "bridge"] + (["RFID"] if settings.service.card_tags else [])
    if not users:
        return Check("skip", "bridge", "not used (no backend \"bridge\", no card_tags)")
    port = Path(hw.bridge.port)
    if not port.exists():
        return Check("FAIL", "bridge", f"{port} does not exist ({', '.join(users)} use it)",
                     "plug the Pico in by USB (ls /dev/ttyACM*), or set bridge.port")
    return _access(port, "bridge", "dialout", machine) or Check("ok", "bridge", str(port))


def calibration(settings) -> Iterator[Check]:
    hw = settings.hardware
    if hw.camera.backend == "none":
        yield Check("skip", "calibration", "no camera (camera.backend \"none\")")
        yield Check("skip", "cards", "no camera: cards are entered on the page or by RFID")
        return
    path = settings.calibration_path()
    how = f"dogtable vision calibrate --camera --out {path} (with the service stopped)"
    if not path.is_file():
        yield Check("FAIL", "calibration", f"no calibration at {path}: the camera is not used until there is one", how)
        yield Check("skip", "cards", "no calibration to enrol the cards on")
        return
    # vision (OpenCV, numpy) loads only when there is a calibration to look at
    from hardware.factory import start_position
    from vision.calibration import load_calibration
    from vision.pile_cards import load_table_card_reader

    try:
        cal = load_calibration(path)
    except VisionError as exc:
        yield Check("FAIL", "calibration", str(exc), how)
        yield Check("skip", "cards", "no usable calibration")
        return
    board = start_position(settings.edition, hw.table.segments).board
    size = (hw.camera.width, hw.camera.height)
    if (cal.segments, cal.board_kind) != (board.segments, board.kind):
        yield Check("FAIL", "calibration", f"{path} is for a {cal.segments}-segment {cal.board_kind} board, the config's "
                                           f"is a {board.segments}-segment {board.kind} board", how)
    elif tuple(cal.resolution) != size:
        yield Check("FAIL", "calibration", f"{path} is for {cal.resolution[0]}x{cal.resolution[1]}, the camera gives "
                                           f"{size[0]}x{size[1]}", how)
    elif not cal.has_colours:
        yield Check("FAIL", "calibration", f"{path} has no learned colours", how)
    else:
        yield Check("ok", "calibration", f"{path}: {cal.segments}-segment {cal.board_kind} board at {size[0]}x{size[1]}")
    enrol = f"dogtable vision enrol-cards --calibration {path}"
    if not cal.cards_path:
        yield Check("warn", "cards", "no card templates: cards are tapped on the page", enrol)
        return
    try:
        reader = load_table_card_reader(cal, cal.cards_path)
    except VisionError as exc:
        yield Check("FAIL", "cards", str(exc), enrol)
        return
    deck = [c for c, _ in engine.get_variant(settings.edition).deck]
    missing = [c for c in deck if c not in reader.templates]
    if missing:
        yield Check("warn", "cards", f"{cal.cards_path}: {len(deck) - len(missing)} of {len(deck)} cards of "
                                     f"{settings.edition} enrolled, not {', '.join(missing)}", enrol)
    else:
        yield Check("ok", "cards", f"{cal.cards_path}: all {len(deck)} cards of {settings.edition} enrolled")


def journal(settings) -> Check:
    # sqlite3 and the table's state machine: only `dogtable doctor` loads them
    from companion.journal import JournalDamage, check_journal

    path = settings.journal_path()
    try:
        games = check_journal(path)
    except JournalDamage as exc:
        return Check("FAIL", "journal", f"{path}: {exc}",
                     "start the service: it moves the damaged file aside and restores the good part")
    except OSError as exc:
        return Check("FAIL", "journal", f"{path}: {exc}", "check the state folder's owner (the service's user)")
    folder = path.parent
    if not games:
        where = folder if folder.is_dir() else folder.parent
        return Check("ok", "journal", f"no journal yet at {path} (made at the first start)"
                     + ("" if where.is_dir() else f"; {where} does not exist either"))
    events = sum(len(g.events) for g in games.values())
    return Check("ok", "journal", f"{path}: {len(games)} game(s), {events} events, checked "
                                  "(header, integrity, hash chain, replay of the latest)")


def disk(settings) -> Check:
    folder = settings.journal_path().parent
    while not folder.exists():
        folder = folder.parent
    free = shutil.disk_usage(folder).free // (1024 * 1024)
    text = f"{free} MB free on the journal's file system ({folder})"
    if free < MIN_FREE_MB:
        return Check("FAIL", "disk", text, "free space: sudo apt clean; sudo journalctl --vacuum-size=50M")
    if free < LOW_FREE_MB:
        return Check("warn", "disk", text, "free some space soon: sudo apt clean")
    return Check("ok", "disk", text)


def clock(machine: Machine) -> Check:
    # a Pi has no battery clock: until NTP syncs, journal times and pairing expiry are wrong
    fix = "sudo systemctl enable --now systemd-timesyncd (and a network with an NTP server)"
    rc, out = machine.command(["timedatectl", "show", "-p", "NTPSynchronized", "--value"])
    if rc == 0 and out in ("yes", "no"):
        return Check("ok", "clock", "synchronised (NTP)") if out == "yes" else Check("warn", "clock", "not synchronised", fix)
    if Path("/run/systemd/timesync/synchronized").exists():
        return Check("ok", "clock", "synchronised (systemd-timesyncd)")
    return Check("warn", "clock", "cannot tell whether the clock is synchronised (no timedatectl answer)", fix)


def unit(machine: Machine) -> Check:
    path = machine.unit_dir / UNIT
    link = machine.unit_dir / "multi-user.target.wants" / UNIT
    if not path.is_file():
        return Check("FAIL", "unit", f"{UNIT} is not installed", "sudo ./scripts/install-pi.sh")
    if not machine.systemd:
        return Check("warn", "unit", f"{path} installed, {'enabled' if link.is_symlink() else 'not enabled'}; "
                                     "systemd is not running here, so it is not started", "boot the machine with systemd")
    rc, state = machine.command(["systemctl", "is-active", UNIT])
    rc_e, enabled = machine.command(["systemctl", "is-enabled", UNIT])
    if state != "active":
        return Check("FAIL", "unit", f"{UNIT} is {state or 'not running'} ({enabled})",
                     "journalctl -u dogtable -n 30 says why; sudo systemctl restart dogtable")
    if enabled != "enabled":
        return Check("warn", "unit", f"{UNIT} is active but {enabled}: it will not start at boot", "sudo systemctl enable dogtable")
    return Check("ok", "unit", f"{UNIT} active and enabled")
