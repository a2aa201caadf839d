"""The LED map: which LEDs of the strip sit in the ring under each field.

A file (TOML or JSON) maps field ids (see engine.geometry) to LED indices:

    # ledmap.toml
    T0 = [0, 1, 2, 3, 4, 5, 6, 7]
    T1 = { first = 8, count = 8 }

Field order in the file is the field's *index* on the bridge (the MCU knows rings by index).
"""
from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import engine
from hardware.errors import DataFileError

_FIELD = re.compile(r"^(T\d+|S\d+[HK]\d+)$")


@dataclass(frozen=True)
class LedMap:
    rings: dict[str, tuple[int, ...]]  # field id -> LED indices, in file order
    source: str = "generated"

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(self.rings)

    @property
    def count(self) -> int:
        """LEDs the map uses (highest index + 1)."""
        return max((i for leds in self.rings.values() for i in leds), default=-1) + 1

    def index_of(self, field_id: str) -> int:
        try:
            return self.fields.index(field_id)
        except ValueError:
            raise KeyError(f"field {field_id} has no LED ring in {self.source}") from None

    @classmethod
    def generated(cls, segments: int = 4, leds_per_ring: int = 8, home_slots: int = 4,
                  kennel_spots: int = 0, board_kind: str = "standard") -> LedMap:
        """Rings chained in engine order: track T0.., then each seat's home (and kennel) spots."""
        board = engine.load_board(board_kind, segments)
        ids = board.field_ids(home_slots, kennel_spots)
        return cls({f: tuple(range(k * leds_per_ring, (k + 1) * leds_per_ring)) for k, f in enumerate(ids)},
                   f"generated ({leds_per_ring} LEDs per ring, {len(ids)} rings)")

    @classmethod
    def load(cls, path: str | Path) -> LedMap:
        p = Path(path)
        try:
            text = p.read_bytes()
        except OSError as exc:
            raise DataFileError(f"cannot read LED map {p}: {exc.strerror}") from None
        try:
            data = json.loads(text) if p.suffix == ".json" else tomllib.loads(text.decode())
        except (json.JSONDecodeError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise DataFileError(f"LED map {p} is not valid {'JSON' if p.suffix == '.json' else 'TOML'}: {exc}") from None
        return cls.parse(data, str(p))

    @classmethod
    def parse(cls, data: Any, source: str) -> LedMap:
        if not isinstance(data, dict) or not data:
            raise DataFileError(f"{source}: an LED map is a table of field id = [LED indices]")
        rings: dict[str, tuple[int, ...]] = {}
        owner: dict[int, str] = {}
        for field_id, value in data.items():
            where = f"{source}: {field_id}"
            if not _FIELD.match(field_id):
                raise DataFileError(f"{where}: '{field_id}' is not a field id (T<i>, S<seat>H<j>, S<seat>K<j>)")
            if isinstance(value, dict):
                first, count = value.get("first"), value.get("count")
                if not all(isinstance(v, int) and not isinstance(v, bool) for v in (first, count)) or count < 1 or first < 0:
                    raise DataFileError(f"{where}: use {{ first = <index>, count = <LEDs> }} with whole numbers")
                leds = tuple(range(first, first + count))
            elif isinstance(value, list) and value and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                                           for v in value):
                leds = tuple(value)
            else:
                raise DataFileError(f"{where}: must be a list of LED indices (whole numbers >= 0) or {{ first, count }}")
            for i in leds:
                if i in owner:
                    raise DataFileError(f"{where}: LED {i} is already in the ring of {owner[i]}")
                owner[i] = field_id
            rings[field_id] = leds
        return cls(rings, source)
