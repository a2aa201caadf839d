"""The configuration: defaults, then the system file, then the user's; validated into values.

Files, merged key by key (later wins):
1. `companion/data/default-config.toml` (packaged),
2. `/etc/dogtable/config.toml`,
3. `$DOGTABLE_CONFIG` if set, else `$XDG_CONFIG_HOME/dogtable/config.toml`
   (`~/.config/dogtable/config.toml`).

Every problem names the file that set the key, the key and what is wrong, and all of them
are collected before reporting. A room adds its own section with `register_section`:

    register_section("web", WebSettings, check=_check_web)
"""
from __future__ import annotations

import dataclasses
import math
import os
import tomllib
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from companion.errors import UserError
from companion.sections import RemoteSettings, ServiceSettings, WebSettings, check_remote, check_service, check_web
from hardware.errors import DataFileError
from hardware.ledmap import LedMap
from hardware.settings import (
    BUTTON_NAMES,
    CAMERA_BACKENDS,
    INPUT_BACKENDS,
    LED_BACKENDS,
    WS281X_PINS,
    BridgeSettings,
    ButtonSettings,
    CameraSettings,
    EncoderSettings,
    HardwareSettings,
    LedSettings,
    TableSettings,
)

DEFAULT_SOURCE = "companion/data/default-config.toml"
SYSTEM_PATH = Path("/etc/dogtable/config.toml")
EDITIONS = ("classic", "compact", "royal-basic", "royal", "black", "brandi")
MAX_GPIO = 27


@dataclass(frozen=True)
class Problem:
    file: str
    key: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.key}: {self.message}"


class ConfigError(UserError):
    """One or more problems; str() is a one-line summary, `problems` has each."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        first = str(problems[0]) if problems else "invalid configuration"
        more = f" (and {len(problems) - 1} more; run `dogtable config check`)" if len(problems) > 1 else ""
        super().__init__(first + more)


@dataclass(frozen=True)
class Config:
    sections: Mapping[str, Any]
    files: tuple[str, ...]  # the files that were read, in order

    def section(self, name: str) -> Any:
        return self.sections[name]

    @property
    def hardware(self) -> HardwareSettings:
        return HardwareSettings(**{k: self.sections[k] for k in ("leds", "encoder", "buttons", "camera", "bridge", "table")})


# --- section registry ----------------------------------------------------------------
class Checker:
    """Handed to a section's check function: report problems against keys of that section."""

    def __init__(self, section: str, origin: Callable[[str], str], problems: list[Problem]) -> None:
        self.section = section
        self._origin = origin
        self._problems = problems

    def problem(self, key: str, message: str) -> None:
        dotted = f"{self.section}.{key}"
        self._problems.append(Problem(self._origin(dotted), dotted, message))


@dataclass(frozen=True)
class SectionSpec:
    cls: type
    check: Callable[[Any, Checker], None] | None = None


def _check_leds(s: LedSettings, c: Checker) -> None:
    if s.backend not in LED_BACKENDS:
        c.problem("backend", f"{s.backend!r} is not a backend (choose {', '.join(LED_BACKENDS)})")
    if s.backend == "ws281x" and s.pin not in WS281X_PINS:
        others = ", ".join(str(p) for p in WS281X_PINS)
        c.problem("pin", f"GPIO{s.pin} cannot drive WS281x LEDs (use 18 for PWM or 10 for SPI; possible: {others})")
    if not 0 <= s.brightness <= 1:
        c.problem("brightness", f"{s.brightness} is outside 0..1")
    if s.max_current_ma <= 0:
        c.problem("max_current_ma", "must be more than 0")
    if not 1 <= s.leds_per_ring <= 64:
        c.problem("leds_per_ring", f"{s.leds_per_ring} is outside 1..64")
    if s.count < 0:
        c.problem("count", "must be 0 (as the map says) or the number of LEDs")
    if s.ma_per_channel <= 0 or s.idle_ma_per_led < 0:
        c.problem("ma_per_channel", "currents must be positive")
    if s.order.upper() not in ("RGB", "RBG", "GRB", "GBR", "BRG", "BGR"):
        c.problem("order", f"{s.order!r} is not a colour order like GRB")
    if s.map:
        try:
            ledmap = LedMap.load(s.map)
        except DataFileError as exc:
            c.problem("map", str(exc))
        else:
            if s.count and ledmap.count > s.count:
                c.problem("count", f"the LED map {s.map} uses {ledmap.count} LEDs but count is {s.count}")
    if s.max_current_ma and s.count and s.count * s.idle_ma_per_led >= s.max_current_ma:
        c.problem("max_current_ma", f"{s.max_current_ma} mA does not even cover {s.count} idle LEDs")


def _pin(c: Checker, key: str, value: int) -> None:
    if not 0 <= value <= MAX_GPIO:
        c.problem(key, f"GPIO{value} does not exist on the 40-pin header (0..{MAX_GPIO})")


def _check_encoder(s: EncoderSettings, c: Checker) -> None:
    if s.backend not in INPUT_BACKENDS:
        c.problem("backend", f"{s.backend!r} is not a backend (choose {', '.join(INPUT_BACKENDS)})")
    _pin(c, "pin_a", s.pin_a)
    _pin(c, "pin_b", s.pin_b)
    if s.pin_a == s.pin_b:
        c.problem("pin_b", "pin_a and pin_b must be different pins")
    if s.steps_per_quarter < 1:
        c.problem("steps_per_quarter", "must be at least 1")
    if s.settle_s <= 0:
        c.problem("settle_s", "must be more than 0 seconds")
    if s.bounce_ms < 0:
        c.problem("bounce_ms", "must be 0 or more")


def _check_buttons(s: ButtonSettings, c: Checker) -> None:
    if s.backend not in INPUT_BACKENDS:
        c.problem("backend", f"{s.backend!r} is not a backend (choose {', '.join(INPUT_BACKENDS)})")
    for table, key in ((s.pins, "pins"), (s.bridge_index, "bridge_index")):
        for name in table:
            if name not in BUTTON_NAMES:
                c.problem(f"{key}.{name}", f"unknown button (buttons: {', '.join(BUTTON_NAMES)})")
    for name, pin in s.pins.items():
        _pin(c, f"pins.{name}", pin)
    taken: dict[int, str] = {}
    for name, index in s.bridge_index.items():
        if not 0 <= index <= 255:  # a u8 in the BUTTON message (docs/protocol.md)
            c.problem(f"bridge_index.{name}", f"{index} is outside 0..255")
        elif index in taken:
            c.problem(f"bridge_index.{name}", f"index {index} is already the {taken[index]} button")
        taken.setdefault(index, name)
    seen: dict[int, str] = {}
    for name, pin in s.pins.items():
        if pin in seen:
            c.problem(f"pins.{name}", f"GPIO{pin} is already the {seen[pin]} button")
        seen[pin] = name
    if s.bounce_ms < 0 or s.hold_s <= 0:
        c.problem("bounce_ms", "bounce_ms must be 0 or more and hold_s more than 0")


def _check_camera(s: CameraSettings, c: Checker) -> None:
    if s.backend not in CAMERA_BACKENDS:
        c.problem("backend", f"{s.backend!r} is not a backend (choose {', '.join(CAMERA_BACKENDS)})")
    if s.width <= 0 or s.height <= 0:
        c.problem("width", "width and height must be more than 0")
    if s.fps <= 0:
        c.problem("fps", "must be more than 0")
    for key in ("exposure", "white_balance"):
        value = getattr(s, key)
        if value not in ("auto", "lock") and not value.isdigit():
            c.problem(key, f"{value!r} must be \"auto\", \"lock\" or a whole number")
    if s.backend == "file":
        if not s.path:
            c.problem("path", "backend \"file\" needs path = \"<image or video>\"")
        elif not Path(s.path).exists():
            c.problem("path", f"no such file: {s.path}")


def _check_bridge(s: BridgeSettings, c: Checker) -> None:
    if not s.port:
        c.problem("port", "must name the serial port, e.g. /dev/ttyACM0")
    if s.baudrate <= 0:
        c.problem("baudrate", "must be more than 0")
    if s.connect_timeout_s <= 0:
        c.problem("connect_timeout_s", "must be more than 0 seconds")


def _check_table(s: TableSettings, c: Checker) -> None:
    if s.segments not in (4, 6):
        c.problem("segments", f"{s.segments} is not a board (4 or 6 segments)")
    if s.edition not in EDITIONS:
        c.problem("edition", f"{s.edition!r} is not an edition (choose {', '.join(EDITIONS)})")
    if s.edition == "black" and s.segments != 4:
        c.problem("segments", "Black DOG exists only on the 4-segment board")
    if s.seed < 0:
        c.problem("seed", "must be 0 or more")


SECTIONS: dict[str, SectionSpec] = {
    "table": SectionSpec(TableSettings, _check_table),
    "leds": SectionSpec(LedSettings, _check_leds),
    "encoder": SectionSpec(EncoderSettings, _check_encoder),
    "buttons": SectionSpec(ButtonSettings, _check_buttons),
    "camera": SectionSpec(CameraSettings, _check_camera),
    "bridge": SectionSpec(BridgeSettings, _check_bridge),
    # The service's own sections are built in too: `config check` must know them without
    # anyone having imported the service first.
    "service": SectionSpec(ServiceSettings, check_service),
    "web": SectionSpec(WebSettings, check_web),
    "remote": SectionSpec(RemoteSettings, check_remote),
}


def register_section(name: str, cls: type, check: Callable[[Any, Checker], None] | None = None) -> None:
    """Add a section: `cls` a frozen dataclass whose field defaults are the fallback values."""
    SECTIONS[name] = SectionSpec(cls, check)


# --- loading -------------------------------------------------------------------------
def user_path() -> Path:
    env = os.environ.get("DOGTABLE_CONFIG")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "dogtable" / "config.toml"


def search_paths() -> list[Path]:
    return [SYSTEM_PATH, user_path()]


def _read_default() -> dict[str, Any]:
    with (resources.files("companion") / "data" / "default-config.toml").open("rb") as fh:
        return tomllib.load(fh)


def _merge(base: dict[str, Any], over: dict[str, Any], origin: dict[str, str], source: str, prefix: str = "") -> None:
    for key, value in over.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value, origin, source, dotted + ".")
        else:
            base[key] = value
            _mark(value, origin, source, dotted)


def _mark(value: Any, origin: dict[str, str], source: str, dotted: str) -> None:
    origin[dotted] = source
    if isinstance(value, dict):
        for k, v in value.items():
            _mark(v, origin, source, f"{dotted}.{k}")


def load_config(paths: list[Path] | None = None) -> Config:
    """Load and validate; raise ConfigError with every problem found."""
    problems: list[Problem] = []
    merged: dict[str, Any] = {}
    origin: dict[str, str] = {}
    _merge(merged, _read_default(), origin, DEFAULT_SOURCE)
    files = [DEFAULT_SOURCE]
    for path in search_paths() if paths is None else paths:
        try:
            with open(path, "rb") as fh:
                raw = fh.read()
            if b"\x00" in raw:
                problems.append(Problem(str(path), "(file)", "is not a text file (it holds NUL bytes: binary, "
                                                               "or saved as UTF-16); save it as UTF-8 TOML"))
                continue
            data = tomllib.loads(raw.decode("utf-8"))
        except FileNotFoundError:
            if paths is not None:  # a file the user named must exist; the default places may be empty
                problems.append(Problem(str(path), "(file)", "does not exist (check the name and the folder)"))
            continue
        except UnicodeDecodeError as exc:
            problems.append(Problem(str(path), "(file)", f"is not UTF-8 text (byte {exc.start}); save it as UTF-8 TOML"))
            continue
        except RecursionError:
            problems.append(Problem(str(path), "(file)", "is nested too deeply to be a configuration"))
            continue
        except PermissionError:
            problems.append(Problem(str(path), "(file)", "cannot be read: permission denied"))
            continue
        except IsADirectoryError:
            problems.append(Problem(str(path), "(file)", "is a directory, not a TOML file"))
            continue
        except tomllib.TOMLDecodeError as exc:
            problems.append(Problem(str(path), "(file)", f"is not valid TOML: {exc}"))
            continue
        files.append(str(path))
        _merge(merged, data, origin, str(path))
    sections = validate(merged, lambda key: _origin_of(origin, key), problems)
    if problems:
        raise ConfigError(problems)
    return Config(sections, tuple(files))


def _origin_of(origin: dict[str, str], dotted: str) -> str:
    while dotted:
        if dotted in origin:
            return origin[dotted]
        dotted = dotted.rpartition(".")[0]
    return DEFAULT_SOURCE


def validate(merged: Mapping[str, Any], origin: Callable[[str], str], problems: list[Problem]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in merged:
        if name not in SECTIONS:
            problems.append(Problem(origin(name), name, f"unknown section (known: {', '.join(SECTIONS)})"))
    for name, spec in SECTIONS.items():
        table = merged.get(name, {})
        if not isinstance(table, dict):
            problems.append(Problem(origin(name), name, "must be a table ([" + name + "])"))
            table = {}
        # Keys of the wrong type were left at their defaults, so the check can still run
        # and report the section's other mistakes in the same pass.
        value = _build(spec.cls, table, name, origin, problems)
        if spec.check is not None:
            spec.check(value, Checker(name, origin, problems))
        out[name] = value
    _cross_checks(out, origin, problems)
    return out


_TYPE_NAMES = {bool: "true or false", int: "a whole number", float: "a number", str: "a string"}


def _build(cls: type, table: Mapping[str, Any], section: str, origin: Callable[[str], str],
           problems: list[Problem]) -> Any:
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    values: dict[str, Any] = {}
    for key, value in table.items():
        dotted = f"{section}.{key}"
        if key not in fields:
            problems.append(Problem(origin(dotted), dotted, f"unknown key (known: {', '.join(fields)})"))
            continue
        ok, converted, why = _convert(value, hints[key])
        if not ok:
            problems.append(Problem(origin(dotted), dotted, why))
            continue
        values[key] = converted
    return cls(**values)


def _convert(value: Any, hint: Any) -> tuple[bool, Any, str]:
    origin_t = typing.get_origin(hint)
    if origin_t is dict:
        key_t, val_t = typing.get_args(hint)
        if not isinstance(value, dict):
            return False, None, "must be a table of name = value"
        out = {}
        for k, v in value.items():
            ok, conv, why = _convert(v, val_t)
            if not ok:
                return False, None, f"{k}: {why}"
            out[k] = conv
        return True, out, ""
    if origin_t in (tuple, list):
        args = typing.get_args(hint)
        item_t = args[0] if args else Any
        if not isinstance(value, list):
            return False, None, "must be a list [ ... ]"
        items = []
        for i, v in enumerate(value):
            ok, conv, why = _convert(v, item_t)
            if not ok:
                return False, None, f"item {i}: {why}"
            items.append(conv)
        return True, (tuple(items) if origin_t is tuple else items), ""
    if origin_t in (typing.Union, types.UnionType):
        for arg in typing.get_args(hint):
            ok, conv, _ = _convert(value, arg)
            if ok:
                return True, conv, ""
        return False, None, f"has the wrong type ({type(value).__name__})"
    if hint is bool:
        return (True, value, "") if isinstance(value, bool) else (False, None, f"must be {_TYPE_NAMES[bool]}, not {value!r}")
    if hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return True, value, ""
        return False, None, f"must be {_TYPE_NAMES[int]}, not {value!r}"
    if hint is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if not math.isfinite(value):
                return False, None, f"must be a finite number, not {value!r}"
            return True, float(value), ""
        return False, None, f"must be {_TYPE_NAMES[float]}, not {value!r}"
    if hint is str:
        # Numbers are accepted where a string may hold one ("8000" or 8000 for an exposure).
        if isinstance(value, str):
            if "\x00" in value:
                return False, None, "must not hold a NUL character (\\u0000)"
            return True, value, ""
        if isinstance(value, int) and not isinstance(value, bool):
            return True, str(value), ""
        return False, None, f"must be {_TYPE_NAMES[str]}, not {value!r}"
    return True, value, ""


def _cross_checks(out: dict[str, Any], origin: Callable[[str], str], problems: list[Problem]) -> None:
    """Pins shared between devices wired to the Pi's header."""
    users: dict[int, str] = {}

    def claim(pin: int, key: str) -> None:
        if pin in users:
            problems.append(Problem(origin(key), key, f"GPIO{pin} is also used by {users[pin]}"))
        else:
            users[pin] = key

    leds, enc, btn = out.get("leds"), out.get("encoder"), out.get("buttons")
    if isinstance(leds, LedSettings) and leds.backend == "ws281x":
        claim(leds.pin, "leds.pin")
    if isinstance(enc, EncoderSettings) and enc.backend == "gpio":
        claim(enc.pin_a, "encoder.pin_a")
        claim(enc.pin_b, "encoder.pin_b")
    if isinstance(btn, ButtonSettings) and btn.backend == "gpio":
        for name, pin in btn.pins.items():
            key = f"buttons.pins.{name}"
            # Two buttons on one pin are reported by the buttons check; here only other devices.
            if pin in users and not users[pin].startswith("buttons."):
                problems.append(Problem(origin(key), key, f"GPIO{pin} is also used by {users[pin]}"))
            users.setdefault(pin, key)
