"""Where each field of a printed board lies, in millimetres (for the camera and the renderer).

Field ids used by vision, LEDs and the renderer:
- `T<i>` track field i (as in the position notation),
- `S<s>H<j>` home slot j of seat s,
- `S<s>K<j>` kennel spot j of seat s (kennel pieces have no field of their own in the rules;
  the spots just tell a camera where to look).
Origin at the board centre, x to the right, y towards seat 0's side.
"""
from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from engine.errors import DataError

Point = tuple[float, float]
_FIELD_RE = re.compile(r"^(?:T(\d+)|S(\d+)([HK])(\d+))$")


@dataclass(frozen=True)
class BoardGeometry:
    segments: int
    size: Point
    field_radius: float
    centres: dict[str, Point]
    markers: dict[int, tuple[Point, float]]  # id -> (centre, side length)
    discard_centre: Point
    discard_size: Point
    centre_radius: float
    disc_radius: float

    def centre(self, field_id: str) -> Point:
        try:
            return self.centres[field_id]
        except KeyError:
            raise DataError(f"field '{field_id}' does not exist on the {self.segments}-segment board") from None


def parse_field_id(field_id: str) -> tuple[str, int, int]:
    """'T12' -> ('T', -1, 12); 'S2H1' -> ('H', 2, 1); 'S0K3' -> ('K', 0, 3)."""
    m = _FIELD_RE.match(field_id)
    if not m:
        raise DataError(f"'{field_id}' is not a field id (expected T<i>, S<seat>H<i> or S<seat>K<i>)")
    if m.group(1) is not None:
        return ("T", -1, int(m.group(1)))
    return (m.group(3), int(m.group(2)), int(m.group(4)))


def _point(value: object, where: str) -> Point:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
    ):
        raise DataError(f"{where} must be a pair of numbers [x, y] in millimetres")
    return (float(value[0]), float(value[1]))


def parse_geometry(data: dict, source: str) -> BoardGeometry:
    try:
        segments = int(data["segments"])
        track = data["track"]
        if len(track) != segments * 16:
            raise DataError(f"{source}: 'track' has {len(track)} fields, expected {segments * 16}")
        centres: dict[str, Point] = {f"T{i}": _point(p, f"{source}: track[{i}]") for i, p in enumerate(track)}
        for key, table in (("H", data["homes"]), ("K", data["kennels"])):
            for seat in range(segments):
                spots = table.get(str(seat))
                if not isinstance(spots, list):
                    raise DataError(f"{source}: '{'homes' if key == 'H' else 'kennels'}' has no list for seat {seat}")
                for j, p in enumerate(spots):
                    centres[f"S{seat}{key}{j}"] = _point(p, f"{source}: seat {seat} {key}{j}")
        markers = {}
        for mid, m in data["markers"].items():
            markers[int(mid)] = (_point(m["center"], f"{source}: marker {mid} center"), float(m["size"]))
        if sorted(markers) != [0, 1, 2, 3]:
            raise DataError(f"{source}: 'markers' must define ids 0, 1, 2 and 3")
        return BoardGeometry(
            segments=segments,
            size=_point(data["size"], f"{source}: size"),
            field_radius=float(data["field_radius"]),
            centres=centres,
            markers=markers,
            discard_centre=_point(data["discard"]["center"], f"{source}: discard center"),
            discard_size=_point(data["discard"]["size"], f"{source}: discard size"),
            centre_radius=float(data.get("centre_radius", 0.0)),
            disc_radius=float(data.get("disc_radius", 0.0)),
        )
    except KeyError as exc:
        raise DataError(f"{source}: key {exc} is missing") from None
    except (TypeError, ValueError, AttributeError) as exc:
        if isinstance(exc, DataError):
            raise
        raise DataError(f"{source}: {exc}") from None


@functools.cache
def load_geometry(segments: int) -> BoardGeometry:
    """The packaged geometry for a board of 4 or 6 segments."""
    name = f"board-{segments}.json"
    path = resources.files("engine") / "data" / "geometry" / name
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise DataError(f"no geometry for a board of {segments} segments (engine/data/geometry/{name})") from None
    except json.JSONDecodeError as exc:
        raise DataError(f"engine/data/geometry/{name} is not valid JSON: {exc}") from None
    return parse_geometry(data, f"engine/data/geometry/{name}")


def load_geometry_file(path: str | Path) -> BoardGeometry:
    """A user's own geometry file (same format as the packaged ones)."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as exc:
        raise DataError(f"cannot read geometry file {path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise DataError(f"geometry file {path} is not valid JSON: {exc}") from None
    return parse_geometry(data, str(path))
