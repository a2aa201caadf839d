"""Calibration pictures taken by the table itself: its camera, with its own LED rings lit.

Vision calibrates from the empty board and the start position; on boards with pale pieces
(white on the cream 6-segment board) it also needs the empty board with LED rings lit
(`vision.calibration.learn_glow`), because a ring's light changes a field's look as much
as a white piece does. Only the table can take those pictures: it lights a few far-apart
rings at a time (`glow_groups`) in every colour the service lights them in (`ROLE_LIGHTS`,
the colour `TableDevices.lit_fields` hands to vision), takes a picture of each, and
switches the rings off again.

`take_shots` works on any camera source and `LedRings`, so the simulated camera and strip
(`hardware.factory.open_devices(..., simulate=True)`) run the same code as the real ones.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import engine
from hardware.leds import ROLE_LIGHTS, Light, LedRings
from vision.calibration import glow_groups

RGB = tuple[int, int, int]
LitFrame = tuple[Any, dict[str, RGB]]  # (BGR picture, field -> LED colour as the service names it)

# A frame may already be on its way (or exposed) when the LEDs change: drop it, as the
# service does when it blanks the LEDs (`TableDevices._read_dark`).
STALE_FRAMES = 1
# The empty board and the start position are each taken as this many consecutive frames of the
# still board: calibration learns the empty board from their mean and each seat's colour from
# the median of the frames' readings (vision.calibration `calibrate`). Under a dim lamp one
# frame's reading of a dark piece swings far (a black pawn's blue-green from 0.23 to 1.17 from
# frame to frame on the photo scene), and a colour learned from one frame can lie as near another
# seat's as its own. The photo benchmark calibrates from as many (its CAL_FRAMES).
STILL_SHOTS = 3


@dataclass(frozen=True)
class Shots:
    """What `vision.calibration.calibrate` takes: empty board (STILL_SHOTS frames), lit rings over it,
    start position (STILL_SHOTS frames)."""

    empty: tuple[Any, ...]
    lit_frames: tuple[LitFrame, ...]
    start: tuple[Any, ...] | None


def fresh_frame(camera: Any) -> Any:
    """A picture taken after the scene changed (LEDs, a person arranging pieces)."""
    for _ in range(STALE_FRAMES):
        camera.read()
    return camera.read()


def still_frames(camera: Any) -> tuple[Any, ...]:
    """STILL_SHOTS consecutive pictures of a scene that has just been set out and stands still."""
    first = fresh_frame(camera)
    return (first, *(camera.read() for _ in range(STILL_SHOTS - 1)))


def service_colours() -> tuple[RGB, ...]:
    """Every LED colour the service lights fields in, once each."""
    return tuple(dict.fromkeys(light.colour for light in ROLE_LIGHTS.values()))


def ring_groups(rings: LedRings, segments: int, colour: RGB) -> list[tuple[str, ...]]:
    """`glow_groups` over the fields that have a ring, split until the power budget does not dim them.

    A group dimmed by the budget would teach vision a fainter glow than the service's few
    lit rings give. Trying a group lights it for an instant; `take_lit_frames` switches
    everything off at the end.
    """
    centres = engine.load_geometry(segments).centres
    ringed = [f for f in rings.ledmap.fields if f in centres]
    out: list[tuple[str, ...]] = []
    todo = list(glow_groups(segments, fields=ringed))
    while todo:
        group = todo.pop(0)
        rings.show({f: Light(colour) for f in group})
        if rings.last_scale < 1.0 and len(group) > 1:
            half = len(group) // 2
            todo[:0] = [group[:half], group[half:]]  # a part of a far-apart group stays far apart
        else:
            out.append(group)
    return out


def unringed_frames(empty: Any, segments: int, rings: LedRings, colours: Sequence[RGB]) -> list[LitFrame]:
    """The "lit" look of fields without a ring (kennel spots, usually): the empty board itself.

    `learn_glow` keeps a colour only if every field of the board was lit in it. The service
    never lights a field without a ring, so its lit look is never used; the empty picture
    fills it in, once in each colour.
    """
    ringed = set(rings.ledmap.fields)
    dark = [f for f in engine.load_geometry(segments).centres if f not in ringed]
    if not dark:
        return []
    n = len(colours)
    return [(empty, {f: colours[(i + k) % n] for i, f in enumerate(dark)}) for k in range(n)]


def take_lit_frames(camera: Any, rings: LedRings, segments: int, empty: Any,
                    progress: Callable[[int, int], None] | None = None) -> list[LitFrame]:
    """The empty board with the rings lit group by group, in each service colour; LEDs off after."""
    colours = service_colours()
    try:
        plan = [(colour, group) for colour in colours for group in ring_groups(rings, segments, colour)]
        rings.clear()
        out: list[LitFrame] = []
        for done, (colour, group) in enumerate(plan):
            if progress is not None:
                progress(done, len(plan))
            rings.show({f: Light(colour) for f in group})
            out.append((fresh_frame(camera), {f: colour for f in group}))
        if progress is not None:
            progress(len(plan), len(plan))
    finally:
        rings.clear()
    return out + unringed_frames(empty, segments, rings, colours)


def take_shots(camera: Any, rings: LedRings | None, segments: int, arrange: Callable[[str], None],
               start: bool = True, progress: Callable[[int, int], None] | None = None) -> Shots:
    """Empty board, lit rings (if `rings`), then the start position (if `start`).

    `arrange("empty")` / `arrange("start")` is called before each picture: a person is
    asked to clear the board or set the pieces out (the simulated table does it itself).
    The lit pictures come right after the empty one, while the board is still empty.
    """
    if rings is not None:
        rings.clear()  # the empty-board picture shows the board, not the service's last lights
    arrange("empty")
    empty = still_frames(camera)
    lit = take_lit_frames(camera, rings, segments, empty[0], progress) if rings is not None else []
    start_frames = None
    if start:
        arrange("start")
        start_frames = still_frames(camera)
    return Shots(empty, tuple(lit), start_frames)
