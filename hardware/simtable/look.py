"""How the simulated table paints things: colours, card faces, skin tones (hardware/data/scene.toml).

Colours are [r, g, b] in the file (what a person writes) and BGR here (what OpenCV draws).
"""
from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from hardware.errors import DataFileError

BGR = tuple[int, int, int]
CARD_PATTERNS = ("plain", "stripes", "dots", "ring", "diamond", "band")


@dataclass(frozen=True)
class CardFace:
    colour: BGR
    label: str
    pattern: str


@dataclass(frozen=True)
class SceneLook:
    source: str
    seat_colours: dict[str, BGR]
    board: dict[str, BGR]
    tint: float
    dog_body: BGR
    dog_mark: BGR
    disc: dict[str, BGR]
    skin_tones: tuple[BGR, ...]
    cards: dict[str, CardFace]

    def seat_bgr(self, name: str) -> BGR:
        try:
            return self.seat_colours[name]
        except KeyError:
            raise DataFileError(
                f"{self.source}: [seat_colours] has no colour '{name}' (add {name} = [r, g, b])"
            ) from None


def _colour(value: Any, where: str) -> BGR:
    if (
        not isinstance(value, list)
        or len(value) != 3
        or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 255 for v in value)
    ):
        raise DataFileError(f"{where} must be a colour [r, g, b] with whole numbers 0-255, not {value!r}")
    r, g, b = value
    return (b, g, r)


def _table(data: dict[str, Any], key: str, source: str) -> dict[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict):
        raise DataFileError(f"{source}: table [{key}] is missing")
    return value


def parse_look(data: dict[str, Any], source: str) -> SceneLook:
    seats = {k: _colour(v, f"{source}: seat_colours.{k}") for k, v in _table(data, "seat_colours", source).items()}
    board_t = _table(data, "board", source)
    board: dict[str, BGR] = {}
    for key in ("base", "path", "edge", "hole_inner", "hole_rim", "special", "centre", "discard_line", "table"):
        if key not in board_t:
            raise DataFileError(f"{source}: board.{key} is missing")
        board[key] = _colour(board_t[key], f"{source}: board.{key}")
    tint = board_t.get("tint", 0.4)
    if not isinstance(tint, (int, float)) or isinstance(tint, bool) or not 0 <= tint <= 1:
        raise DataFileError(f"{source}: board.tint must be a number between 0 and 1")
    dog_t = _table(data, "black_dog", source)
    disc_t = _table(data, "disc", source)
    disc = {}
    for key in ("body", "rim", "white_paw", "black_paw", "index"):
        if key not in disc_t:
            raise DataFileError(f"{source}: disc.{key} is missing")
        disc[key] = _colour(disc_t[key], f"{source}: disc.{key}")
    tones = _table(data, "skin", source).get("tones")
    if not isinstance(tones, list) or not tones:
        raise DataFileError(f"{source}: skin.tones must be a non-empty list of colours")
    cards: dict[str, CardFace] = {}
    for card, t in _table(data, "cards", source).items():
        where = f"{source}: cards.\"{card}\""
        if not isinstance(t, dict):
            raise DataFileError(f"{where} must be a table with colour, label and pattern")
        label = t.get("label")
        if not isinstance(label, str) or not label:
            raise DataFileError(f"{where}.label must be a non-empty string")
        pattern = t.get("pattern", "plain")
        if pattern not in CARD_PATTERNS:
            raise DataFileError(f"{where}.pattern must be one of {', '.join(CARD_PATTERNS)}, not {pattern!r}")
        cards[card] = CardFace(_colour(t.get("colour"), f"{where}.colour"), label, pattern)
    return SceneLook(
        source=source,
        seat_colours=seats,
        board=board,
        tint=float(tint),
        dog_body=_colour(dog_t.get("body"), f"{source}: black_dog.body"),
        dog_mark=_colour(dog_t.get("mark"), f"{source}: black_dog.mark"),
        disc=disc,
        skin_tones=tuple(_colour(c, f"{source}: skin.tones[{i}]") for i, c in enumerate(tones)),
        cards=cards,
    )


@functools.lru_cache(maxsize=8)
def load_look(path: str | None = None) -> SceneLook:
    """The packaged look (path None) or a user's own scene file."""
    if path is None:
        source = "hardware/data/scene.toml"
        resource = resources.files("hardware") / "data" / "scene.toml"
        try:
            with resource.open("rb") as fh:
                data = tomllib.load(fh)
        except FileNotFoundError:
            raise DataFileError(f"{source} is missing; reinstall dogtable") from None
        except tomllib.TOMLDecodeError as exc:
            raise DataFileError(f"{source} is not valid TOML: {exc}") from None
    else:
        source = str(path)
        try:
            with Path(path).open("rb") as fh:
                data = tomllib.load(fh)
        except OSError as exc:
            raise DataFileError(f"cannot read scene file {path}: {exc.strerror}") from None
        except tomllib.TOMLDecodeError as exc:
            raise DataFileError(f"{source} is not valid TOML: {exc}") from None
    return parse_look(data, source)
